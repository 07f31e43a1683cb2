"""Rummy 500 rules R1–R10 (docs/rules/rummy-500.md), one or more tests per rule.

Most tests rig a hand in play: they replace hands, the discard pile and the stock
through the engine's own multiset helpers, lay melds on the table through the
engine's meld code, and then check the legal actions and what applying them does.
Others play from a stacked deck (:func:`stacked`) through legal actions only.
"""

from __future__ import annotations

import random

import pytest

from referee.cards import JOKER, Card, SplitMix64, make_deck, parse_card, parse_cards
from referee.engine import IllegalActionError, OptionsError
from referee.games.rummy500 import CALL, SPEC, Rummy500

SEED = 3


def new(seats: int = 2, **options: object) -> Rummy500:
    state = SPEC.new_match(SEED, seats=seats, options=options)
    assert isinstance(state, Rummy500)
    return state


def stacked(seats: int, hands: list[str], upcard: str, stock: str, **options: object) -> list[Card]:
    """A stacked deck (top card first) dealing ``hands`` to the players from the
    dealer's left, one card at a time (players after the last of ``hands`` get the
    next cards of the game's deck), then ``upcard`` face up and ``stock`` on top of
    the stock; the rest of the game's deck follows in its order."""
    dealt = [parse_cards(text) for text in hands]
    top = parse_cards(upcard) + parse_cards(stock)
    rest = list(SPEC.deck(SPEC.options(options), seats))
    for card in [*(c for hand in dealt for c in hand), *top]:
        rest.remove(card)
    out: list[Card] = []
    for i in range(13 if seats == 2 else 7):
        out.extend(dealt[k][i] if k < len(dealt) else rest.pop(0) for k in range(seats))
    return [*out, *top, *rest]


def rig(
    s: Rummy500,
    hands: dict[int, str] | None = None,
    pile: str | None = None,
    stock: str | None = None,
    turn: int | None = None,
) -> Rummy500:
    """Replace hands, the discard pile (bottom first) and the stock (top first)."""
    for seat, text in (hands or {}).items():
        s.m1[seat] = s.m2[seat] = s.jk[seat] = s.size[seat] = 0
        s.known[seat] = {}
        for c in parse_cards(text):
            s._add(seat, c)
    if pile is not None:
        s.pile = parse_cards(pile)
    if stock is not None:
        s.stock = s.stock[: s.stock_pos] + parse_cards(stock)
    if turn is not None:
        s._start_turn(turn)
    s._legal = None
    return s


def put(s: Rummy500, seat: int, meld: str) -> None:
    """Lay ``meld`` (text as in ``meld ...``) on the table as played by ``seat``."""
    action = s.parse_action("meld " + meld)
    for token in meld.split():
        s._add(seat, JOKER if token.upper().startswith("JK") else parse_card(token))
    s._place(seat, action)
    s._legal = None


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
    s = rig(new(), hands={0: "AS 2S 3S QH KH AH 9C", 1: "4D 5D"}, turn=0)
    s.phase = 2
    act(s, "meld AS 2S 3S")
    assert s.melded[0] == 1 + 2 + 3
    act(s, "meld QH KH AH")
    assert s.melded[0] == 6 + 10 + 10 + 15


def test_r2_values_left_in_hand() -> None:
    s = rig(new(), hands={0: "AS 2S TD JC QH KH 9C", 1: "4D"})
    assert s._hand_value(0) == 15 + 2 + 10 + 10 + 10 + 10 + 9
    s = rig(new(jokers=True), hands={0: "JK"})
    assert s._hand_value(0) == 15


def test_r2_low_ace_laid_off_worth_one() -> None:
    s = rig(new(), hands={0: "AC 9S 9D", 1: "4D 7H"}, turn=0)
    put(s, 1, "2C 3C 4C")
    s.phase = 2
    before = s.melded[0]
    act(s, "lay off AC on 1")
    assert s.melded[0] - before == 1


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
    s = new(3, max_hands=5)
    first = s.dealer
    rig(s, stock="", turn=s.turn)
    s.stock_pos = len(s.stock)
    act(s, "decline")
    assert s.dealer == (first + 1) % 3 and s.number == 2


# -- R4 the turn ---------------------------------------------------------------------------


def test_r4_deep_draw_offered_only_when_meldable() -> None:
    s = rig(new(), hands={0: "5H 6H 9C 2D KS", 1: "4D"}, pile="7H 3C 8D", turn=0)
    moves = legal(s)
    assert "draw discard 3 7H" in moves  # 5H 6H 7H
    assert "draw discard 2 3C" not in moves  # 3C melds with nothing, even with 8D
    assert {"draw stock", "draw discard"} <= moves
    assert "decline" not in moves


def test_r4_deep_card_melds_with_cards_taken_above_it() -> None:
    s = rig(new(), hands={0: "9C 2D KS", 1: "4D"}, pile="5S 4S 6S", turn=0)
    assert "draw discard 3 5S" in legal(s)  # 4S 5S 6S from the pile alone
    assert "draw discard 2 4S" not in legal(s)


def test_r4_deep_drawn_card_must_be_melded_before_the_turn_ends() -> None:
    s = rig(new(), hands={0: "5H 6H 9C 2D KS", 1: "4D"}, pile="7H 3C 8D", turn=0)
    act(s, "draw discard 3 7H")
    moves = legal(s)
    assert not any(m.startswith("discard") for m in moves)
    assert "meld 5H 6H 7H" in moves
    assert s.view(0).hand is not None and s.view(0).hand.must_meld == parse_card("7H")
    act(s, "meld 5H 6H 7H")
    moves = legal(s)
    assert {"discard 3C", "discard 8D", "discard 9C"} <= moves  # drew several: any may go


def test_r4_only_moves_that_keep_the_deep_card_meldable() -> None:
    s = rig(new(), hands={0: "8H 8C 8D 2S", 1: "4D 4C"}, pile="9H 2C", turn=0)
    put(s, 1, "5H 6H 7H")
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
    s = rig(new(jokers=True), hands={0: "8H JK 2S", 1: "4D 4C"}, pile="TH 2C", turn=0)
    put(s, 1, "5H 6H 7H")
    assert "draw discard 2 TH" in legal(s)  # 8H, JK=9H, then TH
    act(s, "draw discard 2 TH")
    assert legal(s) == {"lay off 8H on 1", "meld 8H JK=9H TH"}  # JK=8H would strand TH
    rig(s, hands={0: "8H 2S", 1: "4D 4C"}, pile="TH 2C", turn=0)
    assert "draw discard 2 TH" not in legal(s)  # no 9H, no joker


def assert_every_move_leaves_an_action(s: Rummy500) -> None:
    """After each legal action, the seat to act (if any) has a legal action."""
    for action in s.legal_actions():
        after = s.clone()
        after.apply(action)
        seat = after.to_act()
        assert seat is None or after.legal_actions(), f"{action}: seat {seat} has no action"


def owed_joker_from_a_stacked_deal(seats: int, hands: list[str], *moves: str) -> Rummy500:
    """Seed 1, jokers, ``hands`` dealt from the dealer's left: the first player draws
    9H from the stock, plays ``moves`` and discards 9H; the second takes 9H and the
    upcard JK beneath it (R4.1: the joker is owed)."""
    deck = stacked(seats, hands, "JK", "9H", jokers=True)
    s = SPEC.new_match(1, seats=seats, options={"jokers": True}, decks=[deck])
    assert isinstance(s, Rummy500)
    second_seat = ((s.to_act() or 0) + 1) % seats
    act(s, "draw stock", *moves, "discard 9H")
    while s.phase == CALL:
        act(s, "no rummy")
    act(s, "draw discard 2 JK")
    assert s.view(second_seat).hand.must_meld == JOKER  # type: ignore[union-attr]
    return s


def test_r4_1_r5_no_meld_fills_the_only_set_an_owed_joker_could_join() -> None:
    # QC QD QH QS 4C 7C KS 9H JK: after meld QC QD QH QS the set is full (R5)
    # and no two cards left make a meld with the joker
    hands = ["2D 5D 8D JD 3H 6H TH", "QC QD QH QS 4C 7C KS", "2S 5S 8S JS 3C 9C 6D"]
    s = owed_joker_from_a_stacked_deal(3, hands)
    moves = legal(s)
    assert "meld QC QD QH QS" not in moves
    assert {"meld QC QD QH", "meld QC QD QH JK=QS", "meld JK=JS QS KS"} <= moves
    assert not any(m.startswith("discard") for m in moves)
    assert_every_move_leaves_an_action(s)


def test_r4_1_r5_no_lay_off_fills_the_only_set_an_owed_joker_could_join() -> None:
    hands = ["QC QD QH 3S 6S 8D TD", "QS 4C 7C KS 2D 5D AH"]
    s = owed_joker_from_a_stacked_deal(3, hands, "meld QC QD QH")
    moves = legal(s)
    assert "lay off QS on 1" not in moves
    assert {"lay off JK=QS on 1", "meld JK=JS QS KS"} <= moves
    assert_every_move_leaves_an_action(s)


def test_r4_1_r5_two_packs_no_meld_fills_the_set_an_owed_joker_could_join() -> None:
    # two packs hold two QC, but a set has no repeated suit: four cards at most (R5)
    s = owed_joker_from_a_stacked_deal(5, ["2D 5D 8D JD 3H 6H TH", "QC QD QH QS 4C 7C KS"])
    moves = legal(s)
    assert "meld QC QD QH QS" not in moves
    assert "meld QC QD QH" in moves
    assert_every_move_leaves_an_action(s)


def test_r4_card_drawn_alone_from_the_pile_may_not_be_discarded() -> None:
    s = rig(new(), hands={0: "5H 6H 9C 2D KS", 1: "4D"}, pile="7H 3C", turn=0)
    act(s, "draw discard")
    assert "discard 3C" not in legal(s)
    assert {"discard 9C", "discard 5H"} <= legal(s)
    assert s.view(0).hand is not None and s.view(0).hand.may_not_discard == parse_card("3C")


def test_r4_lone_drawn_card_is_never_left_stranded() -> None:
    # melding 2S 3S 4S would leave only 9D, drawn alone from the pile: neither
    # discardable nor meldable, so that meld is not offered
    s = rig(new(), hands={0: "2S 3S 4S", 1: "4D"}, pile="9D", turn=0)
    act(s, "draw discard")
    assert legal(s) == {"discard 2S", "discard 3S", "discard 4S"}


def test_r4_lay_off_on_any_players_meld_scores_for_the_player() -> None:
    s = rig(new(), hands={0: "8H 9C 2D", 1: "4D 4C"}, turn=0)
    put(s, 1, "5H 6H 7H")
    s.phase = 2
    act(s, "lay off 8H on 1")
    meld = s.view(1).hand.melds[0]  # type: ignore[union-attr]
    assert [p.seat for p in meld.cards] == [1, 1, 1, 0]
    assert s.melded == [8, 18]


# -- R5 melds ------------------------------------------------------------------------------


def test_r5_sets_never_hold_two_cards_of_one_suit() -> None:
    s = rig(new(5), hands={0: "7H 7H 7C KS", 1: "4D"}, turn=0)
    s.phase = 2
    assert not any(m.startswith("meld") for m in legal(s))
    with pytest.raises(IllegalActionError, match="twice"):
        s.parse_action("meld 7C 7H 7H")
    rig(s, hands={0: "7H 7H 7C 7D KS"})
    assert "meld 7C 7D 7H" in legal(s)


def test_r5_runs_ace_low_or_high_never_round_the_corner() -> None:
    s = rig(new(), hands={0: "QS KS AS 2S 3S", 1: "4D"}, turn=0)
    s.phase = 2
    melds = {m for m in legal(s) if m.startswith("meld")}
    assert melds == {"meld AS 2S 3S", "meld QS KS AS"}
    with pytest.raises(IllegalActionError, match="not a set or a run"):
        s.parse_action("meld KS AS 2S")


def test_r5_two_decks_runs_never_hold_a_card_twice() -> None:
    with pytest.raises(IllegalActionError):
        SPEC.new_match(1, seats=5).parse_action("meld 5H 6H 6H 7H")


def test_r5_joker_stands_for_a_declared_card_for_the_rest_of_the_hand() -> None:
    s = rig(new(jokers=True), hands={0: "5H 6H JK 7H 8H 2C", 1: "4D"}, turn=0)
    s.phase = 2
    assert "meld 5H 6H JK=7H" in legal(s)
    assert "meld JK=4H 5H 6H" in legal(s)
    act(s, "meld 5H 6H JK=7H")
    view = s.view(1).hand
    assert view is not None
    assert [(str(p.card), str(p.stands_for)) for p in view.melds[0].cards][-1] == ("JK", "7H")
    assert "lay off 8H on 1" in legal(s)
    assert "lay off 7H on 1" not in legal(s)  # the joker is the 7H for good
    assert s.melded[0] == 5 + 6 + 15


def test_r5_meld_needs_a_natural_card() -> None:
    s = rig(new(5, jokers=True), hands={0: "JK JK JK 2C", 1: "4D"}, turn=0)
    s.phase = 2
    assert all("2C" in m for m in legal(s) if m.startswith("meld"))
    with pytest.raises(IllegalActionError, match="natural"):
        s.parse_action("meld JK=5H JK=6H JK=7H")


def test_r5_set_joker_designation_blocks_that_suit() -> None:
    s = rig(new(jokers=True), hands={0: "9C 9D JK 9H 2C", 1: "4D"}, turn=0)
    s.phase = 2
    act(s, "meld 9C 9D JK=9S")
    assert "lay off 9H on 1" in legal(s)
    assert s.table[0].accept == 1 << parse_card("9H")


# -- R6 calling rummy ----------------------------------------------------------------------


def _four_with_run() -> Rummy500:
    s = rig(
        new(4),
        hands={0: "8H 2C 3D KS", 1: "4D 9S", 2: "5C QD", 3: "6D 7S"},
        pile="2H",
        turn=0,
    )
    put(s, 3, "5H 6H 7H")
    s.phase = 2
    return s


def test_r6_no_call_when_nothing_can_be_melded() -> None:
    s = _four_with_run()
    act(s, "discard 2C")
    assert s.phase == 1 and s.to_act() == 1  # next player draws, nobody asked


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
    assert s.to_act() == 3 and s.phase == 1  # play goes on left of the caller


def test_r6_all_decline_then_the_next_player_draws() -> None:
    s = _four_with_run()
    act(s, "discard 8H", "no rummy", "no rummy", "no rummy")
    assert s.to_act() == 1 and s.phase == 1
    assert "draw discard" in legal(s)


def test_r6_call_on_a_card_melding_with_the_cards_above_it() -> None:
    s = rig(new(3), hands={0: "9D 2C KS", 1: "4D", 2: "QD"}, pile="5C 6C", turn=0)
    s.phase = 2
    act(s, "discard 9D")
    assert s.phase == 1  # 5C 6C 9D: no meld
    s = rig(new(3), hands={0: "7C 2C KS", 1: "4D", 2: "QD"}, pile="5C 6C", turn=0)
    s.phase = 2
    act(s, "discard 7C")
    assert legal(s) == {"rummy 3 5C", "no rummy"}
    act(s, "rummy 3 5C")
    assert legal(s) == {"meld 5C 6C 7C"}


def test_r6_no_call_after_the_hand_ends() -> None:
    s = _four_with_run()
    rig(s, hands={0: "8H"})
    s.phase = 2
    act(s, "lay off 8H on 1")
    assert s.number == 2  # went out: the next hand is dealt, no calls


# -- R7 end of a hand ----------------------------------------------------------------------


def test_r7_hand_ends_when_a_player_melds_every_card() -> None:
    s = rig(new(), hands={0: "5H 6H 7H", 1: "4D KC"}, turn=0)
    s.phase = 2
    act(s, "meld 5H 6H 7H")
    assert s.hands_played == 1
    assert s.last_outcome is not None and s.last_outcome.went_out == 0


def test_r7_hand_ends_when_the_last_card_is_discarded() -> None:
    s = rig(new(), hands={0: "5H 6H 7H 9C", 1: "4D KC"}, turn=0)
    s.phase = 2
    act(s, "meld 5H 6H 7H", "discard 9C")
    assert s.last_outcome is not None and s.last_outcome.went_out == 0


def test_r7_decline_offered_only_when_the_stock_is_empty() -> None:
    s = rig(new(), hands={0: "5H 9C", 1: "4D KC"}, pile="2S", turn=0)
    assert "decline" not in legal(s)
    s.stock_pos = len(s.stock)
    s._legal = None
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
    s = rig(new(), hands={0: "5H 6H 7H KC AD", 1: "4D KC 2S"}, turn=0)
    s.phase = 2
    act(s, "meld 5H 6H 7H", "discard KC")
    s.stock_pos = len(s.stock)
    rig(s, pile="", turn=1)
    act(s, "decline")
    assert s.last_outcome is not None
    assert s.last_outcome.hand_scores == (18 - 15, 0 - (4 + 10 + 2))
    assert s.scores == [3, -16]  # may be negative


# -- R9 winning ----------------------------------------------------------------------------


def _end_hand_with(s: Rummy500, scores: list[int]) -> None:
    s.scores = list(scores)
    rig(s, hands={i: "" for i in range(s.num_seats)}, pile="")
    s.stock_pos = len(s.stock)
    s._legal = None
    act(s, "decline")


def test_r9_highest_score_at_or_over_target_wins() -> None:
    s = new(3)
    _end_hand_with(s, [510, 520, 100])
    assert s.is_over()
    result = s.result()
    assert result is not None and result.ranks == (1, 0, 2)
    assert result.detail["winner"] == 1 and result.detail["hands"] == 1


def test_r9_tie_for_highest_deals_another_hand() -> None:
    s = new(3)
    _end_hand_with(s, [520, 520, 100])
    assert not s.is_over() and s.number == 2
    _end_hand_with(s, [520, 530, 100])
    assert s.is_over()


def test_r9_max_hands_ends_the_match_ranked_by_score() -> None:
    s = new(3, max_hands=1)
    _end_hand_with(s, [20, 20, -5])
    result = s.result()
    assert result is not None and result.ranks == (0, 0, 2)
    assert result.detail["winner"] is None


# -- R10 options ---------------------------------------------------------------------------


def test_r10_jokers_option_adds_two_per_deck() -> None:
    assert SPEC.deck(SPEC.options({"jokers": True}), 4).count(JOKER) == 2
    assert SPEC.deck(SPEC.options({"jokers": True}), 6).count(JOKER) == 4
    assert SPEC.deck(SPEC.options(), 6).count(JOKER) == 0


def test_r10_scoring_5_10_15() -> None:
    s = rig(new(scoring="5-10-15"), hands={0: "AS 2S 3S 9C TD KH", 1: "4D"}, turn=0)
    assert s._hand_value(0) == 15 + 5 + 5 + 5 + 10 + 10
    s.phase = 2
    act(s, "meld AS 2S 3S")
    assert s.melded[0] == 1 + 5 + 5  # the low ace stays 1 (ruling)
    with pytest.raises(OptionsError):
        SPEC.options({"scoring": "5-10-20"})


def test_r10_floating_player_melding_all_cards_floats() -> None:
    s = rig(new(floating=True), hands={0: "5H 6H 7H", 1: "4D KC 9S"}, pile="2C", turn=0)
    s.phase = 2
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
        assert f"lay off {card} on 1" in legal(s)
    act(s, f"discard {card}")  # going out needs a discard
    assert s.hands_played == 1 and s.last_outcome is not None
    assert s.last_outcome.went_out == 0


def test_r10_unplayable_final_discard() -> None:
    s = rig(
        new(unplayable_final_discard=True),
        hands={0: "8H 4H", 1: "KD 9S"},
        turn=0,
    )
    put(s, 1, "5H 6H 7H")
    s.phase = 2
    act(s, "discard 4H")
    assert s.to_act() == 1
    s = rig(new(unplayable_final_discard=True), hands={0: "8H", 1: "KD 9S"}, turn=0)
    put(s, 1, "5H 6H 7H")
    s.phase = 2
    assert legal(s) == {"lay off 8H on 1"}  # 8H plays: it may not be the last discard
    s = rig(new(), hands={0: "8H", 1: "KD 9S"}, turn=0)
    put(s, 1, "5H 6H 7H")
    s.phase = 2
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
    s = rig(new(), hands={0: "8H 9S 2D", 1: "4D 4C"}, turn=0)
    put(s, 1, "5H 6H 7H")
    put(s, 1, "9C 9D 9H")
    s.phase = 2
    assert {"lay off 8H on 1", "lay off 9S on 2"} <= legal(s)
    act(s, "lay off 9S on 2")
    melds = s.view(0).hand.melds  # type: ignore[union-attr]
    assert [m.number for m in melds] == [1, 2]
    assert [str(p.card) for p in melds[1].cards] == ["9C", "9D", "9H", "9S"]
