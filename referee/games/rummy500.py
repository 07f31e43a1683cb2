"""Rummy 500 (rules R1–R10): 2–8 players, melds and lay-offs scored as they are
played, deep draws from the spread discard pile, and calls of "Rummy!".

Text forms of the actions (docs/games/rummy-500.md):

    draw stock | draw discard | draw discard N C | decline
    meld 5H 6H JK=7H | lay off 8H on 2 | lay off JK=8H on 2 | discard C
    rummy N C | no rummy

``N`` counts discard-pile cards from the top (1 is the top card): ``draw discard
3 KH`` takes the three top cards, the deepest being KH. Melds on the table are
numbered from 1 in the order they were made this hand, which is how a lay-off
names its target (as Flip Flop numbers its spreads).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.actions import (
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    Discard,
    DrawDiscard,
    DrawStock,
    parse_number,
    parse_one_card,
    split_verb,
)
from referee.cards import (
    CARD_BY_ID,
    JOKER,
    Card,
    CardError,
    SplitMix64,
    make_deck,
    parse_card,
    shuffled_deck,
)
from referee.engine import (
    Action,
    Event,
    GameSpec,
    GameState,
    IllegalActionError,
    OptionsError,
    Result,
    check_range,
    ranks_from_scores,
    register,
)
from referee.games.rummy500_melds import (
    HIGH_ACE,
    JOKER_VALUE,
    LOW_ACE_VALUE,
    NEIGHBOURS,
    RANK13,
    RANK_VALUES,
    SET_MATES,
    WINDOW_MASKS,
    canonical_slots,
    chain_reaches,
    forms_meld,
    ids,
    joker_forms_meld,
    meldable,
    pos_card,
    run_shape,
    run_templates,
    set_shape,
    set_templates,
)

JK = 64
#: Per card id, its text (C2) and the card object (ids that are no card: unused).
_CARD_TEXT = [str(CARD_BY_ID[c]) if c in CARD_BY_ID else "" for c in range(65)]
_CARDS = [CARD_BY_ID.get(c, JOKER) for c in range(65)]


def _fmt(cards: Sequence[int]) -> str:
    """Like format_cards, from the table of card texts."""
    t = _CARD_TEXT
    return " ".join([t[c] for c in cards])


CALL, DRAW, PLAY = 0, 1, 2
PHASE_NAMES = ("call", "draw", "play")
SCORINGS = tuple(RANK_VALUES)


@dataclass(frozen=True, slots=True)
class Rummy500Options:
    """Options of Rummy 500 (R1, R2, R7, R9, R10)."""

    jokers: bool = False
    scoring: str = "standard"
    floating: bool = False
    unplayable_final_discard: bool = False
    target: int = 500
    max_turns: int = 300
    max_hands: int = 200

    def __post_init__(self) -> None:
        if self.scoring not in SCORINGS:
            raise OptionsError(
                f"option 'scoring' must be one of {', '.join(SCORINGS)}, not {self.scoring!r}"
            )
        check_range("target", self.target, 1, 100_000)
        check_range("max_turns", self.max_turns, 1, 100_000)
        check_range("max_hands", self.max_hands, 1, 100_000)


# -- actions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DrawDeep(Action):
    """Take the top ``depth`` cards of the discard pile; ``card``, the deepest, must
    be melded this turn (R4)."""

    depth: int
    card: Card

    def __str__(self) -> str:
        return f"draw discard {self.depth} {_CARD_TEXT[self.card]}"


@dataclass(frozen=True, slots=True)
class NewMeld(Action):
    """Put a new meld on the table (R4, R5). ``slots`` are the cards of the meld in
    order (runs low to high, sets by suit); bit i of ``jokers`` says slot i is a
    joker standing for that card."""

    slots: tuple[Card, ...]
    jokers: int

    def __str__(self) -> str:
        t = _CARD_TEXT
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
        return f"lay off {'JK=' if self.joker else ''}{_CARD_TEXT[self.card]} on {self.meld}"


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
        return f"rummy {self.depth} {_CARD_TEXT[self.card]}"


@dataclass(frozen=True, slots=True)
class NoRummy(Action):
    """Decline to call rummy (R6)."""

    def __str__(self) -> str:
        return "no rummy"


DECLINE = Decline()
NO_RUMMY = NoRummy()
_DEEP: dict[tuple[int, int], DrawDeep] = {}
_CALLS: dict[tuple[int, int], CallRummy] = {}
_LAYOFFS: dict[tuple[int, bool, int], LayOff] = {}
_RUN_ACTIONS: dict[tuple[int, int, int], tuple[NewMeld, ...]] = {}
_SET_ACTIONS: dict[tuple[int, int, int], tuple[NewMeld, ...]] = {}
_CACHE_LIMIT = 1 << 16
#: Per card id, the texts of the events of discarding, drawing and taking it.
_DISCARD_TEXT = [f"discard {CARD_BY_ID.get(c, '')}" for c in range(65)]
_DREW_TEXT = [f"drew {CARD_BY_ID.get(c, '')}" for c in range(65)]
_DRAW_DISCARD_TEXT = [f"draw discard {CARD_BY_ID.get(c, '')}" for c in range(65)]
_ACES = 1 | 1 << 16 | 1 << 32 | 1 << 48
#: Per suit, per 13-bit rank pattern, the discard actions of those cards.
_DISCARD_CHUNKS: list[list[tuple[Discard, ...]]] = [
    [tuple(DISCARDS[s * 16 + r] for r in range(13) if p >> r & 1) for p in range(1 << 13)]
    for s in range(4)
]


def deep_draw(depth: int, card: int) -> DrawDeep:
    """The interned DrawDeep action."""
    key = (depth, card)
    found = _DEEP.get(key)
    if found is None:
        found = _DEEP[key] = DrawDeep(depth, CARD_BY_ID[card])
    return found


def call_rummy(depth: int, card: int) -> CallRummy:
    """The interned CallRummy action."""
    key = (depth, card)
    found = _CALLS.get(key)
    if found is None:
        found = _CALLS[key] = CallRummy(depth, CARD_BY_ID[card])
    return found


def lay_off(card: int, joker: bool, meld: int) -> LayOff:
    """The interned LayOff of ``card`` (a joker standing for it when ``joker``) on table
    meld number ``meld``."""
    key = (card, joker, meld)
    found = _LAYOFFS.get(key)
    if found is None:
        found = _LAYOFFS[key] = LayOff(CARD_BY_ID[card], joker, meld)
    return found


def _runs_of_suit(suit: int, b14: int, jokers: int) -> tuple[NewMeld, ...]:
    """The runs of ``suit`` from the run-position pattern ``b14`` and ``jokers``
    jokers (the pattern may leave out cards that are in no such run)."""
    key = (suit, b14, jokers)
    found = _RUN_ACTIONS.get(key)
    if found is None:
        found = tuple(
            NewMeld(tuple(CARD_BY_ID[pos_card(suit, p)] for p in positions), jmask)
            for positions, jmask in run_templates(b14, jokers)
        )
        if len(_RUN_ACTIONS) > _CACHE_LIMIT:
            _RUN_ACTIONS.clear()
        _RUN_ACTIONS[key] = found
    return found


def _sets_of_rank(rank: int, q: int, jokers: int) -> tuple[NewMeld, ...]:
    key = (rank, q, jokers)
    found = _SET_ACTIONS.get(key)
    if found is None:
        found = tuple(
            NewMeld(tuple(CARD_BY_ID[s * 16 + rank] for s in suits), jmask)
            for suits, jmask in set_templates(q, jokers)
        )
        _SET_ACTIONS[key] = found
    return found


def _runs_of_pattern(suit: int, r13: int, jokers: int) -> tuple[NewMeld, ...]:
    """The runs of ``suit`` from its 13-bit rank pattern and ``jokers`` jokers."""
    b14 = r13 | ((r13 & 1) << HIGH_ACE)
    # keep only the cards that can be in a run: the runs found are the same, and far
    # fewer patterns reach the cache of _runs_of_suit
    if jokers == 0:
        r3 = b14 & (b14 >> 1) & (b14 >> 2)  # the low ends of 3-card runs
        b14 = r3 | (r3 << 1) | (r3 << 2)
    elif jokers == 1:  # a card with another within two positions
        b14 &= (b14 >> 1) | (b14 >> 2) | (b14 << 1) | (b14 << 2)
    return _runs_of_suit(suit, b14, jokers) if b14 else ()


#: Per joker count, per suit, per 13-bit rank pattern: the runs (filled as met).
_RUN_ROWS: dict[int, list[list[tuple[NewMeld, ...] | None]]] = {}


def meld_actions(mask: int, jokers: int) -> list[NewMeld]:
    """Every new meld a hand of distinct naturals ``mask`` and ``jokers`` jokers can
    make (R5), in a stable order: runs by suit, then sets by rank."""
    a = mask & RANK13
    b = (mask >> 16) & RANK13
    c = (mask >> 32) & RANK13
    d = (mask >> 48) & RANK13
    out: list[NewMeld] = []
    if jokers == 0:
        ranks = (a & b & (c | d)) | (c & d & (a | b))
        runs = (mask & mask >> 1 & mask >> 2) | (mask >> 11 & mask >> 12 & mask & _ACES)
        if not runs and not ranks:
            return out  # the common case: no meld at all
    elif jokers == 1:
        ranks = (a & (b | c | d)) | (b & (c | d)) | (c & d)
        runs = 1
    else:
        ranks = a | b | c | d
        runs = 1
    if runs:
        rows = _RUN_ROWS.get(jokers)
        if rows is None:
            rows = _RUN_ROWS[jokers] = [[None] * (RANK13 + 1) for _ in range(4)]
        for suit, r in ((0, a), (1, b), (2, c), (3, d)):
            if r:
                row = rows[suit]
                found = row[r]
                if found is None:
                    found = row[r] = _runs_of_pattern(suit, r, jokers)
                if found:
                    out.extend(found)
    while ranks:
        low = ranks & -ranks
        r = low.bit_length() - 1
        ranks ^= low
        q = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        out.extend(_sets_of_rank(r, q, jokers))
    return out


_MELD_CARDS: dict[NewMeld, tuple[int, int]] = {}


def _meld_cards(action: NewMeld) -> tuple[int, int]:
    """(mask of the natural cards, number of jokers) of a new meld."""
    found = _MELD_CARDS.get(action)
    if found is None:
        naturals = used = 0
        for i, c in enumerate(action.slots):
            if action.jokers >> i & 1:
                used += 1
            else:
                naturals |= 1 << c
        found = (naturals, used)
        if len(_MELD_CARDS) > _CACHE_LIMIT:
            _MELD_CARDS.clear()
        _MELD_CARDS[action] = found
    return found


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


#: The cards of the largest deal (R1: two packs, two jokers each). No discard pile is
#: deeper, so larger depths in a text are refused.
MOST_CARDS = len(make_deck(2, 2))
#: A meld holds at least three cards (C3), so no table holds more melds than this.
MOST_MELDS = MOST_CARDS // 3


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


# -- the table -----------------------------------------------------------------------------


#: Per tuple of meld slots: (is a run, suit or rank, low, high, suit mask of a set).
_SHAPES: dict[tuple[Card, ...], tuple[bool, int, int, int, int]] = {}
#: Per run (suit, low, high) and per set (rank, suit mask): the cards it accepts.
_RUN_ACCEPT: dict[tuple[int, int, int], int] = {}
_SET_ACCEPT: dict[tuple[int, int], int] = {}


def _shape(slots: tuple[Card, ...]) -> tuple[bool, int, int, int, int]:
    found = _SHAPES.get(slots)
    if found is None:
        shape = run_shape(slots)
        if shape is not None:
            found = (True, shape[0], shape[1], shape[2], 0)
        else:
            sshape = set_shape(slots)
            assert sshape is not None
            found = (False, sshape[0], 0, 0, sshape[1])
        if len(_SHAPES) > _CACHE_LIMIT:
            _SHAPES.clear()
        _SHAPES[slots] = found
    return found


def _run_accept(suit: int, lo: int, hi: int) -> int:
    """The cards a run of ``suit`` over positions lo..hi accepts as lay-offs."""
    key = (suit, lo, hi)
    found = _RUN_ACCEPT.get(key)
    if found is None:
        short = hi - lo < 12
        low_ok = short and lo >= 1
        high_ok = short and hi <= 12
        if low_ok and high_ok and lo == 1 and hi == 12:
            low_ok = False  # ruling: an ace on 2..K goes high (see run_templates)
        found = 0
        if low_ok:
            found |= 1 << pos_card(suit, lo - 1)
        if high_ok:
            found |= 1 << pos_card(suit, hi + 1)
        _RUN_ACCEPT[key] = found
    return found


def _set_accept(rank: int, suits: int) -> int:
    """The cards a set of ``rank`` holding the suits ``suits`` accepts as lay-offs."""
    key = (rank, suits)
    found = _SET_ACCEPT.get(key)
    if found is None:
        found = 0
        if suits.bit_count() < 4:
            for s in range(4):
                if not suits >> s & 1:
                    found |= 1 << (s * 16 + rank)
        _SET_ACCEPT[key] = found
    return found


class TableMeld:
    """A meld on the table: its shape and, per slot, (card stood for, card there, seat)."""

    __slots__ = ("accept", "hi", "is_run", "key", "lo", "number", "placed", "run_pos", "suits")

    def __init__(self, slots: tuple[Card, ...], jokers: int, seat: int, number: int = 0) -> None:
        self.number = number  # 1 for the first meld of the hand: what lay-offs name
        self.run_pos = -1  # a run's place in Rummy500.runs, once on the table
        self.is_run, self.key, self.lo, self.hi, self.suits = _shape(slots)
        if jokers:
            self.placed = [
                (int(c), JK if jokers >> i & 1 else int(c), seat) for i, c in enumerate(slots)
            ]
        else:
            self.placed = [(c, c, seat) for c in slots]
        self.accept = self._accept()

    def _accept(self) -> int:
        """The cards that may be laid off on this meld now, as a mask."""
        if self.is_run:
            return _run_accept(self.key, self.lo, self.hi)
        return _set_accept(self.key, self.suits)

    def add(self, card: int, actual: int, seat: int) -> int:
        """Lay off ``card`` (``actual`` is JK for a joker); returns its run position
        (or -1 in a set)."""
        if not self.is_run:
            self.suits |= 1 << (card >> 4)
            self.placed.append((card, actual, seat))
            self.placed.sort(key=lambda t: t[0] >> 4)
            self.accept = self._accept()
            return -1
        lo, hi = self.bounds_after(card)
        if lo < self.lo:
            self.lo = pos = lo
            self.placed.insert(0, (card, actual, seat))
        else:
            self.hi = pos = hi
            self.placed.append((card, actual, seat))
        self.accept = self._accept()
        return pos

    def bounds_after(self, card: int) -> tuple[int, int]:
        """(low, high) run positions of this run once ``card``, which it accepts, is
        laid off on it."""
        rank = card & 15
        pos = (HIGH_ACE if self.hi == 12 else 0) if rank == 0 else rank
        if pos == self.lo - 1:
            return pos, self.hi
        return self.lo, pos

    def copy(self) -> TableMeld:
        """An independent copy."""
        other = TableMeld.__new__(TableMeld)
        other.accept = self.accept
        other.hi = self.hi
        other.number = self.number
        other.is_run = self.is_run
        other.key = self.key
        other.lo = self.lo
        other.placed = list(self.placed)
        other.run_pos = self.run_pos
        other.suits = self.suits
        return other


# -- views ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlacedView:
    """One card of a table meld: the card lying there (JK for a joker), the card it
    stands for, and the seat that played it (and scores it, R4)."""

    card: Card
    stands_for: Card
    seat: int


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld on the table. ``number`` is the ``N`` of ``lay off C on N``: 1 for the first
    meld made this hand, and the melds are listed in that order."""

    number: int
    kind: str  # "set" or "run"
    cards: tuple[PlacedView, ...]


@dataclass(frozen=True, slots=True)
class HandView:
    """One seat's view of the hand in play."""

    number: int
    dealer: int
    phase: str  # call, draw, play
    turn: int  # the seat whose turn it is (the discarder while calls are asked)
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    known: tuple[tuple[Card, ...], ...]  # per seat, cards seen taken from the pile
    melds: tuple[MeldView, ...]
    discard_pile: tuple[Card, ...]  # bottom first; the last card is the top
    stock_size: int
    melded_points: tuple[int, ...]  # per seat, this hand so far (R8)
    floating: tuple[bool, ...]  # R10 floating: no cards, hand goes on
    must_meld: Card | None  # a deep-drawn or called card not yet melded (R4, R6)
    must_meld_now: bool  # called: the next action must meld it (R6)
    may_not_discard: Card | None  # drawn alone from the pile this turn (R4)
    rummy_calls: tuple[str, ...]  # the calls open while calls are asked (R6)
    turns: int


@dataclass(frozen=True, slots=True)
class OutcomeView:
    """A finished hand, shown to everyone (R7, R8)."""

    number: int
    reason: str
    went_out: int | None
    melded_points: tuple[int, ...]
    left_in_hand: tuple[tuple[Card, ...], ...]
    left_points: tuple[int, ...]
    hand_scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Rummy500View:
    """What one seat may know of a Rummy 500 match (C9)."""

    game: str
    seat: int
    to_act: int | None
    scores: tuple[int, ...]
    hands_played: int
    hand: HandView | None  # None once the match is over
    last_hand: OutcomeView | None
    legal_actions: tuple[str, ...]


# -- the game ------------------------------------------------------------------------------


def deck_for(options: Rummy500Options, seats: int) -> list[Card]:
    """The cards of one deal (R1): one pack for 2–4 players, two for 5–8, with two
    jokers per pack when ``jokers`` is on."""
    return make_deck(2 if seats >= 5 else 1, 2 if options.jokers else 0)


class Rummy500(GameState):
    """A Rummy 500 match."""

    game = "rummy-500"
    options: Rummy500Options

    def __init__(
        self, options: Rummy500Options, seed: int, seats: int, decks: list[list[Card]]
    ) -> None:
        self._start(options, seed, seats, decks, deck_for(options, seats))
        self._packs = 2 if seats >= 5 else 1
        self._jokers_per_pack = 2 if options.jokers else 0
        self._values = RANK_VALUES[options.scoring]
        self._private = [frozenset((s,)) for s in range(seats)]
        self.scores = [0] * seats
        self.hands_played = 0
        self.last_outcome: OutcomeView | None = None
        self.over = False
        self._legal: list[Action] | None = None
        # table melds' views by content: a meld changes only when someone lays off on
        # it, and a view is immutable, so each is made once (bounded; shared by clones)
        self._meld_views: dict[tuple[Any, ...], MeldView] = {}
        dealer = self._rng.below(seats)  # R3: the first dealer is random
        self.events.append(Event(None, f"seat {dealer} deals first"))
        self._deal(dealer)

    # -- dealing ---------------------------------------------------------------------------

    def _deal(self, dealer: int) -> None:
        """Deal a hand (R3)."""
        n = self.num_seats
        if self._decks:
            deck = self._decks.pop(0)
        else:
            deck = shuffled_deck(self._rng, self._packs, self._jokers_per_pack)
        self.number = self.hands_played + 1
        self.dealer = dealer
        self.m1 = [0] * n  # cards held at least once
        self.m2 = [0] * n  # cards held twice (two decks)
        self.jk = [0] * n  # jokers held
        self.size = [0] * n
        self.known: list[dict[int, int]] = [{} for _ in range(n)]
        size = 13 if n == 2 else 7
        pos = 0
        add = self._add
        for _ in range(size):
            for k in range(1, n + 1):
                add((dealer + k) % n, deck[pos])
                pos += 1
        self.pile: list[Card] = [deck[pos]]
        self.stock = deck
        self.stock_pos = pos + 1
        self.table: list[TableMeld] = []
        self.accept = 0
        self.joker_ok = False
        self.runs: list[tuple[int, int, int]] = []
        self.run_ends = 0  # the cards the runs on the table take (or took)
        self.run_near2 = 0  # the cards two places beyond a run's end (or were)
        self.natural_layoffs: dict[int, tuple[LayOff, ...]] = {}
        self._takers = [0] * 64  # per card, how many table melds take it
        self._joker_layoffs: tuple[LayOff, ...] | None = ()
        self.melded = [0] * n
        self.turns = 0
        self.pending = -1
        self.at_once = False
        self.forbidden = -1
        self.discarder = -1
        self.asker = -1
        self.calls: tuple[Action, ...] = ()
        events = self.events
        events.append(Event(None, f"hand {self.number}: seat {dealer} deals"))
        for s in range(n):
            events.append(Event(s, f"dealt {_fmt(self._hand_cards(s))}", self._private[s]))
        events.append(Event(None, f"upcard {self.pile[-1]}"))
        self._start_turn((dealer + 1) % n)

    def _start_turn(self, seat: int) -> None:
        self.turn = seat
        self.phase = DRAW
        self.pending = -1
        self.at_once = False
        self.forbidden = -1

    # -- hand multisets --------------------------------------------------------------------

    def _add(self, seat: int, card: int) -> None:
        if card == JK:
            self.jk[seat] += 1
        else:
            bit = 1 << card
            if self.m1[seat] & bit:
                self.m2[seat] |= bit
            else:
                self.m1[seat] |= bit
        self.size[seat] += 1

    def _remove(self, seat: int, card: int) -> None:
        if card == JK:
            self.jk[seat] -= 1
        else:
            bit = 1 << card
            if self.m2[seat] & bit:
                self.m2[seat] ^= bit
            else:
                self.m1[seat] ^= bit
        self.size[seat] -= 1
        known = self.known[seat]
        if card in known:
            if known[card] == 1:
                del known[card]
            else:
                known[card] -= 1

    def _hand_cards(self, seat: int) -> list[Card]:
        out = []
        m1, m2 = self.m1[seat], self.m2[seat]
        cards = _CARDS
        while m1:
            low = m1 & -m1
            card = cards[low.bit_length() - 1]
            out.append(card)
            if m2 & low:
                out.append(card)
            m1 ^= low
        if self.jk[seat]:
            out.extend([JOKER] * self.jk[seat])
        return out

    def _hand_value(self, seat: int) -> int:
        values = self._values
        total = JOKER_VALUE * self.jk[seat]
        for cid in ids(self.m1[seat]):
            total += values[cid & 15] * (2 if self.m2[seat] >> cid & 1 else 1)
        return total

    def _take_from_pile(self, seat: int, depth: int) -> list[Card]:
        taken = self.pile[-depth:]
        del self.pile[-depth:]
        known = self.known[seat]
        for c in taken:
            self._add(seat, c)
            known[c] = known.get(c, 0) + 1
        return taken

    # -- the interface ---------------------------------------------------------------------

    def to_act(self) -> int | None:
        if self.over:
            return None
        return self.asker if self.phase == CALL else self.turn

    def parse_action(self, text: str) -> Action:
        return parse_rummy500_action(text)

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            if self.over:
                legal = []
            elif self.phase == PLAY:
                legal = self._play_actions()
            elif self.phase == DRAW:
                legal = self._draw_actions()
            else:
                legal = [*self.calls, NO_RUMMY]
            self._legal = legal
        return list(legal)

    def _layable(self, card: int) -> bool:
        return self.joker_ok if card == JK else bool(self.accept >> card & 1)

    def _draw_actions(self) -> list[Action]:
        """R4 draws, deep draws only where the card can be melded this turn; R7 decline."""
        seat = self.turn
        out: list[Action] = []
        stock_left = self.stock_pos < len(self.stock)
        if stock_left:
            out.append(DRAW_STOCK)
        pile = self.pile
        if pile:
            top = pile[-1]
            # a player with no cards could neither meld nor discard a lone top card
            if self.size[seat] or self._layable(top):
                out.append(DRAW_DISCARD)
            if len(pile) > 1:
                pool = self.m1[seat]
                jokers = self.jk[seat]
                if top == JK:
                    jokers += 1
                else:
                    pool |= 1 << top
                accept, ends, near2 = self.accept, self.run_ends, self.run_near2
                for depth, c in enumerate(pile[-2::-1], 2):
                    if c == JK:
                        if self.joker_ok or joker_forms_meld(pool, jokers):
                            out.append(deep_draw(depth, c))
                        jokers += 1
                        continue
                    # meldable() inlined: a lay-off, a new meld, or a chain of lay-offs
                    if jokers >= 2 or accept >> c & 1:
                        out.append(deep_draw(depth, c))
                    elif jokers:  # one joker: any card it can share a meld with
                        if pool & NEIGHBOURS[c] or (
                            # else a chain fills one gap with the joker: the card is
                            # two places beyond a run's end
                            near2 >> c & 1 and chain_reaches(c, pool, 1, self.runs)
                        ):
                            out.append(deep_draw(depth, c))
                    elif pool & NEIGHBOURS[c]:
                        if (pool & SET_MATES[c]).bit_count() >= 2:
                            out.append(deep_draw(depth, c))
                        else:
                            for w in WINDOW_MASKS[c]:
                                if pool & w == w:
                                    out.append(deep_draw(depth, c))
                                    break
                            else:  # a chain starts with the card next to a run's end
                                if pool & ends & RANK13 << (c & 0x30) and chain_reaches(
                                    c, pool, 0, self.runs
                                ):
                                    out.append(deep_draw(depth, c))
                    pool |= 1 << c
        if not stock_left:
            out.append(DECLINE)
        return out

    def _play_actions(self) -> list[Action]:
        seat = self.turn
        m = self.m1[seat]
        jokers = self.jk[seat]
        melds: Sequence[NewMeld] = meld_actions(m, jokers)
        lays: Sequence[LayOff] = ()
        hits = self.accept & m
        if hits or jokers:
            lays = []
            natural = self.natural_layoffs
            while hits:
                low = hits & -hits
                lays.extend(natural[low.bit_length() - 1])
                hits ^= low
            if jokers:
                lays.extend(self._joker_lay_offs())
        if self.pending >= 0:
            return self._owed_actions(melds, lays)
        forbidden = self.forbidden
        if forbidden >= 0:
            if (forbidden == JK and jokers >= 2) or (
                forbidden != JK and self.m2[seat] >> forbidden & 1
            ):
                forbidden = -1  # a second copy may go (R4 forbids only the card drawn)
            elif melds or lays:
                melds, lays = self._keep_drawn_card_playable(forbidden, melds, lays)
        c = _DISCARD_CHUNKS
        if forbidden < 0 and not self.options.unplayable_final_discard:
            out: list[Action] = [
                *melds,
                *lays,
                *c[0][m & RANK13],
                *c[1][(m >> 16) & RANK13],
                *c[2][(m >> 32) & RANK13],
                *c[3][(m >> 48) & RANK13],
            ]
            if jokers:
                out.append(DISCARDS[JK])
            return out
        last = self.size[seat] == 1 and self.options.unplayable_final_discard
        d = m
        if forbidden >= 0 and forbidden != JK:
            d &= ~(1 << forbidden)
        if last:
            d &= ~self.accept
        out = [
            *melds,
            *lays,
            *c[0][d & RANK13],
            *c[1][(d >> 16) & RANK13],
            *c[2][(d >> 32) & RANK13],
            *c[3][(d >> 48) & RANK13],
        ]
        if jokers and forbidden != JK and not (last and self.joker_ok):
            out.append(DISCARDS[JK])
        return out

    def _owed_actions(self, melds: Sequence[NewMeld], lays: Sequence[LayOff]) -> list[Action]:
        """The melds and lay-offs open while a deep-drawn or called card is owed: those
        placing it, or (unless it must be placed now) leaving it meldable (R4, R6)."""
        pending = self.pending
        if self.at_once:
            return [a for a in [*melds, *lays] if _holds(a, pending)]
        still = self._still_meldable
        out: list[Action]
        if self.joker_ok if pending == JK else self.accept >> pending & 1:
            out = [*melds]  # a new meld leaves the table that takes the card as it is
        else:
            out = [a for a in melds if _holds(a, pending) or still(a, pending)]
        out.extend([a for a in lays if _holds(a, pending) or still(a, pending)])
        return out

    def _keep_drawn_card_playable(
        self, forbidden: int, melds: Sequence[NewMeld], lays: Sequence[LayOff]
    ) -> tuple[Sequence[NewMeld], Sequence[LayOff]]:
        """Never leave the lone card drawn from the pile as the whole hand unless it can
        then be laid off: it could neither be discarded nor melded (R4)."""
        keep = self.size[self.turn] - 1  # an action placing this many cards leaves one
        still = self._still_meldable
        if keep == 1:
            if lays:
                lays = [a for a in lays if _holds(a, forbidden) or still(a, forbidden)]
        elif melds:
            melds = [
                a
                for a in melds
                if len(a.slots) != keep or _holds(a, forbidden) or still(a, forbidden)
            ]
        return melds, lays

    def _still_meldable(self, action: Action, card: int) -> bool:
        """Whether ``card`` can still be melded this turn after ``action`` (R4)."""
        seat = self.turn
        m1, m2, jokers = self.m1[seat], self.m2[seat], self.jk[seat]
        if isinstance(action, NewMeld):
            naturals, used = _meld_cards(action)
            jokers -= used
            m1 &= ~(naturals & ~m2)  # a card held twice stays in m1
            # the melds already on the table stay as they are
            if card == JK:
                if self.joker_ok:
                    return True
            elif self.accept >> card & 1:
                return True
        else:
            assert isinstance(action, LayOff)
            c = action.card
            if action.joker:
                jokers -= 1
            elif m2 >> c & 1:
                m2 ^= 1 << c
            else:
                m1 ^= 1 << c
        # what the hand can do alone, whatever the table (see meldable)
        if card == JK:
            if joker_forms_meld(m1, jokers):
                return True
        elif jokers >= 2 or (m1 & NEIGHBOURS[card] and forms_meld(card, m1, jokers)):
            return True
        # the table after the action: what it takes, and its runs
        runs: Sequence[tuple[int, int, int]] = self.runs
        if isinstance(action, NewMeld):
            is_run, key, lo, hi, suits = _shape(action.slots)
            if is_run:
                runs = [*runs, (key, lo, hi)]
                accept = self.accept | _run_accept(key, lo, hi)
            else:
                accept = self.accept | _set_accept(key, suits)
        else:
            tm = self.table[action.meld - 1]
            takers = self._takers
            accept = self.accept
            old = tm.accept
            while old:  # drop the cards only this meld took
                bit = old & -old
                old ^= bit
                if takers[bit.bit_length() - 1] == 1:
                    accept ^= bit
            if tm.is_run:
                lo, hi = tm.bounds_after(action.card)
                runs = list(runs)
                runs[tm.run_pos] = (tm.key, lo, hi)
                accept |= _run_accept(tm.key, lo, hi)
            else:
                accept |= _set_accept(tm.key, tm.suits | 1 << (action.card >> 4))
        return meldable(card, m1, jokers, accept, accept != 0, runs)

    # -- transitions -----------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        self._legal = None
        seat = self.turn
        kind = type(action)
        events = self.events
        if kind is Discard:
            assert isinstance(action, Discard)
            card = action.card
            self._remove(seat, card)
            self.pile.append(card)
            events.append(Event(seat, _DISCARD_TEXT[card]))
            if self.size[seat] == 0:
                self._end_hand("went out", seat)
            else:
                self._end_turn(seat, True)
        elif kind is DrawStock:
            card = self.stock[self.stock_pos]
            self.stock_pos += 1
            self._add(seat, card)
            self.phase = PLAY
            events.append(Event(seat, "draw stock"))
            events.append(Event(seat, _DREW_TEXT[card], self._private[seat]))
        elif kind is NewMeld or kind is LayOff:
            self._place(seat, action)
        elif kind is DrawDiscard:
            card = self.pile.pop()
            self._add(seat, card)
            known = self.known[seat]
            known[card] = known.get(card, 0) + 1
            self.forbidden = card
            self.phase = PLAY
            events.append(Event(seat, _DRAW_DISCARD_TEXT[card]))
        elif kind is DrawDeep:
            assert isinstance(action, DrawDeep)
            taken = self._take_from_pile(seat, action.depth)
            self.pending = action.card
            self.phase = PLAY
            events.append(Event(seat, f"{action}: takes {_fmt(taken)}"))
        elif kind is NoRummy:
            events.append(Event(self.asker, "no rummy"))
            nxt = (self.asker + 1) % self.num_seats
            if nxt == self.discarder:
                self._start_turn((self.discarder + 1) % self.num_seats)
            else:
                self.asker = nxt
        elif kind is CallRummy:
            assert isinstance(action, CallRummy)
            caller = self.asker
            taken = self._take_from_pile(caller, action.depth)
            events.append(Event(caller, f"{action}: takes {_fmt(taken)}"))
            self._start_turn(caller)
            self.phase = PLAY
            self.pending = action.card
            self.at_once = True
            if action.depth == 1:
                self.forbidden = action.card
        elif kind is Decline:
            events.append(Event(seat, "decline"))
            self._end_hand("stock empty and the player declined", None)
        else:  # pragma: no cover - the referee checks legality first
            raise IllegalActionError(f"{action} is not a Rummy 500 action")

    def _place(self, seat: int, action: Action) -> None:
        """A new meld or a lay-off (R4, R5): cards leave the hand and score for ``seat``."""
        values = self._values
        points = 0
        if isinstance(action, NewMeld):
            tm = TableMeld(action.slots, action.jokers, seat, len(self.table) + 1)
            old_accept = 0
            for i, c in enumerate(action.slots):
                if action.jokers >> i & 1:
                    self._remove(seat, JK)
                    points += JOKER_VALUE
                else:
                    self._remove(seat, c)
                    low_ace = tm.is_run and i == 0 and tm.lo == 0
                    points += LOW_ACE_VALUE if low_ace else values[c & 15]
            self.table.append(tm)
        else:
            assert isinstance(action, LayOff)
            tm = self.table[action.meld - 1]
            old_accept = tm.accept
            actual = JK if action.joker else int(action.card)
            self._remove(seat, actual)
            pos = tm.add(action.card, actual, seat)
            if action.joker:
                points = JOKER_VALUE
            else:
                points = LOW_ACE_VALUE if pos == 0 else values[action.card & 15]
        met = self.pending >= 0 and _holds(action, self.pending)
        self.melded[seat] += points
        self.events.append(Event(seat, str(action)))
        self._table_changed(tm, old_accept)
        if met:
            self.pending = -1
            self.at_once = False
        if self.forbidden >= 0 and _holds(action, self.forbidden):
            self.forbidden = -1  # melded; a second copy left in hand may be discarded
        if self.size[seat] == 0:
            if self.options.floating:  # R10: the player floats until their next turn
                self.events.append(Event(seat, "floats"))
                self._end_turn(seat, False)
            else:
                self._end_hand("went out", seat)

    def _table_changed(self, changed: TableMeld, old_accept: int) -> None:
        """Update what the table accepts, and the lay-off actions that follow, after
        ``changed`` was made or laid off on (it accepted ``old_accept`` before): only
        the cards it stopped or started accepting are looked at."""
        new = changed.accept
        takers = self._takers
        natural = self.natural_layoffs
        accept = self.accept
        number = changed.number
        gone = old_accept & ~new
        while gone:
            bit = gone & -gone
            gone ^= bit
            cid = bit.bit_length() - 1
            takers[cid] -= 1
            if takers[cid]:
                natural[cid] = tuple(a for a in natural[cid] if a.meld != number)
            else:
                accept ^= bit
                del natural[cid]
        came = new & ~old_accept
        while came:
            bit = came & -came
            came ^= bit
            cid = bit.bit_length() - 1
            takers[cid] += 1
            if takers[cid] == 1:
                accept |= bit
                natural[cid] = (lay_off(cid, False, number),)
            else:  # several melds take it: in table order
                natural[cid] = tuple(
                    lay_off(cid, False, tm.number) for tm in self.table if tm.accept & bit
                )
        self.accept = accept
        self.joker_ok = accept != 0
        if changed.is_run:
            suit, lo, hi = changed.key, changed.lo, changed.hi
            if changed.run_pos < 0:
                changed.run_pos = len(self.runs)
                self.runs.append((suit, lo, hi))
            else:
                self.runs[changed.run_pos] = (suit, lo, hi)
            # filters for chains of lay-offs (see _draw_actions): kept as supersets,
            # the cards of ends since moved stay in until the next deal
            self.run_ends |= new
            if lo >= 2:
                self.run_near2 |= 1 << pos_card(suit, lo - 2)
            if hi <= 11:
                self.run_near2 |= 1 << pos_card(suit, hi + 2)
        self._joker_layoffs = None

    def _joker_lay_offs(self) -> tuple[LayOff, ...]:
        """Every lay-off of a joker on the table, meld by meld (made when first asked)."""
        found = self._joker_layoffs
        if found is None:
            found = self._joker_layoffs = tuple(
                lay_off(cid, True, tm.number) for tm in self.table for cid in ids(tm.accept)
            )
        return found

    def _end_turn(self, seat: int, discarded: bool) -> None:
        self.turns += 1
        if self.turns >= self.options.max_turns:
            self._end_hand("turn cap", None)
            return
        if discarded:
            calls = self._rummy_calls()
            if calls:  # R6: ask the others in order from the discarder's left
                self.calls = calls
                self.discarder = seat
                self.asker = (seat + 1) % self.num_seats
                self.phase = CALL
                self.turn = seat
                return
        self._start_turn((seat + 1) % self.num_seats)

    def _rummy_calls(self) -> tuple[Action, ...]:
        """The discard-pile cards that can be melded with no card from a hand: laid
        off on a table meld as it lies, or in a new meld with cards above them (R6)."""
        pool = 0
        jokers = 0
        accept = self.accept
        out: list[Action] = []
        for depth, c in enumerate(reversed(self.pile), 1):
            if c == JK:
                if self.joker_ok or joker_forms_meld(pool, jokers):
                    out.append(call_rummy(depth, c))
                jokers += 1
                continue
            # meldable() inlined, without chains (no hand cards to lay off)
            if jokers >= 2 or accept >> c & 1:
                out.append(call_rummy(depth, c))
            elif pool & NEIGHBOURS[c]:
                if jokers or (pool & SET_MATES[c]).bit_count() >= 2:
                    out.append(call_rummy(depth, c))
                else:
                    for w in WINDOW_MASKS[c]:
                        if pool & w == w:
                            out.append(call_rummy(depth, c))
                            break
            pool |= 1 << c
        return tuple(out)

    def _end_hand(self, reason: str, went_out: int | None) -> None:
        """Score the hand (R8) and end the match (R9) or deal the next hand (R3)."""
        n = self.num_seats
        left = tuple(tuple(self._hand_cards(s)) for s in range(n))
        left_points = tuple(self._hand_value(s) for s in range(n))
        hand_scores = tuple(self.melded[s] - left_points[s] for s in range(n))
        for s in range(n):
            self.scores[s] += hand_scores[s]
        self.hands_played += 1
        self.last_outcome = OutcomeView(
            self.number, reason, went_out, tuple(self.melded), left, left_points, hand_scores
        )
        events = self.events
        who = "" if went_out is None else f"seat {went_out} "
        events.append(Event(None, f"hand {self.number} over: {who}{reason}"))
        for s in range(n):
            events.append(
                Event(
                    None,
                    f"seat {s} holds [{_fmt(left[s])}]: "
                    f"{self.melded[s]} melded - {left_points[s]} = {hand_scores[s]}, "
                    f"total {self.scores[s]}",
                )
            )
        self.calls = ()
        top = max(self.scores)
        won = top >= self.options.target and self.scores.count(top) == 1
        if won or self.hands_played >= self.options.max_hands:
            self.over = True
            events.append(Event(None, "match over"))
            return
        self._deal((self.dealer + 1) % n)

    def clone(self) -> Rummy500:
        """An independent copy (faster than a deep copy: cards and events are immutable)."""
        other = Rummy500.__new__(Rummy500)
        other.__dict__.update(self.__dict__)
        other.events = list(self.events)
        other._rng = SplitMix64(0)
        other._rng.state = self._rng.state
        other._decks = [list(d) for d in self._decks]
        for name in ("scores", "m1", "m2", "jk", "size", "pile", "melded", "runs", "_takers"):
            setattr(other, name, list(getattr(self, name)))
        other.natural_layoffs = dict(self.natural_layoffs)
        other.known = [dict(k) for k in self.known]
        other.table = [tm.copy() for tm in self.table]
        other._legal = None
        return other

    # -- views and result ------------------------------------------------------------------

    def view(self, seat: int) -> Rummy500View:
        over = self.over
        to_act = self.to_act()
        return Rummy500View(
            game=self.game,
            seat=seat,
            to_act=to_act,
            scores=tuple(self.scores),
            hands_played=self.hands_played,
            hand=None if over else self._hand_view(seat),
            last_hand=self.last_outcome,
            legal_actions=tuple(str(a) for a in self.legal_actions()) if to_act == seat else (),
        )

    def _meld_view(self, tm: TableMeld) -> MeldView:
        key = (tm.number, tm.is_run, *tm.placed)
        cache = self._meld_views
        view = cache.get(key)
        if view is None:
            if len(cache) >= 1024:
                cache.clear()
            view = cache[key] = MeldView(
                tm.number,
                "run" if tm.is_run else "set",
                tuple(PlacedView(CARD_BY_ID[a], CARD_BY_ID[c], s) for c, a, s in tm.placed),
            )
        return view

    def _hand_view(self, seat: int) -> HandView:
        n = self.num_seats
        melds = tuple([self._meld_view(tm) for tm in self.table])
        known = tuple(
            tuple(CARD_BY_ID[c] for c in sorted(k) for _ in range(k[c])) for k in self.known
        )
        play = self.phase == PLAY
        return HandView(
            number=self.number,
            dealer=self.dealer,
            phase=PHASE_NAMES[self.phase],
            turn=self.turn,
            hand=tuple(self._hand_cards(seat)),
            hand_sizes=tuple(self.size),
            known=known,
            melds=melds,
            discard_pile=tuple(self.pile),
            stock_size=len(self.stock) - self.stock_pos,
            melded_points=tuple(self.melded),
            floating=tuple(self.options.floating and self.size[s] == 0 for s in range(n)),
            must_meld=CARD_BY_ID[self.pending] if play and self.pending >= 0 else None,
            must_meld_now=play and self.at_once,
            may_not_discard=CARD_BY_ID[self.forbidden] if play and self.forbidden >= 0 else None,
            rummy_calls=tuple(str(a) for a in self.calls) if self.phase == CALL else (),
            turns=self.turns,
        )

    def result(self) -> Result | None:
        if not self.over:
            return None
        top = max(self.scores)
        winner = self.scores.index(top) if self.scores.count(top) == 1 else None
        return Result(
            ranks=ranks_from_scores(self.scores),
            scores=tuple(self.scores),
            detail={
                "hands": self.hands_played,
                "winner": winner,
                "target_reached": top >= self.options.target,
            },
        )


def _count(action: Action) -> int:
    """How many cards a meld or lay-off action takes from the hand."""
    return len(action.slots) if isinstance(action, NewMeld) else 1


def _holds(action: Action, card: int) -> bool:
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


SPEC = register(
    GameSpec(
        name="rummy-500",
        title="Rummy 500",
        min_seats=2,
        max_seats=8,
        options_type=Rummy500Options,
        factory=Rummy500,
        deck=deck_for,
        default_seats=4,
        test_variants=(
            {"max_hands": 2},
            {"max_hands": 2, "jokers": True, "scoring": "5-10-15"},
            {"max_hands": 2, "jokers": True, "floating": True, "unplayable_final_discard": True},
            {"max_hands": 3, "max_turns": 12, "target": 40, "floating": True},
        ),
    )
)
