"""A ladder's tick rates each of its finished matches exactly once (docs/architecture.md,
decision 6: nothing lost, nothing counted twice), whatever order their finishes committed in."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.store_fixtures import finished_match, make_bots
from worker.store import Store
from worker.store.competitions import ScheduledMatch
from worker.store.ladders import TickPlan

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"


class Planner:
    """A tick's plan that queues the tables it is given once and records every result
    the ticks hand it."""

    def __init__(self, tables: list[tuple[int, ...]]) -> None:
        self.tables = tables
        self.rated: Counter[int] = Counter()

    def __call__(self, ladder: Any, pool: Any, results: Any, flight: int) -> TickPlan:
        self.rated.update(r.match_id for r in results)
        tables, self.tables = self.tables, []
        return TickPlan(
            ratings={}, played={}, matches=[ScheduledMatch(t, 7 + i) for i, t in enumerate(tables)]
        )


def _finish(store: Store, match_id: int) -> None:
    claimed = store.claim_match(f"w{match_id}", match_id=match_id)
    assert claimed is not None and claimed.id == match_id
    assert store.finish_match(match_id, f"w{match_id}", finished_match(GAME, [0, 1], [10, 0]))


def test_a_finish_that_commits_after_a_later_numbered_one_is_still_rated(store: Store) -> None:
    """Two finishes of matches with no bot in common are not ordered by any lock: the one
    that drew the lower completion number (finish_seq) may commit last, after a tick has
    read the other. Emulated here by giving the late one a number below the one read."""
    a, b, c, d = make_bots(store, 4)
    ladder = store.start_ladder(GAME, "ladder", {"options": {"max_hands": 1}})
    planner = Planner([(a, b), (c, d)])
    early, late = store.tick_ladder(ladder.id, planner)
    _finish(store, late)
    store.tick_ladder(ladder.id, planner)  # reads the late match's finish
    _finish(store, early)
    with store.pool.connection() as conn:  # as if it had drawn its number first
        conn.execute("UPDATE matches SET finish_seq = 0 WHERE id = %s", (early,))
    store.tick_ladder(ladder.id, planner)
    store.tick_ladder(ladder.id, planner)
    assert planner.rated == {early: 1, late: 1}


def test_every_finished_match_is_rated_once_over_many_ticks(store: Store) -> None:
    versions = make_bots(store, 6)
    ladder = store.start_ladder(GAME, "ladder", {"options": {"max_hands": 1}})
    tables = [(versions[i], versions[(i + 1) % 6]) for i in range(6)]
    planner = Planner(tables)
    ids = store.tick_ladder(ladder.id, planner)
    for match_id in ids:
        _finish(store, match_id)
        store.tick_ladder(ladder.id, planner)
    store.tick_ladder(ladder.id, planner)
    assert planner.rated == dict.fromkeys(ids, 1)


def _counted(store: Store, ladder_id: int) -> dict[str, int]:
    """The ladder's matches by state, counted the plain way."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT state, count(*) FROM matches WHERE ladder_id = %s GROUP BY state",
            (ladder_id,),
        ).fetchall()
    return {str(state): int(n) for state, n in rows}


def test_a_tick_rates_a_bounded_batch_and_the_next_the_rest_in_order(
    store: Store, monkeypatch: Any
) -> None:
    """A tick rates at most ``TICK_RATES`` finished matches, the oldest first; those it
    left are the next tick's. The ladder's progress, which counts the rated ones as they
    are marked (migration 0016), agrees with a plain count after every tick."""
    from worker.store import ladders

    monkeypatch.setattr(ladders, "TICK_RATES", 3)
    versions = make_bots(store, 10)
    ladder = store.start_ladder(GAME, "ladder", {"options": {"max_hands": 1}})
    planner = Planner([(versions[i], versions[i + 1]) for i in range(0, 10, 2)])
    ids = store.tick_ladder(ladder.id, planner)
    assert store.ladder_progress(ladder.id)["queued"] == 5
    for match_id in reversed(ids):  # finished newest first: completion order is the finish
        _finish(store, match_id)
    order: list[int] = []

    def plan(lad: Any, pool: Any, results: Any, flight: int) -> TickPlan:
        order.extend(r.match_id for r in results)
        return planner(lad, pool, results, flight)

    store.tick_ladder(ladder.id, plan)
    assert order == ids[::-1][:3]
    progress = store.ladder_progress(ladder.id)
    assert {k: v for k, v in progress.items() if v} == _counted(store, ladder.id) == {"done": 5}
    store.tick_ladder(ladder.id, plan)
    assert order == ids[::-1]
    store.tick_ladder(ladder.id, plan)
    assert order == ids[::-1] and planner.rated == dict.fromkeys(ids, 1)
    with store.pool.connection() as conn:
        rated = conn.execute("SELECT rated_matches FROM ladders WHERE id = %s", (ladder.id,))
        assert rated.fetchone() == (5,)
    assert store.ladder_progress(ladder.id)["done"] == 5
