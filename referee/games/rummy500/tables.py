"""Rummy 500's look-up tables: the new melds a hand can make, by suit pattern and by
rank, and what a new meld takes from the hand."""

from __future__ import annotations

from functools import cache

from referee.cards import CARD_BY_ID, JOKER
from referee.games.rummy500.actions import NewMeld
from referee.games.rummy500.melds import HIGH_ACE, RANK13, pos_card, run_templates, set_templates
from referee.tables import BoundedCache

#: Per card id, the card (ids that are no card: the joker, unused).
CARDS = [CARD_BY_ID.get(c, JOKER) for c in range(65)]
_ACES = 1 | 1 << 16 | 1 << 32 | 1 << 48


def _runs_of_suit(key: tuple[int, int, int]) -> tuple[NewMeld, ...]:
    """The runs of ``suit`` from the run-position pattern ``b14`` and ``jokers``
    jokers (the pattern may leave out cards that are in no such run)."""
    suit, b14, jokers = key
    return tuple(
        NewMeld(tuple(CARD_BY_ID[pos_card(suit, p)] for p in positions), jmask)
        for positions, jmask in run_templates(b14, jokers)
    )


#: RUNS_OF_SUIT[suit, b14, jokers]: see :func:`_runs_of_suit` (filled as met).
RUNS_OF_SUIT = BoundedCache(_runs_of_suit)


@cache
def sets_of_rank(rank: int, q: int, jokers: int) -> tuple[NewMeld, ...]:
    """The sets of ``rank`` from the suit pattern ``q`` and ``jokers`` jokers."""
    return tuple(
        NewMeld(tuple(CARD_BY_ID[s * 16 + rank] for s in suits), jmask)
        for suits, jmask in set_templates(q, jokers)
    )


def _runs_of_pattern(suit: int, r13: int, jokers: int) -> tuple[NewMeld, ...]:
    """The runs of ``suit`` from its 13-bit rank pattern and ``jokers`` jokers."""
    b14 = r13 | ((r13 & 1) << HIGH_ACE)
    # keep only the cards that can be in a run: the runs found are the same, and far
    # fewer patterns reach RUNS_OF_SUIT
    if jokers == 0:
        r3 = b14 & (b14 >> 1) & (b14 >> 2)  # the low ends of 3-card runs
        b14 = r3 | (r3 << 1) | (r3 << 2)
    elif jokers == 1:  # a card with another within two positions
        b14 &= (b14 >> 1) | (b14 >> 2) | (b14 << 1) | (b14 << 2)
    return RUNS_OF_SUIT[suit, b14, jokers] if b14 else ()


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
        out.extend(sets_of_rank(r, q, jokers))
    return out


def _meld_cards(action: NewMeld) -> tuple[int, int]:
    naturals = used = 0
    for i, c in enumerate(action.slots):
        if action.jokers >> i & 1:
            used += 1
        else:
            naturals |= 1 << c
    return (naturals, used)


#: MELD_CARDS[new meld]: (mask of its natural cards, number of jokers) (filled as met).
MELD_CARDS: BoundedCache[NewMeld, tuple[int, int]] = BoundedCache(_meld_cards)
