"""Simple in-process Gin policies for the demo. A policy sees only what a bot sees:
the seat's view and its legal actions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from referee.actions import Discard, DrawDiscard, DrawStock, Pass
from referee.engine import Action, GameState
from referee.games.gin_hand import SEARCH, Arrange, Knock
from referee.games.gin_three import NoAdvice

Policy = Callable[[Any, Sequence[Action]], Action]


def gin_greedy(view: Any, legal: Sequence[Action]) -> Action:
    """A sensible Gin player: keep melds, discard the worst deadwood, take the upcard
    when it lowers the deadwood, knock when it can (and show the best arrangement)."""
    return _gin_choice(view, legal, knock_at=10)


def gin_patient(view: Any, legal: Sequence[Action]) -> Action:
    """Like :func:`gin_greedy`, but knocks only with 3 or less deadwood."""
    return _gin_choice(view, legal, knock_at=3)


def _gin_choice(view: Any, legal: Sequence[Action], knock_at: int) -> Action:
    hand_view = getattr(view, "hand", None)
    if hand_view is None:  # the sitter of Gin for three: no advice
        return next((a for a in legal if isinstance(a, NoAdvice)), legal[0])
    hand = 0
    for c in hand_view.hand:
        hand |= 1 << c
    arranges = [a for a in legal if isinstance(a, Arrange)]
    if arranges:
        return arranges[0]  # listed best first
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        best = min(knocks, key=lambda k: (SEARCH.deadwood_value(hand & ~(1 << k.card)), -k.card))
        if SEARCH.deadwood_value(hand & ~(1 << best.card)) <= knock_at:
            return best
    discards = [a for a in legal if isinstance(a, Discard)]
    if discards:
        return min(
            discards,
            key=lambda d: (
                SEARCH.deadwood_value(hand & ~(1 << d.card)),
                -SEARCH.card_value[d.card],
            ),
        )
    pile = hand_view.discard_pile
    if pile and any(isinstance(a, DrawDiscard) for a in legal):
        now = SEARCH.deadwood_value(hand)
        with_up = hand | 1 << pile[-1]
        best_after = min(
            SEARCH.deadwood_value(with_up & ~(1 << c)) for c in hand_view.hand
        )  # keep the upcard, drop the worst card
        if best_after < now:
            return next(a for a in legal if isinstance(a, DrawDiscard))
    for kind in (DrawStock, Pass):
        for a in legal:
            if isinstance(a, kind):
                return a
    return legal[0]


def play_match(state: GameState, policies: Sequence[Policy]) -> GameState:
    """Play ``state`` to its end with one policy per seat."""
    while (seat := state.to_act()) is not None:
        state.apply(policies[seat](state.view(seat), state.legal_actions()))
    return state
