"""Game Flip Flop properties over thousands of random rounds: stakes are conserved (F2),
set-aside stakes stay within the bankroll (F3), and the eliminated hold nothing (F13)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import new_match
from referee.games.flip_flop import FlipFlop


def check_invariants(state: FlipFlop, total: int) -> None:
    assert sum(state.stakes.bankroll) + sum(state.stakes.pots) == total  # F2
    assert min(state.stakes.pots) >= 0
    for seat in range(state.num_seats):
        assert state.stakes.bankroll[seat] >= 0
        assert 0 <= state.stakes.set_aside[seat] <= min(1, state.stakes.bankroll[seat])  # F3
        if state.stakes.eliminated_in[seat] is not None:  # F13
            assert state.stakes.bankroll[seat] == 0
            assert state.is_over() or seat not in state.order


def play_match(seed: int, seats: int, stakes: int, max_rounds: int) -> int:
    """Play one random match checking the invariants after every action; its rounds."""
    state = new_match(
        "flip-flop",
        seed,
        seats=seats,
        options={"starting_stakes": stakes, "max_rounds": max_rounds, "max_turns": 60},
    )
    assert isinstance(state, FlipFlop)
    total = seats * stakes
    rng = random.Random(seed)
    check_invariants(state, total)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
        check_invariants(state, total)
    result = state.result()
    assert result is not None and result.detail["rounds"] == state.round_no
    alive = [s for s in range(seats) if state.stakes.bankroll[s] > 0]
    assert alive, "every round's game pot pays at least one stake (F12)"
    assert len(alive) == 1 or state.round_no == max_rounds  # F14
    return state.round_no


def test_f2_stakes_conserved_over_thousands_of_random_rounds() -> None:
    rounds = 0
    for i in range(240):
        stakes = (1, 2, 3, 4, 5, 8, 40)[i % 7]
        rounds += play_match(i, 3 + i % 3, stakes, 20)
    assert rounds >= 2000


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    seats=st.integers(3, 5),
    stakes=st.integers(1, 12),
)
def test_f2_stakes_conserved_for_any_seed_and_bankroll(seed: int, seats: int, stakes: int) -> None:
    play_match(seed, seats, stakes, 12)
