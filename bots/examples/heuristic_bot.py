"""A bot that plays every game sensibly.

Gin (both games): keep melds, discard the card that leaves the least
deadwood (the highest such card on ties), take the upcard when it lowers the
deadwood, knock as soon as it can (with the least deadwood left), show the
arrangement with the least deadwood; as the sitter, advise what it would play.

Rummy 500: call rummy when it can, meld the biggest meld and lay off greedily,
take discards down to a card it can meld (the fewest cards that do; the
engine offers such a draw only when the card can be melded, R4), else draw
from the stock, discard the highest card. Flip Flop: declare when it can,
tunk out, spread the biggest spread and lay off, drop when its hand is low,
discard the highest card.
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


def _cards_in(text: str) -> int:
    return sum(1 for token in text.split()[1:] if len(token) >= 2 and token[-1] in "CDHS")


def _highest_discard(legal: list[str]) -> str | None:
    discards = [t for t in legal if t.startswith("discard ")]
    if not discards:
        return None
    return max(discards, key=lambda t: (_VALUE[_card_of(t)], _card_of(t) & 15))


def rummy500_decide(request: Request) -> str:
    """Rummy 500: rummy calls, then the biggest meld, lay-offs, the shallowest deep draw
    (``draw discard N C``: C will be melded), the stock, the highest discard."""
    legal = request.legal_actions
    for prefix in ("rummy ", "meld ", "lay off "):
        found = [t for t in legal if t.startswith(prefix)]
        if found:
            return max(found, key=_cards_in) if prefix == "meld " else found[0]
    deep = [t for t in legal if t.startswith("draw discard ")]
    if deep:
        return min(deep, key=lambda t: int(t.split()[2]))
    if "draw stock" in legal:
        return "draw stock"
    return _highest_discard(legal) or legal[0]


#: Flip Flop: drop (F9) when the hand is worth at most this much.
FLIP_FLOP_DROP_AT = 5


def flip_flop_decide(request: Request) -> str:
    """Flip Flop: declare, tunk out, spread, lay off, drop when low, else draw and discard."""
    legal = request.legal_actions
    for prefix in ("declare ", "tunk out", "spread ", "lay off "):
        found = [t for t in legal if t.startswith(prefix)]
        if found:
            return max(found, key=_cards_in) if prefix == "spread " else found[0]
    if "drop" in legal:
        hand = getattr(request.view, "hand", ())
        if sum(_VALUE[c] for c in hand) <= FLIP_FLOP_DROP_AT:
            return "drop"
    if "draw stock" in legal:
        return "draw stock"
    return _highest_discard(legal) or legal[0]


class HeuristicBot(Bot):
    """Sensible play for every game (see the module docstring)."""

    name = "heuristic"

    def __init__(self) -> None:
        self.policies: dict[str, Callable[[Request], str]] = {
            "hollywood-gin": gin_decide,
            "gin-three": gin_decide,
            "rummy-500": rummy500_decide,
            "flip-flop": flip_flop_decide,
        }

    def decide(self, request: Request) -> int | str:
        """Dispatch on the game; an unknown game plays its first legal action."""
        policy = self.policies.get(request.game)
        return policy(request) if policy is not None else 0


if __name__ == "__main__":
    os.environ.setdefault("ARENA_BOT", "heuristic")
    run(HeuristicBot())
