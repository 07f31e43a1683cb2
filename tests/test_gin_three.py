"""Gin Rummy for three: rules T1–T6 (hands follow G1–G10, tested with Hollywood Gin)."""

from __future__ import annotations

import random
from typing import Any

from referee.cards import parse_card
from referee.games import new_match
from referee.games.gin_three import GinThree, Roles, order_by_draw
from tests.gin_deals import gin_deck

CAPTAIN_KNOCKS = "AS 2S 3S 7H 5D 5C 5H 9H 9D 9C"  # knocks with 7 after drawing TD
BOX_LAYS_OFF = "4S 5S 9S JC QC KH 8D 6D 2H 3C"  # 49 after lay-offs: the captain wins 42
BOX_UNDERCUTS = "4S 5S 9S 6C 7C 8C JD QD KD 2H"  # 2 after lay-offs: the box wins 15


def start(captain: str, box: str, stock_top: str = "TD", **options: Any) -> GinThree:
    state = new_match(
        "gin-three", 21, decks=[gin_deck(captain, box, "2D", stock_top)], options=options
    )
    assert isinstance(state, GinThree)
    return state


def act(state: GinThree, *actions: str) -> None:
    """Apply actions of the box or captain; the sitter offers no advice."""
    for text in actions:
        if state.to_act() == state.roles.sitter:
            state.apply_checked("no advice")
        state.apply_checked(text)


def captain_knocks_and_wins(state: GinThree) -> None:
    act(state, "pass", "pass", "draw stock", "knock TD")


def test_t1_draw_orders_box_captain_sitter_and_ties_draw_again() -> None:
    draws = iter(["KH", "KD", "5C", "3S", "9D"])
    order = order_by_draw([0, 1, 2], lambda _p: parse_card(next(draws)))
    assert order == [1, 0, 2]  # 0 and 1 tie on kings; 1 then draws higher
    assert order_by_draw([0, 1, 2], lambda p: parse_card(["AS", "KS", "7S"][p])) == [1, 2, 0]


def test_t1_roles_come_from_the_seed() -> None:
    seen = set()
    for seed in range(30):
        roles = new_match("gin-three", seed).view(0).roles  # type: ignore[attr-defined]
        assert sorted((roles.box, roles.captain, roles.sitter)) == [0, 1, 2]
        seen.add(roles)
    assert len(seen) == 6
    assert new_match("gin-three", 4).view(1) == new_match("gin-three", 4).view(1)


def test_t2_box_deals_captain_decides_first_sitter_gets_no_cards() -> None:
    state = start(CAPTAIN_KNOCKS, BOX_LAYS_OFF)
    roles = state.roles
    assert state.hand.dealer == roles.box and state.hand.non_dealer == roles.captain
    state.apply_checked("no advice")
    assert state.to_act() == roles.captain
    sitter_view = state.view(roles.sitter)
    assert sitter_view.hand is None and sitter_view.role == "sitter"
    assert state.view(roles.captain).hand is not None
    assert state.view(roles.box).hand is not None


def test_t3_sitter_advises_before_each_captain_decision() -> None:
    state = start(CAPTAIN_KNOCKS, BOX_LAYS_OFF)
    roles = state.roles
    assert state.to_act() == roles.sitter
    assert [str(a) for a in state.legal_actions()] == [
        "no advice",
        "advise draw discard",
        "advise pass",
    ]
    advising = state.view(roles.sitter).advising
    assert advising is not None and advising.player == roles.captain
    assert sorted(advising.hand) == sorted(state.view(roles.captain).hand.hand)  # type: ignore[union-attr]
    state.apply_checked("advise draw discard")
    assert state.view(roles.captain).advice == "draw discard"
    assert state.view(roles.box).advice is None
    assert not any("advise" in e.text for e in state.events_for(roles.box))
    state.apply_checked("pass")  # the captain has the final word
    assert state.to_act() == roles.box  # no advice for the box's decisions
    state.apply_checked("pass")
    assert state.to_act() == roles.sitter  # a new captain decision, a new advice
    assert state.view(roles.captain).advice is None


def test_t4_scorer_adds_points_and_sitter_never_scores() -> None:
    state = start(CAPTAIN_KNOCKS, BOX_LAYS_OFF)
    roles = state.roles
    captain_knocks_and_wins(state)
    assert state.scores[roles.captain] == 42
    assert state.scores[roles.box] == 0 and state.scores[roles.sitter] == 0
    undercut = start(CAPTAIN_KNOCKS, BOX_UNDERCUTS)
    before = undercut.roles
    captain_knocks_and_wins(undercut)
    first = undercut.last_outcome
    assert first is not None and first.kind == "undercut" and first.points == 15
    assert undercut.scores[before.box] == 15
    assert undercut.scores[before.captain] == undercut.scores[before.sitter] == 0


def test_t5_box_loses_sits_out_captain_into_box_sitter_becomes_captain() -> None:
    state = start(CAPTAIN_KNOCKS, BOX_LAYS_OFF)
    old = state.roles
    captain_knocks_and_wins(state)
    assert state.roles == Roles(box=old.captain, captain=old.sitter, sitter=old.box)
    assert state.hand.dealer == old.captain


def test_t5_box_wins_keeps_seat_and_captain_and_sitter_swap() -> None:
    state = start(CAPTAIN_KNOCKS, BOX_UNDERCUTS)
    old = state.roles
    captain_knocks_and_wins(state)
    assert state.roles == Roles(box=old.box, captain=old.sitter, sitter=old.captain)
    assert state.scores[old.box] == 15


def test_t5_drawn_hand_keeps_the_roles() -> None:
    state = start(CAPTAIN_KNOCKS, BOX_LAYS_OFF, "TD KD 8C", max_turns=2)
    old = state.roles
    act(state, "pass", "pass", "draw stock", "discard TD", "draw stock", "discard KD")
    act(state, "draw stock", "discard 8C")
    outcome = state.last_outcome
    assert outcome is not None and outcome.kind == "drawn"
    assert state.roles == old and state.hands_played == 1


def test_t6_first_to_target_wins_others_ranked_by_score_equal_share() -> None:
    state = start(CAPTAIN_KNOCKS, BOX_LAYS_OFF, target=40)
    roles = state.roles
    captain_knocks_and_wins(state)
    result = state.result()
    assert result is not None
    assert result.ranks[roles.captain] == 0
    assert result.ranks[roles.box] == result.ranks[roles.sitter] == 1


def test_t6_ruling_hand_cap_ranks_by_score() -> None:
    state = new_match("gin-three", 8, options={"max_hands": 3})
    rng = random.Random(8)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    result = state.result()
    assert result is not None and result.detail["hands"] == 3
    scores = result.scores
    for seat in range(3):
        assert result.ranks[seat] == sum(1 for s in scores if s > scores[seat])
