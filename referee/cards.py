"""Cards, their text notation (rules C1, C2), decks, and the seeded shuffle (C6).

A card is a small int so that hands can be bit masks: ``suit * 16 + rank`` with
rank 0 (ace) .. 12 (king) and suit 0..3 for clubs, diamonds, hearts, spades.
The joker is ``JOKER`` (64). Each value has one interned :class:`Card`
instance, so ``Card`` objects compare, hash and index exactly like ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.tables import suit_tables

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
JOKER_ID = 64
RANK_BITS = 16
SUIT_MASK = 0x1FFF  # the 13 rank bits of one suit


class CardError(ValueError):
    """A card, hand or deck given in text or as values that is not valid."""


class Card(int):
    """One playing card (or the joker); an int ``suit * 16 + rank``, see module doc."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """0 for the ace up to 12 for the king; -1 for the joker."""
        return -1 if self == JOKER_ID else self & 15

    @property
    def suit(self) -> int:
        """0..3 for clubs, diamonds, hearts, spades; -1 for the joker."""
        return -1 if self == JOKER_ID else self >> 4

    @property
    def is_joker(self) -> bool:
        """True for the joker."""
        return self == JOKER_ID

    @property
    def is_red(self) -> bool:
        """Diamonds and hearts are red (C1)."""
        return self.suit in (1, 2)

    @property
    def bit(self) -> int:
        """This card's bit in a hand mask."""
        return 1 << self

    def __str__(self) -> str:
        if self == JOKER_ID:
            return "JK"
        return RANKS[self & 15] + SUITS[self >> 4]

    def __repr__(self) -> str:
        return f"Card({self})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (_card_from_id, (int(self),))


def _card_from_id(value: int) -> Card:
    return CARD_BY_ID[value]


CARD_BY_ID: dict[int, Card] = {}
for _s in range(4):
    for _r in range(13):
        CARD_BY_ID[_s * RANK_BITS + _r] = Card(_s * RANK_BITS + _r)
CARD_BY_ID[JOKER_ID] = Card(JOKER_ID)

#: The 52 cards of one pack in canonical order: clubs A..K, diamonds, hearts, spades.
STANDARD_CARDS: tuple[Card, ...] = tuple(
    CARD_BY_ID[s * RANK_BITS + r] for s in range(4) for r in range(13)
)
JOKER = CARD_BY_ID[JOKER_ID]

_TEXT: dict[str, Card] = {str(c): c for c in CARD_BY_ID.values()}


def card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = ace .. 12 = king) and ``suit`` (0..3 = C D H S)."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardError(f"no card with rank {rank} and suit {suit}: rank is 0..12, suit 0..3")
    return CARD_BY_ID[suit * RANK_BITS + rank]


def parse_card(token: str) -> Card:
    """Parse one card in C2 notation (``TD``, ``10d``, ``as``, ``JK``)."""
    text = token.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    # ASCII only: str.upper turns some other letters into ASCII ones (the long s into S)
    found = _TEXT.get(text) if token.isascii() else None
    if found is None:
        raise CardError(
            f"bad card {token!r}: write rank then suit, rank one of "
            f"A 2-9 T(or 10) J Q K, suit one of C D H S, or JK for a joker"
        )
    return found


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, e.g. ``parse_cards("AS 2S 3S")``."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def format_cards(cards: Iterable[int]) -> str:
    """The canonical text of a sequence of cards, space separated, in the order given."""
    return " ".join(str(CARD_BY_ID[c]) for c in cards)


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of a collection of distinct cards."""
    mask = 0
    for c in cards:
        bit = 1 << c
        if mask & bit:
            raise CardError(f"card {CARD_BY_ID[c]} appears twice; this needs distinct cards")
        mask |= bit
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards of a bit mask, in canonical order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARD_BY_ID[low.bit_length() - 1])
        mask ^= low
    return out


_SUIT_TABLES = suit_tables(CARD_BY_ID)


def card_tuple(mask: int) -> tuple[Card, ...]:
    """The natural cards of a bit mask as a tuple in canonical order (table lookups:
    views call this for every hand at every decision)."""
    t = _SUIT_TABLES
    return (
        t[0][mask & SUIT_MASK]
        + t[1][(mask >> 16) & SUIT_MASK]
        + t[2][(mask >> 32) & SUIT_MASK]
        + t[3][(mask >> 48) & SUIT_MASK]
    )


def make_deck(packs: int = 1, jokers_per_pack: int = 0) -> list[Card]:
    """An unshuffled deck of ``packs`` standard packs, each with ``jokers_per_pack`` jokers."""
    if packs not in (1, 2):
        raise CardError(f"a deck has 1 or 2 packs, not {packs}")
    if not 0 <= jokers_per_pack <= 2:
        raise CardError(f"a pack has 0 to 2 jokers, not {jokers_per_pack}")
    one = list(STANDARD_CARDS) + [JOKER] * jokers_per_pack
    return one * packs


def check_stacked_deck(deck: Sequence[int], expected: Sequence[int]) -> list[Card]:
    """Validate a stacked deck (top card first) against the multiset it must contain."""
    got = sorted(int(c) for c in deck)
    want = sorted(int(c) for c in expected)
    if got != want:
        missing = _multiset_minus(want, got)
        extra = _multiset_minus(got, want)
        raise CardError(
            "stacked deck does not hold the game's cards: "
            f"missing [{format_cards(missing)}], unexpected [{format_cards(extra)}]"
        )
    return [CARD_BY_ID[int(c)] for c in deck]


def _multiset_minus(a: list[int], b: list[int]) -> list[int]:
    rest = list(b)
    out = []
    for x in a:
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return out


# --- Seeded randomness (C6) --------------------------------------------------------------

_MASK64 = (1 << 64) - 1


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea, Flood 2014): 64-bit state, 64-bit outputs.

    Chosen because it is tiny, exactly specified and easy to reimplement in any
    language, so a deal can be reproduced from the seed alone (docs/engine.md).
    """

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= _MASK64:
            raise ValueError(f"seed must be an integer in 0..2**64-1, got {seed}")
        self.state = seed

    def copy(self) -> SplitMix64:
        """A generator that goes on as this one will, independently."""
        other = SplitMix64.__new__(SplitMix64)
        other.state = self.state
        return other

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + _GAMMA) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1``, for any ``n >= 1``: take k outputs, k the
        fewest with ``2**(64k) >= n``, as one little-endian integer x (the first output
        lowest); reject x at or above the largest multiple of ``n`` below ``2**(64k)``
        and draw again; otherwise return ``x mod n``."""
        plan = _BELOW.get(n)
        if plan is None:
            plan = _below_plan(n)
        shifts, limit = plan
        s = self.state
        while True:  # next_u64 written out: this is the shuffle's hot path
            x = 0
            for shift in shifts:
                s = (s + _GAMMA) & _MASK64
                z = ((s ^ (s >> 30)) * _MIX1) & _MASK64
                z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
                x |= (z ^ (z >> 31)) << shift
            if x < limit:
                self.state = s
                return x % n

    def shuffle(self, items: list[Card]) -> None:
        """Fisher–Yates in place: for i from len-1 down to 1, swap item i with item j_i.
        The j_i are the digits of one r = below(len!) in the mixed radix len, len-1, …:
        j_(len-1) = r mod len, then r = r div len, j_(len-2) = r mod (len-1), and so on;
        each j_i is uniform in 0..i and independent of the others. (One big draw and a
        division per card is several times faster in Python than a draw per card; the
        digits are taken a few at a time from word-sized pieces of r, which gives the
        same digits with cheaper arithmetic.)"""
        n = len(items)
        if n < 2:
            return
        r = self.below(_factorial(n))
        for size, group in _radix_groups(n):
            piece, r = r % size, r // size  # the next few digits, from a word-sized piece
            for i, radix in group:
                j, piece = piece % radix, piece // radix
                items[i], items[j] = items[j], items[i]


_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_BELOW: dict[int, tuple[range, int]] = {}


def _below_plan(n: int) -> tuple[range, int]:
    """below(n)'s word shifts and rejection limit, worked out once per n."""
    if n <= 0:
        raise ValueError("below() needs n >= 1")
    words = max(1, ((n - 1).bit_length() + 63) // 64)
    span = 1 << (64 * words)
    plan = (range(0, 64 * words, 64), span - span % n)
    if len(_BELOW) < 1024:
        _BELOW[n] = plan
    return plan


_RADIX_GROUPS: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}


def _radix_groups(n: int) -> list[tuple[int, list[tuple[int, int]]]]:
    """The shuffle's steps (i, radix i+1) from i = n-1 down to 1, in runs whose radix
    product stays below 2**30, each with that product."""
    groups = _RADIX_GROUPS.get(n)
    if groups is None:
        groups = []
        i = n - 1
        while i > 0:
            size, group = 1, []
            while i > 0 and size * (i + 1) < 1 << 30:
                group.append((i, i + 1))
                size *= i + 1
                i -= 1
            groups.append((size, group))
        _RADIX_GROUPS[n] = groups
    return groups


_FACTORIALS = [1]


def _factorial(n: int) -> int:
    while len(_FACTORIALS) <= n:
        _FACTORIALS.append(_FACTORIALS[-1] * len(_FACTORIALS))
    return _FACTORIALS[n]


def shuffled_deck(rng: SplitMix64, packs: int = 1, jokers_per_pack: int = 0) -> list[Card]:
    """A fresh deck shuffled by ``rng``; index 0 is the top card, dealt first."""
    if packs == 1 and not jokers_per_pack:
        deck = list(STANDARD_CARDS)
    else:
        deck = make_deck(packs, jokers_per_pack)
    rng.shuffle(deck)
    return deck
