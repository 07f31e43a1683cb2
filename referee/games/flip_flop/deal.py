"""The deal of a Flip Flop round (F4) and what it settles at once: the hands that may
declare 49 or 50 (F5), and the reveal each seat will make at its first turn with the
flip and flop winners those reveals decide (F6), worked out from the opening hands
since no hand changes before its first turn."""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import CARD_BY_ID, RANK_BITS, SUIT_MASK, Card
from referee.engine import EventLog
from referee.games.flip_flop.actions import RevealPlan, reveal_plan
from referee.games.flip_flop.tables import (
    BITS,
    CARD_VALUE,
    ONLY,
    TEN_VALUED,
    dealt_text,
    hand_value,
)

#: The flip and flop winners: (card shown, seat) for each pot, None when nobody may win it.
Winners = list[tuple[Card, int] | None]


def deal_hands(
    deck: Sequence[Card],
    order: Sequence[int],
    dealer: int,
    eligible: Sequence[int],
    log: EventLog,
) -> tuple[list[int], list[RevealPlan | None], Winners, list[int]]:
    """Deal five cards each to the seats in ``order`` (from the dealer's left; the
    dealer's fifth card is the flip card) and log each seat's cards to it alone.
    Returns the hands as masks and the reveal due of each seat (F6), the flip and flop
    winners, and the seats that may declare 49 or 50, in deal order (F5)."""
    k = len(order)
    seats = len(eligible)
    dealt_cards = 5 * k
    flip = deck[dealt_cards - 1]
    flip_shift = (flip >> 4) * RANK_BITS
    flop_shift = flip_shift ^ (3 * RANK_BITS)  # the other suit of the same colour
    # F6: the flip card counts for the dealer when the dealer may win the flip
    best_flip = flip if eligible[dealer] >= 2 else 99
    best_flop = 99
    flip_seat = dealer if best_flip == flip else -1
    flop_seat = -1
    hands = [0] * seats
    pending: list[RevealPlan | None] = [None] * seats
    declare = []
    bits = BITS
    value = CARD_VALUE.__getitem__
    for j, seat in enumerate(order):
        cards = deck[j:dealt_cards:k]
        hands[seat] = mask = sum(map(bits.__getitem__, cards))
        log.append((seat, dealt_text, (mask,), ONLY[seat]))
        # F5: five cards reach 49 only with four tens or court cards
        if (mask & TEN_VALUED).bit_count() >= 4 and sum(map(value, cards)) >= 49:
            declare.append(seat)
        level = eligible[seat]
        if level >= 2:  # reveal order is the deal order, dealer last (F6)
            shown_flip = shown_flop = -1
            held = mask >> flip_shift & 0x1FFF  # the seat's cards of the flip suit
            if held:
                card = flip_shift + (held & -held).bit_length() - 1  # the lowest of them
                if card < best_flip:
                    best_flip = shown_flip = card
                    flip_seat = seat
            if level == 3:
                held = mask >> flop_shift & 0x1FFF
                if held:
                    card = flop_shift + (held & -held).bit_length() - 1
                    if card < best_flop:
                        best_flop = shown_flop = card
                        flop_seat = seat
            if shown_flip >= 0 or shown_flop >= 0:
                pending[seat] = reveal_plan(shown_flip, shown_flop)
    winners: Winners = [
        None if flip_seat < 0 else (CARD_BY_ID[best_flip], flip_seat),
        None if flop_seat < 0 else (CARD_BY_ID[best_flop], flop_seat),
    ]
    return hands, pending, winners, declare


def declarable(mask: int) -> bool:
    """Whether five cards add up to 49 or 50 (F5): the test ``deal_hands`` makes inline."""
    return (mask & TEN_VALUED).bit_count() >= 4 and hand_value(mask) >= 49


def reveals_due(
    hands: Sequence[int],
    order: Sequence[int],
    dealer: int,
    eligible: Sequence[int],
    flip: Card,
    reveals: Sequence[tuple[int, str, Card]],
    unrevealed: Sequence[int],
) -> tuple[list[RevealPlan | None], Winners]:
    """The reveal due of each seat in ``unrevealed`` (F6; seats whose first turn has not
    begun, in deal order, so that their hands are still the opening hands) after the
    ``reveals`` made so far, and the flip and flop winners all of them decide: what
    ``deal_hands`` works out at the deal, for a round already under way."""
    flip_shift = (flip >> 4) * RANK_BITS
    shifts = (flip_shift, flip_shift ^ (3 * RANK_BITS))  # flip suit, flop suit
    dealer_counts = eligible[dealer] >= 2  # the flip card counts for the dealer (F6)
    best = [int(flip) if dealer_counts else 99, 99]
    winner = [dealer if dealer_counts else -1, -1]
    for seat, pot, shown_card in reveals:
        i = 0 if pot == "flip" else 1
        best[i], winner[i] = shown_card, seat
    pending: list[RevealPlan | None] = [None] * len(hands)
    for seat in unrevealed:
        shown = [-1, -1]
        for i in range(eligible[seat] - 1):  # level 2 may win the flip, 3 the flop too
            held = hands[seat] >> shifts[i] & SUIT_MASK
            if held:
                card = shifts[i] + (held & -held).bit_length() - 1  # the lowest of them
                if card < best[i]:
                    best[i] = shown[i] = card
                    winner[i] = seat
        if shown != [-1, -1]:
            pending[seat] = reveal_plan(*shown)
    winners: Winners = [None if winner[i] < 0 else (CARD_BY_ID[best[i]], winner[i]) for i in (0, 1)]
    return pending, winners
