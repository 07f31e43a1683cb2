"""What each seat may know of the cards (C9), modelled apart from the views.

The model reads only the engine's event log: the deal and the draws a seat is
told of privately, and the public events everyone is told (``Event.visible_to``).
From them it keeps, for every seat, the cards it has been told of since the
current hand's deal and, per seat, the cards it knows to be in that seat's hand.
Showdowns the rules make public without an event naming the cards (Flip Flop's,
F9, F11) come from the hands as the referee dealt and moved them. No view is
read, so a view can be checked against the model (:func:`view_leaks`): every
card it shows must be one the seat was told of, and a card shown in another
seat's hand one the seat knows to be there.

Cards move by what the events say, read by their verb (docs/actions.md and the
engines' own event texts). An event that names a card with a verb the model does
not know stops it (:class:`UnknownEvent`) rather than being skipped, so a new kind
of event cannot silently widen what a seat is allowed to see.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from referee.cards import JOKER, Card, parse_card
from referee.engine import Event, GameState

#: A card in C2 notation (``JK=7H`` is a joker standing for 7H: the joker lies there).
CARD = re.compile(r"(?<![A-Za-z0-9=])(JK=)?([A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])")
#: The first event of a hand or round: what a seat knew of the last one is history.
NEW_HAND = re.compile(r"(?:hand|round) \d+:")
#: Rummy 500's showdown (R8): a seat's cards left in hand, named by the referee.
HOLDS = re.compile(r"seat (\d+) holds \[([^\]]*)\]")
#: Flip Flop's settlement of the game pot, which names how the round ended.
GAME_POT = re.compile(r"(?P<ending>[a-z0-9 ]+): game pot \d+ to ")
#: Flip Flop's endings at which everyone in the round shows the hand (F9, F11).
SHOWDOWN_ENDINGS = frozenset({"drop", "empty stock", "turn cap"})

#: Cards that enter the acting seat's hand: the deal (G2, R3, F4), a draw from the
#: stock (told to that seat only), a draw from the discard pile (G3, G4, R4, F7),
#: a deep draw or a call of rummy ("…: takes C C", R4, R6).
ENTER = frozenset({"dealt", "drew", "draw discard", "rummy"})
#: Cards that leave the acting seat's hand face up: a discard (G4, R4, F7), the
#: knocker's discard (G6), melds, spreads and lay-offs (R4, F7), a tunk out (F10).
LEAVE = frozenset({"discard", "knock", "meld", "lay off", "layoff", "spread", "tunk out"})
#: Cards shown that stay in the acting seat's hand: reveals (F6), a declared hand
#: (F5), the card that won the flip or flop (F6), the knocker's and defender's
#: showdown (G6, G8), and the sitter's advice, which names the captain's cards (T3).
SHOW = frozenset({"reveal", "declare", "wins the", "arrange", "defends", "advise"})
#: Cards shown that lie in no hand the event names: the upcard (G2, R3), the flip
#: card (F4, in the dealer's hand), the cards drawn for roles (T1, a deck of their own).
PUBLIC = frozenset({"upcard", "flip card", "draws"})
#: Shows of a whole hand: the model's own tracking must agree with them.
WHOLE_HAND = frozenset({"arrange", "declare"})
VERB = re.compile(
    "(" + "|".join(sorted(ENTER | LEAVE | SHOW | PUBLIC, key=len, reverse=True)) + r")\b"
)
#: Where a view lists its match's history: the hand or round finished last.
HISTORY_FIELDS = frozenset({"last_hand", "last_round"})


class UnknownEvent(AssertionError):
    """An event names cards with a verb the model cannot place."""


@functools.cache
def named_cards(text: str) -> tuple[tuple[int, int], ...]:
    """The cards an event text names, as (card lying there, card named) pairs: they
    differ only for a joker standing for a card (``JK=7H``: (JK, 7H))."""
    return tuple(
        (JOKER if joker else parse_card(token), parse_card(token))
        for joker, token in CARD.findall(text)
    )


@dataclasses.dataclass
class SeatKnowledge:
    """What one seat may know now."""

    seat: int
    #: Per seat, the cards this seat knows to be in that seat's hand (its own: all).
    hands: dict[int, Counter[int]] = dataclasses.field(default_factory=dict)
    #: Every card this seat was told of since the current hand's deal.
    seen: set[int] = dataclasses.field(default_factory=set)
    #: What it was told of in the hand before, which views summarise as history.
    earlier: set[int] = dataclasses.field(default_factory=set)
    #: Every card it was ever told of in the match.
    ever: set[int] = dataclasses.field(default_factory=set)
    #: The cards of the immutable parts of the match's views met so far, by id (each
    #: kept with its part, so that the id stays its own): engines hand the same parts
    #: out again and again. Shared by the seats of one match.
    parts: dict[int, tuple[Any, list[int]]] = dataclasses.field(default_factory=dict, repr=False)

    def hand(self, seat: int) -> Counter[int]:
        """The cards this seat knows to be in ``seat``'s hand now."""
        hand = self.hands.get(seat)
        if hand is None:
            hand = self.hands[seat] = Counter()
        return hand

    def learn(self, cards: Iterable[int]) -> None:
        """The seat is told of ``cards``."""
        cards = set(cards)
        self.seen |= cards
        self.ever |= cards


class Knowledge:
    """What every seat of one match may know, fed the match's events in order."""

    def __init__(self, seats: Iterable[int]) -> None:
        parts: dict[int, tuple[Any, list[int]]] = {}
        self.seats = {s: SeatKnowledge(s, parts=parts) for s in seats}
        #: Every hand as the referee dealt and moved it (from all events, private ones
        #: included): what a showdown shows.
        self.truth: dict[int, Counter[int]] = {}
        self.dealt: list[int] = []  # the seats dealt into the current hand, in order
        self.started: set[int] = set()  # seats that have drawn or dropped this hand
        self.consumed = 0  # events of the match fed so far

    def __getitem__(self, seat: int) -> SeatKnowledge:
        return self.seats[seat]

    def follow(self, state: GameState) -> None:
        """Feed the events of ``state`` that came since the last call."""
        events = state.events
        self.feed(events[self.consumed :])

    def feed(self, events: Iterable[Event]) -> None:
        """Feed events, in the order the engine logged them."""
        for event in events:
            self.consumed += 1
            self._take(event)

    def _held(self, seat: int) -> Counter[int]:
        return self.truth.setdefault(seat, Counter())

    def _take(self, event: Event) -> None:
        text, seat = event.text, event.seat
        if seat is None and NEW_HAND.match(text):
            self._new_hand()
            return
        cards = named_cards(text)
        verb_match = VERB.match(text)
        verb = verb_match.group(1) if verb_match else None
        if seat is not None and (verb == "draw discard" or text in ("draw stock", "drop")):
            self.started.add(seat)  # a turn begins with a draw or a drop (F7)
        if seat is None and (holds := HOLDS.match(text)):
            self._holds(event, int(holds.group(1)), cards)
        elif seat is None and (pot := GAME_POT.match(text)):
            self._tell(event, cards)
            self._showdown(pot.group("ending"))
        elif not cards:
            return
        elif verb is None:
            raise UnknownEvent(f"the model cannot place the cards of event {event}")
        elif verb in PUBLIC:
            self._tell(event, cards, lambda k: self._locate(k, cards, None))
        elif seat is None:
            raise UnknownEvent(f"the model expects a seat to act in event {event}")
        elif verb in ENTER:
            taken = text.split(": takes ", 1)[1] if ": takes " in text else text
            lying = [c for c, _ in named_cards(taken)]
            if verb == "dealt":
                self.dealt.append(seat)
                self.truth[seat] = Counter()
            self._held(seat).update(lying)
            self._tell(event, cards, lambda k: k.hand(seat).update(lying))
        elif verb in LEAVE:
            lying = [c for c, _ in cards]
            held = self._held(seat)
            held.subtract(lying)
            if any(n < 0 for n in held.values()):
                raise AssertionError(f"the model lost track of seat {seat}'s hand at {event}")
            self._tell(event, cards, lambda k: _remove(k.hand(seat), lying))
        else:
            if verb in WHOLE_HAND:
                self._check_whole_hand(event, seat, Counter(c for c, _ in cards))
            self._tell(event, cards, lambda k: self._locate(k, cards, seat))

    def _holds(self, event: Event, seat: int, cards: list[tuple[int, int]]) -> None:
        """Rummy 500's showdown (R8): the referee names every card left in a hand."""
        shown = Counter(c for c, _ in cards)
        self._check_whole_hand(event, seat, shown)
        self._tell(event, cards, lambda k: k.hands.__setitem__(seat, shown.copy()))

    def _tell(
        self,
        event: Event,
        cards: Sequence[tuple[int, int]],
        update: Callable[[SeatKnowledge], None] | None = None,
    ) -> None:
        """Every seat that may see ``event`` learns the cards it names, then ``update``."""
        for k in self.seats.values():
            if event.visible(k.seat):
                k.learn(c for pair in cards for c in pair)
                if update is not None:
                    update(k)

    def _locate(self, k: SeatKnowledge, cards: Sequence[tuple[int, int]], seat: int | None) -> None:
        """Shown cards that stay where they lie: in ``seat``'s hand when it holds them;
        for an event of no seat's, in the one hand that holds them, if one does."""
        for lying, _ in cards:
            if seat is None:
                holders = [s for s, held in self.truth.items() if held[lying] > 0]
                if len(holders) != 1:
                    continue
                where = holders[0]
            else:
                where = seat
            if self._held(where)[lying] > k.hand(where)[lying]:
                k.hand(where)[lying] += 1

    def _showdown(self, ending: str) -> None:
        """Flip Flop's end of round: everyone in the round shows after a drop, an empty
        stock or the turn cap (F9, F11); seats whose first turn had not begun show
        their opening hands, from which their reveals were made (the engine's ruling,
        docs/games/flip-flop.md)."""
        shown = [s for s in self.dealt if ending in SHOWDOWN_ENDINGS or s not in self.started]
        for k in self.seats.values():
            for s in shown:
                held = +self._held(s)
                k.hands[s] = held
                k.learn(held)

    def _new_hand(self) -> None:
        for k in self.seats.values():
            k.earlier = k.seen
            k.seen = set()
            k.hands = {}
        self.truth = {}
        self.dealt = []
        self.started = set()

    def _check_whole_hand(self, event: Event, seat: int, shown: Counter[int]) -> None:
        held = +self._held(seat)
        if held != shown:
            raise AssertionError(
                f"the model lost track of seat {seat}'s hand: it holds {_text(held)}, "
                f"but the referee shows {_text(shown)} ({event})"
            )


def _remove(hand: Counter[int], cards: Iterable[int]) -> None:
    for c in cards:
        if hand[c] > 0:
            hand[c] -= 1


def _text(cards: Counter[int]) -> str:
    return " ".join(str(Card(c)) for c in sorted(cards.elements()))


def known_cards(events: Iterable[Event], seat: int) -> set[int]:
    """The cards ``seat`` may know the place of after ``events`` (a match's log, from
    its start): everything it was told of since the current hand's deal."""
    model = Knowledge([seat])
    model.feed(events)
    return set(model[seat].seen)


# -- checking a view -----------------------------------------------------------------------


Path = tuple[Any, ...]
ANY = None  # any index, in a field pattern


@dataclasses.dataclass(frozen=True)
class HandField:
    """Where a view shows cards as being in one seat's hand: the field's path (field
    names, ``ANY`` for an index) and which seat's hand it is."""

    path: Path
    holder: Callable[[Any, Path], int]

    def covers(self, path: Path) -> bool:
        """Whether ``path`` lies inside this field."""
        return len(path) >= len(self.path) and _matches(self.path, path)

    def passes_through(self, path: Path) -> bool:
        """Whether this field lies strictly inside ``path``."""
        return len(path) < len(self.path) and _matches(self.path, path)


def _matches(pattern: Path, path: Path) -> bool:
    return all(p is ANY or p == q for p, q in zip(pattern, path, strict=False))


def _own(view: Any, path: Path) -> int:
    return int(view.seat)


def _gin_fields(part: str) -> tuple[HandField, ...]:
    return (
        HandField((part, "hand"), lambda v, p: int(getattr(v, part).player)),
        HandField((part, "opponent_known"), lambda v, p: int(getattr(v, part).opponent)),
    )


#: Per game, where its view shows cards as being in a particular seat's hand. Gin:
#: a HandView's ``hand`` is its player's, ``opponent_known`` the opponent's, and Gin
#: for three's sitter is shown the captain's as ``advising`` (T3). Rummy 500:
#: ``hand.hand`` is the seat's own, ``hand.known[p]`` seat p's. Flip Flop: ``hand``
#: is the seat's own, ``players[i].face_up`` that player's.
HAND_FIELDS: dict[str, tuple[HandField, ...]] = {
    "hollywood-gin": _gin_fields("hand"),
    "gin-three": _gin_fields("hand") + _gin_fields("advising"),
    "rummy-500": (
        HandField(("hand", "hand"), _own),
        HandField(("hand", "known", ANY), lambda v, p: int(p[2])),
    ),
    "flip-flop": (
        HandField(("hand",), _own),
        HandField(("players", ANY, "face_up"), lambda v, p: int(v.players[p[1]].seat)),
    ),
}


def cards_in(
    value: Any,
    apart: Callable[[Path], bool] = lambda path: True,
    parts: dict[int, tuple[Any, list[int]]] | None = None,
) -> list[tuple[Path, list[int]]]:
    """Every card inside a view, grouped by the field that holds it, with the path of
    fields and indexes to that field. A view is a dataclass (cards are :class:`Card`
    values) or its protobuf message (cards are C2 strings); any string, an action's
    text included, gives the cards it names (a joker's stand-in, ``JK=7H``, is a
    value rather than a card lying somewhere). The cards of a part of the view for
    whose path ``apart`` is false are given as one group, at that part's path (and
    kept in ``parts`` when it is immutable, see :attr:`SeatKnowledge.parts`)."""
    return _search([((), value)], apart, {} if parts is None else parts)


_NO_CARDS = frozenset({int, bool, float, type(None)})


def _search(
    stack: list[tuple[Path, Any]],
    apart: Callable[[Path], bool],
    parts: dict[int, tuple[Any, list[int]]],
) -> list[tuple[Path, list[int]]]:
    found: list[tuple[Path, list[int]]] = []
    while stack:
        path, v = stack.pop()
        kind = type(v)
        if kind is Card:
            found.append((path, [v]))
        elif kind in _NO_CARDS:
            continue
        elif kind is str:
            found.append((path, [lying for lying, _ in named_cards(v)]))
        elif (fields := _fields(kind)) is not None:
            frozen, names = fields
            if path and not apart(path):  # no hand field inside: one group
                part = parts.get(id(v)) if frozen else None
                if part is None or part[0] is not v:
                    inside = _search([((n,), getattr(v, n)) for n in names], _never, parts)
                    part = (v, [c for _, cards in inside for c in cards])
                    if frozen:
                        parts[id(v)] = part
                found.append((path, part[1]))
            else:
                stack.extend(((*path, n), getattr(v, n)) for n in names)
        elif kind is not tuple and hasattr(v, "ListFields"):  # a protobuf message
            stack.extend(((*path, f.name), item) for f, item in v.ListFields())
        elif kind is not tuple and hasattr(v, "items"):  # a mapping, or a protobuf map
            stack.extend(((*path, key), item) for key, item in v.items())
        elif kind is tuple or isinstance(v, Iterable):  # a tuple, or a repeated field
            items = list(v)
            cards: list[int] = [c for c in items if type(c) is Card]
            if len(cards) < len(items):
                for i, item in enumerate(items):
                    kind = type(item)
                    if kind is str:
                        cards.extend(lying for lying, _ in named_cards(item))
                    elif kind is not Card and kind not in _NO_CARDS:
                        stack.append(((*path, i), item))
            found.append((path, cards))
    return found


def _never(path: Path) -> bool:
    return False


@functools.cache
def _fields(cls: type) -> tuple[bool, tuple[str, ...]] | None:
    """Whether a dataclass type is frozen, and its field names; None for other types."""
    if not dataclasses.is_dataclass(cls):
        return None
    frozen = bool(cls.__dataclass_params__.frozen)  # type: ignore[attr-defined]
    return frozen, tuple(f.name for f in dataclasses.fields(cls))


def view_leaks(game: str, knowledge: SeatKnowledge, view: Any) -> list[str]:
    """What ``view`` shows that the seat may not know (C9): a card it was not told of
    this hand (in the history fields: this hand or the last), or a card in a seat's
    hand that it does not know to be there."""
    out = []
    seen = knowledge.seen
    history = seen | knowledge.earlier
    seat = knowledge.seat
    apart = functools.partial(_holds_a_hand_field, game)
    for path, cards in cards_in(view, apart, knowledge.parts):
        if not cards:
            continue
        if path[0] in HISTORY_FIELDS:
            if not history.issuperset(cards):
                out += [
                    f"{Card(c)} at {_dotted(path)}: seat {seat} was never shown it"
                    for c in cards
                    if c not in history
                ]
        elif not seen.issuperset(cards):
            out += [
                f"{Card(c)} at {_dotted(path)}: seat {seat} was not told of it"
                for c in cards
                if c not in seen
            ]
        else:
            for field in _routes(game, path)[0]:
                holder = field.holder(view, path)
                hand = knowledge.hand(holder)
                if len(set(cards)) == len(cards) and all(hand.get(c, 0) > 0 for c in cards):
                    continue
                beyond = Counter(cards) - hand
                if beyond:
                    out.append(
                        f"{_text(beyond)} at {_dotted(path)}, in seat {holder}'s hand: "
                        f"seat {seat} does not know them to be there"
                    )
    return out


@functools.cache
def _routes(game: str, path: Path) -> tuple[list[HandField], list[HandField]]:
    """The hand fields of ``game``'s view that ``path`` lies in, and those inside it."""
    fields = HAND_FIELDS[game]
    return [f for f in fields if f.covers(path)], [f for f in fields if f.passes_through(path)]


def _holds_a_hand_field(game: str, path: Path) -> bool:
    return bool(_routes(game, path)[1])


def text_leaks(allowed: set[int], seat: int, what: str, texts: Iterable[str]) -> list[str]:
    """The cards that ``texts`` sent to ``seat`` name outside ``allowed``."""
    return [
        f"{Card(card)} in {what} {text!r}: seat {seat} was not told of it"
        for text in texts
        for _, cards in cards_in(text)
        for card in cards
        if card not in allowed
    ]


def _dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)
