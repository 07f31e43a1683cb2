"""Game Flip Flop legal-action counts (perft) from fixed deals, at 3 and 5 players.

``perft(state, depth)`` is the number of distinct action sequences of length
``depth`` (shorter when the match ends). Every node's legal list is checked
against an independent, slow generator written from the rules (F5–F10) by
brute force over subsets of the hand, so the counts check the engine twice.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from referee.cards import STANDARD_CARDS, Card, format_cards, parse_cards
from referee.games import new_match
from referee.games.flip_flop import FlipFlop, Phase

VALUES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)


def is_spread(cards: list[Card]) -> bool:
    """C3/F8 by definition: 3-4 of one rank in distinct suits, or 3+ in suit sequence."""
    if len(cards) < 3:
        return False
    if len({c.rank for c in cards}) == 1:
        return len({c.suit for c in cards}) == len(cards) <= 4
    ranks = sorted(c.rank for c in cards)
    same_suit = len({c.suit for c in cards}) == 1
    return same_suit and ranks == list(range(ranks[0], ranks[0] + len(cards)))


def slow_legal(state: FlipFlop) -> list[str]:
    """The legal action texts, worked out from the rules without the engine's tables."""
    seat = state.to_act()
    assert seat is not None
    view = state.view(seat)
    hand = list(view.hand)
    if state.phase is Phase.DECLARE:
        value = sum(VALUES[c.rank] for c in hand)
        assert value in (49, 50)
        return [f"declare {value}", "pass"]
    if state.phase is Phase.DRAW:
        base = ["draw stock"] + (["draw discard"] if view.discard_pile else []) + ["drop"]
        first_turn = view.turns < len(state.order)
        shown = []
        me = view.players[seat]
        flip = view.flip_card
        assert flip is not None
        for pot, suit in (("flip", flip.suit), ("flop", flip.suit ^ 3)):
            if not first_turn or pot not in me.eligible:
                continue
            claims = [r.card for r in view.reveals if r.pot == pot]
            if pot == "flip" and "flip" in view.players[view.dealer].eligible:
                claims.append(flip)
            mine = [c for c in hand if c.suit == suit]
            if mine and (not claims or min(mine) < min(claims)):
                shown.append(min(mine))
        if shown:
            return [f"reveal {format_cards(shown)}, {a}" for a in base]
        return base
    out = []
    if len(hand) == 6:
        for three in combinations(hand, 3):
            rest = [c for c in hand if c not in three]
            if is_spread(list(three)) and is_spread(rest):
                out.append("tunk out")
                break
    taken = view.taken_from_discard

    def leaves_taken_alone(played: list[Card]) -> bool:
        """F7.5 ruling: the taken card may not be left as the only card in hand."""
        return [c for c in hand if c not in played] == [taken]

    spreads = []
    for size in range(3, len(hand) + 1):
        for group in combinations(hand, size):
            if is_spread(list(group)) and not leaves_taken_alone(list(group)):
                spreads.append(sorted(group))
    out += [f"spread {format_cards(g)}" for g in spreads]
    for spread in view.spreads:
        for c in sorted(hand):
            if is_spread([*spread.cards, c]) and not leaves_taken_alone([c]):
                out.append(f"lay off {c} on {spread.number}")
    out += [f"discard {c}" for c in sorted(hand) if c != taken]
    return out


def perft(state: FlipFlop, depth: int, check: bool) -> int:
    if depth == 0 or state.is_over():
        return 1
    actions = state.legal_actions()
    texts = [str(a) for a in actions]
    assert len(set(texts)) == len(texts), texts
    if check:
        slow = slow_legal(state)
        assert sorted(slow) == sorted(texts), (sorted(slow), sorted(texts))
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = state.clone()
        child.apply(action)
        total += perft(child, depth - 1, check)
    return total


def stacked(hands: list[str], stock_top: str) -> list[Card]:
    """Deal order: dealer's left first, the dealer last (F4); then the stock top."""
    parsed = [parse_cards(h) for h in hands]
    deck = [parsed[j][i] for i in range(5) for j in range(len(parsed))]
    deck += parse_cards(stock_top)
    return deck + [c for c in STANDARD_CARDS if c not in set(deck)]


THREE = (["2C 3C 4C 7D 7H", "7S 5H 6H 9C KD", "AS 2S 3S 8C 4H"], "7C 4D 5C AH TS JS QS KS")
FIVE = (
    [
        "2C 3C 4C 7D 7H",
        "7S 5H 6H 9C KD",
        "AS 2S 3S 8C JH",
        "9D TD JD 6S 6C",
        "2H 3H 5D 8S 4H",
    ],
    "7C 4D 5C AH TS JS QS KS",
)


def start(deal: tuple[list[str], str], seed: int) -> FlipFlop:
    hands, top = deal
    state = new_match("flip-flop", seed, seats=len(hands), decks=[stacked(hands, top)])
    assert isinstance(state, FlipFlop)
    return state


# Rounds end fast (a drop ends one), so the deeper counts reach rounds dealt from the
# seed: they change with the shuffle (docs/engine.md) as well as with move generation.
@pytest.mark.parametrize(
    ("deal", "seed", "expected"),
    [
        (THREE, 1, [1, 2, 11, 36, 135, 480, 1937, 6893, 27462]),
        (FIVE, 2, [1, 2, 11, 36, 135, 480, 1939, 6895, 26934]),
    ],
)
def test_perft_counts_from_fixed_deals(
    deal: tuple[list[str], str], seed: int, expected: list[int]
) -> None:
    state = start(deal, seed)
    deepest = len(expected) - 1
    counts = [perft(state, depth, check=False) for depth in range(deepest)]
    counts.append(perft(state, deepest, check=True))  # every node checked on the way
    assert counts == expected


def test_perft_stacked_deal_offers_spreads_lay_offs_and_reveals() -> None:
    state = start(THREE, 1)
    first = [str(a) for a in state.legal_actions()]
    assert first == ["reveal 7D, draw stock", "reveal 7D, drop"]
    state.apply_checked(first[0])  # draws 7C: a set of sevens and a run of clubs
    texts = [str(a) for a in state.legal_actions()]
    assert "spread 2C 3C 4C" in texts and "spread 7C 7D 7H" in texts
    assert "tunk out" in texts
