"""What one seat may know of a Rummy 500 match (C9): the view dataclasses, and how a
seat's view is made from the state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referee.cards import CARD_BY_ID, Card

if TYPE_CHECKING:
    from referee.games.rummy500.state import Rummy500

#: The phases of a hand as the state keeps them, and their names in :class:`HandView`.
CALL, DRAW, PLAY = 0, 1, 2
PHASE_NAMES = ("call", "draw", "play")


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


def meld_view(key: tuple[Any, ...]) -> MeldView:
    """The view of a table meld from its key ``(number, is_run, *placed)``, where each
    placed card is (card stood for, card there, seat)."""
    number, is_run, *placed = key
    return MeldView(
        number,
        "run" if is_run else "set",
        tuple(PlacedView(CARD_BY_ID[a], CARD_BY_ID[c], s) for c, a, s in placed),
    )


def rummy500_view(state: Rummy500, seat: int) -> Rummy500View:
    """``seat``'s view of the match."""
    to_act = state.to_act()
    return Rummy500View(
        game=state.game,
        seat=seat,
        to_act=to_act,
        scores=tuple(state.scores),
        hands_played=state.hands_played,
        hand=None if state.over else _hand_view(state, seat),
        last_hand=state.last_outcome,
        legal_actions=tuple(str(a) for a in state.legal_actions()) if to_act == seat else (),
    )


def _hand_view(state: Rummy500, seat: int) -> HandView:
    n = state.num_seats
    # a meld changes only when someone lays off on it, and a view is immutable, so
    # each is made once (the state's cache, shared by its clones)
    views = state.meld_views
    melds = tuple([views[(tm.number, tm.is_run, *tm.placed)] for tm in state.table])
    known = tuple(tuple(CARD_BY_ID[c] for c in sorted(k) for _ in range(k[c])) for k in state.known)
    play = state.phase == PLAY
    floating = state.options.floating
    return HandView(
        number=state.number,
        dealer=state.dealer,
        phase=PHASE_NAMES[state.phase],
        turn=state.turn,
        hand=tuple(state.hand_cards(seat)),
        hand_sizes=tuple(state.size),
        known=known,
        melds=melds,
        discard_pile=tuple(state.pile),
        stock_size=len(state.stock) - state.stock_pos,
        melded_points=tuple(state.melded),
        floating=tuple(floating and state.size[s] == 0 for s in range(n)),
        must_meld=CARD_BY_ID[state.must_meld] if play and state.must_meld >= 0 else None,
        must_meld_now=play and state.must_meld_now,
        may_not_discard=CARD_BY_ID[state.may_not_discard]
        if play and state.may_not_discard >= 0
        else None,
        rummy_calls=tuple(str(a) for a in state.calls) if state.phase == CALL else (),
        turns=state.turns,
    )
