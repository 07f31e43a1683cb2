"""``arena bench sample``: what search pays per playout — sampling what a seat cannot see
(``referee.scenario.sample``) and a random playout to the end of the hand, from positions
in the middle of a hand.

Positions are made by random play from seeds, stopping in the first hand at a decision of
the seat to act. For each position the bench times, in turns: a sample alone; a sample
and a random playout to the end of its hand; and, as the reference measured in the same
run, a fresh deal (``new_match``) played at random to the end of its first hand. It
reports medians over the positions, because this machine is noisy.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from referee import scenario
from referee.engine import GameState
from referee.games import get_game

#: Options that keep a match to its first hand (the playouts stop there anyway).
ONE_HAND = {
    "hollywood-gin": {"max_hands": 1},
    "gin-three": {"max_hands": 1},
    "rummy-500": {"max_hands": 1},
    "flip-flop": {"max_rounds": 1},
}


def positions(game: str, count: int, seed: int) -> list[tuple[GameState, int]]:
    """``count`` positions of ``game`` in the middle of its first hand, and the seat to act."""
    spec = get_game(game)
    rng = random.Random(seed)
    out: list[tuple[GameState, int]] = []
    match_seed = seed
    while len(out) < count:
        match_seed += 1
        state = spec.new_match(match_seed, options=ONE_HAND[game])
        for _ in range(rng.randrange(4, 40)):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        seat = state.to_act()
        if seat is not None:
            out.append((state, seat))
    return out


def random_playout(state: GameState, rng: random.Random) -> int:
    """Random legal actions to the end of the match (of its one hand); the actions played."""
    steps = 0
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return steps


def run(game: str, count: int = 200, repeats: int = 20, seed: int = 1) -> dict[str, Any]:
    """The medians, in microseconds, over ``count`` positions of ``repeats`` each."""
    spec = get_game(game)
    rng = random.Random(seed)
    options = ONE_HAND[game]
    sample_us, playout_us, reference_us, steps = [], [], [], []
    for k, (state, seat) in enumerate(positions(game, count, seed)):
        view, events = state.view(seat), state.events_for(seat)
        start = time.perf_counter()
        for _ in range(repeats):
            scenario.sample(view, events, rng, options=options)
        sample_us.append((time.perf_counter() - start) / repeats * 1e6)
        start = time.perf_counter()
        for _ in range(repeats):
            steps.append(random_playout(scenario.sample(view, events, rng, options=options), rng))
        playout_us.append((time.perf_counter() - start) / repeats * 1e6)
        start = time.perf_counter()
        for r in range(repeats):
            random_playout(spec.new_match(seed + k * repeats + r, options=options), rng)
        reference_us.append((time.perf_counter() - start) / repeats * 1e6)
    sample, playout, reference = (
        statistics.median(sample_us),
        statistics.median(playout_us),
        statistics.median(reference_us),
    )
    return {
        "game": game,
        "positions": count,
        "repeats": repeats,
        "sample_us": round(sample, 1),
        "sample_and_playout_us": round(playout, 1),
        "playout_actions": statistics.median(steps),
        "deal_and_playout_us": round(reference, 1),
        "ratio_to_a_fresh_hand": round(playout / reference, 3),
    }
