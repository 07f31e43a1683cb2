"""Game Flip Flop (rules F1–F14): 3–5 players, stakes, and three pots (game, flip, flop).

A Tonk-style round: antes by bankroll (F3), a five-card deal with the dealer's
last card face up (F4), optional 49/50 declarations (F5), the flip and flop
pots won by the lowest cards of two suits (F6), then turns of draw, spread,
lay off, discard (F7–F11) until someone goes out, drops, tunks out or the stock
runs dry. Hands are bit masks over card ids (``referee.cards``); spreads on
the table are numbered from 1 in the order they were laid down this round,
which is how a lay-off names its target. See ``docs/games/flip-flop.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from referee.actions import (
    DISCARD_TABLES,
    DISCARD_TEXTS,
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Discard,
    DrawDiscard,
    DrawStock,
    Pass,
    parse_common,
    parse_number,
    split_verb,
)
from referee.cards import (
    CARD_BY_ID,
    RANK_BITS,
    SUITS,
    Card,
    CardError,
    SplitMix64,
    card_tuple,
    cards_of,
    format_cards,
    make_deck,
    parse_card,
    parse_cards,
    shuffled_deck,
)
from referee.engine import (
    Action,
    Event,
    GameSpec,
    GameState,
    IllegalActionError,
    Result,
    check_range,
    register,
)
from referee.melds import MeldSearch, meld_search

SEARCH: MeldSearch = meld_search()  # F1, F8: Gin values, ace low only
CARD_VALUE = SEARCH.card_value
HAND_SIZE = 5
GAME, FLIP, FLOP = 0, 1, 2
POT_NAMES = ("game", "flip", "flop")
#: Every real card's bit: masks shifted off a suit's 13 ranks fall outside it.
DECK_MASK = sum(1 << c for c in CARD_BY_ID if c != 64)
CARD_TEXT = {c: str(card) for c, card in CARD_BY_ID.items()}
ANTE_TEXT = {
    1: ("game (all in)", "game, sets aside 1"),
    2: ("", "game flip, sets aside 1"),
    3: ("", "game flip flop, sets aside 1"),
}
ONLY = [frozenset((s,)) for s in range(5)]  # events one seat alone may see
SEAT_TEXT = [f"seat {s}" for s in range(5)]
#: ANTE_PHRASE[seat][pays][sets_aside]: one seat's ante in the round's opening event.
ANTE_PHRASE = [
    [[f"seat {s} {ANTE_TEXT[p][a]}" if p else "" for a in (0, 1)] for p in range(4)]
    for s in range(5)
]
#: SEAT_ORDERS[seats][dealer]: every seat from the dealer's left round to the dealer.
SEAT_ORDERS = {
    n: [tuple((d + i) % n for i in range(1, n + 1)) for d in range(n)] for n in range(3, 6)
}
#: The tens and court cards, each worth 10 (F1).
TEN_VALUED = sum(1 << c for c in CARD_BY_ID if c != 64 and CARD_VALUE[c] == 10)
#: FULL_ANTES[seats][dealer]: the antes when every seat pays in full.
FULL_ANTES = {
    n: [[ANTE_PHRASE[s][3][1] for s in order] for order in orders]
    for n, orders in SEAT_ORDERS.items()
}
_BITS = [1 << c for c in range(65)]
FLIP_TEXT = {c: f"flip card {t}" for c, t in CARD_TEXT.items()}
DREW_TEXT = {c: f"drew {t}" for c, t in CARD_TEXT.items()}
DRAW_DISCARD_TEXT = {c: f"draw discard {t}" for c, t in CARD_TEXT.items()}
#: An event as logged: (seat, text or a function making it, its arguments, visible_to).
LogEntry = tuple[int | None, Any, tuple[Any, ...] | None, frozenset[int] | None]
_UNCLAIMED = "{} pot unclaimed: {}".format
_POT_WON = "wins the {} pot ({}) with {}".format
_SET_ASIDE_PAID = "pays set-aside stake {} into the game pot".format
_RANK_ALL_SUITS = [sum(1 << (s * RANK_BITS + r) for s in range(4)) for r in range(13)]


# -- actions -------------------------------------------------------------------------------


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
_TRIPLES = frozenset(m.mask for m in SEARCH.melds if len(m.cards) == 3)
_LAYOFFS: dict[tuple[int, int], LayOff] = {}
_MELDS_CACHE: dict[int, tuple[Spread, ...]] = {}


@dataclass(frozen=True, slots=True)
class RevealPlan:
    """A seat's reveal due at its first turn (F6), worked out at the deal: the (pot,
    card) pairs it shows, the event text, and its legal first actions with and without
    a discard pile to draw from. Interned per (flip card, flop card)."""

    shows: tuple[tuple[str, Card], ...]
    text: str
    with_discard: tuple[Reveal, ...]
    without_discard: tuple[Reveal, ...]


_REVEAL_PLANS: dict[int, RevealPlan] = {}


def reveal_plan(flip: int, flop: int) -> RevealPlan:
    """The interned plan of a seat that shows ``flip`` for the flip pot and ``flop`` for
    the flop pot (either -1 when it shows none for that pot)."""
    key = (flip & 127) << 7 | (flop & 127)
    found = _REVEAL_PLANS.get(key)
    if found is None:
        shows: tuple[tuple[str, Card], ...] = tuple(
            (pot, CARD_BY_ID[c]) for pot, c in (("flip", flip), ("flop", flop)) if c >= 0
        )
        cards = tuple(card for _, card in shows)
        found = _REVEAL_PLANS[key] = RevealPlan(
            shows,
            "reveal " + format_cards(cards),
            tuple(Reveal(cards, a) for a in (DRAW_STOCK, DRAW_DISCARD, DROP)),
            tuple(Reveal(cards, a) for a in (DRAW_STOCK, DROP)),
        )
    return found


def layoff_action(card: int, spread: int) -> LayOff:
    """The interned LayOff of ``card`` on spread number ``spread``."""
    key = (card, spread)
    found = _LAYOFFS.get(key)
    if found is None:
        found = _LAYOFFS[key] = LayOff(CARD_BY_ID[card], spread)
    return found


def _spreads_among(cand: int) -> tuple[Spread, ...]:
    """Every spread made of the cards ``cand`` (a hand's meld candidates)."""
    if not cand:
        return ()
    found = _MELDS_CACHE.get(cand)
    if found is None:
        found = tuple(SPREADS[m.mask] for m in SEARCH.melds_in(cand))
        if len(_MELDS_CACHE) > 100_000:
            _MELDS_CACHE.clear()
        _MELDS_CACHE[cand] = found
    return found


def tunk_split(mask: int) -> tuple[int, int] | None:
    """The two three-card spreads a six-card hand splits into (F10), or None."""
    if mask.bit_count() != 6 or SEARCH.candidates(mask) != mask:
        return None
    low = mask & -mask
    for meld in SEARCH.by_card[low.bit_length() - 1]:
        m = meld.mask
        if len(meld.cards) == 3 and m & mask == m and (mask ^ m) in _TRIPLES:
            return (m, mask ^ m)
    return None


def extension_mask(mask: int) -> int:
    """The cards that could be laid off on the table spread ``mask`` (F7, F8)."""
    low = mask & -mask
    rank = (low.bit_length() - 1) & 15
    same_rank = _RANK_ALL_SUITS[rank]
    if mask & same_rank == mask:  # a set: the missing suits of its rank
        return same_rank & ~mask
    return ((mask >> 1) | (mask << 1)) & ~mask & DECK_MASK  # a run, ace low only


def hand_value(mask: int) -> int:
    """The value of the cards in a hand (F1): every card counts, spreads or not."""
    return SEARCH.value(mask)


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


# -- options and views ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FlipFlopOptions:
    """Options of Game Flip Flop (F2, F11, F14)."""

    starting_stakes: int = 40
    max_rounds: int = 100
    max_turns: int = 200

    def __post_init__(self) -> None:
        check_range("starting_stakes", self.starting_stakes, 1, 1_000_000)
        check_range("max_rounds", self.max_rounds, 1, 100_000)
        check_range("max_turns", self.max_turns, 1, 100_000)


class Phase(Enum):
    """Where a round stands."""

    DECLARE = "declare 49 or 50"  # F5
    DRAW = "drop or draw"  # F7.1, F7.2
    PLAY = "spread, lay off or discard"  # F7.3-F7.5
    OVER = "match over"


_DRAW = Phase.DRAW
_PLAY = Phase.PLAY
_DRAWS = (DRAW_STOCK, DRAW_DISCARD, DROP)
_DRAWS_NO_PILE = (DRAW_STOCK, DROP)


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What everyone knows of one seat."""

    seat: int
    bankroll: int  # set-aside stake included
    set_aside: int  # reserved for F5, F9, F10 payments
    eligible: tuple[str, ...]  # the pots this seat may win this round (F3)
    in_round: bool
    eliminated_in_round: int | None  # F13
    hand_size: int
    face_up: tuple[Card, ...]  # cards in hand all can see: flip card, reveals, taken discards
    declared: int | None  # 49 or 50 (F5)


@dataclass(frozen=True, slots=True)
class RevealView:
    """A card revealed for the flip or the flop (F6)."""

    seat: int
    pot: str
    card: Card


@dataclass(frozen=True, slots=True)
class SpreadView:
    """A spread on the table: its number (lay-offs name it), who laid it, its cards."""

    number: int
    owner: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ShownHand:
    """A hand shown at the end of a round, with its value."""

    seat: int
    cards: tuple[Card, ...]
    value: int


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """How a finished round ended and who was paid what."""

    round: int
    ending: str  # declared 50, declared 49, went out, tunk out, drop, empty stock, turn cap
    seat: int | None  # who declared first, went out, tunked out or dropped
    shown: tuple[ShownHand, ...]
    spreads: tuple[SpreadView, ...]  # the table at the end (tunk spreads included)
    discard_pile: tuple[Card, ...]
    game_winners: tuple[int, ...]
    game_share: int  # stakes each game-pot winner received
    set_asides_paid: tuple[int, ...]  # seats whose set-aside stake went into the game pot
    flip_winner: int | None
    flip_card: Card | None  # the winning card
    flip_won: int
    flop_winner: int | None
    flop_card: Card | None
    flop_won: int
    eliminated: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FlipFlopView:
    """What one seat may know of a Flip Flop match (C9)."""

    game: str
    seat: int
    to_act: int | None
    phase: str
    round: int
    dealer: int
    pots: tuple[int, int, int]  # game, flip, flop
    players: tuple[PlayerView, ...]
    hand: tuple[Card, ...]
    flip_card: Card | None
    flip_suit: str | None
    flop_suit: str | None
    reveals: tuple[RevealView, ...]
    spreads: tuple[SpreadView, ...]
    discard_pile: tuple[Card, ...]  # bottom first
    stock_size: int
    turns: int
    taken_from_discard: Card | None  # may not be discarded this turn (F7.5)
    last_round: RoundSummary | None
    legal_actions: tuple[str, ...]


# -- the match -----------------------------------------------------------------------------


class FlipFlop(GameState):
    """A Game Flip Flop match."""

    game = "flip-flop"
    options: FlipFlopOptions

    def __init__(self, options: FlipFlopOptions, seed: int, seats: int, decks: list[list[Card]]):
        self._start(options, seed, seats, decks, make_deck())
        n = seats
        self.bankroll = [options.starting_stakes] * n  # F2
        self.set_aside = [0] * n
        self.pots = [0, 0, 0]
        self.eligible = [0] * n  # pots a seat may win: 0 (not in round) .. 3 (F3)
        self.eliminated_in: list[int | None] = [None] * n
        self.declared: list[int | None] = [None] * n
        self.hands = [0] * n
        self.known = [0] * n  # face-up cards in each hand
        self.order: list[int] = []  # seats in the round, dealer's left first, dealer last
        self.round_no = 0
        self.dealer = self._rng.below(n)  # F4: the first dealer is random
        self._log.append((None, "seat {} deals first".format, (self.dealer,), None))
        self.stock: list[Card] = []
        self.stock_pos = 0
        self.discard_pile: list[Card] = []
        self.spread_masks: list[int] = []
        self.spread_owners: list[int] = []
        self.spread_ext: list[int] = []
        self.phase = Phase.DECLARE
        self.turn = 0
        self.turn_index = 0
        self.taken = -1
        self.turns = 0
        self.started = 0  # mask of seats whose first turn has begun (reveals made)
        self.flip_card: Card | None = None
        self.pending: list[RevealPlan | None] = []  # reveals still to make, per seat
        self.winners: list[tuple[Card, int] | None] = [None, None]  # flip, flop: (card, seat)
        self.reveals: list[tuple[int, str, Card]] = []  # (seat, pot, card) in order
        self.side_paid = False  # flip and flop settled this round
        self.side_result: list[tuple[int | None, Card | None, int]] = []
        self.declare_queue: list[int] = []
        self._last_round: tuple[Any, ...] | None = None
        self._summary: RoundSummary | None = None
        # every seat's PlayerView by its fields: most are unchanged from one decision
        # to the next, and a view is immutable, so it is made once (bounded)
        self._player_views: dict[tuple[Any, ...], PlayerView] = {}
        self.over = False
        self._start_round()

    # -- the event log ---------------------------------------------------------------------

    # Events are logged as (seat, text, args, visible_to): text is the event's text, or
    # when args is not None a function that makes it from args. The Event objects are
    # made when someone reads ``events``; random playouts that never look save the
    # formatting (deal lines, pot amounts), which is a good part of a short round.

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order (the GameState contract)."""
        made = self._made
        log = self._log
        if len(made) < len(log):
            made.extend(
                Event(seat, text if args is None else text(*args), visible)
                for seat, text, args, visible in log[len(made) :]
            )
        return made

    @events.setter
    def events(self, value: list[Event]) -> None:
        self._made = list(value)
        self._log: list[LogEntry] = [(e.seat, e.text, None, e.visible_to) for e in value]

    # -- copying ---------------------------------------------------------------------------

    def clone(self) -> FlipFlop:
        other = FlipFlop.__new__(FlipFlop)
        other.__dict__.update(self.__dict__)
        for name in (
            "_log",
            "_made",
            "bankroll",
            "set_aside",
            "pots",
            "eligible",
            "eliminated_in",
            "declared",
            "hands",
            "known",
            "order",
            "discard_pile",
            "spread_masks",
            "spread_owners",
            "spread_ext",
            "pending",
            "winners",
            "reveals",
            "side_result",
            "declare_queue",
            "_decks",
        ):
            setattr(other, name, list(getattr(self, name)))
        other._rng = SplitMix64(self._rng.state)
        return other

    # -- rounds ----------------------------------------------------------------------------

    def _start_round(self) -> None:
        """Antes (F3), the deal (F4), the reveals to come (F6) and the 49/50 question (F5)."""
        n = self.num_seats
        self.round_no += 1
        bankroll = self.bankroll
        eligible = self.eligible
        dealer = self.dealer
        pots = self.pots
        if min(bankroll) >= 4:  # the usual round: everyone antes in full (F3)
            order = list(SEAT_ORDERS[n][dealer])
            antes = FULL_ANTES[n][dealer]
            pots[0] += n
            pots[1] += n
            pots[2] += n
            self.bankroll = [b - 3 for b in bankroll]
            self.set_aside = [1] * n
            self.eligible = eligible = [3] * n
        else:
            order, antes = self._antes()
        self.order = order
        k = len(order)
        log = self._log
        log.append((None, _round_text, (self.round_no, dealer, antes), None))
        deck = self._decks.pop(0) if self._decks else shuffled_deck(self._rng)
        dealt_cards = 5 * k
        flip = deck[dealt_cards - 1]
        flip_shift = (flip >> 4) * RANK_BITS
        flop_shift = flip_shift ^ (3 * RANK_BITS)  # the other suit of the same colour
        # F6: the flip card counts for the dealer when the dealer may win the flip
        best_flip = flip if eligible[dealer] >= 2 else 99
        best_flop = 99
        flip_seat = dealer if best_flip == flip else -1
        flop_seat = -1
        hands = [0] * n
        pending: list[RevealPlan | None] = [None] * n
        declare = []
        bits = _BITS
        value = CARD_VALUE.__getitem__
        for j, seat in enumerate(order):
            cards = deck[j:dealt_cards:k]
            hands[seat] = mask = sum(map(bits.__getitem__, cards))
            log.append((seat, _dealt_text, (mask,), ONLY[seat]))
            # F5: five cards reach 49 only with four tens or court cards
            if (mask & TEN_VALUED).bit_count() >= 4 and sum(map(value, cards)) >= 49:
                declare.append(seat)
            level = eligible[seat]
            if level >= 2:  # reveal order is the deal order, dealer last (F6)
                shown_flip = shown_flop = -1
                card = _lowest_of_suit(mask, flip_shift)
                if 0 <= card < best_flip:
                    best_flip = shown_flip = card
                    flip_seat = seat
                if level == 3:
                    card = _lowest_of_suit(mask, flop_shift)
                    if 0 <= card < best_flop:
                        best_flop = shown_flop = card
                        flop_seat = seat
                if shown_flip >= 0 or shown_flop >= 0:
                    pending[seat] = reveal_plan(shown_flip, shown_flop)
        self.hands = hands
        self.pending = pending
        self.winners = [
            None if flip_seat < 0 else (CARD_BY_ID[best_flip], flip_seat),
            None if flop_seat < 0 else (CARD_BY_ID[best_flop], flop_seat),
        ]
        self.flip_card = flip
        known = self.known = [0] * n
        known[dealer] = 1 << flip
        self.stock = deck
        self.stock_pos = dealt_cards
        self.discard_pile = []
        self.spread_masks = []
        self.spread_owners = []
        self.spread_ext = []
        self.taken = -1
        self.turns = 0
        self.reveals = []
        self.side_paid = False
        self.side_result = []
        self.declared = [None] * n
        log.append((None, FLIP_TEXT[flip], None, None))
        self.declare_queue = declare  # only 49 and 50 reach 49 with five cards
        if declare:
            self.started = 0
            self.phase = Phase.DECLARE
            self.turn = declare[0]
        else:
            self._begin_play()

    def _antes(self) -> tuple[list[int], list[str]]:
        """F3 seat by seat, when some bankroll is short: who is in the round, in order
        from the dealer's left, and the text of each ante."""
        bankroll = self.bankroll
        eligible = self.eligible
        set_aside = self.set_aside
        antes = []
        order = []
        games = flips = flops = 0
        for seat in SEAT_ORDERS[self.num_seats][self.dealer]:
            b = bankroll[seat]
            if b <= 0:
                eligible[seat] = set_aside[seat] = 0
                continue
            if b >= 4:  # into game, flip, flop in turn; one more set aside
                pays, aside = 3, 1
            elif b >= 2:
                pays, aside = b - 1, 1
            else:
                pays, aside = 1, 0  # all in
            games += 1
            if pays > 1:
                flips += 1
                if pays > 2:
                    flops += 1
            bankroll[seat] = b - pays
            set_aside[seat] = aside
            eligible[seat] = pays
            order.append(seat)
            antes.append(ANTE_PHRASE[seat][pays][aside])
        pots = self.pots
        pots[0] += games
        pots[1] += flips
        pots[2] += flops
        return order, antes

    def _begin_play(self) -> None:
        self.turn_index = 0
        self.turn = seat = self.order[0]
        self.started = 1 << seat  # the first turn begins; a reveal due goes with its action
        self.phase = _DRAW

    def _reveal(self, seat: int) -> None:
        """Make ``seat``'s reveal (F6): for each pot it may win, its lowest card of that
        suit if it beats the best shown so far (worked out at the deal, since no hand
        changes before its first turn). The ruling makes revealing compulsory; it is
        still the seat's own action, so that what others learn comes from a decision."""
        plan = self.pending[seat]
        if plan is None:
            return
        self.pending[seat] = None
        known = self.known[seat]
        reveals = self.reveals
        for pot, card in plan.shows:
            known |= 1 << card
            reveals.append((seat, pot, card))
        self.known[seat] = known
        self._log.append((seat, plan.text, None, None))

    def _settle_side_pots(self) -> None:
        """Pay the flip and flop pots (F6); a pot nobody may claim carries over."""
        pots = self.pots
        log = self._log
        side_result = self.side_result
        for pot in (FLIP, FLOP):
            best = self.winners[pot - 1]
            if best is None:
                side_result.append((None, None, 0))
                log.append((None, _UNCLAIMED, (POT_NAMES[pot], pots[pot]), None))
                continue
            card, seat = best
            won = pots[pot]
            self.bankroll[seat] += won
            pots[pot] = 0
            side_result.append((seat, card, won))
            log.append((seat, _POT_WON, (POT_NAMES[pot], won, CARD_TEXT[card]), None))
        self.side_paid = True

    def _pay_set_aside(self, seat: int) -> bool:
        """Move ``seat``'s set-aside stake into the game pot; whether there was one."""
        aside = self.set_aside[seat]
        if not aside:
            return False
        self.bankroll[seat] -= aside
        self.set_aside[seat] = 0
        self.pots[GAME] += aside
        self._log.append((seat, _SET_ASIDE_PAID, (aside,), None))
        return True

    def _end_round(
        self,
        ending: str,
        seat: int | None,
        winners: list[int],
        payers: Sequence[int] = (),
        shown: Sequence[int] = (),
    ) -> None:
        """End the round: reveals still pending are made from the opening hands (F6),
        and those seats show their hands (ruling) so that anyone can check them."""
        started = self.started
        order = self.order
        pending_seats = [s for s in order if not started >> s & 1]
        if pending_seats:
            for s in pending_seats:
                started |= 1 << s
                self._reveal(s)
            self.started = started
            shown = [s for s in order if s in shown or s in pending_seats]
        self._settle(ending, seat, winners, payers, shown)

    def _settle(
        self,
        ending: str,
        seat: int | None,
        winners: list[int],
        payers: Sequence[int],
        shown: Sequence[int],
    ) -> None:
        """Settle the round (F6, F12), eliminate (F13), end the match (F14) or deal again."""
        log = self._log
        if not self.side_paid:
            self._settle_side_pots()
        paid = tuple(s for s in payers if self._pay_set_aside(s)) if payers else ()
        pots = self.pots
        bankroll = self.bankroll
        pot = pots[GAME]
        share = pot // len(winners)  # F12: whole stakes, the remainder stays
        for w in winners:
            bankroll[w] += share
        pots[GAME] = pot - share * len(winners)
        log.append((None, _game_pot_text, (ending, pot, tuple(winners), share), None))
        out = []
        if 0 in bankroll:
            for s in self.order:
                if bankroll[s] == 0:
                    self.eliminated_in[s] = self.round_no
                    out.append(s)
                    log.append((s, "is out of the game", None, None))
        # The round's lists are replaced, never changed, once it is over: keep them as
        # they are and build the summary only when someone asks (last_round).
        self._last_round = (
            self.round_no,
            ending,
            seat,
            tuple(shown),
            self.hands,
            self.spread_masks,
            self.spread_owners,
            self.discard_pile,
            tuple(winners),
            share,
            paid,
            self.side_result,
            tuple(out),
        )
        self._summary = None
        n = self.num_seats
        self.set_aside = [0] * n
        alive = n - bankroll.count(0)  # F13: a bankroll never goes below zero
        if alive <= 1 or self.round_no >= self.options.max_rounds:
            self.over = True
            self.phase = Phase.OVER
            self.eligible = [0] * n
            log.append((None, "match over", None, None))
            return
        d = (self.dealer + 1) % n
        while bankroll[d] <= 0:  # F4: the deal passes left, skipping the eliminated
            d = (d + 1) % n
        self.dealer = d
        self._start_round()

    def _showdown(self, ending: str) -> None:
        """F11 (and the C8 turn cap): everyone shows; the lowest hand value wins."""
        order = self.order
        values = [hand_value(self.hands[s]) for s in order]
        low = min(values)
        winners = [s for s, v in zip(order, values, strict=True) if v == low]
        self._end_round(ending, None, winners, shown=order)

    # -- the interface ---------------------------------------------------------------------

    def to_act(self) -> int | None:
        return None if self.over else self.turn

    def legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase is _PLAY:
            return self._play_actions()
        if phase is _DRAW:
            plan = self.pending[self.turn]
            if plan is not None:
                return list(plan.with_discard if self.discard_pile else plan.without_discard)
            return list(_DRAWS if self.discard_pile else _DRAWS_NO_PILE)
        if phase is Phase.DECLARE:
            return [DECLARES[hand_value(self.hands[self.turn])], PASS]
        return []

    def _play_actions(self) -> list[Action]:
        mask = self.hands[self.turn]
        # F7.5 ruling: the card taken from the discard pile this turn may not be
        # discarded, so no spread or lay-off may leave it as the only card in hand:
        # neither the spread of all the ``rest`` of the hand nor the lay-off of its one
        # other card (``lone``). A hand holds at least two cards after a draw, so one
        # of the others can always be discarded.
        rest = mask
        lone = 0
        taken = self.taken
        if taken >= 0 and mask >> taken & 1:
            rest = mask ^ (1 << taken)
            if rest & (rest - 1) == 0:
                lone = rest
        out: list[Action] = []
        cand = SEARCH.candidates(mask)
        if cand:
            if cand == mask and mask.bit_count() == 6 and tunk_split(mask) is not None:
                out.append(TUNK_OUT)
            spreads = _spreads_among(cand)
            if rest != mask and rest in SPREADS:
                leaving_taken = SPREADS[rest]
                out.extend([s for s in spreads if s is not leaving_taken])
            else:
                out.extend(spreads)
        for i, ext in enumerate(self.spread_ext):
            hit = ext & mask & ~lone
            while hit:
                low = hit & -hit
                out.append(layoff_action(low.bit_length() - 1, i + 1))
                hit ^= low
        t = DISCARD_TABLES
        out += t[0][rest & 0x1FFF]
        out += t[1][(rest >> 16) & 0x1FFF]
        out += t[2][(rest >> 32) & 0x1FFF]
        out += t[3][(rest >> 48) & 0x1FFF]
        return out

    def parse_action(self, text: str) -> Action:
        return parse_flip_flop_action(text)

    def apply(self, action: Action) -> None:
        try:
            handler = _APPLY[type(action)]
        except KeyError:
            raise IllegalActionError(f"{action} is not a Flip Flop action") from None
        handler(self, action)

    def _apply_discard(self, action: Discard) -> None:
        seat = self.turn
        card = action.card
        bit = 1 << card
        hand = self.hands[seat] ^ bit
        self.hands[seat] = hand
        self.known[seat] &= ~bit
        self.discard_pile.append(card)
        self._log.append((seat, DISCARD_TEXTS[card], None, None))
        if not hand:
            self._went_out(seat)
        else:
            self._end_turn(seat)

    def _apply_draw_stock(self, action: DrawStock) -> None:
        seat = self.turn
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        self.hands[seat] |= 1 << card
        self.taken = -1
        self.phase = _PLAY
        log = self._log
        log.append((seat, "draw stock", None, None))
        log.append((seat, DREW_TEXT[card], None, ONLY[seat]))

    def _apply_draw_discard(self, action: DrawDiscard) -> None:
        seat = self.turn
        card = self.discard_pile.pop()
        self.hands[seat] |= 1 << card
        self.known[seat] |= 1 << card
        self.taken = card
        self.phase = _PLAY
        self._log.append((seat, DRAW_DISCARD_TEXT[card], None, None))

    def _apply_spread(self, action: Spread) -> None:
        seat = self.turn
        mask = 0
        for c in action.cards:
            mask |= 1 << c
        self.hands[seat] ^= mask
        self.known[seat] &= ~mask
        self.spread_masks.append(mask)
        self.spread_owners.append(seat)
        self.spread_ext.append(extension_mask(mask))
        self._log.append((seat, "{} (spread {})".format, (action, len(self.spread_masks)), None))
        if not self.hands[seat]:
            self._went_out(seat)

    def _apply_layoff(self, action: LayOff) -> None:
        seat = self.turn
        bit = 1 << action.card
        i = action.spread - 1
        self.hands[seat] ^= bit
        self.known[seat] &= ~bit
        self.spread_masks[i] |= bit
        self.spread_ext[i] = extension_mask(self.spread_masks[i])
        self._log.append((seat, str, (action,), None))
        if not self.hands[seat]:
            self._went_out(seat)

    def _apply_reveal(self, action: Reveal) -> None:
        self._reveal(self.turn)
        then = action.then
        _APPLY[type(then)](self, then)

    def _apply_drop(self, action: Drop) -> None:
        self._drop(self.turn)

    def _apply_tunk_out(self, action: TunkOut) -> None:
        self._tunk_out(self.turn)

    def _apply_declare(self, action: Declare) -> None:
        seat = self.turn
        self.declared[seat] = action.total
        hand = format_cards(cards_of(self.hands[seat]))
        self.known[seat] = self.hands[seat]
        self._log.append((seat, f"declare {action.total}: {hand}", None, None))
        self._next_declarer()

    def _apply_pass(self, action: Pass) -> None:
        self._log.append((self.turn, "pass", None, None))
        self._next_declarer()

    # -- transitions -----------------------------------------------------------------------

    def _next_declarer(self) -> None:
        """Ask the next 49/50 holder, or settle the declarations (F5), or start play."""
        queue = self.declare_queue
        queue.pop(0)
        if queue:
            self.turn = queue[0]
            return
        order = self.order
        fifty = [s for s in order if self.declared[s] == 50]
        forty_nine = [s for s in order if self.declared[s] == 49]
        declarers = fifty or forty_nine
        if not declarers:
            self._begin_play()
            return
        payers = [s for s in order if s not in fifty] if fifty else []
        ending = "declared 50" if fifty else "declared 49"
        self._end_round(ending, declarers[0], declarers, payers, shown=declarers)

    def _end_turn(self, seat: int) -> None:
        self.turns += 1
        self.taken = -1
        if seat == self.dealer and not self.side_paid:
            self._settle_side_pots()  # F6: after the dealer's first turn
        if self.stock_pos >= len(self.stock):
            self._showdown("empty stock")  # F11
            return
        if self.turns > self.options.max_turns:
            self._showdown("turn cap")  # F11 ruling (C8)
            return
        order = self.order
        self.turn_index = i = (self.turn_index + 1) % len(order)
        self.turn = nxt = order[i]
        self.started |= 1 << nxt  # its first turn may begin now: a reveal due goes with it
        self.phase = _DRAW

    def _went_out(self, seat: int) -> None:
        """F7: an empty hand wins the game pot."""
        self.turns += 1
        self._end_round("went out", seat, [seat])

    def _drop(self, seat: int) -> None:
        """F9: the dropper wins with a strictly lowest value, else pays and loses."""
        self._log.append((seat, "drop", None, None))
        hands = self.hands
        value = SEARCH.value
        mine = value(hands[seat])
        low = 1 << 30
        winners: list[int] = []
        shown = [seat]
        for s in self.order:
            if s != seat:
                shown.append(s)
                v = value(hands[s])
                if v < low:
                    low = v
                    winners = [s]
                elif v == low:
                    winners.append(s)
        if mine < low:
            self._end_round("drop", seat, [seat], (), shown)
        else:
            self._end_round("drop", seat, winners, (seat,), shown)

    def _tunk_out(self, seat: int) -> None:
        """F10: two spreads of three; the game pot and every other set-aside stake."""
        split = tunk_split(self.hands[seat])
        assert split is not None
        first, second = split
        self._log.append((seat, f"tunk out {_cards(first)} | {_cards(second)}", None, None))
        self.hands[seat] = 0
        self.known[seat] = 0
        for mask in (first, second):
            self.spread_masks.append(mask)
            self.spread_owners.append(seat)
            self.spread_ext.append(extension_mask(mask))
        payers = [s for s in self.order if s != seat]
        self.turns += 1
        self._end_round("tunk out", seat, [seat], payers)

    # -- views and result ------------------------------------------------------------------

    def last_round(self) -> RoundSummary | None:
        """How the last finished round ended (built on demand: views are off the hot path)."""
        raw = self._last_round
        if raw is None:
            return None
        if self._summary is None:
            (rnd, ending, seat, shown, hands, masks, owners, pile) = raw[:8]
            winners, share, paid, side, out = raw[8:]
            (flip_seat, flip_card, flip_won), (flop_seat, flop_card, flop_won) = side
            self._summary = RoundSummary(
                round=rnd,
                ending=ending,
                seat=seat,
                shown=tuple(
                    ShownHand(s, tuple(cards_of(hands[s])), hand_value(hands[s])) for s in shown
                ),
                spreads=tuple(
                    SpreadView(i + 1, owner, tuple(cards_of(m)))
                    for i, (m, owner) in enumerate(zip(masks, owners, strict=True))
                ),
                discard_pile=tuple(pile),
                game_winners=winners,
                game_share=share,
                set_asides_paid=paid,
                flip_winner=flip_seat,
                flip_card=flip_card,
                flip_won=flip_won,
                flop_winner=flop_seat,
                flop_card=flop_card,
                flop_won=flop_won,
                eliminated=out,
            )
        return self._summary

    def _player_view(self, s: int, over: bool) -> PlayerView:
        if over:
            hand_size, face, declared = 0, 0, None
        else:
            hand = self.hands[s]
            hand_size, face, declared = hand.bit_count(), self.known[s] & hand, self.declared[s]
        eligible = self.eligible[s]
        key = (
            s,
            self.bankroll[s],
            self.set_aside[s],
            eligible,
            self.eliminated_in[s],
            hand_size,
            face,
            declared,
        )
        cache = self._player_views
        view = cache.get(key)
        if view is None:
            if len(cache) >= 512:
                cache.clear()
            view = cache[key] = PlayerView(
                seat=s,
                bankroll=self.bankroll[s],
                set_aside=self.set_aside[s],
                eligible=POT_NAMES[:eligible],
                in_round=bool(eligible),
                eliminated_in_round=self.eliminated_in[s],
                hand_size=hand_size,
                face_up=card_tuple(face),
                declared=declared,
            )
        return view

    def _spread_views(self) -> tuple[SpreadView, ...]:
        return tuple(
            SpreadView(i + 1, owner, card_tuple(mask))
            for i, (mask, owner) in enumerate(
                zip(self.spread_masks, self.spread_owners, strict=True)
            )
        )

    def view(self, seat: int) -> FlipFlopView:
        over = self.over
        flip = None if over else self.flip_card
        players = tuple([self._player_view(s, over) for s in range(self.num_seats)])
        to_act = self.to_act()
        taken = self.taken if not over and self.taken >= 0 and self.turn == seat else None
        return FlipFlopView(
            game=self.game,
            seat=seat,
            to_act=to_act,
            phase=self.phase.value,
            round=self.round_no,
            dealer=self.dealer,
            pots=(self.pots[0], self.pots[1], self.pots[2]),
            players=players,
            hand=() if over else card_tuple(self.hands[seat]),
            flip_card=flip,
            flip_suit=None if flip is None else SUITS[flip >> 4],
            flop_suit=None if flip is None else SUITS[(flip >> 4) ^ 3],
            reveals=() if over else tuple(RevealView(*r) for r in self.reveals),
            spreads=() if over else self._spread_views(),
            discard_pile=() if over else tuple(self.discard_pile),
            stock_size=0 if over else len(self.stock) - self.stock_pos,
            turns=self.turns,
            taken_from_discard=None if taken is None else CARD_BY_ID[taken],
            last_round=self.last_round(),
            legal_actions=tuple(str(a) for a in self.legal_actions()) if to_act == seat else (),
        )

    def result(self) -> Result | None:
        if not self.over:
            return None
        n = self.num_seats
        # F14: survivors by bankroll, then the eliminated, later eliminations first.
        keys = [
            (1, self.bankroll[s], 0)
            if self.eliminated_in[s] is None
            else (0, 0, self.eliminated_in[s] or 0)
            for s in range(n)
        ]
        ranks = tuple(sum(1 for o in keys if o > k) for k in keys)
        return Result(
            ranks=ranks,
            scores=tuple(self.bankroll),
            detail={
                "rounds": self.round_no,
                "bankrolls": list(self.bankroll),
                "pots": {"game": self.pots[0], "flip": self.pots[1], "flop": self.pots[2]},
                "eliminated_in_round": list(self.eliminated_in),
            },
        )


_APPLY: dict[type, Any] = {
    Discard: FlipFlop._apply_discard,
    DrawStock: FlipFlop._apply_draw_stock,
    DrawDiscard: FlipFlop._apply_draw_discard,
    Spread: FlipFlop._apply_spread,
    LayOff: FlipFlop._apply_layoff,
    Reveal: FlipFlop._apply_reveal,
    Drop: FlipFlop._apply_drop,
    TunkOut: FlipFlop._apply_tunk_out,
    Declare: FlipFlop._apply_declare,
    Pass: FlipFlop._apply_pass,
}


def _lowest_of_suit(mask: int, shift: int) -> int:
    """The lowest card of the suit at ``shift`` in the hand ``mask``, or -1."""
    held = (mask >> shift) & 0x1FFF
    return shift + (held & -held).bit_length() - 1 if held else -1


def _round_text(round_no: int, dealer: int, antes: list[str]) -> str:
    return f"round {round_no}: seat {dealer} deals; antes: {'; '.join(antes)}"


def _dealt_text(mask: int) -> str:
    return "dealt " + " ".join(CARD_TEXT[c] for c in cards_of(mask))


def _game_pot_text(ending: str, pot: int, winners: tuple[int, ...], share: int) -> str:
    who = ", ".join(SEAT_TEXT[w] for w in winners)
    return f"{ending}: game pot {pot} to {who}, {share} each"


def _cards(mask: int) -> str:
    return format_cards(cards_of(mask))


SPEC = register(
    GameSpec(
        name="flip-flop",
        title="Game Flip Flop",
        min_seats=3,
        max_seats=5,
        options_type=FlipFlopOptions,
        factory=FlipFlop,
        deck=lambda options, seats: make_deck(),
        default_seats=4,
        test_variants=(
            {"max_rounds": 3},
            {"starting_stakes": 3, "max_rounds": 4, "max_turns": 6},
            {"starting_stakes": 2, "max_rounds": 4},
            {"starting_stakes": 5, "max_rounds": 4, "max_turns": 30},
        ),
    )
)
