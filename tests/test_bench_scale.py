"""``arena bench scale`` fills a store as the store itself would, and reports every figure
at every stage (its speed is never tested: docs/performance.md, "A million matches")."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from arena.bench import scale
from referee.wire import decode_record
from worker.store import FinishedMatch, Store
from worker.store.finished import check_finished

pytest_plugins = ["tests.store_fixtures"]

LOADED = 300


@pytest.fixture(scope="module")
def played() -> dict[str, list[scale.Played]]:
    return scale.play_records(per_kind=2)


def test_the_loaded_matches_are_what_finishing_them_would_have_stored(
    store: Store, played: dict[str, list[scale.Played]]
) -> None:
    population = scale.populate(store)
    ends = datetime.now(UTC) - timedelta(hours=2)
    scale.load(store, population, played, LOADED, random.Random(3), ends=ends)
    with store.pool.connection() as conn:
        states = dict(conn.execute("SELECT state, count(*) FROM matches GROUP BY state").fetchall())
        games = {g for (g,) in conn.execute("SELECT DISTINCT game FROM matches").fetchall()}
        counted = conn.execute(
            "SELECT count(*) FILTER (WHERE ladder_id IS NOT NULL),"
            " count(*) FILTER (WHERE tournament_id IS NOT NULL) FROM matches"
        ).fetchone()
        ids = [i for (i,) in conn.execute("SELECT id FROM matches ORDER BY id").fetchall()]
    assert states == {"done": LOADED}
    assert games == set(scale.MIX)
    assert counted is not None and counted[0] > 0 and counted[1] > 0
    for match_id in ids[:: LOADED // 30]:
        match = store.match(match_id)
        assert match is not None and match.finished_at is not None
        record = store.record(match_id)  # its digest checked by the store
        checked = check_finished(match_id, FinishedMatch(record))
        assert checked.game == match.game and checked.num_seats == len(match.seats)
        assert decode_record(record).seed == match.seed
        seats = [(s.rank, s.score) for s in store.seat_results(match_id)]
        assert seats == [(r.rank, r.score) for r in checked.results]
    # the ratings are the store's own replay of those results: a game for each bot
    # version in each of its matches, and the table a recompute makes again
    for game in scale.MIX:
        table = {row.bot_version_id: (row.rating, row.games) for row in store.ratings(game)}
        assert sum(games for _, games in table.values()) == _seats(store, game)
        store.recompute_ratings(game)
        assert {r.bot_version_id: (r.rating, r.games) for r in store.ratings(game)} == table
    # and the platform plays on from there: new ids and completion numbers come after
    first = played[scale.LADDER_GAME][0]
    match = store.create_match(scale.LADDER_GAME, population.ladder_pool[:2])
    assert match.id > ids[-1]
    assert store.claim_match("test", match_id=match.id) is not None
    assert store.finish_match(match.id, "test", FinishedMatch(first.record))
    finished = store.match(match.id)
    assert finished is not None and finished.finish_seq == LOADED + 1


def _seats(store: Store, game: str) -> int:
    with store.pool.connection() as conn:
        row = conn.execute(
            "SELECT count(DISTINCT (s.match_id, s.bot_version_id)) FROM match_seats s"
            " JOIN matches m ON m.id = s.match_id WHERE m.game = %s",
            (game,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_the_bench_reports_every_figure_at_every_stage(pg_admin_url: str) -> None:
    figures = scale.run(matches=400, repeats=2, at=(200,), url=pg_admin_url)
    assert [s["matches"] for s in figures["stages"]] == [200, 400]
    timed = scale.timed_figures(figures["stages"][-1])
    assert {"finish", "ladder_tick", "leaderboard_page", "bot_page", "replay_page"} <= set(timed)
    assert set(figures["growth"]) == set(timed)
    for stage in figures["stages"]:
        assert all(stage[name]["p50_ms"] > 0 for name in timed)
        assert stage["gin_hand_bytes"] > stage["gin_record_bytes"] > 0
        assert stage["db_bytes_per_match"] > 0


def test_the_goals_missed_are_named() -> None:
    def stage(p50: float, size: int) -> dict[str, object]:
        return {"matches": 1, "finish": {"p50_ms": p50, "p90_ms": p50}, "gin_hand_bytes": size}

    met = {"stages": [stage(10, 900), stage(19, 900)], "growth": {"finish": 1.9}}
    assert scale.misses(met) == []
    missed = {"stages": [stage(10, 900), stage(101, 1100)], "growth": {"finish": 10.1}}
    assert scale.misses(missed) == [
        "finish: p50 101 ms is over 100 ms",
        "finish: its p50 grew 10.1× (the goal: at most 2×)",
        "a Gin hand takes 1100 bytes (the goal: under 1 KB)",
    ]
