"""What the sampler tests share: a seat's view as its bot decodes it, the legal actions
as texts, a random playout, and the chi-square critical value they compare against."""

from __future__ import annotations

import math
import random
from typing import Any

from referee import wire
from referee.engine import GameState


def from_the_wire(state: GameState, seat: int) -> Any:
    """The seat's view as its bot decodes it: a value holding no reference to the state."""
    view = state.view(seat)
    return wire.view_from_proto(wire.view_to_proto(view), view.legal_actions)


def texts(state: GameState) -> list[str]:
    """The legal actions of the seat to act, as texts."""
    return [str(a) for a in state.legal_actions()]


def play_out(state: GameState, rng: random.Random, cap: int) -> None:
    """Random legal actions, each checked, until the match ends or ``cap`` were played."""
    for _ in range(cap):
        if state.is_over():
            return
        state.apply_checked(str(rng.choice(state.legal_actions())))


def chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square statistic exceeded with probability about 0.001 (z = 3.09) at
    ``df`` degrees of freedom (Wilson–Hilferty; within 1% for df >= 10)."""
    a = 2 / (9 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3
