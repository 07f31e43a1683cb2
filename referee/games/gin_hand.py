"""One hand of two-handed Gin Rummy (rules G1–G10), shared by Hollywood Gin and
Gin Rummy for three. The match-level rules live in ``hollywood_gin`` and
``gin_three``; this module knows only a dealer, a non-dealer and 52 cards.

Where each rule is played (docs/rules/hollywood-gin.md):

- G1 values: ``SEARCH`` (``referee.melds.GIN_RANK_VALUES``), ``CARD_VALUE``
- G2 deal: ``GinHand.__init__``
- G3 first turn: ``GinHand._legal_actions`` (the upcard phases), ``GinHand._pass``
- G4 normal turn: ``GinHand._legal_actions``, ``GinHand._discard_actions`` (not the
  card just taken), ``GinHand._draw_stock``, ``_draw_discard``, ``_discard_card``
- G5 melds: ``referee.melds``; ``parse_gin_action`` (an arrangement's melds)
- G6 knock: ``knock_discards``, ``GinHand._knock`` (the knocker's arrangements),
  ``GinHand._arrange``
- G7 gin, G8 lay-off, G9 hand score: ``GinHand._settle``
  (``referee.melds.MeldSearch.best_layoff``)
- G10 drawn hand: ``GinHand._end_turn``
- C9 hidden information: ``referee.games.gin_views.hand_view``
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from referee.actions import (
    DISCARD_EVENTS,
    DISCARD_TABLES,
    DISCARD_TEXT_TABLES,
    DRAW_DISCARD,
    DRAW_DISCARD_EVENTS,
    DRAW_STOCK,
    DRAW_STOCK_EVENTS,
    DREW_TEXTS,
    PASS,
    PASS_EVENTS,
    Discard,
    DrawDiscard,
    DrawStock,
    Pass,
    format_meld_groups,
    parse_common,
    parse_meld_groups,
    parse_one_card,
    split_verb,
)
from referee.cards import CARD_BY_ID, JOKER, Card, cards_of, format_cards
from referee.engine import (
    Action,
    Dispatch,
    Event,
    EventLog,
    IllegalActionError,
    applies,
    check_range,
)
from referee.melds import Arrangement, MeldSearch, is_meld, meld_search

SEARCH: MeldSearch = meld_search()
CARD_VALUE = SEARCH.card_value
HAND_SIZE = 10
STOCK_LEFT_FOR_DRAW = 2  # G10: the hand is drawn when two cards remain


@dataclass(frozen=True, slots=True)
class Knock(Action):
    """Knock (G6): discard ``card``, then show an arrangement of the other ten."""

    card: Card

    def __str__(self) -> str:
        return f"knock {self.card}"


@dataclass(frozen=True, slots=True)
class Arrange(Action):
    """The knocker's shown arrangement (G6): melds, the rest being deadwood."""

    melds: tuple[tuple[Card, ...], ...]

    def __str__(self) -> str:
        return "arrange " + format_meld_groups(self.melds)


KNOCKS = {cid: Knock(c) for cid, c in CARD_BY_ID.items()}
KNOCK_TEXTS = {cid: str(k) for cid, k in KNOCKS.items()}
_DRAW_TEXTS = (str(DRAW_STOCK), str(DRAW_DISCARD))
_UPCARD_TEXTS = (str(DRAW_DISCARD), str(PASS))
_STOCK_ONLY_TEXTS = (str(DRAW_STOCK),)


def arrange_action(arrangement: Arrangement) -> Arrange:
    """The Arrange action that shows ``arrangement``."""
    return Arrange(tuple(m.cards for m in arrangement.melds))


def parse_gin_action(text: str) -> Action:
    """Parse the text of a Gin hand action (docs/actions.md)."""
    common = parse_common(text)
    if common is not None:
        return common
    verb, rest = split_verb(text)
    if verb == "knock":
        return KNOCKS[parse_one_card("knock", rest)]
    if verb == "arrange":
        melds = []
        for group in parse_meld_groups(rest):
            if JOKER in group:
                raise IllegalActionError(
                    "Gin is played without jokers (C1): JK cannot be in a meld"
                )
            meld = is_meld(group)
            if meld is None:
                raise IllegalActionError(f"{format_cards(group)} is not a meld (C3, G5)")
            melds.append(meld.cards)
        melds.sort(key=lambda cards: cards[0])
        return Arrange(tuple(melds))
    raise IllegalActionError(
        f"unknown action {text!r}; Gin actions are: pass, draw stock, draw discard, "
        "discard C, knock C, arrange MELDS"
    )


class Phase(Enum):
    """Where a Gin hand stands."""

    UPCARD_NON_DEALER = "upcard offered to non-dealer"  # G3
    UPCARD_DEALER = "upcard offered to dealer"  # G3
    DRAW = "draw"  # G4
    DRAW_STOCK_ONLY = "draw from stock"  # G3, both passed
    DISCARD = "discard or knock"  # G4, G6
    ARRANGE = "knocker arranges"  # G6
    OVER = "over"


#: The phases as module constants: an Enum member read through its class costs a
#: descriptor call every time, and the referee reads them at every decision.
PHASE_UPCARD_NON_DEALER = Phase.UPCARD_NON_DEALER
PHASE_UPCARD_DEALER = Phase.UPCARD_DEALER
PHASE_DRAW = Phase.DRAW
PHASE_DRAW_STOCK_ONLY = Phase.DRAW_STOCK_ONLY
PHASE_DISCARD = Phase.DISCARD
PHASE_ARRANGE = Phase.ARRANGE
PHASE_OVER = Phase.OVER


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended (G9, G10)."""

    winner: int | None  # seat, None for a drawn hand
    points: int
    kind: str  # "gin", "knock", "undercut", "drawn"
    knocker: int | None = None
    knocker_arrangement: Arrangement | None = None
    defender_arrangement: Arrangement | None = None


@dataclass(frozen=True, slots=True)
class GinMatchOptions:
    """The options both Gin games share (G6, G9, G10, and the match target and cap)."""

    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 10
    target: int = 100
    max_turns: int = 200
    max_hands: int = 500

    def __post_init__(self) -> None:
        check_range("knock_limit", self.knock_limit, 0, 100)
        check_range("gin_bonus", self.gin_bonus, 0, 1000)
        check_range("undercut_bonus", self.undercut_bonus, 0, 1000)
        check_range("target", self.target, 1, 100_000)
        check_range("max_turns", self.max_turns, 1, 100_000)
        check_range("max_hands", self.max_hands, 1, 100_000)

    def hand_rules(self) -> GinRules:
        """The options that govern a single hand."""
        return GinRules(self.knock_limit, self.gin_bonus, self.undercut_bonus, self.max_turns)

    def most_hand_actions(self) -> int:
        """The most actions one hand can take: the upcard passed by both (G3), then at
        most ``max_turns + 1`` turns of a draw and a discard or knock each (the turn cap,
        G10), and the knocker's arrangement (G6)."""
        return 2 + 2 * (self.max_turns + 1) + 1


@dataclass(frozen=True, slots=True)
class GinRules:
    """The hand-level options (G6, G9, G10)."""

    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 10
    max_turns: int = 200


class GinHand(Dispatch):
    """The state of one Gin hand. Seats are the match's seat numbers. It logs to its
    match's event log."""

    __slots__ = (
        "arrangements",
        "audience",
        "dealer",
        "deck",
        "discard_pile",
        "hands",
        "knock_card",
        "known",
        "legal",
        "legal_texts",
        "log",
        "non_dealer",
        "outcome",
        "phase",
        "rules",
        "stock_pos",
        "taken",
        "turn",
        "turns",
    )

    def __init__(
        self,
        rules: GinRules,
        dealer: int,
        non_dealer: int,
        deck: list[Card],
        log: EventLog,
        audience: dict[int, frozenset[int]] | None = None,
    ) -> None:
        self.rules = rules
        # who may see each player's private events (T3: the sitter sees the captain's)
        self.audience = audience or {s: frozenset((s,)) for s in (dealer, non_dealer)}
        self.dealer = dealer
        self.non_dealer = non_dealer
        self.deck = deck
        self.log = log
        nd_mask = dl_mask = 0
        for i in range(0, 2 * HAND_SIZE, 2):  # G2: one at a time, non-dealer first
            nd_mask |= 1 << deck[i]
            dl_mask |= 1 << deck[i + 1]
        self.hands = {non_dealer: nd_mask, dealer: dl_mask}
        self.known = {non_dealer: 0, dealer: 0}  # cards the opponent saw them take
        self.discard_pile: list[Card] = [deck[2 * HAND_SIZE]]
        self.stock_pos = 2 * HAND_SIZE + 1
        self.phase = PHASE_UPCARD_NON_DEALER
        self.turn = non_dealer
        self.taken = -1  # the card taken from the discard pile this turn
        self.turns = 0
        self.knock_card: Card | None = None
        self.arrangements: list[Arrangement] = []
        self.outcome: HandOutcome | None = None
        # the legal actions (and their texts) of the current decision, made once: the
        # referee asks for them, for the view and for the advice (T3) at every decision
        self.legal: list[Action] | None = None
        self.legal_texts: tuple[str, ...] | None = None
        for seat in (non_dealer, dealer):
            dealt = format_cards(cards_of(self.hands[seat]))
            log.append(Event(seat, f"dealt {dealt}", self.audience[seat]))
        log.append(Event(None, f"upcard {self.discard_pile[-1]}"))

    @classmethod
    def at_position(
        cls,
        rules: GinRules,
        dealer: int,
        non_dealer: int,
        hands: dict[int, int],
        discard_pile: list[Card],
        stock: list[Card],
        phase: Phase,
        turn: int,
        log: EventLog,
        *,
        known: dict[int, int] | None = None,
        taken: int = -1,
        turns: int = 0,
        audience: dict[int, frozenset[int]] | None = None,
    ) -> GinHand:
        """A hand in play at a given position (``referee.scenario`` builds sampled and
        chosen positions with it): the players' hands as masks, the discard pile bottom
        first, the stock top first, whose turn it is in which phase, the cards each
        player was seen taking from the pile (``known``), the card taken from the pile
        this turn (``taken``, -1 for none) and the turns played. Logs no event: the
        position's history is the caller's. In the knocker's phase the knocker's
        arrangements are searched as the knock made them (G6)."""
        hand = cls.__new__(cls)
        hand.rules = rules
        hand.audience = audience or {s: frozenset((s,)) for s in (dealer, non_dealer)}
        hand.dealer, hand.non_dealer = dealer, non_dealer
        hand.deck, hand.stock_pos = list(stock), 0
        hand.log = log
        hand.hands = dict(hands)
        hand.known = dict(known) if known else {non_dealer: 0, dealer: 0}
        hand.discard_pile = list(discard_pile)
        hand.phase, hand.turn, hand.taken, hand.turns = phase, turn, taken, turns
        hand.knock_card = discard_pile[-1] if phase is PHASE_ARRANGE else None
        hand.arrangements = (
            SEARCH.all_arrangements(hands[turn], rules.knock_limit)
            if phase is PHASE_ARRANGE
            else []
        )
        hand.outcome = None
        hand.legal = hand.legal_texts = None
        return hand

    def copy(self, log: EventLog) -> GinHand:
        """An independent copy logging to ``log`` (its match's copy of the log)."""
        other = GinHand.__new__(GinHand)
        for name in GinHand.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = dict(self.hands)
        other.known = dict(self.known)
        other.discard_pile = list(self.discard_pile)
        other.arrangements = list(self.arrangements)
        other.log = log
        return other

    # -- queries ---------------------------------------------------------------------------

    @property
    def stock_size(self) -> int:
        """Cards left in the stock."""
        return len(self.deck) - self.stock_pos

    def opponent(self, seat: int) -> int:
        """The other player of this hand."""
        return self.dealer if seat == self.non_dealer else self.non_dealer

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to act (C7). The list is shared until the
        next action: do not change it."""
        legal = self.legal
        if legal is None:
            legal = self.legal = self._legal_actions()
        return legal

    def texts(self) -> tuple[str, ...]:
        """The text forms of :meth:`legal_actions`, made once per decision."""
        texts = self.legal_texts
        if texts is None:
            texts = self.legal_texts = tuple(str(a) for a in self.legal_actions())
        return texts

    def _legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase is PHASE_DISCARD:
            return self._discard_actions()
        if phase is PHASE_DRAW:
            self.legal_texts = _DRAW_TEXTS
            return [DRAW_STOCK, DRAW_DISCARD]
        if phase is PHASE_UPCARD_NON_DEALER or phase is PHASE_UPCARD_DEALER:
            self.legal_texts = _UPCARD_TEXTS
            return [DRAW_DISCARD, PASS]
        if phase is PHASE_DRAW_STOCK_ONLY:
            self.legal_texts = _STOCK_ONLY_TEXTS
            return [DRAW_STOCK]
        if phase is PHASE_ARRANGE:
            return [arrange_action(a) for a in self.arrangements]
        return []

    def _discard_actions(self) -> list[Action]:
        full = self.hands[self.turn]
        taken = self.taken
        mask = full & ~(1 << taken) if taken >= 0 else full  # G4: not the card just taken
        m0, m1 = mask & 0x1FFF, (mask >> 16) & 0x1FFF
        m2, m3 = (mask >> 32) & 0x1FFF, (mask >> 48) & 0x1FFF
        t = DISCARD_TABLES
        out: list[Action] = [*t[0][m0], *t[1][m1], *t[2][m2], *t[3][m3]]
        tt = DISCARD_TEXT_TABLES  # the texts made alongside: texts() is then free
        texts = [*tt[0][m0], *tt[1][m1], *tt[2][m2], *tt[3][m3]]
        for cid in knock_discards(full, self.rules.knock_limit, taken):
            out.append(KNOCKS[cid])
            texts.append(KNOCK_TEXTS[cid])
        self.legal_texts = tuple(texts)
        return out

    # -- transitions -----------------------------------------------------------------------

    # ``apply`` (Dispatch) calls the method marked for the action's kind; each resets
    # the legal actions made for the decision it ends.

    @applies(DrawStock)
    def _draw_stock(self, action: DrawStock) -> None:
        seat = self.turn
        self.legal = self.legal_texts = None
        card = self.deck[self.stock_pos]
        self.stock_pos += 1
        self.hands[seat] |= 1 << card
        self.taken = -1
        self.phase = PHASE_DISCARD
        log = self.log
        log.append(DRAW_STOCK_EVENTS[seat])
        log.append(Event(seat, DREW_TEXTS[card], self.audience[seat]))

    @applies(DrawDiscard)
    def _draw_discard(self, action: DrawDiscard) -> None:
        seat = self.turn
        self.legal = self.legal_texts = None
        card = self.discard_pile.pop()
        self.hands[seat] |= 1 << card
        self.known[seat] |= 1 << card
        self.taken = card
        self.phase = PHASE_DISCARD
        self.log.append(DRAW_DISCARD_EVENTS[seat][card])

    @applies(Discard)
    def _discard_card(self, action: Discard) -> None:
        seat = self.turn
        self.legal = self.legal_texts = None
        self._discard(seat, action.card)
        self.log.append(DISCARD_EVENTS[seat][action.card])
        self._end_turn(seat)

    @applies(Pass)
    def _pass(self, action: Pass) -> None:
        seat = self.turn
        self.legal = self.legal_texts = None
        self.log.append(PASS_EVENTS[seat])
        if self.phase is PHASE_UPCARD_NON_DEALER:
            self.phase = PHASE_UPCARD_DEALER
            self.turn = self.dealer
        else:
            self.phase = PHASE_DRAW_STOCK_ONLY
            self.turn = self.non_dealer

    @applies(Knock)
    def _knock(self, action: Knock) -> None:
        seat = self.turn
        self.legal = self.legal_texts = None
        self._discard(seat, action.card)
        self.knock_card = action.card
        self.log.append(Event(seat, KNOCK_TEXTS[action.card]))
        self.arrangements = SEARCH.all_arrangements(self.hands[seat], self.rules.knock_limit)
        if len(self.arrangements) == 1:  # C7: not a choice, the referee does it
            self._settle(seat, self.arrangements[0])
        else:
            self.phase = PHASE_ARRANGE

    @applies(Arrange)
    def _arrange(self, action: Arrange) -> None:
        self.legal = self.legal_texts = None
        chosen = next(
            a for a in self.arrangements if tuple(m.cards for m in a.melds) == action.melds
        )
        self._settle(self.turn, chosen)

    def _discard(self, seat: int, card: Card) -> None:
        self.hands[seat] &= ~(1 << card)
        self.known[seat] &= ~(1 << card)
        self.discard_pile.append(card)
        self.taken = -1

    def _end_turn(self, seat: int) -> None:
        self.turns += 1
        stock = len(self.deck) - self.stock_pos
        if stock <= STOCK_LEFT_FOR_DRAW or self.turns > self.rules.max_turns:
            self.phase = PHASE_OVER
            self.outcome = HandOutcome(None, 0, "drawn")
            why = (
                "two cards left in the stock" if self.turns <= self.rules.max_turns else "turn cap"
            )
            self.log.append(Event(None, f"hand drawn ({why})"))
            return
        self.turn = self.dealer if seat == self.non_dealer else self.non_dealer
        self.phase = PHASE_DRAW

    def _settle(self, knocker: int, shown: Arrangement) -> None:
        """Score the hand after a knock (G7, G8, G9)."""
        rules = self.rules
        defender = self.opponent(knocker)
        k = shown.deadwood_value
        log = self.log
        log.append(Event(knocker, f"arrange {shown}"))
        if k == 0:
            defence = SEARCH.best_arrangement(self.hands[defender])
            winner, points, kind = knocker, rules.gin_bonus + defence.deadwood_value, "gin"
        else:
            defence = SEARCH.best_layoff(self.hands[defender], shown.melds)
            d = defence.deadwood_value
            if k < d:
                winner, points, kind = knocker, d - k, "knock"
            else:
                winner, points, kind = defender, rules.undercut_bonus + k - d, "undercut"
        log.append(Event(defender, f"defends {_describe_defence(defence)}"))
        log.append(Event(None, f"{kind}: seat {winner} scores {points}"))
        self.outcome = HandOutcome(winner, points, kind, knocker, shown, defence)
        self.phase = PHASE_OVER
        self.arrangements = []


def _describe_defence(defence: Arrangement) -> str:
    text = str(defence)
    if defence.layoffs:
        text += " / lays off " + ", ".join(str(x) for x in defence.layoffs)
    return text


def knock_discards(mask: int, limit: int, forbidden: int) -> list[int]:
    """The cards of an 11-card hand whose discard leaves deadwood within ``limit``
    (G6), excluding the card id ``forbidden`` (taken from the discard pile, G4).

    Cards in no possible meld are deadwood in every arrangement, so their value
    bounds the answer from below before any search is made.
    """
    search = SEARCH
    cand = search.candidates(mask)
    non = mask ^ cand
    nv = search.value(non)
    out: list[int] = []
    if non:
        ranks = (non | non >> 16 | non >> 32 | non >> 48) & 0x1FFF
        top_value = search.rank_values[ranks.bit_length() - 1]
        if nv - top_value <= limit:
            best = search.deadwood_value(cand) if cand else 0
            threshold = nv + best - limit  # discard c works when value(c) >= threshold
            m = non
            while m:
                low = m & -m
                cid = low.bit_length() - 1
                if cid != forbidden and CARD_VALUE[cid] >= threshold:
                    out.append(cid)
                m ^= low
    if cand and nv <= limit:
        m = cand
        while m:
            low = m & -m
            cid = low.bit_length() - 1
            if cid != forbidden and search.deadwood_value(mask ^ low) <= limit:
                out.append(cid)
            m ^= low
        out.sort()
    return out
