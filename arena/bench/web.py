"""``arena bench web``: the web viewer's server time, in-process through its ASGI app on a
scratch database: the replay page and its data for a long Rummy 500 match of six
players, the last step of a far longer one alone and under a burst of requests, the
held-back check in small and large tournaments, and a leaderboard of many bots
(``docs/performance.md``)."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from worker.store import Store

#: The long match: Rummy 500 with six players, played to its target by random choices.
LONG_GAME, LONG_SEATS = "rummy-500", 6
#: The longest match: the same, played to a target of 5,700 (26,172 actions).
LONGEST_OPTIONS = {"target": 5700}
#: Requests sent at once in the load figures.
CONCURRENT = 200
#: Tournament sizes (matches, in duplicate sets of two) of the held-back check's figures.
TOURNAMENT_SIZES = (100, 10_000)


def store_played_match(
    store: Store,
    game: str,
    seats: Sequence[int],
    *,
    seed: int = 1,
    options: dict[str, Any] | None = None,
    tournament_id: int | None = None,
    duplicate_set: int | None = None,
    rotation: int | None = None,
    finish: bool = True,
) -> int:
    """A match of ``game`` between bot versions ``seats``, played in-process by random
    legal choices (seeded) and stored as a worker stores it: created, claimed and, with
    ``finish``, finished with its record and results. Returns its id."""
    from referee.games import get_game
    from referee.record import ActionEntry, ActionSource, MatchRecord, SeatEntry, options_dict
    from referee.wire import encode_record
    from worker.store import FinishedMatch

    match = store.create_match(
        game,
        seats,
        options=options or {},
        seed=seed,
        tournament_id=tournament_id,
        duplicate_set=duplicate_set,
        rotation=rotation,
    )
    claimed = store.claim_match("bench-web", match_id=match.id)
    assert claimed is not None
    if not finish:
        return match.id
    rng = random.Random(seed)
    state = get_game(game).new_match(seed, seats=len(seats), options=options or {})
    actions = []
    while (seat := state.to_act()) is not None:
        legal = state.legal_actions()
        index = rng.randrange(len(legal))
        state.apply(legal[index])
        source: ActionSource = "forced" if len(legal) == 1 else "bot"
        actions.append(ActionEntry(seat, str(legal[index]), rng.randrange(50, 20_000), source))
    result = state.result()
    assert result is not None
    record = MatchRecord(
        game=game,
        options=options_dict(state.options),
        seed=seed,
        seats=tuple(SeatEntry(f"seat-{i}") for i in range(len(seats))),
        actions=tuple(actions),
        result=result,
        match_id=str(match.id),
        started_unix_ms=1_700_000_000_000,
    )
    finished = FinishedMatch(encode_record(record))
    assert store.finish_match(match.id, "bench-web", finished)
    return match.id


def add_bots(store: Store, game: str, count: int, prefix: str = "bot") -> list[int]:
    """``count`` registered bots of ``game``, one version each: their version ids."""
    versions = []
    for i in range(count):
        bot = store.add_bot(f"{prefix}-{i}", "bench")
        manifest = {"game": game, "command": "python bot.py"}
        versions.append(store.add_bot_version(bot, f"{prefix}-{i}".encode(), manifest, "bench").id)
    return versions


def _times(client: Any, url: str, requests: int) -> dict[str, float]:
    client.get(url).raise_for_status()  # warm: templates compiled, pool connected
    out = []
    for _ in range(requests):
        t = time.perf_counter()
        client.get(url).raise_for_status()
        out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return {
        "p50_ms": round(statistics.median(out), 2),
        "p90_ms": round(out[int(0.9 * (len(out) - 1))], 2),
    }


def run(
    *,
    requests: int = 30,
    bots: int = 1000,
    concurrent: int = CONCURRENT,
    sizes: Sequence[int] = TOURNAMENT_SIZES,
) -> dict[str, Any]:
    """The figures: p50 and p90 server time of each page, over ``requests`` requests; the
    last step of the longest match, alone and ``concurrent`` at once, with the re-run
    from the deal it replaces; the held-back check in tournaments of ``sizes``."""
    from starlette.testclient import TestClient

    from arena.bench.store import ScratchDatabase
    from arena.commands.db import local_database
    from arena.web.app import create_app
    from worker import db
    from worker.store import Store

    with local_database() as url, ScratchDatabase(url) as scratch:
        with db.connect(scratch) as conn:
            db.migrate(conn)
        with Store.open(scratch) as store:
            versions = add_bots(store, LONG_GAME, max(bots, LONG_SEATS))
            match_id = store_played_match(store, LONG_GAME, versions[:LONG_SEATS], seed=7)
            steps = _steps(store, match_id)
            # a few rated matches, so that the leaderboard lists every bot's Elo
            for i in range(0, len(versions) - 1, 2):
                _rate(store, versions[i], versions[i + 1])
            figures: dict[str, Any] = {"replay_actions": steps, "leaderboard_bots": len(versions)}
            with TestClient(create_app(store)) as client:
                mid = steps // 2
                figures["replay_page"] = _times(client, f"/matches/{match_id}?step={mid}", requests)
                figures["replay_step_first"] = _times(
                    client, f"/api/matches/{match_id}/steps/1", requests
                )
                figures["replay_step_middle"] = _times(
                    client, f"/api/matches/{match_id}/steps/{mid}", requests
                )
                figures["replay_step_last"] = _times(
                    client, f"/api/matches/{match_id}/steps/{steps}", requests
                )
                figures["replay_step_seat_view"] = _times(
                    client, f"/api/matches/{match_id}/steps/{mid}?seat=2", requests
                )
                figures["replay_summary"] = _times(client, f"/api/matches/{match_id}", requests)
                figures["leaderboard"] = _times(client, f"/leaderboard/{LONG_GAME}", requests)
                longest = store_played_match(
                    store, LONG_GAME, versions[:LONG_SEATS], seed=7, options=LONGEST_OPTIONS
                )
                figures.update(_longest(store, client, longest, requests))
            figures.update(_concurrent(store, longest, concurrent))
            figures.update(_held_back(store, versions[:2], sizes, requests))
    return figures


def _median_ms(work: Any, repeats: int) -> float:
    """The median time of ``repeats`` calls of ``work()``, in milliseconds."""
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        work()
        out.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(out), 2)


def _longest(store: Store, client: Any, match_id: int, requests: int) -> dict[str, Any]:
    """The last step of the longest match: its first request (the kept states are made),
    then ``requests`` more; and its engine state made from the nearest kept state
    against the plain re-run from the deal, in process."""
    from arena.app import replay

    steps = _steps(store, match_id)
    url = f"/api/matches/{match_id}/steps/{steps}"
    t = time.perf_counter()
    client.get(url).raise_for_status()
    first = round((time.perf_counter() - t) * 1000, 2)
    stored = replay.load(store, match_id)
    kept = replay.checkpoints(stored)
    from_kept = _median_ms(lambda: kept.state_at(steps), requests)
    from_deal = _median_ms(lambda: replay.state_at(stored.record, steps), max(3, requests // 10))
    return {
        "longest_actions": steps,
        "longest_step_last_first_request_ms": first,
        "longest_step_last": _times(client, url, requests),
        "longest_state_last_from_kept_ms": from_kept,
        "longest_state_last_from_deal_ms": from_deal,
        "longest_state_last_ratio": round(from_deal / max(from_kept, 1e-3), 1),
    }


def _concurrent(store: Store, match_id: int, count: int) -> dict[str, Any]:
    """``count`` step requests of the longest match sent at once to the app (through
    httpx's ASGI transport, in this process): all for its last step, then each for a
    step of its own; p50 and p99 of their times, against one request alone."""
    import asyncio

    import httpx

    from arena.web.app import create_app

    steps = _steps(store, match_id)
    rng = random.Random(1)
    app = create_app(store)

    async def timed(client: httpx.AsyncClient, url: str) -> float:
        t = time.perf_counter()
        answer = await client.get(url)
        answer.raise_for_status()
        return (time.perf_counter() - t) * 1000

    async def burst(urls: list[str]) -> list[float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            await timed(client, urls[0])  # warm: the kept states are made
            alone = [await timed(client, urls[0]) for _ in range(10)]
            times = await asyncio.gather(*(timed(client, u) for u in urls))
        return [statistics.median(alone), *sorted(times)]

    out: dict[str, Any] = {"concurrent_requests": count}
    for name, urls in (
        ("concurrent_last_step", [f"/api/matches/{match_id}/steps/{steps}"] * count),
        (
            "concurrent_random_steps",
            [f"/api/matches/{match_id}/steps/{rng.randrange(steps + 1)}" for _ in range(count)],
        ),
    ):
        alone, *times = asyncio.run(burst(urls))
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        out[name] = {
            "alone_p50_ms": round(alone, 2),
            "p50_ms": round(statistics.median(times), 2),
            "p99_ms": round(p99, 2),
            "p99_over_alone": round(p99 / alone, 1),
        }
    return out


def _held_back(
    store: Store, versions: Sequence[int], sizes: Sequence[int], requests: int
) -> dict[str, Any]:
    """The held-back check of a match in tournaments of ``sizes`` queued matches (duplicate
    sets of two), against the check it replaces (the tournament listed, every row read)."""
    from arena.app import replay
    from worker.store import ScheduledMatch

    def by_listing(match: Any) -> bool:  # the check before: the whole tournament read
        return any(
            m.duplicate_set == match.duplicate_set and m.state in ("queued", "running")
            for m in store.list_matches(tournament_id=match.tournament_id, limit=100_000)
        )

    out: dict[str, Any] = {}
    for size in sizes:
        tid = store.create_tournament(f"held {size}", LONG_GAME, list(versions), duplicate=True)
        pairs = [tuple(versions), tuple(versions[::-1])]
        ids = store.schedule_matches(
            tid,
            LONG_GAME,
            {},
            [ScheduledMatch(pairs[i % 2], i // 2, i // 2, i % 2) for i in range(size)],
        )
        match = store.match(ids[size // 2])
        assert match is not None and replay.held_back(store, match) and by_listing(match)
        now = _median_ms(lambda m=match: replay.held_back(store, m), requests)
        before = _median_ms(lambda m=match: by_listing(m), max(3, requests // 5))
        out[f"held_back_{size}_matches"] = {
            "ms": now,
            "by_listing_ms": before,
            "ratio": round(before / max(now, 1e-3), 1),
        }
    return out


def _steps(store: Store, match_id: int) -> int:
    from referee.wire import decode_record

    return len(decode_record(store.record(match_id)).actions)


def _rate(store: Store, a: int, b: int) -> None:
    """One finished two-player match of ``a`` against ``b`` with a made-up result (no
    record is read by the leaderboard)."""
    from referee.engine import Result
    from referee.games import get_game
    from referee.record import MatchRecord, SeatEntry, options_dict
    from referee.wire import encode_record
    from worker.store import FinishedMatch

    match = store.create_match(LONG_GAME, [a, b], seed=1)
    store.claim_match("bench-web", match_id=match.id)
    record = MatchRecord(
        game=LONG_GAME,
        options=options_dict(get_game(LONG_GAME).options()),
        seed=1,
        seats=(SeatEntry("a"), SeatEntry("b")),
        actions=(),
        result=Result((0, 1), (500, 100), {"hands": 1}),
    )
    finished = FinishedMatch(encode_record(record))
    store.finish_match(match.id, "bench-web", finished)
