"""What every game's chosen deal shares: cards named as text, and the cards a deal
leaves out dealt from its seed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from referee.cards import Card, CardError, SplitMix64, parse_card
from referee.scenario.errors import ScenarioError


def card_list(value: Any, what: str) -> list[Card]:
    """Cards given as a list of card texts (or one text of space-separated cards)."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list):
        raise ScenarioError(f'{what} is a list of cards such as ["QS", "TD"], not {value!r}')
    cards = []
    for token in value:
        if not isinstance(token, str):
            raise ScenarioError(
                f"{what}: {token!r} is not a card; cards are written like QS, TD, JK"
            )
        try:
            cards.append(parse_card(token))
        except CardError as exc:
            raise ScenarioError(f"{what}: {exc}") from exc
    return cards


class Rest:
    """The cards of the pack a deal did not name, shuffled from its seed, taken in turn."""

    def __init__(self, cards: list[Card]) -> None:
        self._cards = cards

    def take(self, count: int | None = None) -> list[Card]:
        """The next ``count`` cards (all that are left when None)."""
        n = len(self._cards) if count is None else count
        if n > len(self._cards):
            raise ScenarioError(
                f"the deal names too many cards: {n} more are needed, {len(self._cards)} are left"
            )
        taken, self._cards = self._cards[:n], self._cards[n:]
        return taken


def fill_from_seed(named: Sequence[Card], pack: Sequence[Card], seed: int) -> Rest:
    """The cards of ``pack`` (a multiset: two packs hold each card twice) that ``named``
    leaves out, in the order a deck shuffled from ``seed`` holds them. A card named more
    often than the pack holds it, or not in the pack, is an error naming it."""
    left = Counter(pack)
    for card in named:
        if left[card] == 0:
            held = Counter(pack)[card]
            if held == 0:
                raise ScenarioError(f"{card} is not a card of this game's pack")
            raise ScenarioError(
                f"{card} is named {'twice' if held == 1 else 'more often than the pack holds it'}"
            )
        left[card] -= 1
    shuffled = shuffled_order(pack, seed)
    rest = []
    for card in shuffled:
        if left[card]:
            left[card] -= 1
            rest.append(card)
    return Rest(rest)


def shuffled_order(pack: Sequence[Card], seed: int) -> list[Card]:
    """The pack's cards in an order drawn from ``seed`` (the engine's own stream, C6)."""
    rng = SplitMix64(seed)
    cards = list(pack)
    for i in range(len(cards) - 1, 0, -1):
        j = rng.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


__all__ = ["Rest", "card_list", "fill_from_seed", "shuffled_order"]
