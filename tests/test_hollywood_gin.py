"""Hollywood Gin: the hand rules G1–G10 and the match rules H1–H5."""

from __future__ import annotations

from typing import Any

import pytest

from referee.cards import parse_cards
from referee.engine import IllegalActionError, OptionsError
from referee.games import new_match
from referee.games.gin_hand import GinHand
from referee.games.hollywood_gin import HollywoodGin, ScoreSheet
from referee.melds import best_arrangement
from tests.gin_deals import gin_deck

# The knocker (non-dealer) holds A-2-3 of spades, three fives, three nines and 7H.
KNOCKER = "AS 2S 3S 7H 5D 5C 5H 9H 9D 9C"


def start(deck: list[Any], **options: Any) -> tuple[HollywoodGin, int, int]:
    """A match dealt from ``deck``; returns it with the non-dealer and dealer seats."""
    state = new_match("hollywood-gin", 11, decks=[deck], options=options)
    assert isinstance(state, HollywoodGin)
    dealer = state.hand.dealer
    return state, 1 - dealer, dealer


def play(state: HollywoodGin, *actions: str) -> None:
    for text in actions:
        state.apply_checked(text)


def legal(state: HollywoodGin) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def test_g1_values_ace_one_faces_ten() -> None:
    assert best_arrangement(parse_cards("AS KD QH JC 7H 2C")).deadwood_value == 1 + 30 + 7 + 2


def test_g2_deal_ten_each_non_dealer_first_upcard_and_31_in_stock() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D")
    state, nd, dl = start(deck)
    nd_view = state.view(nd).hand
    assert nd_view is not None
    assert sorted(nd_view.hand) == sorted(parse_cards(KNOCKER))
    assert nd_view.discard_pile == tuple(parse_cards("2D"))
    assert nd_view.stock_size == 31
    assert nd_view.opponent_hand_size == 10
    dl_view = state.view(dl).hand
    assert dl_view is not None
    assert sorted(dl_view.hand) == sorted(parse_cards("4S 5S 9S JC QC KH 8D 6D 2H 3C"))


def test_g3_non_dealer_then_dealer_may_take_the_upcard_else_stock_only() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D")
    state, nd, dl = start(deck)
    assert state.to_act() == nd and legal(state) == ["draw discard", "pass"]
    play(state, "pass")
    assert state.to_act() == dl and legal(state) == ["draw discard", "pass"]
    play(state, "pass")
    assert state.to_act() == nd and legal(state) == ["draw stock"]


def test_g3_taking_the_upcard_completes_the_turn_then_a_normal_turn() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D")
    state, nd, dl = start(deck)
    play(state, "pass", "draw discard")  # the dealer takes it
    assert state.to_act() == dl
    play(state, "discard KH")
    assert state.to_act() == nd and legal(state) == ["draw stock", "draw discard"]


def test_g4_card_taken_from_discard_pile_may_not_be_discarded_that_turn() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D")
    state, _, _ = start(deck)
    play(state, "draw discard")
    assert "discard 2D" not in legal(state)
    assert "discard 7H" in legal(state)
    with pytest.raises(IllegalActionError, match="discard 2D is not legal"):
        state.apply_checked("discard 2D")


def test_g5_queen_king_ace_is_not_a_run_so_no_knock() -> None:
    deck = gin_deck("QS KS AS 2H 3H 4H 5C 6C 7C 8D", "4S 5S 9S JC QC KH 8H 6D 2D 3C", "9D")
    state, _, _ = start(deck)
    play(state, "draw discard")
    # with Q-K-A as a run, "knock 8D" would leave only 9D (9) as deadwood
    assert not [a for a in legal(state) if a.startswith("knock")]
    hand = parse_cards("QS KS AS 2H 3H 4H 5C 6C 7C 9D")
    assert best_arrangement(hand, ace_high=True).deadwood_value == 9


def test_g6_knock_on_the_first_turn_with_a_choice_of_arrangements() -> None:
    deck = gin_deck("AS 2S 3S 4H 5H 6H 7C 8C 9C KD", "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D")
    state, nd, _ = start(deck)
    play(state, "draw discard")
    knocks = [a for a in legal(state) if a.startswith("knock")]
    assert knocks == ["knock KD"]  # 2D was taken; no other discard gets within 10
    assert "discard KD" in legal(state)  # knocking is never forced
    play(state, "knock KD")
    assert state.to_act() == nd
    assert sorted(legal(state)) == [
        "arrange 7C 8C 9C | 4H 5H 6H",  # A-2-3 of spades shown as deadwood: 8 with 2D
        "arrange 7C 8C 9C | 4H 5H 6H | AS 2S 3S",
    ]
    play(state, "arrange 4H 5H 6H | 7C 8C 9C")  # any meld order parses
    outcome = state.last_outcome
    assert outcome is not None and outcome.knocker_arrangement is not None
    assert outcome.knocker_arrangement.deadwood_value == 8


def test_g6_knock_limit_option() -> None:
    deck = gin_deck("AS 2S 3S 4H 5H 6H 7C 8C 9C KD", "4S 5S 9S JC QC KH 8D 6D 2H 3C", "TD")
    state, _, _ = start(deck, knock_limit=0)
    play(state, "draw discard")
    assert not [a for a in legal(state) if a.startswith("knock")]
    with pytest.raises(OptionsError, match="knock_limit"):
        start(deck, knock_limit=-1)


def test_g7_gin_scores_bonus_plus_defender_deadwood_without_lay_offs() -> None:
    # The dealer's 5S would lay off on the fives, but no lay-off is allowed on gin.
    deck = gin_deck("AS 2S 3S 4S 5H 5D 5C 9H 9D 9C", "KC QD JH 8S 7D 6C 2C 3D 5S TS", "KH", "6H")
    state, nd, _ = start(deck)
    play(state, "pass", "pass", "draw stock", "knock 6H")
    assert "arrange 5C 5D 5H | 9C 9D 9H | AS 2S 3S 4S" in legal(state)
    play(state, "arrange 5C 5D 5H | 9C 9D 9H | AS 2S 3S 4S")
    outcome = state.last_outcome
    assert outcome is not None
    assert (outcome.kind, outcome.winner, outcome.points) == ("gin", nd, 25 + 71)
    assert outcome.defender_arrangement is not None
    assert outcome.defender_arrangement.layoffs == ()


def test_g8_defender_lays_off_on_set_and_run_with_chains() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D", "TD")
    state, nd, _ = start(deck)
    play(state, "pass", "pass", "draw stock", "knock TD")  # a single arrangement: settled
    outcome = state.last_outcome
    assert outcome is not None and outcome.defender_arrangement is not None
    laid = [str(x.card) for x in outcome.defender_arrangement.layoffs]
    assert sorted(laid) == ["4S", "5S", "9S"]  # 5S fits only after 4S
    assert outcome.defender_arrangement.deadwood_value == 49
    assert (outcome.kind, outcome.winner, outcome.points) == ("knock", nd, 49 - 7)


def test_g9_undercut_scores_bonus() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S 6C 7C 8C JD QD KD 2H", "2D", "TD")
    state, _, dl = start(deck)
    play(state, "pass", "pass", "draw stock", "knock TD")
    outcome = state.last_outcome
    assert outcome is not None
    assert (outcome.kind, outcome.winner, outcome.points) == ("undercut", dl, 10 + 7 - 2)


def test_g9_equal_deadwood_is_an_undercut() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S 6C 7C 8C JD QD KD 7D", "2D", "TD")
    state, _, dl = start(deck, undercut_bonus=20)
    play(state, "pass", "pass", "draw stock", "knock TD")
    outcome = state.last_outcome
    assert outcome is not None
    assert (outcome.kind, outcome.winner, outcome.points) == ("undercut", dl, 20)


def discard_what_you_draw(state: HollywoodGin) -> None:
    """Draw from the stock and throw the drawn card back."""
    hand = state.hand
    seat = hand.turn
    before = hand.hands[seat]
    state.apply_checked("draw stock")
    drawn = (hand.hands[seat] & ~before).bit_length() - 1
    state.apply_checked(f"discard {parse_cards_from_id(drawn)}")


def parse_cards_from_id(cid: int) -> str:
    from referee.cards import CARD_BY_ID

    return str(CARD_BY_ID[cid])


def test_g10_hand_is_drawn_when_two_cards_remain_in_the_stock() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D")
    state, _, dl = start(deck)
    first_hand = state.hand
    play(state, "pass", "pass")
    for _ in range(29):
        assert state.hand is first_hand
        discard_what_you_draw(state)
    assert first_hand.outcome is not None and first_hand.outcome.kind == "drawn"
    assert first_hand.stock_size == 2
    assert [c.points for c in state.view(0).columns] == [(0, 0), (0, 0), (0, 0)]
    assert state.hand.dealer == dl  # H1: the same dealer deals again


def test_g10_turn_cap_draws_the_hand() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D")
    state, _, _ = start(deck, max_turns=5)
    first_hand = state.hand
    play(state, "pass", "pass")
    for _ in range(6):
        discard_what_you_draw(state)
    assert first_hand.outcome is not None and first_hand.outcome.kind == "drawn"
    assert first_hand.stock_size == 31 - 6


def test_h1_first_dealer_from_the_seed_then_the_winner_deals() -> None:
    dealers = {new_match("hollywood-gin", seed).view(0).hand.dealer for seed in range(40)}  # type: ignore[union-attr]
    assert dealers == {0, 1}
    assert new_match("hollywood-gin", 3).view(0) == new_match("hollywood-gin", 3).view(0)
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D", "TD")
    state, nd, _ = start(deck)
    play(state, "pass", "pass", "draw stock", "knock TD")
    assert isinstance(state.hand, GinHand) and state.hand.dealer == nd


def test_h2_kth_win_enters_columns_up_to_k() -> None:
    sheet = ScoreSheet(100)
    sheet.enter_win(0, 5)
    sheet.enter_win(0, 6)
    sheet.enter_win(0, 7)
    sheet.enter_win(0, 8)
    assert sheet.totals() == ((26, 0), (21, 0), (15, 0))


def test_h2_ruling_win_with_no_open_column_goes_to_lowest_open() -> None:
    sheet = ScoreSheet(100)
    assert sheet.enter_win(0, 120) == [0]  # seat 0 closes column 1 at once
    sheet.enter_win(1, 30)  # seat 1's first win: column 1 is closed -> column 2
    assert sheet.totals() == ((120, 0), (0, 30), (0, 0))


def test_h3_column_closes_at_target_and_takes_no_more_wins() -> None:
    sheet = ScoreSheet(100)
    sheet.enter_win(1, 60)
    assert sheet.enter_win(1, 45) == [0]
    assert sheet.column_winners == [1, None, None]
    sheet.enter_win(1, 10)
    assert sheet.totals() == ((0, 105), (0, 55), (0, 10))


def test_h4_two_columns_win_the_match() -> None:
    state = new_match("hollywood-gin", 2, options={"target": 20})
    import random

    rng = random.Random(2)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    result = state.result()
    assert result is not None
    winner = result.ranks.index(0)
    assert result.detail["columns_won"][winner] >= 2
    assert result.ranks[1 - winner] == 1


def test_h4_ruling_hand_cap_ranks_by_columns_then_points_else_draw() -> None:
    deck = gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D", "TD")
    state, nd, dl = start(deck, max_hands=1)
    play(state, "pass", "pass", "draw stock", "knock TD")
    result = state.result()
    assert result is not None
    assert result.ranks[nd] == 0 and result.ranks[dl] == 1
    drawn, _, _ = start(gin_deck(KNOCKER, "4S 5S 9S JC QC KH 8D 6D 2H 3C", "2D"), max_hands=1)
    play(drawn, "pass", "pass")
    for _ in range(29):
        discard_what_you_draw(drawn)
    drawn_result = drawn.result()
    assert drawn_result is not None and drawn_result.ranks == (0, 0)


def test_h5_seed_score_sheet_example() -> None:
    """Bob wins by 10; Alexandra by 18; Bob by 30; Bob by 4."""
    alexandra, bob = 0, 1
    sheet = ScoreSheet(100)
    for winner, points in [(bob, 10), (alexandra, 18), (bob, 30), (bob, 4)]:
        sheet.enter_win(winner, points)
    assert [col[alexandra] for col in sheet.columns] == [18, 0, 0]
    assert [col[bob] for col in sheet.columns] == [44, 34, 4]
