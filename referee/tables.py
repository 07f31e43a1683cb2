"""Look-up tables the engines share: per-suit tables over hand masks, and the bounded
memo table every engine keeps its lazily made values in.

A hand is a bit mask over card ids (``suit * 16 + rank``, see ``referee.cards``), so
the 13 rank bits of one suit (``hand >> 16 * suit & 0x1FFF``) index a table of 8,192
entries: a question about a whole hand is four look-ups. This module imports nothing
from the rest of the project, so that any module may build its tables here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K")
T = TypeVar("T")

#: The 13 rank bits of one suit in a hand mask, and the distance between suits.
SUIT_RANKS = 0x1FFF
SUIT_SHIFT = 16


def suit_table(suit: int, entry: Mapping[int, T] | Sequence[T]) -> list[tuple[T, ...]]:
    """For each 13-bit rank mask of ``suit``, the entries (``entry[card id]``) of its
    cards, lowest rank first."""
    base = suit * SUIT_SHIFT
    table: list[tuple[T, ...]] = [()] * (SUIT_RANKS + 1)
    for m in range(1, SUIT_RANKS + 1):
        low = m & -m
        table[m] = (entry[base + low.bit_length() - 1], *table[m ^ low])
    return table


def suit_tables(entry: Mapping[int, T] | Sequence[T]) -> list[list[tuple[T, ...]]]:
    """:func:`suit_table` for the four suits: a hand's entries in card order are
    ``t[0][h & 0x1FFF] + t[1][h >> 16 & 0x1FFF] + t[2][…] + t[3][…]``."""
    return [suit_table(suit, entry) for suit in range(4)]


#: The size of a :class:`BoundedCache` unless its user asks for another.
CACHE_LIMIT = 1 << 16


class BoundedCache(dict[K, T]):
    """A memo table: ``cache[key]`` is ``make(key)``, made at the first look-up and
    kept. Once ``limit`` values are kept, the next new one empties the table first, so
    memory stays bounded; the values are pure functions of their keys, so emptying
    changes nothing but time. A hit is one dict look-up (``__missing__`` runs only on
    a miss)."""

    __slots__ = ("limit", "make")

    def __init__(self, make: Callable[[K], T], limit: int = CACHE_LIMIT) -> None:
        super().__init__()
        self.make = make
        self.limit = limit

    def __missing__(self, key: K) -> T:
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.make(key)
        return value
