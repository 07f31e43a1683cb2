"""Action kinds shared by several games, and helpers for the text forms.

Every action is a frozen dataclass with one text form: ``str(action)`` prints
it and the game's ``parse_action`` reads it back (``docs/actions.md``). Cards
in actions use the C2 notation; melds are cards separated by spaces, several
melds separated by `` | ``.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

from referee.cards import CARD_BY_ID, Card, CardError, format_cards, parse_card, parse_cards
from referee.engine import Action, Event, IllegalActionError
from referee.tables import suit_tables


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Decline the offered card (Gin's first turn, G3)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class DrawStock(Action):
    """Draw the top card of the stock."""

    def __str__(self) -> str:
        return "draw stock"


@dataclass(frozen=True, slots=True)
class DrawDiscard(Action):
    """Draw the top card of the discard pile."""

    def __str__(self) -> str:
        return "draw discard"


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Discard one card face up."""

    card: Card

    def __str__(self) -> str:
        return f"discard {self.card}"


PASS = Pass()
DRAW_STOCK = DrawStock()
DRAW_DISCARD = DrawDiscard()
#: One interned Discard per card id, so legal-action lists allocate nothing.
DISCARDS = {cid: Discard(c) for cid, c in CARD_BY_ID.items()}


#: DISCARD_TABLES[suit][13-bit mask of that suit]: the hand's discards in card order,
#: so a hand's discard list is four look-ups (``hand >> 16 * suit & 0x1FFF``).
DISCARD_TABLES = suit_tables(DISCARDS)
#: The text of every interned Discard, and the same tables as texts. The tables hold
#: these 52 strings, not copies: 4 MB of tuples rather than 16 MB (the referee looks
#: them up at every discard decision, and fewer bytes stay in the caches).
DISCARD_TEXTS = {cid: str(d) for cid, d in DISCARDS.items()}
DISCARD_TEXT_TABLES = suit_tables(DISCARD_TEXTS)
#: Per card id (0..64), the card's text (C2; "" for ids that are no card), and the texts
#: of the events that name one drawn card: made once, not formatted at every action.
CARD_TEXTS = [str(CARD_BY_ID[c]) if c in CARD_BY_ID else "" for c in range(65)]
DREW_TEXTS = {cid: f"drew {c}" for cid, c in CARD_BY_ID.items()}
DRAW_DISCARD_TEXTS = {cid: f"draw discard {c}" for cid, c in CARD_BY_ID.items()}

#: The public events of these actions by seat (up to eight, the most a game seats) and
#: card, made once: events are immutable, so every match's log holds the same objects.
EVENT_SEATS = 8
DRAW_STOCK_EVENTS = tuple(Event(s, "draw stock") for s in range(EVENT_SEATS))
PASS_EVENTS = tuple(Event(s, "pass") for s in range(EVENT_SEATS))
DISCARD_EVENTS = tuple(
    {c: Event(s, t) for c, t in DISCARD_TEXTS.items()} for s in range(EVENT_SEATS)
)
DRAW_DISCARD_EVENTS = tuple(
    {c: Event(s, t) for c, t in DRAW_DISCARD_TEXTS.items()} for s in range(EVENT_SEATS)
)


#: Far above the longest action of any game (a Rummy 500 meld of thirteen is under 90
#: characters): a longer text is refused before it is read, and never echoed whole.
MAX_ACTION_TEXT = 1000
_WHITESPACE = frozenset(string.whitespace)


def split_verb(text: str) -> tuple[str, str]:
    """Split an action text into its verb (lower case) and the rest.

    Every game's parser starts here, so the checks on the whole text live here too:
    it is at most ``MAX_ACTION_TEXT`` characters of printable ASCII and whitespace
    (C2). Without them, look-alike characters would read as cards or verbs (``str.upper``
    makes the long s an S; ``str.split`` splits at control characters)."""
    if len(text) > MAX_ACTION_TEXT:
        raise IllegalActionError(
            f"action text of {len(text)} characters is too long: actions are at most "
            f"{MAX_ACTION_TEXT}"
        )
    if not (text.isascii() and text.isprintable()):
        for at, char in enumerate(text):
            if not (char.isascii() and (char.isprintable() or char in _WHITESPACE)):
                raise IllegalActionError(
                    f"character {char!r} at position {at} of the action text: actions are "
                    "written in printable ASCII (C2)"
                )
    parts = text.strip().split(None, 1)
    if not parts:
        raise IllegalActionError("empty action text")
    return parts[0].lower(), (parts[1] if len(parts) > 1 else "")


def parse_number(what: str, word: str, least: int, most: int) -> int:
    """A whole number argument of an action, in ASCII digits, from ``least`` to ``most``
    (the games bound their numbers by the cards in play, which also bounds the actions
    they intern)."""
    if word.isascii() and word.isdigit() and len(word.lstrip("0")) <= len(str(most)):
        value = int(word)
        if least <= value <= most:
            return value
    raise IllegalActionError(f"{what!r} needs a whole number from {least} to {most}, not {word!r}")


def parse_one_card(what: str, rest: str) -> Card:
    """The single card argument of an action, with a clear error otherwise."""
    tokens = rest.split()
    if len(tokens) != 1:
        raise IllegalActionError(f"{what!r} takes exactly one card, got {rest!r}")
    try:
        return parse_card(tokens[0])
    except CardError as exc:
        raise IllegalActionError(str(exc)) from exc


def parse_meld_groups(rest: str) -> list[list[Card]]:
    """Melds written as ``AS 2S 3S | 7H 7D 7C`` (``-`` for none), each card named once:
    a card belongs to at most one meld, and a meld holds distinct cards (C3)."""
    if rest.strip() in ("", "-"):
        return []
    try:
        groups = [parse_cards(group) for group in rest.split("|")]
    except CardError as exc:
        raise IllegalActionError(str(exc)) from exc
    named: set[Card] = set()
    for group in groups:
        if not group:
            raise IllegalActionError(
                f"an empty meld in {rest!r}: write melds as 'AS 2S 3S | 7H 7D 7C'"
            )
        for card in group:
            if card in named:
                raise IllegalActionError(
                    f"{card} is named twice in {rest!r}: a card belongs to at most one meld (C3)"
                )
            named.add(card)
    return groups


def format_meld_groups(groups: Sequence[Sequence[int]]) -> str:
    """The text form of several melds (``-`` for none)."""
    return " | ".join(format_cards(g) for g in groups) if groups else "-"


def parse_common(text: str) -> Action | None:
    """The shared actions (pass, draw stock, draw discard, discard C), or None."""
    verb, rest = split_verb(text)
    if verb == "pass" and not rest:
        return PASS
    if verb == "draw":
        where = rest.strip().lower()
        if where == "stock":
            return DRAW_STOCK
        if where == "discard":
            return DRAW_DISCARD
        return None
    if verb == "discard":
        return DISCARDS[parse_one_card("discard", rest)]
    return None
