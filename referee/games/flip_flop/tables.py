"""Flip Flop's look-up tables: the meld search, card values and masks, the seat orders
and antes of a round, and the texts of its events."""

from __future__ import annotations

from referee.actions import CARD_TEXTS
from referee.cards import CARD_BY_ID, RANK_BITS, cards_of, format_cards
from referee.melds import MeldSearch, meld_search

SEARCH: MeldSearch = meld_search()  # F1, F8: Gin values, ace low only
CARD_VALUE = SEARCH.card_value
HAND_SIZE = 5
GAME, FLIP, FLOP = 0, 1, 2
POT_NAMES = ("game", "flip", "flop")
#: Every real card's bit: masks shifted off a suit's 13 ranks fall outside it.
DECK_MASK = sum(1 << c for c in CARD_BY_ID if c != 64)
#: The tens and court cards, each worth 10 (F1).
TEN_VALUED = sum(1 << c for c in CARD_BY_ID if c != 64 and CARD_VALUE[c] == 10)
BITS = [1 << c for c in range(65)]
_RANK_ALL_SUITS = [sum(1 << (s * RANK_BITS + r) for s in range(4)) for r in range(13)]
#: The spreads of three cards, by card mask (F10).
_TRIPLES = frozenset(m.mask for m in SEARCH.melds if len(m.cards) == 3)


def hand_value(mask: int) -> int:
    """The value of the cards in a hand (F1): every card counts, spreads or not."""
    return SEARCH.value(mask)


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


# -- seats and antes -------------------------------------------------------------------------

ONLY = [frozenset((s,)) for s in range(5)]  # events one seat alone may see
SEAT_TEXT = [f"seat {s}" for s in range(5)]
ANTE_TEXT = {
    1: ("game (all in)", "game, sets aside 1"),
    2: ("", "game flip, sets aside 1"),
    3: ("", "game flip flop, sets aside 1"),
}
#: ANTE_PHRASE[seat][pays][sets_aside]: one seat's ante in the round's opening event.
ANTE_PHRASE = [
    [[f"seat {s} {ANTE_TEXT[p][a]}" if p else "" for a in (0, 1)] for p in range(4)]
    for s in range(5)
]
#: SEAT_ORDERS[seats][dealer]: every seat from the dealer's left round to the dealer.
SEAT_ORDERS = {
    n: [tuple((d + i) % n for i in range(1, n + 1)) for d in range(n)] for n in range(3, 6)
}
#: FULL_ANTES[seats][dealer]: the antes when every seat pays in full.
FULL_ANTES = {
    n: [[ANTE_PHRASE[s][3][1] for s in order] for order in orders]
    for n, orders in SEAT_ORDERS.items()
}

# -- event texts ------------------------------------------------------------------------------

FLIP_TEXT = {c: f"flip card {card}" for c, card in CARD_BY_ID.items()}
UNCLAIMED = "{} pot unclaimed: {}".format
POT_WON = "wins the {} pot ({}) with {}".format
SET_ASIDE_PAID = "pays set-aside stake {} into the game pot".format


def round_text(round_no: int, dealer: int, antes: list[str]) -> str:
    return f"round {round_no}: seat {dealer} deals; antes: {'; '.join(antes)}"


def dealt_text(mask: int) -> str:
    return "dealt " + " ".join(CARD_TEXTS[c] for c in cards_of(mask))


def game_pot_text(ending: str, pot: int, winners: tuple[int, ...], share: int) -> str:
    who = ", ".join(SEAT_TEXT[w] for w in winners)
    return f"{ending}: game pot {pot} to {who}, {share} each"


def cards_text(mask: int) -> str:
    return format_cards(cards_of(mask))
