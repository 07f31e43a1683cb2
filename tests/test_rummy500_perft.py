"""Rummy 500 legal-action counts (perft, as python-chess counts them) from fixed seeds.

``perft(state, d)`` is the number of distinct action sequences of length ``d``
from the first decision of a deal. The expected numbers below were produced by
this engine and then checked two ways, both run here:

* at every node whose actions are counted, the engine's legal actions are compared with
  :func:`brute_legal`, a slow generator written separately from the engine. It
  reads only the acting seat's view, knows melds only as explicit card lists
  checked by :func:`is_meld` (ranks 1..14, the ace both 1 and 14), finds new
  melds by trying every run window and every set against the hand, lay-offs by
  trying all 52 cards against every table meld, and whether a deep or owed card
  can still be melded by a search over real meld and lay-off moves (at most one
  move before the one that places the card, which is all these deals need;
  longer chains are checked in test_rummy500.py);
* no node lists an action twice, so the counts are the same whether the
  children are counted from the engine's list or from the brute-force set (the
  numbers do not rest on the engine's generator alone).

A changed count means the engine now offers different decisions: find out which
rule moved before updating a number.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from referee.cards import JOKER, STANDARD_CARDS, Card, parse_cards
from referee.engine import GameState
from referee.games.rummy500 import SPEC, HandView

NATURALS = [int(c) for c in STANDARD_CARDS]
JK = int(JOKER)


def _rank14(card: int, high: bool) -> int:
    rank = (card & 15) + 1
    return 14 if rank == 1 and high else rank


def is_meld(cards: list[int]) -> bool:
    """A set (3–4 of one rank, distinct suits) or a run (3+ of one suit, consecutive,
    the ace either 1 or 14 but not both), written out naively."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if all(c & 15 == cards[0] & 15 for c in cards):
        return len(cards) <= 4 and len({c >> 4 for c in cards}) == len(cards)
    if any(c >> 4 != cards[0] >> 4 for c in cards):
        return False
    for high in (False, True):
        ranks = sorted(_rank14(c, high) for c in cards)
        if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
            return True
    return False


def _text(cards: list[int], jokers: set[int]) -> str:
    return " ".join(("JK=" if c in jokers else "") + str(STANDARD_CARDS_BY_ID[c]) for c in cards)


STANDARD_CARDS_BY_ID = {int(c): c for c in STANDARD_CARDS}


def universe() -> list[list[int]]:
    """Every meld of the 52 cards, each card list in the engine's written order."""
    out = []
    for suit in range(4):
        for lo in range(1, 15):
            for hi in range(lo + 2, 15):
                if lo == 1 and hi >= 13:
                    continue  # A..K is written 2..A (ruling), A..A is no run
                cards = [suit * 16 + (r - 1 if r < 14 else 0) for r in range(lo, hi + 1)]
                out.append(cards)
    for rank in range(13):
        for size in (3, 4):
            for suits in itertools.combinations(range(4), size):
                out.append([s * 16 + rank for s in suits])
    return out


UNIVERSE = universe()
MELDS_WITH: dict[int, list[int]] = {c: [] for c in NATURALS}
for _i, _meld in enumerate(UNIVERSE):
    for _c in _meld:
        MELDS_WITH[_c].append(_i)


class Position:
    """What the acting seat sees: its hand as a multiset, the table melds (the
    cards stood for), the discard pile."""

    def __init__(self, hv: HandView) -> None:
        self.hand: Counter[int] = Counter(int(c) for c in hv.hand)
        self.melds: list[list[int]] = [[int(p.stands_for) for p in m.cards] for m in hv.melds]

    def moves(self) -> list[tuple[str, list[int], int, int | None, int]]:
        """(text, natural cards used, jokers used, meld index or None, card placed)."""
        out: list[tuple[str, list[int], int, int | None, int]] = []
        jokers = self.hand[JK]
        touched = sorted({i for c in self.hand if c != JK for i in MELDS_WITH[c]})
        for meld in (UNIVERSE[i] for i in touched):
            held = [c for c in meld if self.hand[c]]
            for k in range(1, len(held) + 1):
                for nat in itertools.combinations(held, k):
                    need = len(meld) - k
                    if need <= jokers:
                        jset = {c for c in meld if c not in nat}
                        out.append(("meld " + _text(meld, jset), list(nat), need, None, -1))
        for i, meld in enumerate(self.melds):
            n = i + 1  # the docs: meld N is the Nth the view lists
            for c in NATURALS:
                if is_meld([*meld, c]):
                    if self.hand[c]:
                        out.append((f"lay off {_text([c], set())} on {n}", [c], 0, i, c))
                    if jokers:
                        out.append((f"lay off JK={_text([c], set())} on {n}", [], 1, i, c))
        return out

    def after(self, move: tuple[str, list[int], int, int | None, int]) -> Position:
        text, nat, jokers, index, card = move
        other = Position.__new__(Position)
        other.hand = Counter(self.hand)
        other.hand.subtract(nat)
        other.hand[JK] -= jokers
        other.hand = +other.hand
        other.melds = [list(m) for m in self.melds]
        if index is None:
            meld = [c for c in UNIVERSE_BY_TEXT[text.split(None, 1)[1].replace("JK=", "")]]
            other.melds.append(meld)
        else:
            other.melds[index].append(card)
        return other

    def key(self) -> tuple[Any, ...]:
        return tuple(sorted(self.hand.items())), tuple(tuple(m) for m in self.melds)

    def can_meld(self, card: int, depth: int = 1) -> bool:
        """Whether ``card`` (in hand) can be melded by some sequence of moves, at
        most ``depth`` of them before the one that places it."""
        memo_key = (self.key(), card, depth)
        found = _MEMO.get(memo_key)
        if found is None:
            moves = self.moves()
            found = any(places(m, card) for m in moves) or (
                depth > 0 and any(self.after(m).can_meld(card, depth - 1) for m in moves)
            )
            _MEMO[memo_key] = found
        return found


_MEMO: dict[tuple[Any, ...], bool] = {}


UNIVERSE_BY_TEXT = {_text(m, set()): m for m in UNIVERSE}


def places(move: tuple[str, list[int], int, int | None, int], card: int) -> bool:
    _, nat, jokers, _, _ = move
    return jokers > 0 if card == JK else card in nat


def brute_legal(state: GameState, options: Any) -> set[str]:
    """The legal actions of the seat to act, from its view alone."""
    seat = state.to_act()
    assert seat is not None
    hv = state.view(seat).hand
    assert hv is not None
    pos = Position(hv)
    pile = [int(c) for c in hv.discard_pile]
    if hv.phase == "call":
        out = {"no rummy"}
        for depth in range(1, len(pile) + 1):
            card = pile[-depth]
            above = Position.__new__(Position)
            above.hand = Counter(pile[len(pile) - depth :])
            above.melds = pos.melds
            if any(places(m, card) for m in above.moves()):
                out.add(f"rummy {depth} {'JK' if card == JK else _text([card], set())}")
        return out
    if hv.phase == "draw":
        out = set()
        if hv.stock_size:
            out.add("draw stock")
        else:
            out.add("decline")
        if pile:
            top = pile[-1]
            lone = Position.__new__(Position)
            lone.hand, lone.melds = Counter([top]), pos.melds
            if sum(pos.hand.values()) or any(places(m, top) for m in lone.moves()):
                out.add("draw discard")
            for depth in range(2, len(pile) + 1):
                card = pile[-depth]
                grown = Position.__new__(Position)
                grown.hand = pos.hand + Counter(pile[len(pile) - depth :])
                grown.melds = pos.melds
                if grown.can_meld(card):
                    out.add(f"draw discard {depth} {'JK' if card == JK else _text([card], set())}")
        return out
    moves = pos.moves()
    owed = None if hv.must_meld is None else int(hv.must_meld)
    if owed is not None:
        if hv.must_meld_now:
            return {m[0] for m in moves if places(m, owed)}
        return {m[0] for m in moves if places(m, owed) or pos.after(m).can_meld(owed)}
    out = set()
    size = sum(pos.hand.values())
    banned = None if hv.may_not_discard is None else int(hv.may_not_discard)
    if banned is not None and pos.hand[banned] >= 2:
        banned = None
    for m in moves:
        lone = banned is not None and size - len(m[1]) - m[2] == 1 and not places(m, banned)
        if lone and banned is not None and not pos.after(m).can_meld(banned, 0):
            continue
        out.add(m[0])
    playable = {m[4] if m[2] == 0 else JK for m in moves if m[3] is not None}
    for card in pos.hand:
        if card == banned:
            continue
        if size == 1 and options.unplayable_final_discard and card in playable:
            continue
        out.add(f"discard {'JK' if card == JK else _text([card], set())}")
    return out


def perft(state: GameState, depth: int, options: Any, seen: set[str]) -> list[int]:
    """Distinct action sequences of length 1..``depth``, comparing the legal actions
    of every node counted from (no duplicates) with the brute-force generator;
    ``seen`` collects the kinds of action met."""
    legal = state.legal_actions()
    texts = [str(a) for a in legal]
    seen.update(kind(t) for t in texts)
    assert len(set(texts)) == len(texts)
    assert set(texts) == brute_legal(state, options), [str(e) for e in state.events[-3:]]
    counts = [len(legal)] + [0] * (depth - 1)
    if depth > 1:
        for action in legal:
            child = state.clone()
            child.apply(action)
            if child.is_over():
                for d in range(1, depth):
                    counts[d] += 1  # an ended match counts as one sequence (none longer)
                continue
            for d, n in enumerate(perft(child, depth - 1, options, seen), 1):
                counts[d] += n
    return counts


def kind(text: str) -> str:
    """The kind of an action text: its verb, with the variants that matter."""
    words = text.split()
    if words[0] == "draw":
        return "draw deep" if len(words) == 4 else text
    verb = " ".join(words[:2]) if words[0] in ("no", "lay") else words[0]
    return verb + " joker" if verb in ("meld", "lay off") and "JK=" in text else verb


def rich_deck(seats: int, jokers: bool, first_hand: str, upcard: str, seed: int) -> list[Card]:
    """A stacked deck dealing ``first_hand`` to the first player (left of the dealer
    that ``seed`` draws), ``upcard`` face up, the other cards in canonical order."""
    deck = SPEC.deck(SPEC.options({"jokers": jokers}), seats)
    mine = parse_cards(first_hand)
    up = parse_cards(upcard)
    rest = list(deck)
    for c in [*mine, *up]:
        rest.remove(c)
    size = 13 if seats == 2 else 7
    out: list[Card] = []
    for _ in range(size):
        out.append(mine.pop(0))
        out.extend(rest.pop(0) for _ in range(seats - 1))
    return [*out, *up, *rest]


CASES = [
    # (seats, jokers, first player's hand, upcard, expected perft for depths 1..N)
    (2, False, "5H 6H 7H 8H 7C 7D 7S 2S 3S AS QS KS 9D", "8D", [2, 48, 372, 3613]),
    (2, True, "5H 6H 7H 8H 7C 7D JK 2S 3S 4S QS KS 9D", "AS", [2, 117, 1651, 11972]),
    (4, False, "5H 6H 7H 7C 7D 9S TS", "8H", [2, 21, 67, 300, 893, 4445]),
    (4, True, "5H 6H JK 7C 7D 9S TS", "8H", [2, 29, 103, 414, 1568, 6058]),
]
SEED = 21


@pytest.mark.parametrize(("seats", "jokers", "hand", "upcard", "expected"), CASES)
def test_perft_counts_from_fixed_deals(
    seats: int, jokers: bool, hand: str, upcard: str, expected: list[int]
) -> None:
    options = {"jokers": jokers}
    deck = rich_deck(seats, jokers, hand, upcard, SEED)
    state = SPEC.new_match(SEED, seats=seats, options=options, decks=[deck])
    seen: set[str] = set()
    assert perft(state, len(expected), SPEC.options(options), seen) == expected
    assert {"draw stock", "draw discard", "draw deep", "meld", "lay off", "discard"} <= seen
    assert ("meld joker" in seen) == jokers
    if seats == 4:
        assert {"rummy", "no rummy"} <= seen
