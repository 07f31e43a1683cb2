"""The Rummy 500 match: its options, the deal (R1, R3), the hands as multisets, what
each action does (R4–R7, R10), scoring (R8) and the end of the match (R9)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.actions import (
    DISCARD_EVENTS,
    DRAW_DISCARD_EVENTS,
    DRAW_STOCK_EVENTS,
    DREW_TEXTS,
    Discard,
    DrawDiscard,
    DrawStock,
)
from referee.cards import CARD_BY_ID, JOKER, Card, make_deck, shuffled_deck
from referee.engine import (
    Action,
    Event,
    GameSpec,
    GameState,
    OptionsError,
    Result,
    applies,
    check_range,
    copied_fields,
    copy_dicts,
    copy_each,
    ranks_from_scores,
)
from referee.games.rummy500.actions import (
    JK,
    NO_RUMMY,
    CallRummy,
    Decline,
    DrawDeep,
    LayOff,
    NewMeld,
    NoRummy,
    format_ids,
    holds,
    lay_off,
    parse_rummy500_action,
)
from referee.games.rummy500.legal import draw_actions, play_actions, rummy_calls
from referee.games.rummy500.melds import (
    JOKER_VALUE,
    LOW_ACE_VALUE,
    RANK_VALUES,
    TableMeld,
    ids,
    pos_card,
)
from referee.games.rummy500.tables import CARDS
from referee.games.rummy500.views import (
    CALL,
    DRAW,
    PLAY,
    MeldView,
    OutcomeView,
    Rummy500View,
    meld_view,
    rummy500_view,
)
from referee.tables import BoundedCache

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


def dealt_size(seats: int) -> int:
    """The cards each player is dealt (R3): 13 for two players, else 7."""
    return 13 if seats == 2 else 7


def deck_for(options: Rummy500Options, seats: int) -> list[Card]:
    """The cards of one deal (R1): one pack for 2–4 players, two for 5–8, with two
    jokers per pack when ``jokers`` is on."""
    return make_deck(2 if seats >= 5 else 1, 2 if options.jokers else 0)


def most_actions(options: Rummy500Options, seats: int) -> int:
    """The most actions a match can take: ``max_hands`` hands (R9), each of at most
    ``max_turns`` turns (R7) of the others asked about rummy (R6), a draw and a discard
    (R4), the stock declined once (R7), and at most one meld or lay-off per card of the
    deal over the hand: each takes cards from a hand to the table for good."""
    per_hand = options.max_turns * (seats - 1 + 2) + 1 + len(deck_for(options, seats))
    return options.max_hands * per_hand


def _table_meld(number: int, slots: Sequence[tuple[int, int, int]]) -> TableMeld:
    """Table meld ``number`` holding ``slots`` (card stood for, card there, seat), in
    table order. Made of its first three cards with the others laid off above them, so
    that a run's ace lies where the order puts it (A..K low, 2..A high)."""
    tm = TableMeld(tuple(CARD_BY_ID[stood] for stood, _, _ in slots[:3]), 0, 0, number)
    for stood, _, _ in slots[3:]:
        tm.add(stood, stood, 0)
    tm.placed = [(int(stood), int(there), seat) for stood, there, seat in slots]
    return tm


class Rummy500(GameState):
    """A Rummy 500 match. The fields below are what ``legal`` and ``views`` read; those
    of the hand in play are set at each deal (``_new_hand``)."""

    game = "rummy-500"
    options: Rummy500Options

    # the match
    scores: list[int]  # per seat, the match total (R8)
    hands_played: int
    last_outcome: OutcomeView | None  # how the last finished hand was scored
    over: bool
    # the hand in play (R3): the hands as multisets of card ids
    number: int  # the hand's number, from 1
    dealer: int
    held: list[int]  # per seat, a mask of the cards held at least once
    held_twice: list[int]  # per seat, a mask of the cards held twice (two packs)
    jokers_held: list[int]  # per seat, the jokers held
    size: list[int]  # per seat, the cards in hand
    known: list[dict[int, int]]  # per seat, cards seen taken from the pile, still held
    pile: list[Card]  # the discard pile, top last
    stock: list[Card]  # the deal's deck: the stock is what lies from stock_pos on
    stock_pos: int
    melded: list[int]  # per seat, the points placed on the table this hand (R8)
    turns: int  # turns ended this hand (C8: the turn cap)
    # the table (R4, R5) and what it accepts
    table: list[TableMeld]  # in the order made; meld n is table[n - 1]
    accept: int  # a mask of the cards some table meld takes
    joker_ok: bool  # a joker may be laid off (some meld takes a card)
    natural_layoffs: dict[int, tuple[LayOff, ...]]  # per card taken, its lay-offs
    takers: list[int]  # per card, how many table melds take it
    runs: list[tuple[int, int, int]]  # the runs as (suit, lo, hi)
    run_ends: int  # the cards the runs on the table take (or took)
    run_near2: int  # the cards two places beyond a run's end (or were)
    # the turn (R4, R6)
    phase: int  # DRAW, PLAY, or CALL while the others are asked about rummy
    turn: int  # the seat whose turn it is; in CALL, the one who discarded
    must_meld: int  # the card drawn deep from the pile that must be melded (R4), or -1
    must_meld_now: bool  # ... in this play, before anything else (R6: a rummy call)
    may_not_discard: int  # the card taken from the pile that may not go back (R4), or -1
    discarder: int  # in CALL, the seat whose discard is offered (R6)
    asked: int  # in CALL, the seat asked whether it calls rummy (R6)
    calls: tuple[Action, ...]  # in CALL, the rummy calls the discard allows

    copied = copied_fields(
        GameState.copied,
        **dict.fromkeys(
            ("scores", "held", "held_twice", "jokers_held", "size", "pile", "melded", "runs"),
            list.copy,
        ),
        takers=list.copy,
        natural_layoffs=dict.copy,
        known=copy_dicts,
        table=copy_each,
    )
    # the deal's deck is read from stock_pos on; the legal actions are made once per
    # decision, never changed; _private and _values are per-match tables; the views
    # cache is keyed by content, so clones may share it
    shared = frozenset({"stock", "_legal", "_private", "_values", "meld_views"})

    def __init__(
        self,
        options: Rummy500Options,
        seed: int,
        seats: int,
        decks: list[list[Card]],
        *,
        dealer: int | None = None,
    ) -> None:
        """A new match; ``dealer`` names the first dealer of a chosen deal, else the
        seed draws it (R3)."""
        self._setup(options, seed, seats, decks)
        if dealer is None:
            dealer = self._rng.below(seats)  # R3: the first dealer is random
        self.log.append(Event(None, f"seat {dealer} deals first"))
        self._deal(dealer)

    def _setup(
        self, options: Rummy500Options, seed: int, seats: int, decks: list[list[Card]]
    ) -> None:
        """What every match starts with, before its first hand."""
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
        # table melds' views by content (see views.meld_view; shared by clones)
        self.meld_views: BoundedCache[tuple[Any, ...], MeldView] = BoundedCache(meld_view, 1024)

    @classmethod
    def at_position(
        cls,
        options: Rummy500Options,
        seed: int,
        seats: int,
        *,
        dealer: int,
        hands: Sequence[Sequence[Card]],
        discard_pile: Sequence[Card],
        stock: Sequence[Card],
        turn: int,
        phase: int = DRAW,
        table: Sequence[Sequence[tuple[int, int, int]]] = (),
        known: Sequence[Sequence[Card]] = (),
        melded: Sequence[int] | None = None,
        must_meld: Card | None = None,
        must_meld_now: bool = False,
        may_not_discard: Card | None = None,
        asked: int = -1,
        turns: int = 0,
        scores: Sequence[int] | None = None,
        hands_played: int = 0,
        last_hand: OutcomeView | None = None,
    ) -> Rummy500:
        """A match in play at a position of hand ``hands_played + 1`` (``referee.scenario``
        builds sampled and chosen positions with it), the hands after it shuffled from
        ``seed``. ``table`` lists the melds in the order they were made, each as its
        slots in table order (runs low to high, sets by suit): (card stood for, card
        there, seat that played it). ``turn`` is the seat to play in ``phase``; in the
        CALL phase it is the discarder and ``asked`` the player asked (R6). ``known``:
        per seat, the cards it was seen taking from the pile and still holds.
        ``melded``: the points each seat melded this hand, worked out from the table
        when None (R2, R8). The owed card (R4, R6) and the card that may not be
        discarded (R4) are those of the play phase. Trusts its caller as ``apply``
        does, and logs no event: the position's history is the caller's."""
        self = cls.__new__(cls)
        self._setup(options, seed, seats, [])
        if scores is not None:
            self.scores = list(scores)
        self.hands_played = hands_played
        self.last_outcome = last_hand
        self._new_hand(dealer)
        for seat, cards in enumerate(hands):
            for c in cards:
                self._add(seat, c)
        for seat, cards in enumerate(known):
            counts = self.known[seat]
            for c in cards:
                counts[c] = counts.get(c, 0) + 1
        self.pile = list(discard_pile)
        self.stock = list(stock)
        self.stock_pos = 0
        for number, slots in enumerate(table, 1):
            tm = _table_meld(number, slots)
            self.table.append(tm)
            self._table_changed(tm, 0)
        self.melded = list(melded) if melded is not None else self._table_points()
        self.turns = turns
        self.turn, self.phase = turn, phase
        if phase == PLAY:
            self.must_meld = -1 if must_meld is None else int(must_meld)
            self.must_meld_now = must_meld_now
            self.may_not_discard = -1 if may_not_discard is None else int(may_not_discard)
        elif phase == CALL:
            self.discarder, self.asked = turn, asked
            self.calls = rummy_calls(self)
        return self

    def _table_points(self) -> list[int]:
        """Per seat, the points of the cards it placed on the table (R2, R8)."""
        points = [0] * self.num_seats
        for tm in self.table:
            for i, (stood, there, seat) in enumerate(tm.placed):
                if there == JK:
                    points[seat] += JOKER_VALUE
                elif tm.is_run and i == 0 and tm.lo == 0:
                    points[seat] += LOW_ACE_VALUE
                else:
                    points[seat] += self._values[stood & 15]
        return points

    # -- dealing ---------------------------------------------------------------------------

    def _deal(self, dealer: int) -> None:
        """Deal a hand (R3)."""
        n = self.num_seats
        if self._decks:
            deck = self._decks.pop(0)
        else:
            deck = shuffled_deck(self._rng, self._packs, self._jokers_per_pack)
        self._new_hand(dealer)
        size = dealt_size(n)
        pos = 0
        add = self._add
        for _ in range(size):
            for k in range(1, n + 1):
                add((dealer + k) % n, deck[pos])
                pos += 1
        self.pile = [deck[pos]]
        self.stock = deck
        self.stock_pos = pos + 1
        log = self.log
        log.append(Event(None, f"hand {self.number}: seat {dealer} deals"))
        for s in range(n):
            log.append(Event(s, f"dealt {format_ids(self.hand_cards(s))}", self._private[s]))
        log.append(Event(None, f"upcard {self.pile[-1]}"))
        self._start_turn((dealer + 1) % n)

    def _new_hand(self, dealer: int) -> None:
        """Empty hands, an empty table and a fresh turn count for the next hand."""
        n = self.num_seats
        self.number = self.hands_played + 1
        self.dealer = dealer
        self.held = [0] * n  # cards held at least once
        self.held_twice = [0] * n  # cards held twice (two decks)
        self.jokers_held = [0] * n
        self.size = [0] * n
        self.known = [{} for _ in range(n)]
        self.table = []
        self.accept = 0
        self.joker_ok = False
        self.runs = []
        self.run_ends = 0
        self.run_near2 = 0
        self.natural_layoffs = {}
        self.takers = [0] * 64
        self._joker_layoffs: tuple[LayOff, ...] | None = ()
        self.melded = [0] * n
        self.turns = 0
        self.must_meld = -1
        self.must_meld_now = False
        self.may_not_discard = -1
        self.discarder = -1
        self.asked = -1
        self.calls = ()

    def _start_turn(self, seat: int) -> None:
        self.turn = seat
        self.phase = DRAW
        self.must_meld = -1
        self.must_meld_now = False
        self.may_not_discard = -1

    # -- hand multisets --------------------------------------------------------------------

    def _add(self, seat: int, card: int) -> None:
        if card == JK:
            self.jokers_held[seat] += 1
        else:
            bit = 1 << card
            if self.held[seat] & bit:
                self.held_twice[seat] |= bit
            else:
                self.held[seat] |= bit
        self.size[seat] += 1

    def _remove(self, seat: int, card: int) -> None:
        if card == JK:
            self.jokers_held[seat] -= 1
        else:
            bit = 1 << card
            if self.held_twice[seat] & bit:
                self.held_twice[seat] ^= bit
            else:
                self.held[seat] ^= bit
        self.size[seat] -= 1
        known = self.known[seat]
        if card in known:
            if known[card] == 1:
                del known[card]
            else:
                known[card] -= 1

    def hand_cards(self, seat: int) -> list[Card]:
        """The cards in ``seat``'s hand, in card order, jokers last."""
        out = []
        m1, m2 = self.held[seat], self.held_twice[seat]
        cards = CARDS
        while m1:
            low = m1 & -m1
            card = cards[low.bit_length() - 1]
            out.append(card)
            if m2 & low:
                out.append(card)
            m1 ^= low
        if self.jokers_held[seat]:
            out.extend([JOKER] * self.jokers_held[seat])
        return out

    def hand_value(self, seat: int) -> int:
        """What the cards in ``seat``'s hand count against it when the hand ends (R8)."""
        values = self._values
        total = JOKER_VALUE * self.jokers_held[seat]
        for cid in ids(self.held[seat]):
            total += values[cid & 15] * (2 if self.held_twice[seat] >> cid & 1 else 1)
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
        return self.asked if self.phase == CALL else self.turn

    def parse_action(self, text: str) -> Action:
        return parse_rummy500_action(text)

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            if self.over:
                legal = []
            elif self.phase == PLAY:
                legal = play_actions(self)
            elif self.phase == DRAW:
                legal = draw_actions(self)
            else:
                legal = [*self.calls, NO_RUMMY]
            self._legal = legal
        return list(legal)

    # -- transitions -----------------------------------------------------------------------

    # ``apply`` (Dispatch) calls the method marked for the action's kind; each resets
    # the legal actions made for the decision it ends.

    @applies(Discard)
    def _discard(self, action: Discard) -> None:
        self._legal = None
        seat = self.turn
        card = action.card
        self._remove(seat, card)
        self.pile.append(card)
        self.log.append(DISCARD_EVENTS[seat][card])
        if self.size[seat] == 0:
            self._end_hand("went out", seat)
        else:
            self._end_turn(seat, True)

    @applies(DrawStock)
    def _draw_stock(self, action: DrawStock) -> None:
        self._legal = None
        seat = self.turn
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        self._add(seat, card)
        self.phase = PLAY
        log = self.log
        log.append(DRAW_STOCK_EVENTS[seat])
        log.append(Event(seat, DREW_TEXTS[card], self._private[seat]))

    @applies(DrawDiscard)
    def _draw_discard(self, action: DrawDiscard) -> None:
        self._legal = None
        seat = self.turn
        card = self.pile.pop()
        self._add(seat, card)
        known = self.known[seat]
        known[card] = known.get(card, 0) + 1
        self.may_not_discard = card
        self.phase = PLAY
        self.log.append(DRAW_DISCARD_EVENTS[seat][card])

    @applies(DrawDeep)
    def _draw_deep(self, action: DrawDeep) -> None:
        self._legal = None
        seat = self.turn
        taken = self._take_from_pile(seat, action.depth)
        self.must_meld = action.card
        self.phase = PLAY
        self.log.append(Event(seat, f"{action}: takes {format_ids(taken)}"))

    @applies(NoRummy)
    def _no_rummy(self, action: NoRummy) -> None:
        self._legal = None
        self.log.append(Event(self.asked, "no rummy"))
        nxt = (self.asked + 1) % self.num_seats
        if nxt == self.discarder:
            self._start_turn((self.discarder + 1) % self.num_seats)
        else:
            self.asked = nxt

    @applies(CallRummy)
    def _call_rummy(self, action: CallRummy) -> None:
        self._legal = None
        caller = self.asked
        taken = self._take_from_pile(caller, action.depth)
        self.log.append(Event(caller, f"{action}: takes {format_ids(taken)}"))
        self._start_turn(caller)
        self.phase = PLAY
        self.must_meld = action.card
        self.must_meld_now = True
        if action.depth == 1:
            self.may_not_discard = action.card

    @applies(Decline)
    def _decline(self, action: Decline) -> None:
        self._legal = None
        self.log.append(Event(self.turn, "decline"))
        self._end_hand("stock empty and the player declined", None)

    @applies(NewMeld, LayOff)
    def _meld(self, action: NewMeld | LayOff) -> None:
        self._legal = None
        self._place(self.turn, action)

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
        met = self.must_meld >= 0 and holds(action, self.must_meld)
        self.melded[seat] += points
        self.log.append(Event(seat, str(action)))
        self._table_changed(tm, old_accept)
        if met:
            self.must_meld = -1
            self.must_meld_now = False
        if self.may_not_discard >= 0 and holds(action, self.may_not_discard):
            self.may_not_discard = -1  # melded; a second copy left in hand may be discarded
        if self.size[seat] == 0:
            if self.options.floating:  # R10: the player floats until their next turn
                self.log.append(Event(seat, "floats"))
                self._end_turn(seat, False)
            else:
                self._end_hand("went out", seat)

    def _table_changed(self, changed: TableMeld, old_accept: int) -> None:
        """Update what the table accepts, and the lay-off actions that follow, after
        ``changed`` was made or laid off on (it accepted ``old_accept`` before): only
        the cards it stopped or started accepting are looked at."""
        new = changed.accept
        takers = self.takers
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
            # filters for chains of lay-offs (see legal.draw_actions): kept as supersets,
            # the cards of ends since moved stay in until the next deal
            self.run_ends |= new
            if lo >= 2:
                self.run_near2 |= 1 << pos_card(suit, lo - 2)
            if hi <= 11:
                self.run_near2 |= 1 << pos_card(suit, hi + 2)
        self._joker_layoffs = None

    def joker_lay_offs(self) -> tuple[LayOff, ...]:
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
            calls = rummy_calls(self)
            if calls:  # R6: ask the others in order from the discarder's left
                self.calls = calls
                self.discarder = seat
                self.asked = (seat + 1) % self.num_seats
                self.phase = CALL
                self.turn = seat
                return
        self._start_turn((seat + 1) % self.num_seats)

    def _end_hand(self, reason: str, went_out: int | None) -> None:
        """Score the hand (R8) and end the match (R9) or deal the next hand (R3)."""
        n = self.num_seats
        left = tuple(tuple(self.hand_cards(s)) for s in range(n))
        left_points = tuple(self.hand_value(s) for s in range(n))
        hand_scores = tuple(self.melded[s] - left_points[s] for s in range(n))
        for s in range(n):
            self.scores[s] += hand_scores[s]
        self.hands_played += 1
        self.last_outcome = OutcomeView(
            self.number, reason, went_out, tuple(self.melded), left, left_points, hand_scores
        )
        log = self.log
        who = "" if went_out is None else f"seat {went_out} "
        log.append(Event(None, f"hand {self.number} over: {who}{reason}"))
        for s in range(n):
            log.append(
                Event(
                    None,
                    f"seat {s} holds [{format_ids(left[s])}]: "
                    f"{self.melded[s]} melded - {left_points[s]} = {hand_scores[s]}, "
                    f"total {self.scores[s]}",
                )
            )
        self.calls = ()
        top = max(self.scores)
        won = top >= self.options.target and self.scores.count(top) == 1
        if won or self.hands_played >= self.options.max_hands:
            self.over = True
            log.append(Event(None, "match over"))
            return
        self._deal((self.dealer + 1) % n)

    # -- views and result ------------------------------------------------------------------

    def view(self, seat: int) -> Rummy500View:
        return rummy500_view(self, seat)

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


SPEC = GameSpec(
    name="rummy-500",
    title="Rummy 500",
    min_seats=2,
    max_seats=8,
    options_type=Rummy500Options,
    factory=Rummy500,
    deck=deck_for,
    most_actions=most_actions,
    default_seats=4,
    test_variants=(
        {"max_hands": 2},
        {"max_hands": 2, "jokers": True, "scoring": "5-10-15"},
        {"max_hands": 2, "jokers": True, "floating": True, "unplayable_final_discard": True},
        {"max_hands": 3, "max_turns": 12, "target": 40, "floating": True},
        {"max_hands": 2, "unplayable_final_discard": True},  # without floating or jokers
    ),
)
