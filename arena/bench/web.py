"""``arena bench web``: the web viewer's server time, in-process through its ASGI app on a
scratch database: the replay page and its data for a long Rummy 500 match of six
players, and a leaderboard of many bots (``docs/performance.md``)."""

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
    from referee.record import ActionEntry, MatchRecord, SeatEntry, options_dict
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
        source = "forced" if len(legal) == 1 else "bot"
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


def run(*, requests: int = 30, bots: int = 1000) -> dict[str, Any]:
    """The figures: p50 and p90 server time of each page, over ``requests`` requests."""
    from starlette.testclient import TestClient

    from arena.bench.store import ScratchDatabase
    from arena.web.app import create_app
    from worker import db
    from worker.store import Store

    with db.database_url() as url, ScratchDatabase(url) as scratch:
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
    return figures


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
