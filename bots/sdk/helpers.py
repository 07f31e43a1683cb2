"""Helpers bot authors want: best arrangement and deadwood of a Gin hand
(via ``referee.melds``) and the cards seen so far."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.cards import Card, mask_of
from referee.games.gin_views import HandView
from referee.melds import Arrangement, meld_search

_GIN = meld_search()


def best_arrangement(cards: Iterable[int]) -> Arrangement:
    """The Gin arrangement of ``cards`` with the least deadwood (G5)."""
    return _GIN.best_arrangement(mask_of(cards))


def deadwood(cards: Iterable[int]) -> int:
    """The least deadwood value of ``cards`` under Gin values (C4, G1)."""
    return _GIN.deadwood_value(mask_of(cards))


def gin_hand(view: Any) -> HandView | None:
    """The Gin hand a seat decides on: its own, or the captain's for the sitter (T3)."""
    hand = getattr(view, "hand", None)
    if isinstance(hand, HandView):
        return hand
    advising = getattr(view, "advising", None)
    return advising if isinstance(advising, HandView) else None


class SeenCards:
    """Every card this seat has seen face up or in its hand, updated from views."""

    def __init__(self) -> None:
        self.cards: set[Card] = set()

    def update(self, view: Any) -> set[Card]:
        """Add what ``view`` shows (own hand, discard pile, cards known in other hands)."""
        hand = gin_hand(view)
        if hand is not None:
            self.cards.update(hand.hand)
            self.cards.update(hand.discard_pile)
            self.cards.update(hand.opponent_known)
        for name in ("hand", "discard_pile", "melds", "spreads", "table"):
            value = getattr(view, name, None)
            if isinstance(value, tuple):
                self.cards.update(_flatten(value))
        return self.cards

    def unseen(self) -> set[Card]:
        """The cards of one standard pack not seen yet."""
        from referee.cards import STANDARD_CARDS

        return set(STANDARD_CARDS) - self.cards


def _flatten(value: tuple[Any, ...]) -> list[Card]:
    out: list[Card] = []
    for item in value:
        if isinstance(item, Card):
            out.append(item)
        elif isinstance(item, tuple):
            out.extend(_flatten(item))
    return out
