"""The actions of Game Flip Flop, their text forms and how a text is read back
(docs/games/flip-flop.md)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    parse_common,
    parse_number,
    split_verb,
)
from referee.cards import CARD_BY_ID, Card, CardError, format_cards, parse_card, parse_cards
from referee.engine import Action, IllegalActionError
from referee.games.flip_flop.tables import SEARCH
from referee.tables import BoundedCache


@dataclass(frozen=True, slots=True)
class Declare(Action):
    """Declare a five-card opening hand worth 49 or 50 (F5)."""

    total: int

    def __str__(self) -> str:
        return f"declare {self.total}"


@dataclass(frozen=True, slots=True)
class Drop(Action):
    """Drop instead of drawing (F9): show the hand, claiming the lowest value."""

    def __str__(self) -> str:
        return "drop"


@dataclass(frozen=True, slots=True)
class TunkOut(Action):
    """Tunk out right after drawing (F10): lay down six cards as two spreads of three."""

    def __str__(self) -> str:
        return "tunk out"


@dataclass(frozen=True, slots=True)
class Spread(Action):
    """Lay down a new spread from the hand (F7, F8); cards in canonical meld order."""

    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return "spread " + format_cards(self.cards)


@dataclass(frozen=True, slots=True)
class LayOff(Action):
    """Lay one card off on table spread number ``spread`` (1 = first laid this round)."""

    card: Card
    spread: int

    def __str__(self) -> str:
        return f"lay off {self.card} on {self.spread}"


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """The first action of a seat's first turn when a reveal is due (F6): the cards that
    beat the best shown so far for the flip (first) and the flop, then ``then`` (draw
    stock, draw discard or drop). Revealing is compulsory (F6 ruling), so it is not a
    decision of its own; it travels with the seat's first decision so that what the
    others learn from it comes from an action of that seat (C9)."""

    cards: tuple[Card, ...]
    then: Action

    def __str__(self) -> str:
        return f"reveal {format_cards(self.cards)}, {self.then}"


DROP = Drop()
TUNK_OUT = TunkOut()
DECLARES = {49: Declare(49), 50: Declare(50)}
#: One interned Spread per possible spread, keyed by its card mask.
SPREADS: dict[int, Spread] = {m.mask: Spread(m.cards) for m in SEARCH.melds}
_LAYOFFS: BoundedCache[tuple[int, int], LayOff] = BoundedCache(
    lambda key: LayOff(CARD_BY_ID[key[0]], key[1])
)


def layoff_action(card: int, spread: int) -> LayOff:
    """The interned LayOff of ``card`` on spread number ``spread``."""
    return _LAYOFFS[card, spread]


@dataclass(frozen=True, slots=True)
class RevealPlan:
    """A seat's reveal due at its first turn (F6), worked out at the deal: the (pot,
    card) pairs it shows, the event text, and its legal first actions with and without
    a discard pile to draw from. Interned per (flip card, flop card)."""

    shows: tuple[tuple[str, Card], ...]
    text: str
    with_discard: tuple[Reveal, ...]
    without_discard: tuple[Reveal, ...]


def _reveal_plan(key: int) -> RevealPlan:
    flip, flop = key >> 7, key & 127
    shows: tuple[tuple[str, Card], ...] = tuple(
        (pot, CARD_BY_ID[c]) for pot, c in (("flip", flip), ("flop", flop)) if c != 127
    )
    cards = tuple(card for _, card in shows)
    return RevealPlan(
        shows,
        "reveal " + format_cards(cards),
        tuple(Reveal(cards, a) for a in (DRAW_STOCK, DRAW_DISCARD, DROP)),
        tuple(Reveal(cards, a) for a in (DRAW_STOCK, DROP)),
    )


_REVEAL_PLANS: BoundedCache[int, RevealPlan] = BoundedCache(_reveal_plan)


def reveal_plan(flip: int, flop: int) -> RevealPlan:
    """The interned plan of a seat that shows ``flip`` for the flip pot and ``flop`` for
    the flop pot (either -1 when it shows none for that pot)."""
    return _REVEAL_PLANS[(flip & 127) << 7 | (flop & 127)]


def parse_flip_flop_action(text: str) -> Action:
    """Parse the text of a Flip Flop action (docs/games/flip-flop.md)."""
    common = parse_common(text)
    if common is not None:
        return common
    verb, rest = split_verb(text)
    words = rest.lower().split()
    if verb == "declare":
        if words in (["49"], ["50"]):
            return DECLARES[int(words[0])]
        raise IllegalActionError(f"'declare' takes 49 or 50, got {rest!r}")
    if verb == "reveal":
        cards_text, comma, then_text = rest.partition(",")
        try:
            shown = tuple(parse_cards(cards_text))
        except CardError as exc:
            raise IllegalActionError(str(exc)) from exc
        if not 1 <= len(shown) <= 2 or not comma:
            raise IllegalActionError(
                f"write a reveal as 'reveal C [C], draw stock|draw discard|drop', got {text!r}"
            )
        # read directly, not by recursion: "reveal AS, reveal AS, …" must not nest
        then = {"draw stock": DRAW_STOCK, "draw discard": DRAW_DISCARD, "drop": DROP}.get(
            " ".join(then_text.lower().split())
        )
        if then is None:
            raise IllegalActionError(
                f"a reveal goes with draw stock, draw discard or drop: {text!r}"
            )
        return Reveal(shown, then)
    if verb == "drop" and not words:
        return DROP
    if verb == "tunk" and words == ["out"]:
        return TUNK_OUT
    if verb == "spread":
        try:
            cards = parse_cards(rest)
        except CardError as exc:
            raise IllegalActionError(str(exc)) from exc
        mask = 0
        for c in cards:
            mask |= 1 << c
        spread = SPREADS.get(mask)
        if spread is None or mask.bit_count() != len(cards):
            raise IllegalActionError(
                f"{format_cards(cards)} is not a spread (F8: 3-4 of a rank, or 3+ in suit"
                " sequence, ace low)"
            )
        return spread
    if verb == "lay":
        if len(words) == 4 and words[0] == "off" and words[2] == "on":
            try:
                card = parse_card(words[1])
            except CardError as exc:
                raise IllegalActionError(str(exc)) from exc
            # 52 cards make at most 17 spreads
            return layoff_action(card, parse_number("spread number", words[3], 1, 17))
        raise IllegalActionError(f"write a lay-off as 'lay off C on N', got {text!r}")
    raise IllegalActionError(
        f"unknown action {text!r}; Flip Flop actions are: declare 49, declare 50, pass, "
        "reveal CARDS, drop, draw stock, draw discard, tunk out, spread CARDS, "
        "lay off C on N, discard C"
    )
