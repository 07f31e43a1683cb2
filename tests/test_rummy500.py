"""Rummy 500 rules R1–R10 (docs/rules/rummy-500.md), one or more tests per rule.

Most tests start from a hand in play named as a chosen deal (:func:`position`,
``referee.scenario``): the hands, the discard pile, the melds on the table and who
made them, whose turn it is; then they check the legal actions and what applying
them does. A chosen position must be one play can reach, and a hand shrinks only by
melding (R3, R4), so a small hand comes with melds its player made before: full sets
of four, which take no lay-off and so change nothing else the test looks at. Other
tests play from a chosen new hand (R3) through legal actions only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from referee import scenario
from referee.cards import JOKER, SplitMix64, make_deck, parse_card
from referee.engine import IllegalActionError, OptionsError
from referee.games.rummy500 import CALL, DRAW, SPEC, Rummy500

SEED = 3


def new(seats: int = 2, **options: object) -> Rummy500:
    state = SPEC.new_match(SEED, seats=seats, options=options)
    assert isinstance(state, Rummy500)
    return state


def position(
    seats: int = 3,
    hands: dict[int, str | int] | None = None,
    *,
    melds: Sequence[tuple[int, str]] = (),
    pile: str = "",
    turn: int = 0,
    phase: str = "draw",
    options: dict[str, object] | None = None,
    **spec: object,
) -> Rummy500:
    """A hand in play: ``hands`` by seat (cards, or a count dealt from the seed; the
    seats left out hold as many as they were dealt), ``melds`` on the table as (seat,
    cards) in the order they were made, the discard pile ``pile`` (bottom first),
    ``turn`` to play in ``phase``; the other cards are the stock."""
    named = hands or {}
    state = scenario.deal(
        "rummy-500",
        {
            "dealer": (turn - 1) % seats,
            "hands": [named.get(seat, []) for seat in range(seats)],
            "melds": [{"seat": seat, "cards": cards} for seat, cards in melds],
            "discard_pile": pile,
            "turn": turn,
            "phase": phase,
            **spec,
        },
        options=options,
        seats=seats,
        seed=SEED,
    )
    assert isinstance(state, Rummy500)
    return state


def new_hand(seats: int, hands: list[str], upcard: str, stock: str, **options: object) -> Rummy500:
    """A chosen new hand (R3): seat ``seats - 1`` deals, so ``hands`` go to seats 0, 1…
    and seat 0 plays first; ``upcard`` turned up and ``stock`` on top of the stock."""
    spec = {"dealer": seats - 1, "hands": hands, "upcard": upcard, "stock": stock}
    state = scenario.deal("rummy-500", spec, options=options, seats=seats, seed=1)
    assert isinstance(state, Rummy500)
    return state


def melded(s: Rummy500) -> tuple[int, ...]:
    """The points each seat melded this hand, as the views show them (R8)."""
    hand = s.view(0).hand
    assert hand is not None
    return hand.melded_points


def legal(s: Rummy500) -> set[str]:
    return {str(a) for a in s.legal_actions()}


def act(s: Rummy500, *texts: str) -> None:
    for text in texts:
        s.apply_checked(text)


# -- R1 cards ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "jokers", "size"),
    [(2, False, 52), (4, False, 52), (4, True, 54), (5, False, 104), (8, True, 108)],
)
def test_r1_one_deck_up_to_four_players_two_decks_from_five(
    seats: int, jokers: bool, size: int
) -> None:
    deck = SPEC.deck(SPEC.options({"jokers": jokers}), seats)
    assert len(deck) == size
    assert deck.count(JOKER) == (size - 52 * (2 if seats >= 5 else 1))
    state = new(seats, jokers=jokers)
    held = sum(state.size) + len(state.pile) + len(state.stock) - state.stock_pos
    assert held == size


def test_r1_stacked_deck_must_hold_the_games_cards() -> None:
    with pytest.raises(ValueError, match="stacked deck"):
        SPEC.new_match(1, seats=5, decks=[make_deck(1)])


# -- R2 values -----------------------------------------------------------------------------


def test_r2_ace_low_in_a_run_is_worth_one_high_fifteen() -> None:
    s = position(hands={0: "AS 2S 3S QH KH AH 9C"}, melds=[(0, "8C 8D 8H 8S")], phase="play")
    before = melded(s)[0]
    act(s, "meld AS 2S 3S")
    assert melded(s)[0] - before == 1 + 2 + 3
    act(s, "meld QH KH AH")
    assert melded(s)[0] - before == 6 + 10 + 10 + 15


def left_when_the_hand_ends(s: Rummy500) -> tuple[int, ...]:
    """The points left in each hand (R8) once the player to draw, with the stock
    empty, declines (R7)."""
    act(s, "decline")
    assert s.last_outcome is not None
    return s.last_outcome.left_points


def test_r2_values_left_in_hand() -> None:
    # seats 1 and 2 hold the other cards: the stock is empty
    s = position(hands={0: "AS 2S TD JC QH KH 9C", 1: 22, 2: 23})
    assert left_when_the_hand_ends(s)[0] == 15 + 2 + 10 + 10 + 10 + 10 + 9
    s = position(
        hands={0: "JK", 1: 22, 2: 23},
        melds=[(0, "QC QD QH QS"), (0, "KC KD KH KS")],
        options={"jokers": True},
    )
    assert left_when_the_hand_ends(s)[0] == 15


def test_r2_low_ace_laid_off_worth_one() -> None:
    s = position(
        hands={0: "AC 9S 9D"},
        melds=[(1, "2C 3C 4C"), (0, "QC QD QH QS"), (0, "KC KD KH KS")],
        phase="play",
    )
    before = melded(s)[0]
    act(s, "lay off AC on 1")
    assert melded(s)[0] - before == 1


# -- R3 deal -------------------------------------------------------------------------------


def test_r3_deal_one_at_a_time_from_the_dealers_left() -> None:
    for seats, size in ((2, 13), (3, 7), (4, 7), (8, 7)):
        deck = list(SPEC.deck(SPEC.options(), seats))
        SplitMix64(99).shuffle(deck)
        s = SPEC.new_match(7, seats=seats, decks=[deck])
        assert isinstance(s, Rummy500)
        dealer = SplitMix64(7).below(seats)
        assert s.dealer == dealer
        for k in range(seats):
            seat = (dealer + 1 + k) % seats
            dealt = sorted(deck[k : seats * size : seats])
            assert sorted(s.hand_cards(seat)) == dealt
        assert s.pile == [deck[seats * size]]
        assert s.to_act() == (dealer + 1) % seats
        assert s.view(0).hand is not None
        assert s.view(0).hand.stock_size == len(deck) - seats * size - 1


def test_r3_deal_passes_left_each_hand() -> None:
    # seat 1 dealt; the stock is empty, so seat 2 may decline and end the hand
    s = position(hands={0: 15, 1: 15, 2: 22}, turn=2, options={"max_hands": 5})
    assert s.dealer == 1
    act(s, "decline")
    assert s.dealer == 2 and s.number == 2


# -- R4 the turn ---------------------------------------------------------------------------

#: Melds seat 0 made before: four full sets, which take no lay-off (R5).
QUEENS, JACKS, TENS, KINGS = "QC QD QH QS", "JC JD JH JS", "TC TD TH TS", "KC KD KH KS"


def test_r4_deep_draw_offered_only_when_meldable() -> None:
    s = position(hands={0: "5H 6H 9C 2D KS"}, melds=[(0, QUEENS)], pile="7H 3C 8D")
    moves = legal(s)
    assert "draw discard 3 7H" in moves  # 5H 6H 7H
    assert "draw discard 2 3C" not in moves  # 3C melds with nothing, even with 8D
    assert {"draw stock", "draw discard"} <= moves
    assert "decline" not in moves


def test_r4_deep_card_melds_with_cards_taken_above_it() -> None:
    s = position(hands={0: "9C 2D KS"}, melds=[(0, QUEENS)], pile="5S 4S 6S")
    assert "draw discard 3 5S" in legal(s)  # 4S 5S 6S from the pile alone
    assert "draw discard 2 4S" not in legal(s)


def test_r4_deep_drawn_card_must_be_melded_before_the_turn_ends() -> None:
    s = position(hands={0: "5H 6H 9C 2D KS"}, melds=[(0, QUEENS)], pile="7H 3C 8D")
    act(s, "draw discard 3 7H")
    moves = legal(s)
    assert not any(m.startswith("discard") for m in moves)
    assert "meld 5H 6H 7H" in moves
    assert s.view(0).hand is not None and s.view(0).hand.must_meld == parse_card("7H")
    act(s, "meld 5H 6H 7H")
    moves = legal(s)
    assert {"discard 3C", "discard 8D", "discard 9C"} <= moves  # drew several: any may go


def test_r4_only_moves_that_keep_the_deep_card_meldable() -> None:
    s = position(hands={0: "8H 8C 8D 2S"}, melds=[(1, "5H 6H 7H"), (0, QUEENS)], pile="9H 2C")
    assert "draw discard 2 9H" in legal(s)  # 8H then 9H on the run
    act(s, "draw discard 2 9H")
    moves = legal(s)
    assert "lay off 8H on 1" in moves
    assert "lay off 9H on 1" not in moves
    assert "meld 8C 8D 8H" not in moves  # would leave 9H unmeldable
    assert not any(m.startswith("discard") for m in moves)
    act(s, "lay off 8H on 1", "lay off 9H on 1")
    assert "meld 8C 8D 8H" not in legal(s)  # 8H is gone now
    assert "discard 2C" in legal(s)


def test_r4_deep_draw_through_a_chain_of_lay_offs_and_a_joker() -> None:
    jokers = {"jokers": True}
    table = [(1, "5H 6H 7H"), (0, QUEENS), (0, KINGS)]
    s = position(hands={0: "8H JK 2S"}, melds=table, pile="TH 2C", options=jokers)
    assert "draw discard 2 TH" in legal(s)  # 8H, JK=9H, then TH
    act(s, "draw discard 2 TH")
    assert legal(s) == {"lay off 8H on 1", "meld 8H JK=9H TH"}  # JK=8H would strand TH
    s = position(hands={0: "8H 2S"}, melds=table, pile="TH 2C", options=jokers)
    assert "draw discard 2 TH" not in legal(s)  # no 9H, no joker


def assert_every_move_leaves_an_action(s: Rummy500) -> None:
    """After each legal action, the seat to act (if any) has a legal action."""
    for action in s.legal_actions():
        after = s.clone()
        after.apply(action)
        seat = after.to_act()
        assert seat is None or after.legal_actions(), f"{action}: seat {seat} has no action"


def owed_joker_from_a_chosen_deal(seats: int, hands: list[str], *moves: str) -> Rummy500:
    """Jokers, ``hands`` dealt to seats 0, 1…: seat 0 draws 9H from the stock, plays
    ``moves`` and discards 9H; seat 1 takes 9H and the upcard JK beneath it (R4.1: the
    joker is owed)."""
    s = new_hand(seats, hands, "JK", "9H", jokers=True)
    act(s, "draw stock", *moves, "discard 9H")
    while s.phase == CALL:
        act(s, "no rummy")
    act(s, "draw discard 2 JK")
    assert s.view(1).hand.must_meld == JOKER  # type: ignore[union-attr]
    return s


def test_r4_1_r5_no_meld_fills_the_only_set_an_owed_joker_could_join() -> None:
    # QC QD QH QS 4C 7C KS 9H JK: after meld QC QD QH QS the set is full (R5)
    # and no two cards left make a meld with the joker
    hands = ["2D 5D 8D JD 3H 6H TH", "QC QD QH QS 4C 7C KS", "2S 5S 8S JS 3C 9C 6D"]
    s = owed_joker_from_a_chosen_deal(3, hands)
    moves = legal(s)
    assert "meld QC QD QH QS" not in moves
    assert {"meld QC QD QH", "meld QC QD QH JK=QS", "meld JK=JS QS KS"} <= moves
    assert not any(m.startswith("discard") for m in moves)
    assert_every_move_leaves_an_action(s)


def test_r4_1_r5_no_lay_off_fills_the_only_set_an_owed_joker_could_join() -> None:
    hands = ["QC QD QH 3S 6S 8D TD", "QS 4C 7C KS 2D 5D AH"]
    s = owed_joker_from_a_chosen_deal(3, hands, "meld QC QD QH")
    moves = legal(s)
    assert "lay off QS on 1" not in moves
    assert {"lay off JK=QS on 1", "meld JK=JS QS KS"} <= moves
    assert_every_move_leaves_an_action(s)


def test_r4_1_r5_two_packs_no_meld_fills_the_set_an_owed_joker_could_join() -> None:
    # two packs hold two QC, but a set has no repeated suit: four cards at most (R5)
    s = owed_joker_from_a_chosen_deal(5, ["2D 5D 8D JD 3H 6H TH", "QC QD QH QS 4C 7C KS"])
    moves = legal(s)
    assert "meld QC QD QH QS" not in moves
    assert "meld QC QD QH" in moves
    assert_every_move_leaves_an_action(s)


def test_r4_card_drawn_alone_from_the_pile_may_not_be_discarded() -> None:
    s = position(hands={0: "5H 6H 9C 2D KS"}, melds=[(0, QUEENS)], pile="7H 3C")
    act(s, "draw discard")
    assert "discard 3C" not in legal(s)
    assert {"discard 9C", "discard 5H"} <= legal(s)
    assert s.view(0).hand is not None and s.view(0).hand.may_not_discard == parse_card("3C")


def test_r4_lone_drawn_card_is_never_left_stranded() -> None:
    # melding 2S 3S 4S would leave only 9D, drawn alone from the pile: neither
    # discardable nor meldable, so that meld is not offered
    s = position(hands={0: "2S 3S 4S"}, melds=[(0, QUEENS)], pile="9D")
    act(s, "draw discard")
    assert legal(s) == {"discard 2S", "discard 3S", "discard 4S"}


def test_r4_lay_off_on_any_players_meld_scores_for_the_player() -> None:
    s = position(
        hands={0: "8H 9C 2D"},
        melds=[(1, "5H 6H 7H"), (0, QUEENS), (0, KINGS)],
        phase="play",
    )
    before = melded(s)
    act(s, "lay off 8H on 1")
    meld = s.view(1).hand.melds[0]  # type: ignore[union-attr]
    assert [p.seat for p in meld.cards] == [1, 1, 1, 0]
    assert melded(s) == (before[0] + 8, before[1], before[2])


# -- R5 melds ------------------------------------------------------------------------------


def test_r5_sets_never_hold_two_cards_of_one_suit() -> None:
    s = position(5, {0: "7H 7H 7C KS"}, melds=[(0, QUEENS)], phase="play")
    assert not any(m.startswith("meld") for m in legal(s))
    with pytest.raises(IllegalActionError, match="twice"):
        s.parse_action("meld 7C 7H 7H")
    s = position(5, {0: "7H 7H 7C 7D KS"}, melds=[(0, QUEENS)], phase="play")
    assert "meld 7C 7D 7H" in legal(s)


def test_r5_runs_ace_low_or_high_never_round_the_corner() -> None:
    s = position(hands={0: "QS KS AS 2S 3S"}, melds=[(0, "9C 9D 9H 9S")], phase="play")
    melds = {m for m in legal(s) if m.startswith("meld")}
    assert melds == {"meld AS 2S 3S", "meld QS KS AS"}
    with pytest.raises(IllegalActionError, match="not a set or a run"):
        s.parse_action("meld KS AS 2S")


def test_r5_two_decks_runs_never_hold_a_card_twice() -> None:
    with pytest.raises(IllegalActionError):
        SPEC.new_match(1, seats=5).parse_action("meld 5H 6H 6H 7H")


def test_r5_joker_stands_for_a_declared_card_for_the_rest_of_the_hand() -> None:
    s = position(hands={0: "5H 6H JK 7H 8H 2C 9S KD"}, phase="play", options={"jokers": True})
    assert "meld 5H 6H JK=7H" in legal(s)
    assert "meld JK=4H 5H 6H" in legal(s)
    act(s, "meld 5H 6H JK=7H")
    view = s.view(1).hand
    assert view is not None
    assert [(str(p.card), str(p.stands_for)) for p in view.melds[0].cards][-1] == ("JK", "7H")
    assert "lay off 8H on 1" in legal(s)
    assert "lay off 7H on 1" not in legal(s)  # the joker is the 7H for good
    assert melded(s)[0] == 5 + 6 + 15


def test_r5_meld_needs_a_natural_card() -> None:
    jokers = {"jokers": True}
    s = position(5, {0: "JK JK JK 2C"}, melds=[(0, QUEENS)], phase="play", options=jokers)
    assert all("2C" in m for m in legal(s) if m.startswith("meld"))
    with pytest.raises(IllegalActionError, match="natural"):
        s.parse_action("meld JK=5H JK=6H JK=7H")


def test_r5_set_joker_designation_blocks_that_suit() -> None:
    s = position(hands={0: "9C 9D JK 9H 2C 5S KD 7C"}, phase="play", options={"jokers": True})
    act(s, "meld 9C 9D JK=9S")
    assert "lay off 9H on 1" in legal(s)
    assert s.table[0].accept == 1 << parse_card("9H")


# -- R6 calling rummy ----------------------------------------------------------------------


def _four_with_run() -> Rummy500:
    # seat 3 made the run; seat 2 holds nothing else that melds with 8H
    return position(
        4,
        {0: "8H 2C 3D KS", 2: "5C QD 2S 4S 9C TD KD"},
        melds=[(3, "5H 6H 7H"), (0, JACKS)],
        pile="2H",
        phase="play",
    )


def test_r6_no_call_when_nothing_can_be_melded() -> None:
    s = _four_with_run()
    act(s, "discard 2C")
    assert s.phase == DRAW and s.to_act() == 1  # next player draws, nobody asked


def test_r6_eligible_players_asked_in_order_first_caller_wins() -> None:
    s = _four_with_run()
    act(s, "discard 8H")
    assert s.to_act() == 1 and legal(s) == {"rummy 1 8H", "no rummy"}
    act(s, "no rummy")
    assert s.to_act() == 2
    act(s, "rummy 1 8H")
    assert s.to_act() == 2
    assert legal(s) == {"lay off 8H on 1"}  # must meld the called card at once
    act(s, "lay off 8H on 1")
    act(s, "discard 5C")
    assert s.to_act() == 3 and s.phase == DRAW  # play goes on left of the caller


def test_r6_all_decline_then_the_next_player_draws() -> None:
    s = _four_with_run()
    act(s, "discard 8H", "no rummy", "no rummy", "no rummy")
    assert s.to_act() == 1 and s.phase == DRAW
    assert "draw discard" in legal(s)


def test_r6_call_on_a_card_melding_with_the_cards_above_it() -> None:
    spent = [(0, JACKS), (0, TENS)]
    s = position(hands={0: "9D 2C KS"}, melds=spent, pile="5C 6C", phase="play")
    act(s, "discard 9D")
    assert s.phase == DRAW  # 5C 6C 9D: no meld
    # seat 1 holds nothing else that melds with 5C 6C 7C
    hands: dict[int, str | int] = {0: "7C 2C KS", 1: "4D 9S 9H 2H 3S KD QH"}
    s = position(hands=hands, melds=spent, pile="5C 6C", phase="play")
    act(s, "discard 7C")
    assert legal(s) == {"rummy 3 5C", "no rummy"}
    act(s, "rummy 3 5C")
    assert legal(s) == {"meld 5C 6C 7C"}


def test_r6_no_call_after_the_hand_ends() -> None:
    s = position(
        4, {0: "8H"}, melds=[(3, "5H 6H 7H"), (0, JACKS), (0, KINGS)], pile="2H", phase="play"
    )
    act(s, "lay off 8H on 1")
    assert s.number == 2  # went out: the next hand is dealt, no calls


# -- R7 end of a hand ----------------------------------------------------------------------


def test_r7_hand_ends_when_a_player_melds_every_card() -> None:
    s = position(hands={0: "5H 6H 7H"}, melds=[(0, QUEENS), (0, JACKS)], phase="play")
    act(s, "meld 5H 6H 7H")
    assert s.hands_played == 1
    assert s.last_outcome is not None and s.last_outcome.went_out == 0


def test_r7_hand_ends_when_the_last_card_is_discarded() -> None:
    s = position(hands={0: "5H 6H 7H 9C"}, melds=[(0, QUEENS)], phase="play")
    act(s, "meld 5H 6H 7H", "discard 9C")
    assert s.last_outcome is not None and s.last_outcome.went_out == 0


def test_r7_decline_offered_only_when_the_stock_is_empty() -> None:
    spent = [(0, QUEENS), (0, JACKS)]
    s = position(hands={0: "5H 9C"}, melds=spent, pile="2S")
    assert "decline" not in legal(s)
    # the same, the other cards in seats 1 and 2: the stock is empty
    s = position(hands={0: "5H 9C", 1: 20, 2: 21}, melds=spent, pile="2S")
    assert legal(s) == {"draw discard", "decline"}
    act(s, "decline")
    assert s.last_outcome is not None and s.last_outcome.reason.startswith("stock empty")


def test_r7_turn_cap_ends_the_hand() -> None:
    s = new(2, max_turns=4)
    rng = random.Random(1)
    while s.hands_played == 0:
        s.apply(rng.choice(s.legal_actions()))
    assert s.last_outcome is not None
    assert s.last_outcome.reason in ("turn cap", "went out")


# -- R8 scoring ----------------------------------------------------------------------------


def test_r8_melded_minus_cards_left_added_to_the_running_score() -> None:
    # seat 0 melded the queens before; seat 2 holds the cards no one names, so the
    # stock is empty and seat 1 may decline when seat 0 has discarded
    s = position(
        hands={0: "5H 6H 7H KC AD", 1: "4D 2S 3C 9H TD 8S 5C", 2: 36},
        melds=[(0, QUEENS)],
        phase="play",
        scores=[10, -5, 0],
        hands_played=1,
    )
    act(s, "meld 5H 6H 7H", "discard KC", "decline")
    assert s.last_outcome is not None
    hand_scores = s.last_outcome.hand_scores
    assert hand_scores[:2] == (40 + 18 - 15, 0 - (4 + 2 + 3 + 9 + 10 + 8 + 5))
    assert s.scores == [10 + 43, -5 - 41, hand_scores[2]]  # may be negative


# -- R9 winning ----------------------------------------------------------------------------


def hand_ends(scores: list[int], left: tuple[str, str], **options: object) -> Rummy500:
    """Hand 2 ends as seat 0, with the stock empty, declines: seats 0 and 1 hold
    ``left``, seat 2 every other card (so it scores lowest), and none has melded, so
    each scores minus what it holds (R8) on top of ``scores``."""
    s = position(
        hands={0: left[0], 1: left[1], 2: 38}, scores=scores, hands_played=1, options=options
    )
    act(s, "decline")
    return s


def test_r9_highest_score_at_or_over_target_wins() -> None:
    # 530 each after hand 1 was a tie (R9); hand 2 leaves seat 0 with 29, seat 1 with 17
    s = hand_ends([530, 530, 100], ("3S 4C 4D 4H 4S 5C 5D", "2C 2D 2H 2S 3C 3D 3H"))
    assert s.is_over()
    assert s.scores[:2] == [501, 513]
    result = s.result()
    assert result is not None and result.ranks == (1, 0, 2)
    assert result.detail["winner"] == 1 and result.detail["hands"] == 2


def test_r9_tie_for_highest_deals_another_hand() -> None:
    # 23 left in each hand: 507 each
    s = hand_ends([530, 530, 100], ("2C 2D 3C 3D 4C 4D 5C", "2H 2S 3H 3S 4H 4S 5H"))
    assert s.scores[:2] == [507, 507]
    assert not s.is_over() and s.number == 3


def test_r9_max_hands_ends_the_match_ranked_by_score() -> None:
    s = hand_ends([43, 43, 40], ("2C 2D 3C 3D 4C 4D 5C", "2H 2S 3H 3S 4H 4S 5H"), max_hands=2)
    assert s.scores[:2] == [20, 20]
    result = s.result()
    assert result is not None and result.ranks == (0, 0, 2)
    assert result.detail["winner"] is None


# -- R10 options ---------------------------------------------------------------------------


def test_r10_jokers_option_adds_two_per_deck() -> None:
    assert SPEC.deck(SPEC.options({"jokers": True}), 4).count(JOKER) == 2
    assert SPEC.deck(SPEC.options({"jokers": True}), 6).count(JOKER) == 4
    assert SPEC.deck(SPEC.options(), 6).count(JOKER) == 0


def test_r10_scoring_5_10_15() -> None:
    scoring = {"scoring": "5-10-15"}
    hand = "AS 2S 3S 9C TD KH"
    s = position(hands={0: hand, 1: 21, 2: 21}, melds=[(0, QUEENS)], options=scoring)
    assert left_when_the_hand_ends(s)[0] == 15 + 5 + 5 + 5 + 10 + 10
    s = position(hands={0: hand}, melds=[(0, QUEENS)], phase="play", options=scoring)
    before = melded(s)[0]
    act(s, "meld AS 2S 3S")
    assert melded(s)[0] - before == 1 + 5 + 5  # the low ace stays 1 (ruling)
    with pytest.raises(OptionsError):
        SPEC.options({"scoring": "5-10-20"})


def test_r10_floating_player_melding_all_cards_floats() -> None:
    s = position(
        2,
        {0: "5H 6H 7H", 1: "4D KC 9S AC 3C 4C 6C 8C 9C AD 2D 3D 5D"},
        melds=[(0, TENS), (0, JACKS), (0, QUEENS)],
        pile="2C",
        phase="play",
        options={"floating": True},
    )
    act(s, "meld 5H 6H 7H")
    assert s.hands_played == 0 and s.size[0] == 0
    assert s.view(1).hand is not None and s.view(1).hand.floating == (True, False)
    assert s.to_act() == 1
    act(s, "draw stock", "discard 9S")
    # the floating player: the top card 9S cannot be laid off, so only the stock
    assert "draw discard" not in legal(s)
    act(s, "draw stock")
    card = s.hand_cards(0)[0]
    if str(card) in ("4H", "8H"):
        assert f"lay off {card} on 4" in legal(s)
    act(s, f"discard {card}")  # going out needs a discard
    assert s.hands_played == 1 and s.last_outcome is not None
    assert s.last_outcome.went_out == 0


def test_r10_unplayable_final_discard() -> None:
    unplayable = {"unplayable_final_discard": True}
    table = [(1, "5H 6H 7H"), (0, QUEENS), (0, KINGS)]
    s = position(hands={0: "8H 4H"}, melds=table, phase="play", options=unplayable)
    act(s, "discard 4H")
    assert s.to_act() == 1
    s = position(hands={0: "8H"}, melds=table, phase="play", options=unplayable)
    assert legal(s) == {"lay off 8H on 1"}  # 8H plays: it may not be the last discard
    s = position(hands={0: "8H"}, melds=table, phase="play")
    assert legal(s) == {"lay off 8H on 1", "discard 8H"}


# -- actions and views ---------------------------------------------------------------------


def test_action_texts_round_trip_and_errors_name_the_problem() -> None:
    s = new(5, jokers=True)
    for text in (
        "draw stock",
        "draw discard",
        "draw discard 3 KH",
        "meld JK=AS 2S 3S",
        "meld 7C JK=7D 7S",
        "lay off JK=8H on 3",
        "lay off 8H on 1",
        "discard JK",
        "decline",
        "rummy 2 5C",
        "no rummy",
    ):
        assert str(s.parse_action(text)) == text
    assert str(s.parse_action("meld 7h 5h 6h")) == "meld 5H 6H 7H"
    assert str(s.parse_action("meld KS AS QS")) == "meld QS KS AS"
    assert str(s.parse_action("LAY  Off jk=8h ON 02")) == "lay off JK=8H on 2"
    for bad in (
        "draw discard 1 KH",
        "lay off 8H 2",
        "layoff 8H on 1",  # one text form, as in Flip Flop: "lay off"
        "lay off 8H on 0",  # melds are numbered from 1
        "lay off 8H on 37",  # 108 cards make at most 36 melds
        "meld JK 5H 6H",
        "rummy KH",
        "fly",
    ):
        with pytest.raises(IllegalActionError):
            s.parse_action(bad)


def test_lay_offs_name_melds_by_their_number_in_the_view() -> None:
    """Meld N of ``lay off C on N`` is the Nth meld the view lists, numbered from 1."""
    s = position(
        hands={0: "8H 9S 2D"},
        melds=[(1, "5H 6H 7H"), (1, "9C 9D 9H"), (0, QUEENS), (0, KINGS)],
        phase="play",
    )
    assert {"lay off 8H on 1", "lay off 9S on 2"} <= legal(s)
    act(s, "lay off 9S on 2")
    melds = s.view(0).hand.melds  # type: ignore[union-attr]
    assert [m.number for m in melds] == [1, 2, 3, 4]
    assert [str(p.card) for p in melds[1].cards] == ["9C", "9D", "9H", "9S"]
