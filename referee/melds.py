"""Melds (rules C3, C4, G5, G8): sets and runs, best arrangements, lay-offs.

Hands are bit masks over card ids (``suit * 16 + rank``, see ``referee.cards``),
so that "which cards can be in any meld at all" is a few shifts and ands, and
the exact search only ever looks at those cards. The exact search is a
memoised recursion: the lowest remaining card is either deadwood or in one of
the melds that contain it.

Public entry points: :func:`best_arrangement`, :func:`all_arrangements`,
:func:`best_layoff`, and :class:`MeldSearch` for games with other options
(ace high, other card values).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from referee.cards import CARD_BY_ID, RANK_BITS, SUIT_MASK, Card, CardError, format_cards, mask_of
from referee.tables import BoundedCache

#: Gin values by rank (G1): ace 1, 2-10 face value, J Q K 10.
GIN_RANK_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)

_ACES = 1 | 1 << 16 | 1 << 32 | 1 << 48
_SUIT_LOW = 0xFFFF
_MEMO_LIMIT = 1 << 18


@dataclass(frozen=True, slots=True)
class Meld:
    """A set or a run (C3); ``cards`` in rank order (a high ace last)."""

    kind: str  # "set" or "run"
    cards: tuple[Card, ...]
    mask: int

    def __str__(self) -> str:
        return format_cards(self.cards)

    def __len__(self) -> int:
        return len(self.cards)


@dataclass(frozen=True, slots=True)
class LayOff:
    """A defender's card laid off on one of the knocker's melds (G8)."""

    card: Card
    meld: Meld

    def __str__(self) -> str:
        return f"{self.card} on {self.meld}"


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Melds, lay-offs and the deadwood left (with its value) of one hand."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    deadwood_value: int
    layoffs: tuple[LayOff, ...] = ()

    def __str__(self) -> str:
        parts = [str(m) for m in self.melds]
        text = " | ".join(parts) if parts else "-"
        if self.deadwood:
            text += f" / deadwood {format_cards(self.deadwood)} = {self.deadwood_value}"
        return text


class MeldSearch:
    """Meld search for one combination of options (ace high or not, card values).

    Instances keep memo tables; get them from :func:`meld_search` so that each
    combination is built once.
    """

    def __init__(self, ace_high: bool = False, rank_values: Sequence[int] = GIN_RANK_VALUES):
        if len(rank_values) != 13:
            raise ValueError("rank_values needs 13 values, ace to king")
        self.ace_high = ace_high
        self.rank_values = tuple(rank_values)
        self.card_value = [0] * 65
        for cid, c in CARD_BY_ID.items():
            if not c.is_joker:
                self.card_value[cid] = self.rank_values[c.rank]
        table = [0] * (1 << 13)
        for m in range(1, 1 << 13):
            low = m & -m
            table[m] = table[m ^ low] + self.rank_values[low.bit_length() - 1]
        self._suit_value = table
        self.melds: list[Meld] = _enumerate_melds(ace_high)
        self.by_card: dict[int, list[Meld]] = {c: [] for c in CARD_BY_ID if c != 64}
        for meld in self.melds:
            for c in meld.cards:
                self.by_card[c].append(meld)
        self._by_card_masks = {c: [m.mask for m in ms] for c, ms in self.by_card.items()}
        self._memo: BoundedCache[int, int] = BoundedCache(self._least_deadwood, _MEMO_LIMIT)

    # -- fast primitives on masks ----------------------------------------------------------

    def value(self, mask: int) -> int:
        """Sum of the card values of a hand mask."""
        t = self._suit_value
        return (
            t[mask & SUIT_MASK]
            + t[(mask >> 16) & SUIT_MASK]
            + t[(mask >> 32) & SUIT_MASK]
            + t[(mask >> 48) & SUIT_MASK]
        )

    def candidates(self, mask: int) -> int:
        """The cards of ``mask`` that belong to at least one meld made of cards of ``mask``."""
        m = mask
        if self.ace_high:
            m |= (mask & _ACES) << 13
        r = m & (m >> 1) & (m >> 2)
        cover = r | (r << 1) | (r << 2)
        if self.ace_high:
            cover = (cover | ((cover >> 13) & _ACES)) & mask
        a = mask & _SUIT_LOW
        b = (mask >> 16) & _SUIT_LOW
        c = (mask >> 32) & _SUIT_LOW
        d = (mask >> 48) & _SUIT_LOW
        s3 = (a & b & (c | d)) | (c & d & (a | b))
        if s3:
            cover |= (s3 | s3 << 16 | s3 << 32 | s3 << 48) & mask
        return cover

    def deadwood_value(self, mask: int) -> int:
        """The least deadwood value any arrangement of the hand ``mask`` leaves."""
        cand = self.candidates(mask)
        if cand == 0:
            return self.value(mask)
        return self.value(mask ^ cand) + self._best(cand)

    def _best(self, mask: int) -> int:
        return self._memo[mask]

    def _least_deadwood(self, mask: int) -> int:
        """The least deadwood of the cards of ``mask`` that all lie in melds (memoised
        in ``_memo``)."""
        if mask == 0:
            return 0
        low = mask & -mask
        cid = low.bit_length() - 1
        best = self.card_value[cid] + self.deadwood_value(mask ^ low)
        for m in self._by_card_masks[cid]:
            if m & mask == m:
                v = self.deadwood_value(mask ^ m)
                if v < best:
                    best = v
                    if v == 0:
                        break
        return best

    # -- arrangements ----------------------------------------------------------------------

    def best_arrangement(self, mask: int) -> Arrangement:
        """An arrangement of the hand ``mask`` with the least deadwood value."""
        melds: list[Meld] = []
        rest = mask
        target = self.deadwood_value(mask)
        dead = 0
        while rest:
            cand = self.candidates(rest)
            dead |= rest ^ cand
            rest = cand
            if not rest:
                break
            low = rest & -rest
            cid = low.bit_length() - 1
            goal = target - self.value(dead)
            if self.card_value[cid] + self.deadwood_value(rest ^ low) == goal:
                dead |= low
                rest ^= low
                continue
            for meld in self.by_card[cid]:
                if meld.mask & rest == meld.mask and self.deadwood_value(rest ^ meld.mask) == goal:
                    melds.append(meld)
                    rest ^= meld.mask
                    break
            else:  # pragma: no cover - the recursion above guarantees a match
                raise AssertionError("meld search lost its way")
        melds.sort(key=lambda m: m.cards[0])
        deadwood = tuple(CARD_BY_ID[c] for c in _ids(dead))
        return Arrangement(tuple(melds), deadwood, self.value(dead))

    def melds_in(self, mask: int) -> list[Meld]:
        """Every meld made only of cards of ``mask``."""
        cand = self.candidates(mask)
        out = []
        seen: set[int] = set()
        for cid in _ids(cand):
            for meld in self.by_card[cid]:
                if meld.mask & cand == meld.mask and meld.mask not in seen:
                    seen.add(meld.mask)
                    out.append(meld)
        return out

    def all_arrangements(self, mask: int, limit: int | None = None) -> list[Arrangement]:
        """Every distinct arrangement (set of disjoint melds) of ``mask`` whose deadwood
        value is at most ``limit`` (all of them when ``limit`` is None)."""
        melds = self.melds_in(mask)
        out: list[Arrangement] = []

        def walk(start: int, used: int, chosen: list[Meld]) -> None:
            dead = mask & ~used
            dv = self.value(dead)
            if limit is None or dv <= limit:
                ordered = tuple(sorted(chosen, key=lambda m: m.cards[0]))
                out.append(Arrangement(ordered, tuple(CARD_BY_ID[c] for c in _ids(dead)), dv))
            for i in range(start, len(melds)):
                m = melds[i]
                if m.mask & used == 0:
                    chosen.append(m)
                    walk(i + 1, used | m.mask, chosen)
                    chosen.pop()

        walk(0, 0, [])
        out.sort(key=lambda a: (a.deadwood_value, [m.cards for m in a.melds]))
        return out

    def layoff_options(self, defender: int, melds: Iterable[Meld]) -> list[list[tuple[int, Meld]]]:
        """Per knocker meld, the ways the defender may lay off on it: a list of
        alternatives, each a list of (card mask, meld) in the order they are laid."""
        groups: list[list[tuple[int, Meld]]] = []
        for meld in melds:
            if meld.kind == "set":
                if len(meld.cards) == 3:
                    rank = meld.cards[0].rank
                    for suit in range(4):
                        bit = 1 << (suit * RANK_BITS + rank)
                        if not meld.mask & bit and defender & bit:
                            groups.append([(bit, meld)])
                continue
            suit = meld.cards[0].suit
            ranks = [c.rank for c in meld.cards]
            top = 13 if (self.ace_high and ranks[-1] == 0) else ranks[-1]
            bottom = ranks[0]
            below: list[tuple[int, Meld]] = []
            r = bottom - 1
            while r >= 0 and defender & (1 << (suit * RANK_BITS + r)):
                below.append((1 << (suit * RANK_BITS + r), meld))
                r -= 1
            above: list[tuple[int, Meld]] = []
            r = top + 1
            limit = 13 if self.ace_high and bottom != 0 else 12
            while r <= limit and defender & (1 << (suit * RANK_BITS + (r % 13))):
                above.append((1 << (suit * RANK_BITS + (r % 13)), meld))
                r += 1
            if below:
                groups.append(below)
            if above:
                groups.append(above)
        return groups

    def best_layoff(self, defender: int, knocker_melds: Sequence[Meld]) -> Arrangement:
        """The defender's arrangement (melds plus lay-offs on the knocker's melds,
        chains included) with the least deadwood value (G8)."""
        groups = self.layoff_options(defender, knocker_melds)
        best: tuple[int, int, int] | None = None  # (deadwood, number laid off, laid mask)
        best_seq: list[tuple[int, Meld]] = []
        choices = [range(len(g) + 1) for g in groups]
        for counts in itertools.product(*choices):
            laid = 0
            seq: list[tuple[int, Meld]] = []
            clash = False
            for g, k in zip(groups, counts, strict=True):
                for bit, meld in g[:k]:
                    if laid & bit:
                        clash = True
                        break
                    laid |= bit
                    seq.append((bit, meld))
                if clash:
                    break
            if clash:
                continue
            key = (self.deadwood_value(defender & ~laid), len(seq), laid)
            if best is None or key < best:
                best, best_seq = key, seq
        assert best is not None
        laid = best[2]
        rest = self.best_arrangement(defender & ~laid)
        layoffs = tuple(LayOff(CARD_BY_ID[bit.bit_length() - 1], meld) for bit, meld in best_seq)
        return Arrangement(rest.melds, rest.deadwood, rest.deadwood_value, layoffs)


def _ids(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _enumerate_melds(ace_high: bool) -> list[Meld]:
    melds: list[Meld] = []
    for suit in range(4):
        ranks_lists: list[list[int]] = []
        for start in range(13):
            for end in range(start + 3, 14):
                ranks_lists.append(list(range(start, end)))
        if ace_high:
            for start in range(1, 12):
                ranks_lists.append([*range(start, 13), 0])
        for ranks in ranks_lists:
            cards = tuple(CARD_BY_ID[suit * RANK_BITS + r] for r in ranks)
            melds.append(Meld("run", cards, mask_of(cards)))
    for rank in range(13):
        for size in (3, 4):
            for suits in itertools.combinations(range(4), size):
                cards = tuple(CARD_BY_ID[s * RANK_BITS + rank] for s in suits)
                melds.append(Meld("set", cards, mask_of(cards)))
    return melds


@cache
def meld_search(
    ace_high: bool = False, rank_values: tuple[int, ...] = GIN_RANK_VALUES
) -> MeldSearch:
    """The shared :class:`MeldSearch` for these options."""
    return MeldSearch(ace_high, rank_values)


def _hand_mask(cards: Iterable[int]) -> int:
    cards = list(cards)
    if any(int(c) == 64 for c in cards):
        raise CardError("meld search takes natural cards only; jokers are handled by the game")
    return mask_of(cards)


def best_arrangement(
    cards: Iterable[int],
    *,
    ace_high: bool = False,
    rank_values: Sequence[int] = GIN_RANK_VALUES,
) -> Arrangement:
    """The arrangement of ``cards`` into melds that minimises deadwood value.

    Gin values and ace low by default (G1, G5); ``ace_high=True`` and other
    ``rank_values`` (13 values, ace to king) serve the other games.
    """
    return meld_search(ace_high, tuple(rank_values)).best_arrangement(_hand_mask(cards))


def all_arrangements(
    cards: Iterable[int],
    limit: int | None = None,
    *,
    ace_high: bool = False,
    rank_values: Sequence[int] = GIN_RANK_VALUES,
) -> list[Arrangement]:
    """Every distinct arrangement of ``cards`` with deadwood value at most ``limit``."""
    search = meld_search(ace_high, tuple(rank_values))
    return search.all_arrangements(_hand_mask(cards), limit)


def best_layoff(
    defender: Iterable[int],
    knocker_melds: Sequence[Meld],
    *,
    ace_high: bool = False,
    rank_values: Sequence[int] = GIN_RANK_VALUES,
) -> Arrangement:
    """The defender's best melds and lay-offs against the knocker's melds (G8)."""
    search = meld_search(ace_high, tuple(rank_values))
    return search.best_layoff(_hand_mask(defender), knocker_melds)


def is_meld(cards: Sequence[int], *, ace_high: bool = False) -> Meld | None:
    """The meld these distinct natural cards form, or None (C3)."""
    if len(cards) < 3:
        return None
    mask = _hand_mask(cards)
    for meld in meld_search(ace_high).by_card[int(cards[0])]:
        if meld.mask == mask:
            return meld
    return None
