"""``arena bench codec``: what one decision's message costs the referee, in process.

For every game, random matches are played and at each decision the seat's view is
made and its Decision message written (``state.view``, ``events_for``,
``DecisionEncoder.decision``: the referee's work per decision besides the engine's
moves and gRPC). For Hollywood Gin the message is also written straight from the
state (``DecisionEncoder.decision_from_state``, the referee's hot path for that
game), interleaved with the other way pass by pass. Medians of the passes.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from referee import wire
from referee.engine import GameState
from referee.games import game_names, get_game

#: ``(encoder, state, seat, decision id, events seen) -> events seen after``
Writer = Callable[[wire.DecisionEncoder, GameState, int, int, int], int]


def through_view(
    encoder: wire.DecisionEncoder, state: GameState, seat: int, did: int, seen: int
) -> int:
    """The view made and its message written (every game's path)."""
    view = state.view(seat)
    events = state.events_for(seat, seen)
    encoder.decision(did, view, view.legal_actions, events, 1000)
    return len(state.events)


def from_state(
    encoder: wire.DecisionEncoder, state: GameState, seat: int, did: int, seen: int
) -> int:
    """The message written straight from the state (Hollywood Gin)."""
    written = encoder.decision_from_state(state, seat, did, seen, 1000)
    assert written is not None
    return written[2]


def one_pass(game: str, seats: int, seeds: range, limit: int, write: Writer) -> float:
    """Microseconds per decision over random matches, the writing alone timed."""
    spec = get_game(game)
    total_ns = decisions = 0
    for seed in seeds:
        state = spec.new_match(seed, seats=seats)
        rng = random.Random(seed)
        encoder = wire.DecisionEncoder(5000)
        seen = [0] * seats
        made = 0
        while (seat := state.to_act()) is not None and made < limit:
            legal = state.legal_actions()
            if len(legal) > 1:
                t0 = time.perf_counter_ns()
                seen[seat] = write(encoder, state, seat, decisions, seen[seat])
                total_ns += time.perf_counter_ns() - t0
                decisions += 1
                made += 1
            state.apply(rng.choice(legal))
    return total_ns / decisions / 1000


def bench_codec(*, matches: int, decisions: int, repeats: int) -> dict[str, Any]:
    """Per game (three seats where the game allows), the median µs per decision of
    each way of writing it, with the passes' figures."""
    out: dict[str, Any] = {}
    for game in game_names():
        spec = get_game(game)
        seats = min(max(3, spec.min_seats), spec.max_seats)
        ways: dict[str, Writer] = {"view": through_view}
        if game == "hollywood-gin":
            ways["state"] = from_state
        runs: dict[str, list[float]] = {way: [] for way in ways}
        for _ in range(repeats):
            for way, write in ways.items():
                runs[way].append(one_pass(game, seats, range(matches), decisions, write))
        out[game] = {
            "seats": seats,
            **{f"{way}_us": round(statistics.median(r), 2) for way, r in runs.items()},
            "runs": {way: [round(x, 2) for x in r] for way, r in runs.items()},
        }
    return out
