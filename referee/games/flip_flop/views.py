"""What one seat may know of a Flip Flop match (C9): the view dataclasses, and how a
seat's view and the summary of a finished round are made from the state."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from referee.cards import CARD_BY_ID, SUITS, Card, card_tuple, cards_of
from referee.games.flip_flop.tables import POT_NAMES, hand_value

if TYPE_CHECKING:
    from referee.games.flip_flop.state import FlipFlop


class Phase(Enum):
    """Where a round stands; the value is the view's ``phase`` text."""

    DECLARE = "declare 49 or 50"  # F5
    DRAW = "drop or draw"  # F7.1, F7.2
    PLAY = "spread, lay off or discard"  # F7.3-F7.5
    OVER = "match over"


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


def round_summary(raw: tuple[Any, ...]) -> RoundSummary:
    """The summary of a finished round from what the state kept of it (``_settle``)."""
    (rnd, ending, seat, shown, hands, masks, owners, pile) = raw[:8]
    winners, share, paid, side, out = raw[8:]
    (flip_seat, flip_card, flip_won), (flop_seat, flop_card, flop_won) = side
    return RoundSummary(
        round=rnd,
        ending=ending,
        seat=seat,
        shown=tuple(ShownHand(s, tuple(cards_of(hands[s])), hand_value(hands[s])) for s in shown),
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


def player_view(key: tuple[Any, ...]) -> PlayerView:
    """One seat's PlayerView from its key: (seat, bankroll, set-aside stake, pots it
    may win, round eliminated in, hand size, face-up cards mask, declared)."""
    s, bankroll, set_aside, eligible, eliminated_in, hand_size, face, declared = key
    return PlayerView(
        seat=s,
        bankroll=bankroll,
        set_aside=set_aside,
        eligible=POT_NAMES[:eligible],
        in_round=bool(eligible),
        eliminated_in_round=eliminated_in,
        hand_size=hand_size,
        face_up=card_tuple(face),
        declared=declared,
    )


def _player_views(state: FlipFlop) -> tuple[PlayerView, ...]:
    # most seats' views are unchanged from one decision to the next, and a view is
    # immutable, so each is made once (the state's cache, shared by its clones)
    views = state.player_views
    over = state.over
    stakes = state.stakes
    out = []
    for s in range(state.num_seats):
        if over:
            hand_size, face, declared = 0, 0, None
        else:
            hand = state.hands[s]
            hand_size, face, declared = hand.bit_count(), state.known[s] & hand, state.declared[s]
        key = (
            s,
            stakes.bankroll[s],
            stakes.set_aside[s],
            stakes.eligible[s],
            stakes.eliminated_in[s],
            hand_size,
            face,
            declared,
        )
        out.append(views[key])
    return tuple(out)


def flip_flop_view(state: FlipFlop, seat: int) -> FlipFlopView:
    """``seat``'s view of the match."""
    over = state.over
    flip = None if over else state.flip_card
    to_act = state.to_act()
    taken = state.taken if not over and state.taken >= 0 and state.turn == seat else None
    pots = state.stakes.pots
    return FlipFlopView(
        game=state.game,
        seat=seat,
        to_act=to_act,
        phase=state.phase.value,
        round=state.round_no,
        dealer=state.dealer,
        pots=(pots[0], pots[1], pots[2]),
        players=_player_views(state),
        hand=() if over else card_tuple(state.hands[seat]),
        flip_card=flip,
        flip_suit=None if flip is None else SUITS[flip >> 4],
        flop_suit=None if flip is None else SUITS[(flip >> 4) ^ 3],
        reveals=() if over else tuple(RevealView(*r) for r in state.reveals),
        spreads=()
        if over
        else tuple(
            SpreadView(i + 1, owner, card_tuple(mask))
            for i, (mask, owner) in enumerate(
                zip(state.spread_masks, state.spread_owners, strict=True)
            )
        ),
        discard_pile=() if over else tuple(state.discard_pile),
        stock_size=0 if over else len(state.stock) - state.stock_pos,
        turns=state.turns,
        taken_from_discard=None if taken is None else CARD_BY_ID[taken],
        last_round=state.last_round(),
        legal_actions=tuple(str(a) for a in state.legal_actions()) if to_act == seat else (),
    )
