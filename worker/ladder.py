"""The ladder's tick (run by the scheduler every ``ARENA_LADDER_TICK_S`` seconds, 5 by
default): for every ladder,
apply its newly finished matches to its Plackett–Luce ratings in completion order,
then, if it runs, queue matches until it has as many in flight as it asks, chosen where they
settle the most (:mod:`worker.pairing`), and enqueue them once their rows are committed."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from worker import skill
from worker.pairing import Entry, choose_tables
from worker.ratings import SeatResult
from worker.store import Ladder, LadderStanding, ScheduledMatch, Store, TableResult, TickPlan

#: A ladder's defaults: matches queued or running at once, and the games a new bot
#: version plays first (placement) before the pairing favours uncertain pairs.
IN_FLIGHT = 4
PLACEMENT = 6


def plan(
    ladder: Ladder,
    pool: list[LadderStanding],
    results: list[TableResult],
    in_flight: int,
    rng: random.Random,
) -> TickPlan:
    """New ratings from ``results`` and the matches to queue (pure but for ``rng``)."""
    from referee.games import get_game

    model = skill.model()
    ratings: dict[int, tuple[float, float]] = {
        p.version: (p.mu, p.sigma) if p.mu is not None and p.sigma is not None else skill.initial()
        for p in pool
    }
    games = {p.version: p.games for p in pool}
    played: dict[int, int] = {}
    for table in results:
        for s in table.seats:  # a version no longer in the pool still has its games rated
            ratings.setdefault(s.version, skill.initial())
        seats = [SeatResult(s.version, s.rank, s.forfeit) for s in table.seats]
        ratings.update(skill.rate_match(model, ratings, seats))
        for s in table.seats:
            played[s.version] = played.get(s.version, 0) + 1
    settings: dict[str, Any] = dict(ladder.settings)
    spec = get_game(ladder.game)
    size = int(settings.get("table_size") or spec.default_seats)
    want = int(settings.get("in_flight") or IN_FLIGHT)
    entries = [
        Entry(v, ratings[v][0], ratings[v][1], games.get(v, 0) + played.get(v, 0)) for v in games
    ]
    tables = choose_tables(
        entries,
        size,
        max(0, want - in_flight) if ladder.active else 0,
        placement=int(settings.get("placement", PLACEMENT)),
        rng=rng,
    )
    return TickPlan(
        ratings={v: ratings[v] for v in played},
        played=played,
        matches=[ScheduledMatch(t, rng.getrandbits(63)) for t in tables],
    )


def tick(
    store: Store, enqueue: Callable[[int], Any], rng: random.Random | None = None
) -> dict[int, list[int]]:
    """Tick every ladder (a stopped one only has its last results rated); returns ladder
    id → match ids queued (and enqueued)."""
    rng = rng or random.Random()
    queued = {}
    for ladder in store.ladders():
        ids = store.tick_ladder(
            ladder.id,
            lambda lad, pool, results, flight: plan(lad, pool, results, flight, rng),
        )
        for match_id in ids:
            enqueue(match_id)
        queued[ladder.id] = ids
    return queued
