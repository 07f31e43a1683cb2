"""Melds of Rummy 500 (R5): runs with the ace low or high, sets of distinct suits,
jokers standing for fixed cards, the duplicate cards of two decks, and the melds on
the table with the cards they accept as lay-offs (R4.2).

A hand is a multiset; for "which melds contain this card" duplicates never matter
(a meld holds each card at most once), so the searches here take the mask of the
*distinct* natural cards and a joker count. Within a suit a run position is 0..13:
0 is the low ace, 1..12 are 2..K, 13 is the high ace. A run spans at most 13
positions, so it never holds the ace twice and never turns the corner (K-A-2).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache

from referee.cards import CARD_BY_ID, JOKER_ID, Card
from referee.tables import BoundedCache

JOKER = JOKER_ID
HIGH_ACE = 13
RANK13 = 0x1FFF
#: Card values per rank (ace first) for each scoring (R2); the joker is 15 in both.
RANK_VALUES = {
    "standard": (15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
    "5-10-15": (15, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10),
}
JOKER_VALUE = 15
LOW_ACE_VALUE = 1


def pos_card(suit: int, pos: int) -> int:
    """The card id at run position ``pos`` (0..13) of ``suit``."""
    return suit * 16 + (0 if pos == HIGH_ACE else pos)


def suit_positions(mask: int, suit: int) -> int:
    """The 14-bit run-position pattern of ``suit`` in a card mask (the ace twice)."""
    r = (mask >> (16 * suit)) & RANK13
    return r | ((r & 1) << HIGH_ACE)


def ids(mask: int) -> Iterator[int]:
    """The card ids of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _positions_of(rank: int) -> tuple[int, ...]:
    return (0, HIGH_ACE) if rank == 0 else (rank,)


def _windows_for(rank: int) -> tuple[int, ...]:
    """For a card of ``rank``, the 14-bit patterns of the two other positions of
    each 3-card run window holding it."""
    out = []
    for p in _positions_of(rank):
        for lo in (p - 2, p - 1, p):
            if lo >= 0 and lo + 2 <= HIGH_ACE:
                out.append(sum(1 << q for q in range(lo, lo + 3) if q != p))
    return tuple(out)


WINDOWS: tuple[tuple[int, ...], ...] = tuple(_windows_for(r) for r in range(13))


def _neighbours(cid: int) -> int:
    suit, rank = cid >> 4, cid & 15
    mask = 0
    for s in range(4):
        if s != suit:
            mask |= 1 << (s * 16 + rank)
    for p in _positions_of(rank):
        for q in range(p - 2, p + 3):
            if 0 <= q <= HIGH_ACE and q != p:
                mask |= 1 << pos_card(suit, q)
    return mask & ~(1 << cid)


#: Per card id, the cards that can share a 3-card meld with it (same rank other
#: suits, same suit within two run positions).
NEIGHBOURS: list[int] = [0] * 65
for _cid in CARD_BY_ID:
    if _cid != JOKER:
        NEIGHBOURS[_cid] = _neighbours(_cid)


def _set_mates(cid: int) -> int:
    rank = cid & 15
    return sum(1 << (s * 16 + rank) for s in range(4) if s != cid >> 4)


def _window_masks(cid: int) -> tuple[int, ...]:
    suit = cid >> 4
    out = []
    for w in WINDOWS[cid & 15]:
        out.append(sum(1 << pos_card(suit, q) for q in range(HIGH_ACE + 1) if w >> q & 1))
    return tuple(out)


#: Per card id, the other cards of its rank, and the card pairs completing a 3-card run.
SET_MATES: list[int] = [0] * 65
WINDOW_MASKS: list[tuple[int, ...]] = [()] * 65
for _cid in CARD_BY_ID:
    if _cid != JOKER:
        SET_MATES[_cid] = _set_mates(_cid)
        WINDOW_MASKS[_cid] = _window_masks(_cid)


def forms_meld(cid: int, pool: int, jokers: int) -> bool:
    """Whether natural card ``cid`` makes a new meld with cards of ``pool`` (distinct
    naturals, ``cid`` itself ignored) and up to ``jokers`` jokers."""
    if jokers >= 2:
        return True
    if jokers:  # any card that can share a 3-card meld with it, the joker the third
        return bool(pool & NEIGHBOURS[cid])
    if (pool & SET_MATES[cid]).bit_count() >= 2:
        return True
    return any(pool & w == w for w in WINDOW_MASKS[cid])


def joker_forms_meld(pool: int, jokers: int) -> bool:
    """Whether a joker makes a new meld with cards of ``pool`` and ``jokers`` more
    jokers (a meld needs at least one natural card, R5)."""
    if not pool:
        return False
    if jokers >= 1:
        return True
    return any(pool & NEIGHBOURS[c] for c in ids(pool))


# -- meld templates: every meld a hand can make ----------------------------------------------


def _subsets_at_least(mask: int, least: int) -> Iterator[int]:
    """Every submask of ``mask`` with at least ``least`` bits, in increasing order."""
    subs = []
    sub = mask
    while True:
        if sub.bit_count() >= least:
            subs.append(sub)
        if sub == 0:
            break
        sub = (sub - 1) & mask
    yield from sorted(subs)


@cache
def run_templates(b14: int, jokers: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every run of one suit from the position pattern ``b14`` and up to ``jokers``
    jokers: (positions low to high, mask of the slots filled by jokers).

    A joker may stand for a card the hand holds (R5 does not forbid it). The run
    A..K and 2..A hold the same cards; only 2..A is made (**ruling**: the ace goes
    high, worth 15 rather than 1).
    """
    out = []
    for lo in range(HIGH_ACE + 1):
        for hi in range(lo + 2, min(lo + 12, HIGH_ACE) + 1):
            if lo == 0 and hi == 12:
                continue
            length = hi - lo + 1
            wmask = ((1 << length) - 1) << lo
            present = b14 & wmask
            if length - present.bit_count() > jokers:
                continue
            if not present:
                continue
            for nat in _subsets_at_least(present, max(1, length - jokers)):
                positions = tuple(range(lo, hi + 1))
                jmask = 0
                for i, p in enumerate(positions):
                    if not nat >> p & 1:
                        jmask |= 1 << i
                out.append((positions, jmask))
    return tuple(out)


@cache
def set_templates(q: int, jokers: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every set of one rank from the suit pattern ``q`` (4 bits) and up to ``jokers``
    jokers: (suits in order, mask of the slots filled by jokers)."""
    out = []
    for nat in range(1, 16):
        if nat & ~q:
            continue
        free = 15 & ~nat
        for jk in range(16):
            if jk & ~free or jk.bit_count() > jokers:
                continue
            size = nat.bit_count() + jk.bit_count()
            if size < 3:
                continue
            suits = tuple(s for s in range(4) if (nat | jk) >> s & 1)
            jmask = 0
            for i, s in enumerate(suits):
                if jk >> s & 1:
                    jmask |= 1 << i
            out.append((suits, jmask))
    return tuple(out)


# -- shapes: what a list of slot cards is --------------------------------------------------


def run_shape(slots: Sequence[int]) -> tuple[int, int, int] | None:
    """(suit, low position, high position) if ``slots`` (cards in any order) form a
    run, else None. A..K is read as 2..A (see :func:`run_templates`)."""
    if not 3 <= len(slots) <= 13:
        return None
    suit = slots[0] >> 4
    if any(c >> 4 != suit for c in slots):
        return None
    ranks = sorted(c & 15 for c in slots)
    if len(set(ranks)) != len(ranks):
        return None
    if ranks[0] == 0 and ranks[-1] == 12:
        positions = sorted(13 if r == 0 else r for r in ranks)
    else:
        positions = ranks
    if positions[-1] - positions[0] != len(positions) - 1:
        return None
    return suit, positions[0], positions[-1]


def set_shape(slots: Sequence[int]) -> tuple[int, int] | None:
    """(rank, suit mask) if ``slots`` form a set of distinct suits (C3, R5), else None."""
    if not 3 <= len(slots) <= 4:
        return None
    rank = slots[0] & 15
    suits = 0
    for c in slots:
        if c & 15 != rank or suits >> (c >> 4) & 1:
            return None
        suits |= 1 << (c >> 4)
    return rank, suits


def canonical_slots(slots: Sequence[int]) -> tuple[Card, ...] | None:
    """``slots`` in the canonical order (runs low to high, sets by suit), or None
    when they are no meld."""
    shape = run_shape(slots)
    if shape is not None:
        suit, lo, hi = shape
        return tuple(CARD_BY_ID[pos_card(suit, p)] for p in range(lo, hi + 1))
    if set_shape(slots) is not None:
        return tuple(sorted((CARD_BY_ID[c] for c in slots), key=lambda c: c >> 4))
    return None


def card_value(cid: int, values: Sequence[int]) -> int:
    """The value of a card left in hand (R2, R8)."""
    return JOKER_VALUE if cid == JOKER else values[cid & 15]


def chain_reaches(cid: int, pool: int, jokers: int, runs: Sequence[tuple[int, int, int]]) -> bool:
    """Whether natural card ``cid`` can be laid off on one of the table ``runs``
    ((suit, low, high) positions) after laying off cards of ``pool`` and jokers on
    the positions between the run's end and the card."""
    suit = cid >> 4
    b = -1
    for rs, lo, hi in runs:
        if rs != suit:
            continue
        if b < 0:
            b = suit_positions(pool, suit)
        for p in _positions_of(cid & 15):
            if p > hi:
                if p - lo > 12:
                    continue
                gap = ((1 << (p - hi - 1)) - 1) << (hi + 1)
            elif p < lo:
                if hi - p > 12:
                    continue
                gap = ((1 << (lo - p - 1)) - 1) << (p + 1)
            else:
                continue
            if (gap & ~b).bit_count() <= jokers:
                return True
    return False


def meldable(
    cid: int,
    pool: int,
    jokers: int,
    accept: int,
    joker_ok: bool,
    runs: Sequence[tuple[int, int, int]],
) -> bool:
    """Whether card ``cid`` (natural or joker) can be melded this turn from a hand
    whose other cards are ``pool`` (distinct naturals) and ``jokers``, given the
    table's directly acceptable cards ``accept``, whether any table meld takes a
    joker, and the table's runs. Exact: a new meld holding the card, or a lay-off,
    possibly after laying off hand cards between a run's end and the card (R4)."""
    if cid == JOKER:
        return joker_ok or joker_forms_meld(pool, jokers)
    if jokers >= 2 or accept >> cid & 1:
        return True
    if not jokers and not pool & NEIGHBOURS[cid]:
        return False
    return forms_meld(cid, pool, jokers) or chain_reaches(cid, pool, jokers, runs)


# -- the melds on the table ----------------------------------------------------------------

#: A meld's shape: (is a run, suit or rank, low, high run position, suit mask of a set).
Shape = tuple[bool, int, int, int, int]


def _shape_of(slots: tuple[Card, ...]) -> Shape:
    shape = run_shape(slots)
    if shape is not None:
        return (True, shape[0], shape[1], shape[2], 0)
    sshape = set_shape(slots)
    assert sshape is not None
    return (False, sshape[0], 0, 0, sshape[1])


#: SHAPES[slots]: the shape of the meld whose cards are ``slots`` (filled as met).
SHAPES: BoundedCache[tuple[Card, ...], Shape] = BoundedCache(_shape_of)


@cache
def run_accept(suit: int, lo: int, hi: int) -> int:
    """The cards a run of ``suit`` over positions lo..hi accepts as lay-offs."""
    short = hi - lo < 12
    low_ok = short and lo >= 1
    high_ok = short and hi <= 12
    if low_ok and high_ok and lo == 1 and hi == 12:
        low_ok = False  # ruling: an ace on 2..K goes high (see run_templates)
    found = 0
    if low_ok:
        found |= 1 << pos_card(suit, lo - 1)
    if high_ok:
        found |= 1 << pos_card(suit, hi + 1)
    return found


@cache
def set_accept(rank: int, suits: int) -> int:
    """The cards a set of ``rank`` holding the suits ``suits`` accepts as lay-offs."""
    found = 0
    if suits.bit_count() < 4:
        for s in range(4):
            if not suits >> s & 1:
                found |= 1 << (s * 16 + rank)
    return found


class TableMeld:
    """A meld on the table: its shape and, per slot, (card stood for, card there, seat)."""

    __slots__ = ("accept", "hi", "is_run", "key", "lo", "number", "placed", "run_pos", "suits")

    def __init__(self, slots: tuple[Card, ...], jokers: int, seat: int, number: int = 0) -> None:
        self.number = number  # 1 for the first meld of the hand: what lay-offs name
        self.run_pos = -1  # a run's place in Rummy500.runs, once on the table
        self.is_run, self.key, self.lo, self.hi, self.suits = SHAPES[slots]
        if jokers:
            self.placed = [
                (int(c), JOKER if jokers >> i & 1 else int(c), seat) for i, c in enumerate(slots)
            ]
        else:
            self.placed = [(c, c, seat) for c in slots]
        self.accept = self._accept()

    def _accept(self) -> int:
        """The cards that may be laid off on this meld now, as a mask."""
        if self.is_run:
            return run_accept(self.key, self.lo, self.hi)
        return set_accept(self.key, self.suits)

    def add(self, card: int, actual: int, seat: int) -> int:
        """Lay off ``card`` (``actual`` is JK for a joker); returns its run position
        (or -1 in a set)."""
        if not self.is_run:
            self.suits |= 1 << (card >> 4)
            self.placed.append((card, actual, seat))
            self.placed.sort(key=lambda t: t[0] >> 4)
            self.accept = self._accept()
            return -1
        lo, hi = self.bounds_after(card)
        if lo < self.lo:
            self.lo = pos = lo
            self.placed.insert(0, (card, actual, seat))
        else:
            self.hi = pos = hi
            self.placed.append((card, actual, seat))
        self.accept = self._accept()
        return pos

    def bounds_after(self, card: int) -> tuple[int, int]:
        """(low, high) run positions of this run once ``card``, which it accepts, is
        laid off on it."""
        rank = card & 15
        pos = (HIGH_ACE if self.hi == 12 else 0) if rank == 0 else rank
        if pos == self.lo - 1:
            return pos, self.hi
        return self.lo, pos

    def copy(self) -> TableMeld:
        """An independent copy."""
        other = TableMeld.__new__(TableMeld)
        other.accept = self.accept
        other.hi = self.hi
        other.number = self.number
        other.is_run = self.is_run
        other.key = self.key
        other.lo = self.lo
        other.placed = list(self.placed)
        other.run_pos = self.run_pos
        other.suits = self.suits
        return other
