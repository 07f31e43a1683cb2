"""The reference search bot (``bots/examples/search_bot.py``): it plays every game
legally, thinks within the time the referee's clock gives (never past its share), and
weighs actions from what its seat knows."""

from __future__ import annotations

import random

import pytest

from bots.examples import search_bot
from bots.examples.heuristic_bot import HeuristicBot
from bots.examples.search_bot import SearchBot
from bots.sdk import Clock, Request
from bots.sdk.local import play_local
from referee import scenario
from referee.cards import parse_cards
from referee.games import get_game, new_match

SHORT = {
    "hollywood-gin": {"max_hands": 1},
    "gin-three": {"max_hands": 1},
    "rummy-500": {"max_hands": 1},
    "flip-flop": {"max_rounds": 1},
}


@pytest.mark.parametrize("game", sorted(SHORT))
def test_c7_the_search_bot_plays_a_whole_match_of_every_game_legally(game) -> None:
    seats = get_game(game).default_seats
    bots = [SearchBot(budget_ms=1, seed=1), *(HeuristicBot() for _ in range(seats - 1))]
    result = play_local(game, 5, bots, SHORT[game])  # play_local applies with apply_checked
    assert len(result.ranks) == seats


def test_the_budget_is_the_smaller_of_its_own_and_half_the_decision_time(monkeypatch) -> None:
    asked = []
    monkeypatch.setattr(
        search_bot,
        "choose",
        lambda view, events, options, *, budget_ms, rng: (
            asked.append(budget_ms) or view.legal_actions[0]
        ),
    )
    bot = SearchBot(budget_ms=100)
    state = new_match("hollywood-gin", 1)
    view = state.view(state.to_act())
    for decision_ms, expected in ((1000, 100), (60, 30), (0, 100)):
        bot.decide(
            Request(
                1, "hollywood-gin", list(view.legal_actions), Clock(decision_ms, 5000), view=view
            )
        )
        assert asked[-1] == expected


def test_the_evaluation_is_the_same_for_the_same_view_events_and_seed() -> None:
    state = new_match("hollywood-gin", 7, options={"max_hands": 1})
    seat = state.to_act()
    view, events = state.view(seat), state.events_for(seat)
    a = search_bot.evaluate(view, events, {"max_hands": 1}, budget_ms=0, rng=random.Random(3))
    b = search_bot.evaluate(view, events, {"max_hands": 1}, budget_ms=0, rng=random.Random(3))
    assert a == b and [v.action for v in a] == list(view.legal_actions)
    assert all(v.playouts == 1 for v in a)


def test_g6_a_gin_decision_weighs_every_knock_and_the_discards_leaving_least_deadwood() -> None:
    state = scenario.deal(
        "hollywood-gin",
        {
            "dealer": 0,
            "hands": ["KD KH QC QD QH JC JD 9S 8S 7S", "AS 2S 3S 4S 4C 4D 4H 9C 9D 9H"],
            "upcard": "2C",
            "stock": "KC",
        },
        seed=1,
    )
    for action in ("pass", "pass", "draw stock"):
        state.apply_checked(action)
    view = state.view(1)
    weighed = search_bot.candidates(view)
    knocks = [t for t in view.legal_actions if t.startswith("knock ")]
    assert knocks and set(knocks) <= set(weighed)
    discards = [t for t in weighed if t.startswith("discard ")]
    assert len(discards) == search_bot.GIN_DISCARDS
    assert "discard KC" in discards  # the card that is deadwood in every arrangement


def test_t3_the_sitter_weighs_its_advice_for_the_captain_against_the_box() -> None:
    state = new_match("gin-three", 2, options={"max_hands": 1})
    sitter = state.roles.sitter
    assert state.to_act() == sitter
    view = state.view(sitter)
    assert search_bot._perspective(view) == (state.roles.captain, state.roles.box)
    values = search_bot.evaluate(
        view, state.events_for(sitter), {}, budget_ms=0, rng=random.Random(1)
    )
    assert {v.action for v in values} == set(view.legal_actions)


def test_it_leaves_the_heuristics_choice_only_for_one_better_beyond_the_noise(monkeypatch) -> None:
    state = new_match("hollywood-gin", 7, options={"max_hands": 1})
    view = state.view(state.to_act())
    preferred = search_bot.heuristic(view)
    other = next(a for a in view.legal_actions if a != preferred)

    def values(edge: float, stderr: float) -> list[search_bot.ActionValue]:
        return [
            search_bot.ActionValue(preferred, 1.0, 30),
            search_bot.ActionValue(other, 1.0 + edge, 30, stderr),
        ]

    for edge, stderr, played in ((3.0, 2.0, preferred), (5.0, 2.0, other), (-1.0, 0.5, preferred)):
        found = values(edge, stderr)
        monkeypatch.setattr(search_bot, "evaluate", lambda *a, found=found, **k: found)
        assert search_bot.choose(view, [], {}, budget_ms=1, rng=random.Random(1)) == played


def test_the_opponent_model_reads_the_opponents_last_discard_of_this_hand() -> None:
    from referee.engine import Event

    hand_2 = [Event(None, "hand 2: seat 0 deals"), Event(1, "draw stock")]
    assert search_bot._last_discard([Event(1, "discard 9C"), *hand_2], 1) is None
    played = [*hand_2, Event(1, "discard QH"), Event(0, "draw stock")]
    assert search_bot._last_discard(played, 1) == parse_cards("QH")[0]
    assert search_bot._last_discard([*played, Event(1, "draw discard 2C")], 1) is None
