"""What a player of a Gin hand may see of it (C9), shared by both Gin games."""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import CARD_BY_ID, Card, card_tuple
from referee.games.gin_hand import GinHand, HandOutcome


@dataclass(frozen=True, slots=True)
class HandView:
    """One player's view of the Gin hand in play."""

    player: int  # the seat whose hand this is
    opponent: int
    dealer: int
    phase: str
    hand: tuple[Card, ...]
    opponent_hand_size: int
    opponent_known: tuple[Card, ...]  # cards the opponent took from the discard pile
    discard_pile: tuple[Card, ...]  # bottom first; the last card is the upcard
    stock_size: int
    taken_from_discard: Card | None  # may not be discarded this turn (G4)
    turns: int


@dataclass(frozen=True, slots=True)
class OutcomeView:
    """A finished hand as both players saw it at the showdown."""

    kind: str  # gin, knock, undercut, drawn
    winner: int | None
    points: int
    knocker: int | None
    knocker_melds: tuple[tuple[Card, ...], ...]
    knocker_deadwood: tuple[Card, ...]
    defender_melds: tuple[tuple[Card, ...], ...]
    defender_layoffs: tuple[str, ...]
    defender_deadwood: tuple[Card, ...]


def hand_view(hand: GinHand, player: int) -> HandView:
    """The view of ``player`` (one of the hand's two players) of ``hand``."""
    opponent = hand.opponent(player)
    taken = hand.taken if hand.turn == player and hand.taken >= 0 else None
    return HandView(
        player=player,
        opponent=opponent,
        dealer=hand.dealer,
        phase=hand.phase.value,
        hand=card_tuple(hand.hands[player]),
        opponent_hand_size=hand.hands[opponent].bit_count(),
        opponent_known=card_tuple(hand.known[opponent]),
        discard_pile=tuple(hand.discard_pile),
        stock_size=hand.stock_size,
        taken_from_discard=None if taken is None else CARD_BY_ID[taken],
        turns=hand.turns,
    )


def outcome_view(outcome: HandOutcome) -> OutcomeView:
    """The public showdown of a finished hand."""
    k = outcome.knocker_arrangement
    d = outcome.defender_arrangement
    return OutcomeView(
        kind=outcome.kind,
        winner=outcome.winner,
        points=outcome.points,
        knocker=outcome.knocker,
        knocker_melds=tuple(m.cards for m in k.melds) if k else (),
        knocker_deadwood=k.deadwood if k else (),
        defender_melds=tuple(m.cards for m in d.melds) if d else (),
        defender_layoffs=tuple(str(x) for x in d.layoffs) if d else (),
        defender_deadwood=d.deadwood if d else (),
    )
