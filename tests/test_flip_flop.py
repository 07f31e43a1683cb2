"""Game Flip Flop: the rules F1–F14, one test (at least) per rule, on stacked deals."""

from __future__ import annotations

from typing import Any

import pytest

from referee.cards import (
    STANDARD_CARDS,
    Card,
    SplitMix64,
    parse_card,
    parse_cards,
    shuffled_deck,
)
from referee.engine import IllegalActionError, OptionsError
from referee.games import get_game, new_match
from referee.games.flip_flop import FlipFlop, hand_value

SEED = 3


def deck_for(hands: list[str], stock_top: str = "") -> list[Card]:
    """A deck, top first, dealing ``hands`` (dealer's left first, the dealer last; the
    dealer's fifth card is the flip card, F4), then ``stock_top``, then the rest."""
    parsed = [parse_cards(h) for h in hands]
    assert all(len(h) == 5 for h in parsed)
    deck = [parsed[j][i] for i in range(5) for j in range(len(parsed))]
    deck += parse_cards(stock_top)
    named = set(deck)
    assert len(named) == len(deck), "a card is named twice"
    return deck + [c for c in STANDARD_CARDS if c not in named]


def deal(
    hands: list[str], stock_top: str = "", later: tuple[list[Card], ...] = (), **options: Any
) -> tuple[FlipFlop, list[int]]:
    """A match whose first round deals ``hands`` (and later rounds the decks ``later``);
    returns it and the seats in deal order."""
    decks = [deck_for(hands, stock_top), *later]
    state = new_match("flip-flop", SEED, seats=len(hands), decks=decks, options=options)
    assert isinstance(state, FlipFlop)
    return state, list(state.order)


def legal(state: FlipFlop) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def play(state: FlipFlop, *texts: str) -> None:
    """Apply actions by text; a draw or drop takes along the reveal that is due (F6)."""
    for text in texts:
        if text in ("draw stock", "draw discard", "drop") and text not in legal(state):
            (text,) = [t for t in legal(state) if t.startswith("reveal ") and t.endswith(text)]
        state.apply_checked(text)


def draw(state: FlipFlop, where: str = "stock") -> None:
    """Draw (with the reveal that is due, if any)."""
    first(state, f"draw {where}")


def first(state: FlipFlop, wanted: str) -> None:
    """Play ``wanted`` (draw stock, draw discard or drop), with the reveal due if any."""
    (text,) = [t for t in legal(state) if t == wanted or t.endswith(", " + wanted)]
    play(state, text)


def total(state: FlipFlop) -> int:
    return sum(state.stakes.bankroll) + sum(state.stakes.pots)


# Three quiet hands (no spreads, no 49/50), dealer last with the flip card QH.
QUIET = ["2C 4S 6S 8C TS", "3C 5S 7S 9C JS", "2S 4C 6C 8S QH"]


# -- F1 ------------------------------------------------------------------------------------


def test_f1_card_values_ace_one_faces_ten() -> None:
    values = {
        text: hand_value(1 << parse_card(text))
        for text in ("AS", "2S", "9S", "TS", "JS", "QS", "KS")
    }
    assert values == {"AS": 1, "2S": 2, "9S": 9, "TS": 10, "JS": 10, "QS": 10, "KS": 10}
    assert len(STANDARD_CARDS) == 52 and get_game("flip-flop").deck(None, 3) == list(STANDARD_CARDS)


def test_f1_ace_is_low_only() -> None:
    state, _ = deal(QUIET)
    assert str(state.parse_action("spread AH 2H 3H")) == "spread AH 2H 3H"
    with pytest.raises(IllegalActionError, match="not a spread"):
        state.parse_action("spread QH KH AH")


# -- F2 ------------------------------------------------------------------------------------


def test_f2_bankrolls_start_equal_and_stakes_are_conserved() -> None:
    state, _ = deal(QUIET)
    assert state.options.starting_stakes == 40
    assert total(state) == 3 * 40
    other, _ = deal(QUIET, starting_stakes=7)
    assert total(other) == 21
    with pytest.raises(OptionsError):
        get_game("flip-flop").options({"starting_stakes": 0})
    with pytest.raises(OptionsError):
        get_game("flip-flop").options({"stakes": 3})


# -- F3 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bankroll", "pays", "aside", "eligible"),
    [
        (40, (1, 1, 1), 1, ("game", "flip", "flop")),
        (4, (1, 1, 1), 1, ("game", "flip", "flop")),
        (3, (1, 1, 0), 1, ("game", "flip")),
        (2, (1, 0, 0), 1, ("game",)),
        (1, (1, 0, 0), 0, ("game",)),
    ],
)
def test_f3_eligibility_table_row_by_row(
    bankroll: int, pays: tuple[int, int, int], aside: int, eligible: tuple[str, ...]
) -> None:
    state, order = deal(QUIET, starting_stakes=bankroll)
    view = state.view(order[0])
    assert view.pots == tuple(3 * p for p in pays)
    for p in view.players:
        assert p.bankroll == bankroll - sum(pays)
        assert p.set_aside == aside
        assert p.eligible == eligible
        assert p.in_round


def test_f3_unwon_pots_carry_over_and_antes_add() -> None:
    # Nobody holds a diamond: the flop pot (flip card QH: flop suit diamonds) carries.
    hands = ["2C 4S 6S 8C TS", "3C 5S 7S 9C JS", "2S 4C 6C 8S QH"]
    state, order = deal(hands)
    draw(state)
    play(state, "discard 8C")
    draw(state)
    play(state, "discard 9C")
    draw(state)
    # F6: paid after the dealer's first turn; the flop pot had no claimant.
    last = state.stock[state.stock_pos - 1]
    play(state, f"discard {last}")
    assert state.stakes.pots[2] == 3
    assert state.stakes.bankroll[order[2]] == 37 + 3  # the flip card QH itself won the flip
    play(state, "drop")  # a drop ends the round; round 2 antes add to the flop pot
    assert state.round_no == 2
    assert state.stakes.pots[2] == 6


# -- F4 ------------------------------------------------------------------------------------


def test_f4_deal_five_each_from_dealers_left_flip_card_face_up() -> None:
    state, order = deal(QUIET)
    dealer = SplitMix64(SEED).below(3)
    assert state.dealer == dealer and order == [(dealer + 1) % 3, (dealer + 2) % 3, dealer]
    for seat, hand in zip(order, QUIET, strict=True):
        assert sorted(state.view(seat).hand) == sorted(parse_cards(hand))
    view = state.view(order[0])
    assert view.flip_card == parse_card("QH")
    assert view.players[dealer].face_up == (parse_card("QH"),)
    assert view.stock_size == 52 - 15 and view.discard_pile == ()
    assert all(p.hand_size == 5 for p in view.players)
    assert state.to_act() == order[0]


def test_f4_deal_passes_left_and_later_rounds_shuffle_from_seed() -> None:
    state, order = deal(QUIET)
    play(state, "drop")
    assert state.dealer == order[0]
    rng = SplitMix64(SEED)
    rng.below(len(order))  # the first dealer (F4); then one shuffle per round
    assert state.stock == shuffled_deck(rng)


# -- F5 ------------------------------------------------------------------------------------

FIFTY = "TC JC QC KC TD"
FORTY_NINE = "TH JH QH KH 9S"


def test_f5_holders_are_asked_from_dealers_left_and_may_decline() -> None:
    hands = ["2C 4D 6S 8C 3D", FORTY_NINE, FIFTY]
    state, order = deal(hands)
    assert state.to_act() == order[1] and legal(state) == ["declare 49", "pass"]
    play(state, "pass")
    assert state.to_act() == order[2] and legal(state) == ["declare 50", "pass"]
    play(state, "pass")
    assert state.to_act() == order[0] and legal(state)[-1].endswith("drop")


def test_f5_fifty_collects_set_asides_and_splits_game_pot() -> None:
    hands = ["2C 4D 6S 8C 3D", FORTY_NINE, FIFTY]
    state, order = deal(hands)
    play(state, "declare 49", "declare 50")
    summary = state.last_round()
    assert summary is not None and summary.ending == "declared 50"
    assert summary.game_winners == (order[2],)
    assert set(summary.set_asides_paid) == {order[0], order[1]}
    # the game pot: three antes and the two set-aside stakes
    assert summary.game_share == 5
    assert total(state) == 120
    assert state.round_no == 2


def test_f5_forty_nines_split_and_nobody_pays() -> None:
    hands = ["TS JS QS KS 9C", FORTY_NINE, "2C 4D 6S 8C 3D"]
    state, order = deal(hands)
    play(state, "declare 49", "declare 49")
    summary = state.last_round()
    assert summary is not None and summary.ending == "declared 49"
    assert summary.game_winners == (order[0], order[1])
    assert summary.set_asides_paid == ()
    assert summary.game_share == 1  # 3 stakes between two: the remainder stays (F12)
    assert state.stakes.pots[0] == 1 + 3  # the remainder plus round 2's antes


# -- F6 ------------------------------------------------------------------------------------


def test_f6_seed_example_flip_qh_best_flip_ah_best_flop_ad() -> None:
    hands = ["AD 4S 6S 8C TS", "AH 5S 7S 9C JS", "2S 4C 6C 8S QH"]
    state, order = deal(hands)
    view = state.view(order[0])
    assert view.flip_suit == "H" and view.flop_suit == "D"
    assert legal(state) == ["reveal AD, draw stock", "reveal AD, drop"]
    play(state, "reveal AD, draw stock", "discard 8C")
    assert legal(state)[0] == "reveal AH, draw stock"
    play(state, "reveal AH, draw stock", "discard 9C")
    reveals = [(r.seat, r.pot, str(r.card)) for r in state.view(order[0]).reveals]
    assert reveals == [(order[0], "flop", "AD"), (order[1], "flip", "AH")]
    assert state.view(order[2]).players[order[1]].face_up == (parse_card("AH"),)
    assert state.stakes.bankroll == [37, 37, 37]  # nothing is paid before the dealer's turn
    draw(state)
    play(state, "discard 8S")
    assert state.stakes.bankroll[order[0]] == 37 + 3 and state.stakes.bankroll[order[1]] == 37 + 3
    assert state.stakes.pots[1:] == [0, 0]


def test_f6_only_a_card_that_beats_the_best_shown_is_revealed() -> None:
    hands = ["5H 4S 6S 8C TS", "3H 5S 7S 9C JS", "2S 4C 6C 8S 4H"]
    state, _ = deal(hands)
    # 5H does not beat the flip card 4H, which counts for the dealer; 3H does.
    assert legal(state) == ["draw stock", "drop"]
    play(state, "draw stock", "discard 8C")
    assert legal(state)[0] == "reveal 3H, draw stock"


def test_f6_ineligible_players_cannot_win_and_unclaimed_pot_carries() -> None:
    # starting stakes 2: everyone pays the game pot only; flip and flop stay empty.
    hands = ["AH 4S 6S 8C TS", "AD 5S 7S 9C JS", "2S 4C 6C 8S QH"]
    state, _ = deal(hands, starting_stakes=2)
    assert legal(state) == ["draw stock", "drop"]  # nothing to reveal: not eligible


def test_f6_pots_paid_at_round_end_if_sooner_from_opening_hands() -> None:
    hands = ["2C 4S 6S 8C TS", "AH 5S 7S 9C JS", "2S 4C 6C 8S QH"]
    state, order = deal(hands)
    play(state, "drop")  # the round ends before the second player's first turn
    summary = state.last_round()
    assert summary is not None
    assert summary.flip_winner == order[1] and summary.flip_card == parse_card("AH")
    assert summary.flop_winner is None and state.stakes.pots[2] == 3 + 3
    assert {h.seat for h in summary.shown} == set(order)


# -- F7 ------------------------------------------------------------------------------------


def test_f7_first_player_draws_from_stock_and_taken_card_not_discarded() -> None:
    state, order = deal(QUIET, stock_top="KS")
    assert "draw discard" not in legal(state)
    play(state, "draw stock", "discard KS")
    assert legal(state) == ["draw stock", "draw discard", "drop"]
    play(state, "draw discard")
    assert "discard KS" not in legal(state)
    assert state.view(order[1]).taken_from_discard == parse_card("KS")
    assert state.view(order[0]).players[order[1]].face_up == (parse_card("KS"),)


def test_f7_going_out_wins_the_game_pot() -> None:
    hands = ["2C 3C 4C 8D 8H", "3D 5D 7S 9C JD", "2S 4S 6C TD QH"]
    state, order = deal(hands, stock_top="8S")
    play(state, "draw stock", "spread 2C 3C 4C", "spread 8D 8H 8S")
    summary = state.last_round()
    assert summary is not None and summary.ending == "went out"
    assert summary.game_winners == (order[0],) and summary.game_share == 3
    assert summary.set_asides_paid == ()


def test_f7_lay_off_on_another_players_spread() -> None:
    hands = ["2C 3C 4C 8D 9H", "5C 5D 7S 9C JD", "2S 4S 6C TD QH"]
    state, order = deal(hands, stock_top="KD KH")
    play(state, "draw stock", "spread 2C 3C 4C", "discard KD")
    play(state, "draw stock")
    assert "lay off 5C on 1" in legal(state)
    play(state, "lay off 5C on 1")
    spreads = state.view(order[2]).spreads
    assert [(s.number, s.owner, [str(c) for c in s.cards]) for s in spreads] == [
        (1, order[0], ["2C", "3C", "4C", "5C"])
    ]


def turn_states(state: FlipFlop) -> list[FlipFlop]:
    """Every state the seat to act can reach this turn by spreads and lay-offs alone."""
    seat, round_no = state.to_act(), state.round_no
    found = [state]
    for action in state.legal_actions():
        if str(action).startswith(("spread", "lay off")):
            child = state.clone()
            child.apply(action)
            if child.to_act() == seat and child.round_no == round_no:
                found += turn_states(child)
    return found


def test_f7_discard_taken_card_not_allowed_same_turn() -> None:
    # Ruling: not even as the last card in hand, so nobody goes out by discarding it.
    hands = ["2C 3C 4C 8D 9H", "5S 6S 7S 8S 9S", "2S 4S 6C TD QH"]
    state, order = deal(hands, stock_top="KD")
    play(state, "draw stock", "discard KD", "draw discard")
    reachable = turn_states(state)
    assert len(reachable) > 1
    for reached in reachable:
        assert "discard KD" not in legal(reached)
        assert reached.hands[order[1]] != 1 << parse_card("KD")
        assert reached.view(order[1]).legal_actions == tuple(legal(reached))
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_checked("discard KD")


def test_f7_spread_leaving_only_taken_card_not_allowed() -> None:
    hands = ["2C 3C 4C 8D 9H", "5S 6S 7S 8S 9S", "2S 4S 6C TD QH"]
    state, _ = deal(hands, stock_top="KD")
    play(state, "draw stock", "discard KD", "draw discard")
    spreads = {t for t in legal(state) if t.startswith("spread")}
    assert spreads == {
        "spread 5S 6S 7S",
        "spread 6S 7S 8S",
        "spread 7S 8S 9S",
        "spread 5S 6S 7S 8S",
        "spread 6S 7S 8S 9S",
    }  # not 5S-9S: it would leave KD alone
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_checked("spread 5S 6S 7S 8S 9S")
    play(state, "spread 5S 6S 7S 8S")
    assert legal(state) == ["discard 9S"]  # not 'lay off 9S on 1', leaving KD alone


def test_f7_lay_off_leaving_only_taken_card_not_allowed() -> None:
    # F7.5 has no exception for a taken card that could then be laid off itself: the
    # player lays it off first instead.
    hands = ["3D 4D 5D 8C 9H", "5S 6S 7S 8S 6D", "2S 4S 6C TD QH"]
    state, order = deal(hands, stock_top="7D")
    play(state, "draw stock", "spread 3D 4D 5D", "discard 7D", "draw discard")
    before = state.clone()
    play(state, "spread 5S 6S 7S 8S")
    assert legal(state) == ["discard 6D"]  # 'lay off 6D on 1' would leave 7D alone
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_checked("lay off 6D on 1")
    play(before, "lay off 6D on 1", "lay off 7D on 1", "spread 5S 6S 7S 8S")
    summary = before.last_round()
    assert summary is not None and summary.ending == "went out"
    assert summary.game_winners == (order[1],)


def test_f7_f10_tunk_out_with_the_taken_card() -> None:
    # Tunking out lays the taken card down in a spread and needs no discard: allowed.
    hands = ["2C 3C 4C 8D 9H", "7C 7D 7H 4S 5S", "2S 8S 6C TD QH"]
    state, order = deal(hands, stock_top="6S")
    play(state, "draw stock", "discard 6S", "draw discard")
    assert legal(state)[0] == "tunk out"
    play(state, "tunk out")
    summary = state.last_round()
    assert summary is not None and summary.ending == "tunk out"
    assert summary.game_winners == (order[1],)


# -- F8 ------------------------------------------------------------------------------------


def test_f8_spreads_are_sets_and_runs_offered_from_the_hand() -> None:
    hands = ["7C 7D 7H 8H 9H", "3D 5D 7S 9C JD", "2S 4S 6C TD QH"]
    state, _ = deal(hands, stock_top="KS")
    play(state, "draw stock")
    spreads = [t for t in legal(state) if t.startswith("spread")]
    assert spreads == ["spread 7C 7D 7H", "spread 7H 8H 9H"]
    with pytest.raises(IllegalActionError):
        state.parse_action("spread 7C 8C")


def test_f8_lay_offs_extend_runs_at_both_ends_and_complete_sets() -> None:
    hands = ["7C 7D 7H 2S 9S", "7S 3D 5D 9C JD", "4S 6S 6C TD QH"]
    state, _ = deal(hands, stock_top="KS QC 8C")
    play(state, "draw stock", "spread 7C 7D 7H", "discard KS", "draw stock")
    assert [t for t in legal(state) if t.startswith("lay off")] == ["lay off 7S on 1"]
    play(state, "lay off 7S on 1", "discard QC", "draw stock")
    assert not [t for t in legal(state) if t.startswith("lay off")]  # four of a kind
    state, _ = deal(["3H 4H 5H 9C 9D", "2H 6H 7S 8C JD", "2S 4S 6C TD QH"], "KS 7C")
    play(state, "draw stock", "spread 3H 4H 5H", "discard KS")
    play(state, "draw stock")
    assert [t for t in legal(state) if t.startswith("lay off")] == [
        "lay off 2H on 1",
        "lay off 6H on 1",
    ]


# -- F9 ------------------------------------------------------------------------------------


def test_f9_drop_strictly_lowest_wins() -> None:
    hands = ["AC 2D 3S AD 2S", "3C 5D 7S 9C JD", "4S 6S 6C TD QH"]
    state, order = deal(hands)
    play(state, "drop")
    summary = state.last_round()
    assert summary is not None and summary.ending == "drop"
    assert summary.game_winners == (order[0],) and summary.set_asides_paid == ()
    assert [h.value for h in summary.shown] == [9, 34, 36]


def test_f9_drop_not_lowest_pays_set_aside_and_others_split() -> None:
    hands = ["AC 2D 3S 8D 5S", "AH 2H 3C 9C 4D", "AS 3D 2C 4C 9H"]
    state, order = deal(hands)
    play(state, "drop")  # 19 against 19 and 19: the dropper loses
    summary = state.last_round()
    assert summary is not None
    assert summary.game_winners == (order[1], order[2])
    assert summary.set_asides_paid == (order[0],)
    assert summary.game_share == 2  # (3 + 1) // 2
    assert state.stakes.bankroll[order[0]] == 36


# -- F10 -----------------------------------------------------------------------------------


def test_f10_tunk_out_wins_pot_and_every_set_aside() -> None:
    hands = ["7C 7D 7H 4S 5S", "3D 5D 7S 9C JD", "2S 8S 6C TD QH"]
    state, order = deal(hands, stock_top="6S")
    play(state, "draw stock")
    assert legal(state)[0] == "tunk out"
    play(state, "tunk out")
    summary = state.last_round()
    assert summary is not None and summary.ending == "tunk out"
    assert summary.game_winners == (order[0],) and summary.game_share == 3 + 2
    assert set(summary.set_asides_paid) == {order[1], order[2]}
    assert [len(s.cards) for s in summary.spreads] == [3, 3]


def test_f10_no_tunk_out_after_laying_down() -> None:
    hands = ["7C 7D 7H 4S 5S", "3D 5D 7S 9C JD", "2S 8S 6C TD QH"]
    state, _ = deal(hands, stock_top="KS")
    play(state, "draw stock")
    assert "tunk out" not in legal(state)


# -- F11 -----------------------------------------------------------------------------------


def test_f11_empty_stock_ends_round_after_that_turn_lowest_wins() -> None:
    state, _ = deal(QUIET)
    turns = 0
    while state.round_no == 1:
        draw(state)
        drawn = state.stock[state.stock_pos - 1]
        play(state, f"discard {drawn}")
        turns += 1
    assert turns == 52 - 15
    summary = state.last_round()
    assert summary is not None and summary.ending == "empty stock"
    values = {h.seat: h.value for h in summary.shown}
    low = min(values.values())
    assert set(summary.game_winners) == {s for s, v in values.items() if v == low}


def test_f11_turn_cap_ends_round_the_same_way() -> None:
    state, _ = deal(QUIET, max_turns=4)
    for _ in range(5):
        draw(state)
        play(state, f"discard {state.stock[state.stock_pos - 1]}")
    summary = state.last_round()
    assert summary is not None and summary.ending == "turn cap"
    assert len(summary.shown) == 3


# -- F12 -----------------------------------------------------------------------------------


def test_f12_split_remainder_stays_in_pot() -> None:
    # Two players tie on 19 at the turn cap: a game pot of 3 splits 1 each, 1 stays.
    hands = ["AC 2D 3S 8D 5S", "AH 2H 3C 9C 4D", "2S 3D 2C 4C 9H"]
    state, order = deal(hands, stock_top="KC KD", max_turns=1)
    play(state, "draw stock", "discard KC", "draw stock", "discard KD")
    summary = state.last_round()
    assert summary is not None and summary.ending == "turn cap"
    assert summary.game_winners == (order[0], order[1]) and summary.game_share == 1
    assert state.stakes.pots[0] == 1 + 3  # the remainder, plus round 2's antes
    assert total(state) == 120


# -- F13 -----------------------------------------------------------------------------------


def test_f13_all_in_player_who_wins_nothing_is_out() -> None:
    hands = ["AC 2D 3S AD 2S", "3C 5D 7S 9C JD", "4S 6S 6C TD QH"]
    state, order = deal(hands, starting_stakes=1)
    play(state, "drop")
    assert state.stakes.eliminated_in[order[1]] == 1 and state.stakes.eliminated_in[order[2]] == 1
    assert state.is_over()  # one player has stakes left (F14)


def test_f13_eliminated_players_are_not_dealt() -> None:
    hands = ["AC 2D 3S AD 2S", "3C 5D 7S 9C JD", "4S 6S 6C TD QH", "5C 7C 9S JH KH"]
    # round 2: dealt from order[1] on (the deal passes left); order[1] drops low
    second = deck_for(["AC 2C 3C AD 2D", "5S 7S 9S JS KS", "4H 6H 8H TH QH", "5D 7D 9D JD KD"])
    state, order = deal(hands, later=(second,), starting_stakes=2)
    play(state, "drop")  # order[0] wins; the others keep 1 stake and go all in
    view = state.view(order[0]).players
    assert [view[s].eligible for s in order[1:]] == [("game",)] * 3
    assert [(view[s].bankroll, view[s].set_aside) for s in order[1:]] == [(0, 0)] * 3
    assert state.to_act() == order[1]
    play(state, "drop")
    assert [state.stakes.eliminated_in[s] for s in order] == [None, None, 2, 2]
    assert not state.is_over() and sorted(state.order) == sorted(order[:2])
    view = state.view(order[0]).players
    assert [(view[s].in_round, view[s].hand_size) for s in order[2:]] == [(False, 0)] * 2


# -- F14 -----------------------------------------------------------------------------------


def test_f14_match_ends_after_max_rounds_ranked_by_bankroll() -> None:
    state, _ = deal(QUIET, max_rounds=1)
    play(state, "drop")
    result = state.result()
    assert result is not None and result.detail["rounds"] == 1
    assert result.scores == tuple(state.stakes.bankroll)
    best = max(state.stakes.bankroll)
    assert [r == 0 for r in result.ranks] == [b == best for b in state.stakes.bankroll]


def test_f14_one_player_with_stakes_ends_the_match_eliminated_rank_by_round() -> None:
    hands = ["AC 2D 3S AD 2S", "3C 5D 7S 9C JD", "4S 6S 6C TD QH", "5C 7C 9S JH KH"]
    second = deck_for(["AC 2C 3C AD 2D", "5S 7S 9S JS KS", "4H 6H 8H TH QH", "5D 7D 9D JD KD"])
    state, order = deal(hands, later=(second,), starting_stakes=2)
    play(state, "drop", "drop")  # rounds 1 and 2: order[2], order[3] out in round 2
    assert not state.is_over()
    while not state.is_over():  # play on with drops until one player has stakes
        options = [t for t in legal(state) if t.endswith("drop") or t == "pass"]
        play(state, options[0])
    result = state.result()
    assert result is not None
    survivor = next(s for s in range(4) if state.stakes.bankroll[s] > 0)
    later = next(s for s in order[:2] if s != survivor)
    assert result.ranks[survivor] == 0 and result.ranks[later] == 1
    assert result.ranks[order[2]] == result.ranks[order[3]] == 2  # same round: one place
    assert state.stakes.eliminated_in[later] is not None and state.stakes.eliminated_in[later] > 2
    assert result.detail["rounds"] == state.round_no


def test_c7_every_action_text_round_trips() -> None:
    for text in (
        "declare 49",
        "declare 50",
        "pass",
        "drop",
        "draw stock",
        "draw discard",
        "tunk out",
        "spread 7C 7D 7H",
        "spread 3H 4H 5H 6H",
        "lay off 6H on 2",
        "discard QS",
        "reveal AH 2D, draw stock",
        "reveal AH, drop",
    ):
        state, _ = deal(QUIET)
        assert str(state.parse_action(text)) == text
    for bad in ("lay off 6H on x", "reveal AH", "declare 48", "spread 7C 7D", "fly"):
        with pytest.raises(IllegalActionError):
            state.parse_action(bad)
