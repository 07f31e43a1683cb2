"""Meld search (C3, C4, G1, G5, G8) against an independent brute force."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from referee.cards import STANDARD_CARDS, Card, CardError, parse_cards
from referee.melds import (
    GIN_RANK_VALUES,
    all_arrangements,
    best_arrangement,
    best_layoff,
    is_meld,
)

R500_VALUES = (15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)


def brute_melds(hand: Sequence[Card], ace_high: bool) -> list[frozenset[Card]]:
    """Every meld within ``hand``: every 3 or 4 cards of one rank, and every stretch of
    3 or more consecutive ranks of one suit (the ace also as 14 when ``ace_high``)."""
    out: list[frozenset[Card]] = []
    for rank in range(13):
        same = [c for c in hand if c.rank == rank]
        for size in (3, 4):
            out.extend(frozenset(combo) for combo in itertools.combinations(same, size))
    for suit in range(4):
        by_rank = {c.rank: c for c in hand if c.suit == suit}
        if ace_high and 0 in by_rank:
            by_rank[13] = by_rank[0]
        for low in range(14):
            stretch = []
            for r in range(low, 14):
                if r not in by_rank or (r == 13 and low == 0):
                    break
                stretch.append(by_rank[r])
                if len(stretch) >= 3:
                    out.append(frozenset(stretch))
    return out


def brute_deadwood(hand: Sequence[Card], values: Sequence[int], ace_high: bool = False) -> int:
    """The least deadwood over every set of disjoint melds, searched exhaustively."""
    melds = brute_melds(hand, ace_high)
    total = sum(values[c.rank] for c in hand)
    best = total

    def walk(start: int, used: frozenset[Card], covered: int) -> None:
        nonlocal best
        best = min(best, total - covered)
        for i in range(start, len(melds)):
            if not melds[i] & used:
                walk(i + 1, used | melds[i], covered + sum(values[c.rank] for c in melds[i]))

    walk(0, frozenset(), 0)
    return best


@pytest.mark.parametrize("size", [10, 11])
def test_c4_best_arrangement_matches_brute_force_on_10000_random_hands(size: int) -> None:
    """Exactness: 10,000 random hands of each size, Gin values, ace low (G1, G5)."""
    rng = random.Random(size)
    for _ in range(10_000):
        hand = rng.sample(STANDARD_CARDS, size)
        got = best_arrangement(hand)
        assert got.deadwood_value == brute_deadwood(hand, GIN_RANK_VALUES), hand
        # the arrangement itself is consistent with its value
        used = [c for m in got.melds for c in m.cards]
        assert sorted(used + list(got.deadwood)) == sorted(hand)
        assert all(is_meld(m.cards) for m in got.melds)
        assert got.deadwood_value == sum(GIN_RANK_VALUES[c.rank] for c in got.deadwood)


def test_c3_ace_high_option_matches_brute_force() -> None:
    """Rummy 500's reading of C3: A-2-3 and Q-K-A are runs, K-A-2 never."""
    rng = random.Random(3)
    for _ in range(2_000):
        hand = rng.sample(STANDARD_CARDS, rng.choice([7, 10, 13]))
        got = best_arrangement(hand, ace_high=True, rank_values=R500_VALUES)
        assert got.deadwood_value == brute_deadwood(hand, R500_VALUES, ace_high=True), hand
    assert best_arrangement(parse_cards("QS KS AS"), ace_high=True).deadwood_value == 0
    assert best_arrangement(parse_cards("KS AS 2S"), ace_high=True).deadwood_value == 13


def test_g5_ace_is_low_only_in_gin() -> None:
    assert best_arrangement(parse_cards("AH 2H 3H")).deadwood_value == 0
    assert best_arrangement(parse_cards("QH KH AH")).deadwood_value == 21


def test_c3_set_needs_different_suits_and_at_most_four() -> None:
    assert is_meld(parse_cards("7H 7D 7C")) is not None
    assert is_meld(parse_cards("7H 7D 7C 7S")) is not None
    assert is_meld(parse_cards("7H 7D")) is None
    assert is_meld(parse_cards("7H 8H 9D")) is None


def test_c3_a_card_belongs_to_at_most_one_meld() -> None:
    """7H cannot serve both the set of sevens and the run of hearts."""
    got = best_arrangement(parse_cards("7C 7D 7H 8H 9H"))
    assert got.deadwood_value == 14  # the run 7H 8H 9H, leaving 7C 7D
    assert [str(m) for m in got.melds] == ["7H 8H 9H"]
    # brute force agrees whatever the tie-breaking
    assert got.deadwood_value == brute_deadwood(parse_cards("7C 7D 7H 8H 9H"), GIN_RANK_VALUES)


def test_c4_worked_example_from_docs() -> None:
    got = best_arrangement(parse_cards("AS 2S 3S 4S 4H 4D 5C 6C 7C KD"))
    assert [str(m) for m in got.melds] == ["5C 6C 7C", "4D 4H 4S", "AS 2S 3S"]
    assert [str(c) for c in got.deadwood] == ["KD"]
    assert got.deadwood_value == 10


def test_g6_all_arrangements_lists_each_distinct_choice_within_the_limit() -> None:
    hand = parse_cards("AS 2S 3S 4S 5S 9H 9D 9C 3C 2C")
    found = all_arrangements(hand, limit=10)
    texts = {" | ".join(str(m) for m in a.melds) for a in found}
    # the nines with the five spades, A-4, 2-5 or 3-5 of spades: four choices
    assert texts == {
        "9C 9D 9H | AS 2S 3S 4S 5S",
        "9C 9D 9H | AS 2S 3S 4S",
        "9C 9D 9H | 2S 3S 4S 5S",
        "9C 9D 9H | 3S 4S 5S",
    }
    assert all(a.deadwood_value <= 10 for a in found)
    assert len(texts) == len(found)
    # every arrangement the brute force finds within the limit is listed
    brute = 0
    melds = brute_melds(hand, False)
    for r in range(len(melds) + 1):
        for combo in itertools.combinations(melds, r):
            cards = [c for m in combo for c in m]
            if len(cards) == len(set(cards)):
                dead = sum(GIN_RANK_VALUES[c.rank] for c in hand if c not in cards)
                brute += dead <= 10
    assert brute == len(found)


def test_g8_lay_off_on_a_set_and_extend_a_run() -> None:
    knocker = best_arrangement(parse_cards("7C 7D 7H 4S 5S 6S 2H 3H 4H AD")).melds
    got = best_layoff(parse_cards("7S 3S 8S KC KD QC JH 9D 2C AC"), knocker)
    laid = sorted(str(x.card) for x in got.layoffs)
    assert laid == ["3S", "7S", "8S"]


def test_g8_lay_off_chains_cards_that_only_fit_after_an_earlier_lay_off() -> None:
    knocker = best_arrangement(parse_cards("4S 5S 6S 9C 9D 9H KC KD KH AD")).melds
    got = best_layoff(parse_cards("7S 8S QH JH 2C 3D 5H 6H 8D 4D"), knocker)
    assert [str(x.card) for x in got.layoffs] == ["7S", "8S"]  # 8S fits only after 7S
    assert got.deadwood_value == 10 + 10 + 2 + 3 + 5 + 6 + 8 + 4


def test_g8_defender_prefers_own_meld_when_it_saves_more() -> None:
    """9S could go on the knocker's nines; melding 7S 8S 9S saves more."""
    knocker = best_arrangement(parse_cards("9C 9D 9H 2C 3C 4C KH KD KS AC")).melds
    got = best_layoff(parse_cards("7S 8S 9S 5D 6H 4H 3D 2D JD QD"), knocker)
    assert got.deadwood_value == brute_layoff(
        parse_cards("7S 8S 9S 5D 6H 4H 3D 2D JD QD"), ["9S", "5C", "AC"]
    )


def brute_layoff(defender: list[Card], fits: list[str]) -> int:
    """Deadwood after trying every subset of lay-off-able cards (single-card fits)."""
    best = 10**9
    fitting = [c for c in defender if str(c) in fits]
    for r in range(len(fitting) + 1):
        for laid in itertools.combinations(fitting, r):
            rest = [c for c in defender if c not in laid]
            best = min(best, brute_deadwood(rest, GIN_RANK_VALUES))
    return best


def test_meld_search_refuses_jokers_and_duplicates_with_a_clear_error() -> None:
    with pytest.raises(CardError, match="jokers"):
        best_arrangement(parse_cards("JK AS 2S"))
    with pytest.raises(CardError, match="twice"):
        best_arrangement(parse_cards("AS AS 2S"))
