"""Cards, notation and the seeded shuffle (rules C1, C2, C6)."""

from __future__ import annotations

import math

import pytest

from referee.cards import (
    JOKER,
    STANDARD_CARDS,
    CardError,
    SplitMix64,
    card,
    check_stacked_deck,
    format_cards,
    make_deck,
    parse_card,
    parse_cards,
    shuffled_deck,
)


def test_c1_deck_has_52_cards_in_four_suits_of_thirteen_ranks() -> None:
    assert len(STANDARD_CARDS) == 52 == len(set(STANDARD_CARDS))
    assert {c.suit for c in STANDARD_CARDS} == {0, 1, 2, 3}
    assert {c.rank for c in STANDARD_CARDS} == set(range(13))
    assert [c.is_red for c in parse_cards("AC AD AH AS")] == [False, True, True, False]


def test_c2_parse_and_print_round_trip_every_card() -> None:
    for c in [*STANDARD_CARDS, JOKER]:
        assert parse_card(str(c)) == c
    assert format_cards(parse_cards("td as kh jk")) == "TD AS KH JK"


def test_c2_accepts_lower_case_and_ten() -> None:
    assert parse_cards("10d, 10H as") == parse_cards("TD TH AS")
    assert parse_card("ks") == card(12, 3)


@pytest.mark.parametrize("token", ["1S", "AX", "11H", "", "JJ", "TDD", "K", "A\u017f"])
def test_c2_bad_token_is_named_in_the_error(token: str) -> None:
    with pytest.raises(CardError) as err:
        parse_cards(f"AS {token} 2S" if token else "AS ,  X")
    assert (token or "X") in str(err.value)


def test_decks_of_one_or_two_packs_with_or_without_jokers() -> None:
    assert len(make_deck()) == 52
    assert len(make_deck(2)) == 104
    assert make_deck(1, 2).count(JOKER) == 2
    assert len(make_deck(2, 2)) == 108
    with pytest.raises(CardError):
        make_deck(3)


def test_c6_splitmix64_reference_outputs() -> None:
    """Published SplitMix64 outputs for seed 1234567 (other implementations check against these)."""
    rng = SplitMix64(1234567)
    assert [rng.next_u64() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def test_c6_shuffle_is_fixed_by_the_seed() -> None:
    """The first cards of the deal for seed 42: any reimplementation must match."""
    deck = shuffled_deck(SplitMix64(42))
    assert format_cards(deck[:10]) == format_cards(shuffled_deck(SplitMix64(42))[:10])
    assert format_cards(deck[:10]) == GOLDEN_SEED_42
    assert sorted(deck) == sorted(make_deck())
    assert shuffled_deck(SplitMix64(43)) != deck


def test_c6_shuffle_follows_the_documented_algorithm() -> None:
    """docs/engine.md, written out independently: r from ceil(log2(52!)/64) = 4 outputs,
    little-endian, rejected at or above the largest multiple of 52!; Fisher–Yates with
    the mixed-radix digits of r."""
    for seed in (0, 1, 42, 2**64 - 1):
        rng = SplitMix64(seed)
        fact = math.factorial(52)
        limit = 2**256 - 2**256 % fact
        while True:
            x = sum(rng.next_u64() << (64 * k) for k in range(4))
            if x < limit:
                break
        r = x % fact
        deck = make_deck()
        for i in range(51, 0, -1):
            j = r % (i + 1)
            r //= i + 1
            deck[i], deck[j] = deck[j], deck[i]
        assert shuffled_deck(SplitMix64(seed)) == deck


def test_c6_shuffle_gives_every_order_equally_often() -> None:
    rng = SplitMix64(11)
    counts: dict[str, int] = {}
    for _ in range(60_000):
        deck = parse_cards("AC 2C 3C")
        rng.shuffle(deck)
        key = format_cards(deck)
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6
    assert all(9_400 < c < 10_600 for c in counts.values()), counts


def test_c6_below_takes_as_many_outputs_as_the_range_needs() -> None:
    one, two = SplitMix64(5), SplitMix64(5)
    first = one.next_u64()
    second = one.next_u64()
    assert two.below(2**64) == first
    big = SplitMix64(5).below(2**64 + 1)
    assert big == (first | second << 64) % (2**64 + 1)


def test_c6_below_is_unbiased_over_small_ranges() -> None:
    rng = SplitMix64(7)
    counts = [0] * 6
    for _ in range(60_000):
        counts[rng.below(6)] += 1
    assert all(9_400 < c < 10_600 for c in counts), counts


def test_c6_stacked_deck_must_hold_the_games_cards() -> None:
    deck = make_deck()
    assert check_stacked_deck(list(reversed(deck)), deck)[0] == deck[-1]
    with pytest.raises(CardError, match=r"missing \[AC\], unexpected \[KS\]"):
        check_stacked_deck([*deck[1:], deck[-1]], deck)


GOLDEN_SEED_42 = "9H 4H 6S 7H 5S 6C 3C QD 5H AH"


def test_c6_a_match_seed_out_of_range_is_refused_clearly() -> None:
    from referee.engine import OptionsError
    from referee.games import new_match

    for bad in (-1, 2**64, "7", 1.5):
        with pytest.raises(OptionsError, match=r"a match seed is an integer in 0\.\.2"):
            new_match("hollywood-gin", bad)  # type: ignore[arg-type]


def test_card_tuple_is_cards_of_as_a_tuple() -> None:
    from referee.cards import card_tuple, cards_of

    rng = SplitMix64(3)
    for _ in range(2_000):
        mask = 0
        for _ in range(rng.below(20)):
            mask |= STANDARD_CARDS[rng.below(52)].bit
        assert card_tuple(mask) == tuple(cards_of(mask))
    assert card_tuple(0) == ()


@pytest.mark.parametrize("size", [2, 3, 13, 52, 54, 104, 108])
def test_c6_shuffle_follows_the_documented_algorithm_at_every_deck_size(size: int) -> None:
    """The shuffle is written out per deck size for speed (referee/cards.py); every size
    a game uses (and a few more) must give what the plain algorithm of docs/engine.md
    gives: one below(size!) draw, then a swap per digit in the mixed radix."""
    for seed in (0, 7, 2**64 - 1):
        rng, ref = SplitMix64(seed), SplitMix64(seed)
        items = list(range(size))
        rng.shuffle(items)  # type: ignore[arg-type]
        r = ref.below(math.factorial(size))
        expected = list(range(size))
        for i in range(size - 1, 0, -1):
            r, j = divmod(r, i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        assert items == expected
        assert rng.state == ref.state
