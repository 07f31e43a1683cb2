"""The Flip Flop match: its options, the antes and the deal (F2–F6), what each action
does (F7–F11), settling a round (F5, F6, F9–F13) and the end of the match (F14)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.actions import (
    CARD_TEXTS,
    DISCARD_EVENTS,
    DRAW_DISCARD_EVENTS,
    DRAW_STOCK_EVENTS,
    DREW_TEXTS,
    PASS_EVENTS,
    Discard,
    DrawDiscard,
    DrawStock,
    Pass,
)
from referee.cards import (
    Card,
    cards_of,
    format_cards,
    make_deck,
    mask_of,
    shuffled_deck,
)
from referee.engine import (
    Action,
    GameSpec,
    GameState,
    Result,
    applies,
    check_range,
    copied_fields,
)
from referee.games.flip_flop.actions import (
    Declare,
    Drop,
    LayOff,
    Reveal,
    RevealPlan,
    Spread,
    TunkOut,
    parse_flip_flop_action,
)
from referee.games.flip_flop.deal import deal_hands, declarable, reveals_due
from referee.games.flip_flop.legal import legal_actions_of
from referee.games.flip_flop.stakes import Stakes
from referee.games.flip_flop.tables import (
    FLIP,
    FLIP_TEXT,
    FLOP,
    ONLY,
    POT_NAMES,
    POT_WON,
    SEARCH,
    SEAT_ORDERS,
    SET_ASIDE_PAID,
    UNCLAIMED,
    cards_text,
    extension_mask,
    game_pot_text,
    hand_value,
    round_text,
    tunk_split,
)
from referee.games.flip_flop.views import (
    FlipFlopView,
    Phase,
    PlayerView,
    RoundSummary,
    flip_flop_view,
    player_view,
    round_summary,
)
from referee.tables import BoundedCache

_DRAW = Phase.DRAW
_PLAY = Phase.PLAY


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


class FlipFlop(GameState):
    """A Game Flip Flop match.

    The fields that ``legal`` and ``views`` read: the ``stakes``; per seat, the hand
    and its face-up cards as masks (``hands``, ``known``), ``declared``, and the reveal
    still ``pending``; the round (``round_no``, ``dealer``, ``order``, ``flip_card``,
    ``reveals``), the table (``spread_masks``, ``spread_owners``, ``spread_ext``: the
    cards each spread takes), the ``discard_pile``, the ``stock`` from ``stock_pos``;
    and the turn (``phase``, ``turn``, ``taken``: the card taken from the pile, or -1).
    """

    game = "flip-flop"
    options: FlipFlopOptions
    copied = copied_fields(
        GameState.copied,
        stakes=Stakes.copy,
        **dict.fromkeys(
            (
                "declared",
                "hands",
                "known",
                "discard_pile",
                "spread_masks",
                "spread_owners",
                "spread_ext",
                "pending",
                "winners",
                "reveals",
                "side_result",
                "declare_queue",
            ),
            list.copy,
        ),
    )
    # the round's seats and the deal's deck are replaced at each deal, never changed; the
    # views cache is keyed by content, so clones may share it
    shared = frozenset({"order", "stock", "player_views"})

    def __init__(
        self,
        options: FlipFlopOptions,
        seed: int,
        seats: int,
        decks: list[list[Card]],
        *,
        dealer: int | None = None,
    ):
        """A new match; its first dealer drawn from ``seed`` unless ``dealer`` names it."""
        self._start(options, seed, seats, decks, make_deck())
        n = seats
        self.stakes = Stakes(n, options.starting_stakes)  # F2
        self.declared: list[int | None] = [None] * n
        self.hands = [0] * n
        self.known = [0] * n  # face-up cards in each hand
        self.order: list[int] = []  # seats in the round, dealer's left first, dealer last
        self.round_no = 0
        self.dealer = self._rng.below(n) if dealer is None else dealer  # F4: at random
        self.log.append((None, "seat {} deals first".format, (self.dealer,), None))
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
        # every seat's PlayerView by its fields (see views.player_view; shared by clones)
        self.player_views: BoundedCache[tuple[Any, ...], PlayerView] = BoundedCache(
            player_view, 512
        )
        self.over = False
        self._start_round()

    @classmethod
    def at_position(
        cls,
        options: FlipFlopOptions,
        seed: int,
        seats: int,
        *,
        bankrolls: Sequence[int],
        set_aside: Sequence[int],
        eligible: Sequence[int],
        eliminated_in: Sequence[int | None],
        pots: Sequence[int],
        round_no: int,
        dealer: int,
        flip_card: Card,
        hands: Sequence[Sequence[Card]],
        face_up: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        discard_pile: Sequence[Card] = (),
        spreads: Sequence[tuple[int, Sequence[Card]]] = (),
        phase: Phase = Phase.DRAW,
        turn: int,
        turns: int = 0,
        taken: Card | None = None,
        declared: Sequence[int | None] | None = None,
        reveals: Sequence[tuple[int, str, Card]] = (),
        side_result: Sequence[tuple[int | None, Card | None, int]] = (),
        last_round: RoundSummary | None = None,
    ) -> FlipFlop:
        """A match in play in round ``round_no`` (``referee.scenario`` builds sampled
        positions with it), the rounds after it shuffled from ``seed``. The stakes are
        those after this round's antes (F3): per seat the bankroll, the set-aside stake,
        ``eligible`` (0 out of the round, else 1–3: the pots it may win) and the round it
        was eliminated in; and the game, flip and flop ``pots``. ``hands`` holds every
        seat's cards, the dealer's with the ``flip_card`` (F4); ``face_up`` the cards of
        each hand all can see; ``spreads`` the table as (owner, cards) in the order
        laid; ``stock`` top first. ``turn`` is the seat to play in
        ``phase`` (in the DECLARE phase the seat asked, F5) after ``turns`` turns;
        ``taken`` the card it took from the pile this turn. ``reveals`` are those made
        (F6); the reveals still due, the flip and flop winners and the seats still to be
        asked about 49 or 50 are worked out from the hands, as the deal works them out.
        ``side_result`` is the flip and flop payments once made, after the dealer's
        first turn. Trusts its caller as ``apply`` does, and logs no event: the
        position's history is the caller's."""
        self = cls.__new__(cls)
        self._start(options, seed, seats, [], make_deck())
        stakes = self.stakes = Stakes(seats, 0)
        stakes.bankroll = list(bankrolls)
        stakes.set_aside = list(set_aside)
        stakes.eligible = list(eligible)
        stakes.eliminated_in = list(eliminated_in)
        stakes.pots = list(pots)
        self.round_no = round_no
        self.dealer = dealer
        self.flip_card = flip_card
        order = self.order = [s for s in SEAT_ORDERS[seats][dealer] if stakes.eligible[s]]
        self.hands = [mask_of(h) for h in hands]
        self.known = [mask_of(h) for h in face_up]
        self.declared = list(declared) if declared is not None else [None] * seats
        self.stock = list(stock)
        self.stock_pos = 0
        self.discard_pile = list(discard_pile)
        self.spread_owners = [owner for owner, _ in spreads]
        self.spread_masks = [mask_of(cards) for _, cards in spreads]
        self.spread_ext = [extension_mask(m) for m in self.spread_masks]
        self.phase = phase
        self.turn = turn
        self.turns = turns
        self.taken = -1 if taken is None else taken
        self.reveals = list(reveals)
        self.side_paid = phase is not Phase.DECLARE and turns >= len(order)
        self.side_result = list(side_result)
        self._last_round = None
        self._summary = last_round
        self.player_views = BoundedCache(player_view, 512)
        self.over = False
        if phase is Phase.DECLARE:
            self.turn_index = 0
            self.started = 0
            later = order[order.index(turn) + 1 :]
            self.declare_queue = [turn] + [s for s in later if declarable(self.hands[s])]
            unrevealed = order
        else:
            self.turn_index = order.index(turn)
            self.started = sum(1 << s for s in order[: min(turns, len(order) - 1) + 1])
            self.declare_queue = []
            # a seat reveals with the first action of its first turn (F6)
            revealed = turns + (phase is _PLAY)
            unrevealed = order[revealed:]
        self.pending, self.winners = reveals_due(
            self.hands, order, dealer, stakes.eligible, flip_card, reveals, unrevealed
        )
        return self

    # Events are logged as Deferred entries (referee.engine) where their text takes
    # formatting (deal lines, pot amounts): random playouts that never read the log
    # save it, which is a good part of a short round.

    # -- rounds ----------------------------------------------------------------------------

    def _start_round(self) -> None:
        """Antes (F3), the deal (F4), the reveals to come (F6) and the 49/50 question (F5)."""
        n = self.num_seats
        self.round_no += 1
        dealer = self.dealer
        order, antes = self.stakes.ante(dealer)
        self.order = order
        log = self.log
        log.append((None, round_text, (self.round_no, dealer, antes), None))
        deck = self._decks.pop(0) if self._decks else shuffled_deck(self._rng)
        dealt = deal_hands(deck, order, dealer, self.stakes.eligible, log)
        self.hands, self.pending, self.winners, declare = dealt
        dealt_cards = 5 * len(order)
        flip = deck[dealt_cards - 1]
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
        self.log.append((seat, plan.text, None, None))

    def _settle_side_pots(self) -> None:
        """Pay the flip and flop pots (F6); a pot nobody may claim carries over."""
        log = self.log
        side_result = self.side_result
        winners = self.winners
        amounts = self.stakes.pay_side_pots(winners)
        for pot in (FLIP, FLOP):
            best = winners[pot - 1]
            won = amounts[pot - 1]
            if best is None:
                side_result.append((None, None, 0))
                log.append((None, UNCLAIMED, (POT_NAMES[pot], won), None))
            else:
                card, seat = best
                side_result.append((seat, card, won))
                log.append((seat, POT_WON, (POT_NAMES[pot], won, CARD_TEXTS[card]), None))
        self.side_paid = True

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
        log = self.log
        if not self.side_paid:
            self._settle_side_pots()
        stakes = self.stakes
        paid, pot, share, out = stakes.settle(winners, payers, self.order, self.round_no)
        for s, aside in paid:
            log.append((s, SET_ASIDE_PAID, (aside,), None))
        log.append((None, game_pot_text, (ending, pot, tuple(winners), share), None))
        for s in out:
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
            tuple([s for s, _ in paid]) if paid else (),
            self.side_result,
            tuple(out),
        )
        self._summary = None
        # seats leave only when eliminated, so the count changes only then (F14)
        if (out and stakes.seats_left() <= 1) or self.round_no >= self.options.max_rounds:
            stakes.end_match()
            self.over = True
            self.phase = Phase.OVER
            log.append((None, "match over", None, None))
            return
        n = self.num_seats
        bankroll = stakes.bankroll
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

    legal_actions = legal_actions_of  # the function itself: no call in between

    def parse_action(self, text: str) -> Action:
        return parse_flip_flop_action(text)

    # ``apply`` (Dispatch) calls the method marked for the action's kind.

    @applies(Discard)
    def _apply_discard(self, action: Discard) -> None:
        seat = self.turn
        card = action.card
        bit = 1 << card
        hand = self.hands[seat] ^ bit
        self.hands[seat] = hand
        self.known[seat] &= ~bit
        self.discard_pile.append(card)
        self.log.append(DISCARD_EVENTS[seat][card])
        if not hand:
            self._went_out(seat)
        else:
            self._end_turn(seat)

    @applies(DrawStock)
    def _apply_draw_stock(self, action: DrawStock) -> None:
        seat = self.turn
        card = self.stock[self.stock_pos]
        self.stock_pos += 1
        self.hands[seat] |= 1 << card
        self.taken = -1
        self.phase = _PLAY
        log = self.log
        log.append(DRAW_STOCK_EVENTS[seat])
        log.append((seat, DREW_TEXTS[card], None, ONLY[seat]))

    @applies(DrawDiscard)
    def _apply_draw_discard(self, action: DrawDiscard) -> None:
        seat = self.turn
        card = self.discard_pile.pop()
        self.hands[seat] |= 1 << card
        self.known[seat] |= 1 << card
        self.taken = card
        self.phase = _PLAY
        self.log.append(DRAW_DISCARD_EVENTS[seat][card])

    @applies(Spread)
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
        self.log.append((seat, "{} (spread {})".format, (action, len(self.spread_masks)), None))
        if not self.hands[seat]:
            self._went_out(seat)

    @applies(LayOff)
    def _apply_layoff(self, action: LayOff) -> None:
        seat = self.turn
        bit = 1 << action.card
        i = action.spread - 1
        self.hands[seat] ^= bit
        self.known[seat] &= ~bit
        self.spread_masks[i] |= bit
        self.spread_ext[i] = extension_mask(self.spread_masks[i])
        self.log.append((seat, str, (action,), None))
        if not self.hands[seat]:
            self._went_out(seat)

    @applies(Reveal)
    def _apply_reveal(self, action: Reveal) -> None:
        self._reveal(self.turn)
        then = action.then
        self.handlers[type(then)](self, then)

    @applies(Drop)
    def _apply_drop(self, action: Drop) -> None:
        self._drop(self.turn)

    @applies(TunkOut)
    def _apply_tunk_out(self, action: TunkOut) -> None:
        self._tunk_out(self.turn)

    @applies(Declare)
    def _apply_declare(self, action: Declare) -> None:
        seat = self.turn
        self.declared[seat] = action.total
        hand = format_cards(cards_of(self.hands[seat]))
        self.known[seat] = self.hands[seat]
        self.log.append((seat, f"declare {action.total}: {hand}", None, None))
        self._next_declarer()

    @applies(Pass)
    def _apply_pass(self, action: Pass) -> None:
        self.log.append(PASS_EVENTS[self.turn])
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
        self.log.append((seat, "drop", None, None))
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
        self.log.append((seat, f"tunk out {cards_text(first)} | {cards_text(second)}", None, None))
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
        if self._summary is None and self._last_round is not None:
            self._summary = round_summary(self._last_round)
        return self._summary

    def view(self, seat: int) -> FlipFlopView:
        return flip_flop_view(self, seat)

    def result(self) -> Result | None:
        if not self.over:
            return None
        stakes = self.stakes
        game, flip, flop = stakes.pots
        return Result(
            ranks=stakes.ranks(),  # F14
            scores=tuple(stakes.bankroll),
            detail={
                "rounds": self.round_no,
                "bankrolls": list(stakes.bankroll),
                "pots": {"game": game, "flip": flip, "flop": flop},
                "eliminated_in_round": list(stakes.eliminated_in),
            },
        )


def most_actions(options: FlipFlopOptions, seats: int) -> int:
    """The most actions a match can take: ``max_rounds`` rounds (F14), each of every
    player asked about 49 and 50 (F5), then at most ``max_turns + 1`` turns (F11) of a
    draw or drop, a tunk out and a discard (F7, F9, F10), and at most one spread or
    lay-off per card of the deck over the round: each takes cards from a hand to the
    table for good."""
    per_round = seats + 3 * (options.max_turns + 1) + len(make_deck())
    return options.max_rounds * per_round


SPEC = GameSpec(
    name="flip-flop",
    title="Game Flip Flop",
    min_seats=3,
    max_seats=5,
    options_type=FlipFlopOptions,
    factory=FlipFlop,
    deck=lambda options, seats: make_deck(),
    most_actions=most_actions,
    default_seats=4,
    test_variants=(
        {"max_rounds": 3},
        {"starting_stakes": 3, "max_rounds": 4, "max_turns": 6},
        {"starting_stakes": 2, "max_rounds": 4},
        {"starting_stakes": 5, "max_rounds": 4, "max_turns": 30},
    ),
)
