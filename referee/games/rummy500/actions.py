"""The actions of Rummy 500, their text forms and how a text is read back
(docs/games/rummy-500.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.actions import (
    CARD_TEXTS,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    parse_number,
    parse_one_card,
    split_verb,
)
from referee.cards import CARD_BY_ID, Card, CardError, make_deck, parse_card
from referee.engine import Action, IllegalActionError
from referee.games.rummy500.melds import canonical_slots
from referee.tables import BoundedCache

JK = 64


def format_ids(cards: Sequence[int]) -> str:
    """Like format_cards, from the table of card texts."""
    t = CARD_TEXTS
    return " ".join([t[c] for c in cards])


@dataclass(frozen=True, slots=True)
class DrawDeep(Action):
    """Take the top ``depth`` cards of the discard pile; ``card``, the deepest, must
    be melded this turn (R4)."""

    depth: int
    card: Card

    def __str__(self) -> str:
        return f"draw discard {self.depth} {CARD_TEXTS[self.card]}"


@dataclass(frozen=True, slots=True)
class NewMeld(Action):
    """Put a new meld on the table (R4, R5). ``slots`` are the cards of the meld in
    order (runs low to high, sets by suit); bit i of ``jokers`` says slot i is a
    joker standing for that card."""

    slots: tuple[Card, ...]
    jokers: int

    def __str__(self) -> str:
        t = CARD_TEXTS
        j = self.jokers
        if not j:
            return "meld " + " ".join([t[c] for c in self.slots])
        return "meld " + " ".join(
            ["JK=" + t[c] if j >> i & 1 else t[c] for i, c in enumerate(self.slots)]
        )


@dataclass(frozen=True, slots=True)
class LayOff(Action):
    """Lay off ``card`` (or a joker standing for it) on table meld number ``meld``
    (1 = the first made this hand)."""

    card: Card
    joker: bool
    meld: int

    def __str__(self) -> str:
        return f"lay off {'JK=' if self.joker else ''}{CARD_TEXTS[self.card]} on {self.meld}"


@dataclass(frozen=True, slots=True)
class Decline(Action):
    """With the stock empty, take nothing from the discard pile: the hand ends (R7)."""

    def __str__(self) -> str:
        return "decline"


@dataclass(frozen=True, slots=True)
class CallRummy(Action):
    """Call "Rummy!" on ``card``, ``depth`` cards from the top of the pile (R6)."""

    depth: int
    card: Card

    def __str__(self) -> str:
        return f"rummy {self.depth} {CARD_TEXTS[self.card]}"


@dataclass(frozen=True, slots=True)
class NoRummy(Action):
    """Decline to call rummy (R6)."""

    def __str__(self) -> str:
        return "no rummy"


DECLINE = Decline()
NO_RUMMY = NoRummy()
# The interned actions with arguments, by (depth, card id) and (card id, joker, meld):
# legal-action lists then allocate no actions.
_DEEP: BoundedCache[tuple[int, int], DrawDeep] = BoundedCache(
    lambda key: DrawDeep(key[0], CARD_BY_ID[key[1]])
)
_CALLS: BoundedCache[tuple[int, int], CallRummy] = BoundedCache(
    lambda key: CallRummy(key[0], CARD_BY_ID[key[1]])
)
_LAYOFFS: BoundedCache[tuple[int, bool, int], LayOff] = BoundedCache(
    lambda key: LayOff(CARD_BY_ID[key[0]], key[1], key[2])
)


def deep_draw(depth: int, card: int) -> DrawDeep:
    """The interned DrawDeep action."""
    return _DEEP[depth, card]


def call_rummy(depth: int, card: int) -> CallRummy:
    """The interned CallRummy action."""
    return _CALLS[depth, card]


def lay_off(card: int, joker: bool, meld: int) -> LayOff:
    """The interned LayOff of ``card`` (a joker standing for it when ``joker``) on table
    meld number ``meld``."""
    return _LAYOFFS[card, joker, meld]


def holds(action: Action, card: int) -> bool:
    """Whether a meld or lay-off action places ``card`` (a joker when ``card`` is JK)."""
    if isinstance(action, LayOff):
        return action.joker if card == JK else (not action.joker and action.card == card)
    assert isinstance(action, NewMeld)
    j = action.jokers
    if card == JK:
        return j != 0
    slots = action.slots
    if card not in slots:
        return False
    return not j or not j >> slots.index(card) & 1  # a meld holds a card at most once


# -- reading a text back ---------------------------------------------------------------------

#: The cards of the largest deal (R1: two packs, two jokers each). No discard pile is
#: deeper, so larger depths in a text are refused.
MOST_CARDS = len(make_deck(2, 2))
#: A meld holds at least three cards (C3), so no table holds more melds than this.
MOST_MELDS = MOST_CARDS // 3


def _parse_slot(token: str) -> tuple[Card, bool]:
    text = token.strip()
    joker = text.upper().startswith("JK=")
    try:
        card = parse_card(text[3:] if joker else text)
    except CardError as exc:
        raise IllegalActionError(str(exc)) from exc
    if card == JK:
        raise IllegalActionError("write a joker as JK=C, naming the card C it stands for (R5)")
    return card, joker


def parse_rummy500_action(text: str) -> Action:
    """Parse the text of a Rummy 500 action (docs/games/rummy-500.md)."""
    verb, rest = split_verb(text)
    words = rest.split()
    low = [w.lower() for w in words]
    if verb == "draw":
        if low == ["stock"]:
            return DRAW_STOCK
        if low == ["discard"]:
            return DRAW_DISCARD
        if len(words) == 3 and low[0] == "discard":
            depth = parse_number("draw discard", words[1], 1, MOST_CARDS)
            if depth == 1:
                raise IllegalActionError("the top card is drawn with 'draw discard' (R4)")
            return deep_draw(depth, parse_one_card("draw discard", words[2]))
        raise IllegalActionError(
            f"bad draw {text!r}: write 'draw stock', 'draw discard' or 'draw discard N C'"
        )
    if verb == "discard":
        return DISCARDS[parse_one_card("discard", rest)]
    if verb == "meld":
        parsed = [_parse_slot(w) for w in words]
        flags = {int(c): j for c, j in parsed}
        if len(flags) != len(parsed):
            raise IllegalActionError(f"{rest!r} names a card twice: not a meld (R5)")
        if all(flags.values()):
            raise IllegalActionError("a meld needs at least one natural card (R5)")
        slots = canonical_slots([c for c, _ in parsed])
        if slots is None:
            raise IllegalActionError(f"{rest!r} is not a set or a run (C3, R5)")
        jmask = sum(1 << i for i, c in enumerate(slots) if flags[int(c)])
        return NewMeld(slots, jmask)
    if verb == "lay":
        if len(words) != 4 or low[0] != "off" or low[2] != "on":
            raise IllegalActionError(
                f"write a lay-off as 'lay off C on N' (a joker as JK=C), got {text!r}"
            )
        card, joker = _parse_slot(words[1])
        return lay_off(card, joker, parse_number("meld number", words[3], 1, MOST_MELDS))
    if verb == "decline" and not words:
        return DECLINE
    if verb == "rummy":
        if len(words) != 2:
            raise IllegalActionError(f"bad call {text!r}: write 'rummy N C' (R6)")
        return call_rummy(
            parse_number("rummy", words[0], 1, MOST_CARDS), parse_one_card("rummy", words[1])
        )
    if verb == "no" and low == ["rummy"]:
        return NO_RUMMY
    raise IllegalActionError(
        f"unknown action {text!r}; Rummy 500 actions are: draw stock, draw discard, "
        "draw discard N C, decline, meld CARDS, lay off C on N, discard C, rummy N C, no rummy"
    )
