"""A bot that plays every game sensibly.

Gin (both games): keep melds, discard the card that leaves the least
deadwood (the highest such card on ties), take the upcard when it lowers the
deadwood, knock as soon as it can (with the least deadwood left), show the
arrangement with the least deadwood; as the sitter, advise what it would play.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from bots.sdk import Bot, Request, gin_hand, run
from referee.cards import parse_card
from referee.games.gin_views import HandView
from referee.melds import meld_search

_GIN = meld_search()
_DEADWOOD = _GIN.deadwood_value
_VALUE = _GIN.card_value


def _card_of(text: str) -> int:
    return int(parse_card(text.rsplit(None, 1)[1]))


def gin_choice(hand: HandView, legal: list[str]) -> str:
    """The Gin action to play from ``legal`` for ``hand``."""
    mask = 0
    for c in hand.hand:
        mask |= 1 << c
    if legal[0].startswith("arrange"):
        return min(legal, key=lambda t: _arranged_deadwood(mask, t))
    if "draw discard" in legal:
        up = hand.discard_pile[-1]
        now = _DEADWOOD(mask)
        with_up = mask | 1 << up
        best = min(_DEADWOOD(with_up & ~(1 << c)) for c in hand.hand)
        if best < now:
            return "draw discard"
        return "draw stock" if "draw stock" in legal else "pass"
    if len(legal) == 1:
        return legal[0]
    knocks = [t for t in legal if t.startswith("knock ")]
    if knocks:
        return min(knocks, key=lambda t: _DEADWOOD(mask & ~(1 << _card_of(t))))
    discards = [t for t in legal if t.startswith("discard ")]

    def cost(text: str) -> tuple[int, int]:
        c = _card_of(text)
        return _DEADWOOD(mask & ~(1 << c)), -_VALUE[c]

    return min(discards, key=cost)


def _arranged_deadwood(mask: int, text: str) -> int:
    for group in text.removeprefix("arrange").split("|"):
        for token in group.split():
            if token != "-":
                mask &= ~(1 << int(parse_card(token)))
    return _GIN.value(mask)


def gin_decide(request: Request) -> str:
    """Gin for either game, including the sitter's advice (T3)."""
    legal = request.legal_actions
    hand = gin_hand(request.view)
    if hand is None:
        return legal[0]
    if legal[0] == "no advice":
        advised = [t.removeprefix("advise ") for t in legal[1:]]
        return "advise " + gin_choice(hand, advised)
    return gin_choice(hand, legal)


class HeuristicBot(Bot):
    """Sensible play for every game (see the module docstring)."""

    name = "heuristic"

    def __init__(self) -> None:
        self.policies: dict[str, Callable[[Request], str]] = {
            "hollywood-gin": gin_decide,
            "gin-three": gin_decide,
        }

    def decide(self, request: Request) -> int | str:
        """Dispatch on the game; an unknown game plays its first legal action."""
        policy = self.policies.get(request.game)
        return policy(request) if policy is not None else 0


if __name__ == "__main__":
    os.environ.setdefault("ARENA_BOT", "heuristic")
    run(HeuristicBot())
