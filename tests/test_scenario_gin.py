"""Sampled and chosen positions of Hollywood Gin and Gin Rummy for three
(``referee.scenario``): a sample agrees with everything its seat knows (C9) and
nothing more, plays on legally, and deals the unseen cards uniformly; a chosen deal
deals what it names (G2, H1, T1, T2) and refuses what the rules cannot reach."""

from __future__ import annotations

import inspect
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import scenario
from referee.cards import mask_of, parse_cards
from referee.engine import GameState
from referee.games import get_game, new_match
from referee.games.gin_hand import SEARCH
from referee.scenario import ScenarioError
from tests.scenario_support import chi_square_critical, from_the_wire, play_out, texts

GIN_GAMES = ("hollywood-gin", "gin-three")


def played(game: str, seed: int, steps: int, options: dict) -> GameState:
    """A match after ``steps`` random legal actions (fewer if it ends first)."""
    state = new_match(game, seed, options=options)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def chi_square(observed: Counter, cells: list, expected: float) -> float:
    return sum((observed[c] - expected) ** 2 / expected for c in cells)


positions = st.tuples(
    st.sampled_from(GIN_GAMES),
    st.integers(0, 2**32),
    st.integers(0, 160),
    st.integers(0, len(get_game("hollywood-gin").test_variants) - 1),
)


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_c9_a_sample_shows_its_seat_exactly_the_seats_view(position, sample_seed) -> None:
    game, seed, steps, variant = position
    options = get_game(game).test_variants[variant]
    state = played(game, seed, steps, options)
    if state.is_over():
        return
    for seat in range(state.num_seats):
        sampled = scenario.sample(
            from_the_wire(state, seat),
            state.events_for(seat),
            random.Random(sample_seed),
            options=options,
        )
        assert sampled.view(seat) == state.view(seat)


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_c7_play_goes_on_legally_from_a_sample(position, sample_seed) -> None:
    game, seed, steps, variant = position
    options = get_game(game).test_variants[variant]
    state = played(game, seed, steps, options)
    if state.is_over():
        return
    seat = state.to_act()
    sampled = scenario.sample(
        from_the_wire(state, seat),
        state.events_for(seat),
        random.Random(sample_seed),
        options=options,
    )
    assert texts(sampled) == texts(state)  # the seat to act has the same choices
    rng = random.Random(sample_seed)
    play_out(sampled, rng, 2000)
    if sampled.is_over():
        result = sampled.result()
        assert result is not None and len(result.ranks) == state.num_seats


def hidden_places(state: GameState, seat: int) -> tuple[int, list[int]]:
    """The hidden hand's player and the stock, top first, of a Gin state (test-side)."""
    hand = state.hand
    view_hand = state.view(seat).hand or state.view(seat).advising
    return view_hand.opponent, list(hand.deck[hand.stock_pos :])


@pytest.mark.parametrize(
    ("game", "seed", "steps", "seat"),
    [
        ("hollywood-gin", 11, 9, 0),
        ("hollywood-gin", 5, 30, 1),
        ("gin-three", 3, 14, 0),
        ("gin-three", 8, 20, 2),
    ],
)
def test_c9_every_unseen_card_lands_in_each_hidden_place_at_the_uniform_rate(
    game, seed, steps, seat
) -> None:
    state = played(game, seed, steps, {})
    assert not state.is_over()
    view = from_the_wire(state, seat)
    events = state.events_for(seat)
    hidden_player, real_stock = hidden_places(state, seat)
    real_hidden = state.hand.hands[hidden_player]
    samples = 3000
    in_hand: Counter = Counter()
    on_top: Counter = Counter()
    rng = random.Random(seed)
    for _ in range(samples):
        sampled = scenario.sample(view, events, rng)
        player, stock = hidden_places(sampled, seat)
        assert player == hidden_player
        mask = sampled.hand.hands[player]
        in_hand.update(c for c in range(64) if mask >> c & 1)
        on_top[stock[0]] += 1
    hand_view = view.hand or view.advising
    known = mask_of(hand_view.opponent_known)
    unseen = [
        c for c in range(64) if (real_hidden | mask_of(real_stock)) >> c & 1 and not known >> c & 1
    ]
    missing = hand_view.opponent_hand_size - len(hand_view.opponent_known)
    assert all(in_hand[c] == samples for c in range(64) if known >> c & 1)  # always in place
    # in the hidden hand with probability missing / unseen, else in the stock: two cells per card
    p = missing / len(unseen)
    stat = sum(
        (in_hand[c] - samples * p) ** 2 / (samples * p)
        + (samples - in_hand[c] - samples * (1 - p)) ** 2 / (samples * (1 - p))
        for c in unseen
    )
    assert stat < chi_square_critical(len(unseen) - 1), stat
    # the next card of the stock is any card not in the hidden hand with the same chance
    assert chi_square(on_top, unseen, samples / len(unseen)) < chi_square_critical(len(unseen) - 1)
    # and the real hidden cards are not favoured (a leak would put them there)
    real_missing = [c for c in unseen if real_hidden >> c & 1]
    assert sum(in_hand[c] for c in real_missing) / (samples * len(real_missing)) < p + 0.05


def test_c9_the_sampler_is_never_given_the_state() -> None:
    parameters = inspect.signature(scenario.sample).parameters
    assert list(parameters) == ["view", "events", "rng", "options"]
    assert "state" not in inspect.signature(scenario.gin.sample).parameters


def test_g4_a_card_the_opponent_took_from_the_pile_may_not_be_its_discard_in_the_sample() -> None:
    # seat 1 (non-dealer, dealer 0) takes the upcard: deciding its discard, it may not
    # discard that card; seat 0 knows it from the event, not from its view
    state = scenario.deal("hollywood-gin", {"dealer": 0, "upcard": "KS"}, seed=4)
    state.apply_checked("draw discard")
    assert state.to_act() == 1
    sampled = scenario.sample(from_the_wire(state, 0), state.events_for(0), random.Random(1))
    assert "discard KS" not in texts(sampled)
    assert sampled.hand.hands[1] >> parse_cards("KS")[0] & 1


def test_g6_a_knockers_hidden_hand_is_sampled_with_the_choice_the_knock_gave() -> None:
    # seat 1 knocks holding 4S, which goes in either the spade run or the set of fours:
    # two arrangements, so it arranges (G6); a sampled knocker must have a choice too
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
    for action in ("pass", "pass", "draw stock", "knock KC"):
        state.apply_checked(action)
    assert state.hand.phase.value == "knocker arranges" and state.to_act() == 1
    sampled = scenario.sample(from_the_wire(state, 0), state.events_for(0), random.Random(3))
    assert sampled.hand.phase.value == "knocker arranges"
    assert SEARCH.deadwood_value(sampled.hand.hands[1]) <= 10
    assert len(sampled.legal_actions()) > 1


# -- chosen deals --------------------------------------------------------------------------


def test_g2_h1_a_chosen_deal_deals_the_named_hands_upcard_stock_and_dealer() -> None:
    mine, theirs = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"
    state = scenario.deal(
        "hollywood-gin",
        {"dealer": 1, "hands": [mine, theirs], "upcard": "KD", "stock": ["QC", "JC"]},
        seed=9,
    )
    view = state.view(0).hand
    assert view.dealer == 1 and state.to_act() == 0  # the non-dealer decides first (G3)
    assert view.hand == tuple(sorted(parse_cards(mine)))
    assert state.view(1).hand.hand == tuple(sorted(parse_cards(theirs)))
    assert view.discard_pile == tuple(parse_cards("KD"))
    state.apply_checked("pass")
    state.apply_checked("pass")
    state.apply_checked("draw stock")
    assert parse_cards("QC")[0] in state.view(0).hand.hand


def test_t1_t2_a_chosen_gin_for_three_deal_names_the_roles() -> None:
    state = scenario.deal(
        "gin-three",
        {
            "roles": {"box": 2, "captain": 0, "sitter": 1},
            "hands": ["AS 2S 3S 4S 5S 6S 7S 8S 9S TS", [], ""],
        },
        seed=2,
    )
    view = state.view(1)
    assert view.role == "sitter" and view.advising.player == 0
    assert state.view(0).hand.hand == tuple(sorted(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS")))
    assert state.view(2).hand.dealer == 2


def test_c6_what_a_deal_leaves_out_is_dealt_from_its_seed() -> None:
    spec = {"dealer": 0, "hands": ["AS 2S 3S 4S 5S 6S 7S 8S 9S TS"]}
    a = scenario.deal("hollywood-gin", spec, seed=5)
    b = scenario.deal("hollywood-gin", spec, seed=5)
    c = scenario.deal("hollywood-gin", spec, seed=6)
    assert a.view(1) == b.view(1)
    assert a.view(1) != c.view(1)


@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        ("hollywood-gin", {"hands": ["AS AS 3S 4S 5S 6S 7S 8S 9S TS"]}, "AS is named twice"),
        ("hollywood-gin", {"hands": ["AS 2S 3S"]}, "has 3 cards; a Gin hand has 10"),
        ("hollywood-gin", {"upcard": "JK"}, "JK is not a card of this game's pack"),
        ("hollywood-gin", {"upcard": "ZZ"}, "the upcard"),
        ("hollywood-gin", {"dealer": 2}, "the dealer is seat 0 or 1"),
        ("hollywood-gin", {"roles": {"box": 0}}, "Hollywood Gin has no roles"),
        ("hollywood-gin", {"hand": []}, "unknown key 'hand'"),
        ("gin-three", {"dealer": 0}, "the box deals"),
        (
            "gin-three",
            {"roles": {"box": 0, "captain": 0, "sitter": 1}},
            "each of the seats 0, 1 and 2",
        ),
        (
            "gin-three",
            {
                "roles": {"box": 0, "captain": 1, "sitter": 2},
                "hands": [[], [], "AS 2S 3S 4S 5S 6S 7S 8S 9S TS"],
            },
            "sits out",
        ),
    ],
)
def test_a_deal_the_rules_cannot_reach_is_refused_naming_why(game, spec, message) -> None:
    with pytest.raises(ScenarioError, match=message):
        scenario.deal(game, spec)


def test_a_deal_file_is_read_as_toml_or_json(tmp_path) -> None:
    toml = tmp_path / "deal.toml"
    toml.write_text(
        'game = "hollywood-gin"\nseed = 3\n[options]\nmax_hands = 1\n'
        '[deal]\ndealer = 0\nupcard = "QH"\n'
    )
    state = scenario.deal_from_file(toml)
    assert state.options.max_hands == 1 and state.view(0).hand.discard_pile == tuple(
        parse_cards("QH")
    )
    broken = tmp_path / "broken.json"
    broken.write_text('{"game": "hollywood-gin", "deal": {"upcard": "QQ"}}')
    with pytest.raises(ScenarioError, match=r"broken\.json: the upcard"):
        scenario.deal_from_file(broken)
    with pytest.raises(ScenarioError, match="is not valid TOML"):
        (tmp_path / "bad.toml").write_text("game = ")
        scenario.deal_from_file(tmp_path / "bad.toml")
