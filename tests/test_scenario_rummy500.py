"""Sampled and chosen positions of Rummy 500 (``referee.scenario``): a sample agrees
with everything its seat knows (C9) and nothing more, plays on legally, and deals the
unseen cards uniformly; a chosen deal deals what it names (R1, R3) or the hand in play
it names, and refuses what the rules cannot reach."""

from __future__ import annotations

import inspect
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import scenario
from referee.cards import parse_card, parse_cards
from referee.games import get_game, new_match
from referee.games.rummy500 import CALL, PLAY, Rummy500
from referee.scenario import ScenarioError
from referee.scenario import rummy500 as module
from tests.scenario_support import chi_square_critical, from_the_wire, play_out, texts

GAME = "rummy-500"
VARIANTS = get_game(GAME).test_variants


def played(seats: int, seed: int, steps: int, options: dict) -> Rummy500:
    """A match after ``steps`` random legal actions, or fewer: it stops short of the
    action that would end the match."""
    state = new_match(GAME, seed, seats=seats, options=options)
    assert isinstance(state, Rummy500)
    rng = random.Random(seed)
    for _ in range(steps):
        after = state.clone()
        after.apply(rng.choice(state.legal_actions()))
        if after.is_over():
            break
        state = after
    return state


def sampled(state: Rummy500, seat: int, rng: random.Random, options: dict) -> Rummy500:
    result = scenario.sample(
        from_the_wire(state, seat), state.events_for(seat), rng, options=options
    )
    assert isinstance(result, Rummy500)
    return result


positions = st.tuples(
    st.integers(2, 8),
    st.integers(0, 2**32),
    st.integers(0, 1500),
    st.integers(0, len(VARIANTS) - 1),
)


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_c9_a_sample_shows_its_seat_exactly_the_seats_view(position, sample_seed) -> None:
    seats, seed, steps, variant = position
    options = VARIANTS[variant]
    state = played(seats, seed, steps, options)
    rng = random.Random(sample_seed)
    for seat in range(seats):
        assert sampled(state, seat, rng, options).view(seat) == state.view(seat)


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_c7_play_goes_on_legally_from_a_sample(position, sample_seed) -> None:
    seats, seed, steps, variant = position
    options = VARIANTS[variant]
    state = played(seats, seed, steps, options)
    seat = state.to_act()
    sample = sampled(state, seat, random.Random(sample_seed), options)
    assert texts(sample) == texts(state)  # the seat to act has the same choices
    rng = random.Random(sample_seed)
    play_out(sample, rng, 3000)
    if sample.is_over():
        result = sample.result()
        assert result is not None and len(result.ranks) == seats
        assert sorted(result.ranks)[0] == 0 and result.scores == tuple(sample.scores)


def test_c9_r4_r6_samples_agree_while_calls_are_asked_and_cards_are_owed() -> None:
    """The call phase (R6) and owed cards (R4), met along random matches."""
    met: Counter = Counter()
    options = VARIANTS[1]  # jokers
    for seed in range(6):
        state = new_match(GAME, seed, seats=4, options=options)
        assert isinstance(state, Rummy500)
        rng = random.Random(seed)
        while not state.is_over():
            owed = state.phase == PLAY and state.must_meld >= 0
            if state.phase == CALL or owed:
                met["owed" if owed else "call"] += 1
                for seat in range(4):
                    sample = sampled(state, seat, rng, options)
                    assert sample.view(seat) == state.view(seat)
                    assert seat != state.to_act() or texts(sample) == texts(state)
            state.apply(rng.choice(state.legal_actions()))
    assert met["call"] >= 10 and met["owed"] >= 10, met


def hidden_places(state: Rummy500, seat: int) -> dict[str, Counter]:
    """Where the cards ``seat`` cannot see lie (test-side): each other hand and the stock."""
    places = {
        f"seat {s}": Counter(state.hand_cards(s)) for s in range(state.num_seats) if s != seat
    }
    places["stock"] = Counter(state.stock[state.stock_pos :])
    return places


def check_uniform(state: Rummy500, seat: int, options: dict) -> None:
    """Over many samples from ``seat``'s view: each other hand holds the cards known to
    be there (seen taken from the pile, R4); every other unseen card lands in each
    hidden place (each other hand, the stock) as often as a uniform deal puts it there,
    and on top of the stock as often as any other; and the real hidden cards are not
    favoured (a leak would put them where they really are)."""
    hand = from_the_wire(state, seat).hand
    real = hidden_places(state, seat)
    known = {p: Counter() for p in real}
    for s in range(state.num_seats):
        if s != seat:
            known[f"seat {s}"] = Counter(hand.known[s])
    unseen = sum(real.values(), Counter()) - sum(known.values(), Counter())
    free = {p: real[p].total() - known[p].total() for p in real}  # hidden cards per place
    total = unseen.total()
    samples = 3000
    landed: dict[str, Counter] = {p: Counter() for p in real}
    on_top: Counter = Counter()
    rng = random.Random(7)
    for _ in range(samples):
        sample = sampled(state, seat, rng, options)
        for p, cards in hidden_places(sample, seat).items():
            assert not known[p] - cards  # the known cards are always there
            landed[p].update(cards - known[p])
        on_top[sample.stock[sample.stock_pos]] += 1
    # each copy of an unseen card lies in place p with probability free[p] / total:
    # one cell per card and place, (places - 1) degrees of freedom per card
    stat = 0.0
    for card, copies in unseen.items():
        for p in real:
            expected = samples * copies * free[p] / total
            stat += (landed[p][card] - expected) ** 2 / expected
    df = len(unseen) * (len(real) - 1)
    assert stat < chi_square_critical(df), (stat, df)
    top = sum(
        (on_top[c] - samples * n / total) ** 2 / (samples * n / total) for c, n in unseen.items()
    )
    assert top < chi_square_critical(len(unseen) - 1), top
    for p in real:
        really = real[p] - known[p]
        if p != "stock" and really:
            # per copy of those cards left unseen (two packs: a copy may be elsewhere)
            rate = sum(landed[p][c] for c in really) / (samples * sum(unseen[c] for c in really))
            assert rate < free[p] / total + 0.05, (p, rate)


@pytest.mark.parametrize(
    ("seats", "seed", "steps", "options"),
    [(2, 2, 25, {}), (3, 11, 9, {}), (4, 5, 40, {}), (6, 8, 30, {"jokers": True})],
)
def test_c9_every_unseen_card_lands_in_each_hidden_place_at_the_uniform_rate(
    seats, seed, steps, options
) -> None:
    state = played(seats, seed, steps, options)
    assert not state.is_over() and state.must_meld < 0  # no owed card: nothing to condition on
    check_uniform(state, (state.turn + 1) % seats, options)


#: Seat 1 to draw, the pile 7H 8S QC (bottom first): it may take all three for 7H (R4).
DEEP = {"dealer": 0, "turn": 1, "hands": [[], "5H 6H 9D 2C KC 3H TS"], "discard_pile": "7H 8S QC"}


def test_c9_r4_cards_seen_taken_from_the_pile_stay_in_their_hand_the_rest_is_uniform() -> None:
    state = scenario.deal(GAME, DEEP, seats=3, seed=4)
    assert isinstance(state, Rummy500)
    for action in ("draw discard 3 7H", "meld 5H 6H 7H", "discard 2C"):
        state.apply_checked(action)
    assert state.to_act() == 2
    assert state.view(0).hand.known[1] == tuple(parse_cards("QC 8S"))  # in card order
    check_uniform(state, 0, {})


def test_c9_r4_a_hidden_player_owing_a_deep_drawn_card_can_meld_it_in_every_sample() -> None:
    # seat 0 sees seat 1 owe 7H with 7H 8S QC and seven unseen cards: most such hands
    # could not meld it (the real one has 5H 6H)
    state = scenario.deal(GAME, DEEP, seats=3, seed=4)
    state.apply_checked("draw discard 3 7H")
    assert state.view(0).hand.must_meld == parse_card("7H")
    rng = random.Random(2)
    hands = set()
    for _ in range(200):
        sample = sampled(state, 0, rng, {})
        moves = texts(sample)
        assert moves, f"seat 1 cannot meld the 7H it owes with {sample.hand_cards(1)}"
        assert not any(m.startswith("discard") for m in moves)
        hands.add(tuple(sample.hand_cards(1)))
    assert len(hands) > 100  # still drawn at random


def test_c9_the_sampler_is_never_given_the_state() -> None:
    assert list(inspect.signature(module.sample).parameters) == ["view", "events", "rng", "options"]


def test_a_finished_match_has_nothing_to_sample() -> None:
    state = new_match(GAME, 1, options={"max_hands": 1})
    rng = random.Random(1)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    with pytest.raises(ScenarioError, match="the match is over"):
        scenario.sample(from_the_wire(state, 0), options={"max_hands": 1})


# -- chosen deals --------------------------------------------------------------------------


def test_r3_a_chosen_deal_deals_the_named_hands_upcard_stock_and_dealer() -> None:
    mine, theirs = "AS 2S 3S 4S 5S 6S 7S", "AH 2H 3H 4H 5H 6H 7H"
    state = scenario.deal(
        GAME,
        {"dealer": 2, "hands": [mine, theirs], "upcard": "KD", "stock": ["QC", "JC"]},
        seats=3,
        seed=9,
    )
    view = state.view(0).hand
    assert view.dealer == 2 and state.to_act() == 0  # play starts left of the dealer (R4)
    assert view.hand == tuple(parse_cards(mine))
    assert state.view(1).hand.hand == tuple(sorted(parse_cards(theirs)))
    assert len(state.view(2).hand.hand) == 7
    assert view.discard_pile == tuple(parse_cards("KD"))
    assert view.stock_size == 52 - 3 * 7 - 1
    state.apply_checked("draw stock")
    assert parse_card("QC") in state.view(0).hand.hand
    texts_seen = [e.text for e in state.events_for(0)]
    assert texts_seen[:2] == ["seat 2 deals first", "hand 1: seat 2 deals"]  # dealt as R3 deals


def test_r1_two_packs_hold_each_card_twice() -> None:
    state = scenario.deal(GAME, {"hands": ["7H 7H 7C 7D 8S 9S TS"]}, seats=5, seed=1)
    assert Counter(state.view(0).hand.hand)[parse_card("7H")] == 2
    with pytest.raises(ScenarioError, match="7H is named more often than the pack holds it"):
        scenario.deal(GAME, {"hands": ["7H 7H 7C 7D 8S 9S TS"], "upcard": "7H"}, seats=5)


def test_c6_what_a_deal_leaves_out_is_dealt_from_its_seed() -> None:
    spec = {"dealer": 0, "hands": ["", "AS 2S 3S 4S 5S 6S 7S"]}
    a = scenario.deal(GAME, spec, seats=3, seed=5)
    b = scenario.deal(GAME, spec, seats=3, seed=5)
    c = scenario.deal(GAME, spec, seats=3, seed=6)
    assert a.view(0) == b.view(0)
    assert a.view(0) != c.view(0)
    assert a.view(1).hand.hand == c.view(1).hand.hand


def test_a_chosen_hand_in_play_is_the_position_it_names() -> None:
    state = scenario.deal(
        GAME,
        {
            "dealer": 1,
            "hands": ["9H 9C 2D", 9],
            "melds": [
                {"seat": [1, 1, 1, 0], "cards": "5H 6H 7H JK=8H"},
                {"seat": 0, "cards": "QC QD QH QS"},
            ],
            "discard_pile": "3C 4D",
            "turn": 0,
            "phase": "play",
            "scores": [120, -35, 60],
            "hands_played": 2,
        },
        options={"jokers": True},
        seats=3,
        seed=2,
    )
    view = state.view(0)
    hand = view.hand
    assert view.to_act == 0 and hand.phase == "play" and hand.turn == 0 and hand.dealer == 1
    assert hand.hand == tuple(parse_cards("9C 2D 9H"))
    assert hand.hand_sizes == (3, 9, 7)
    assert [(str(p.card), str(p.stands_for), p.seat) for p in hand.melds[0].cards] == [
        ("5H", "5H", 1),
        ("6H", "6H", 1),
        ("7H", "7H", 1),
        ("JK", "8H", 0),
    ]
    assert hand.melded_points == (15 + 40, 5 + 6 + 7, 0)  # the joker is worth 15 (R2)
    assert hand.discard_pile == tuple(parse_cards("3C 4D"))
    assert hand.stock_size == 54 - 3 - 9 - 7 - 8 - 2
    assert view.scores == (120, -35, 60) and view.hands_played == 2 and hand.number == 3
    assert {"lay off 9H on 1", "discard 9C"} <= set(view.legal_actions)
    assert not any(a.startswith("draw") for a in view.legal_actions)  # drawn already


def test_a_deal_file_names_a_hand_in_play(tmp_path) -> None:
    path = tmp_path / "deal.toml"
    path.write_text(
        'game = "rummy-500"\n'
        "seats = 3\n"
        "seed = 7\n"
        "[deal]\n"
        "dealer = 2\n"
        'hands = ["5H 6H 9C 2D KS"]\n'
        'discard_pile = "7H 3C 8D"\n'
        'melds = [{seat = 0, cards = "QC QD QH QS"}]\n'
        "turn = 0\n"
    )
    state = scenario.deal_from_file(path)
    assert "draw discard 3 7H" in state.view(0).legal_actions


def test_r10_a_floating_player_may_hold_no_cards() -> None:
    spec = {
        "hands": [0],
        "melds": [{"seat": 0, "cards": "QC QD QH QS"}, {"seat": 0, "cards": "KC KD KH"}],
        "turn": 0,
    }
    state = scenario.deal(GAME, spec, options={"floating": True}, seats=3)
    assert state.view(1).hand.floating == (True, False, False)
    assert "draw stock" in state.view(0).legal_actions


SEVEN = "AS 2S 3S 4S 5S 6S 7S"
SPENT = {"seat": 0, "cards": "QC QD QH QS"}


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ({"hands": ["AS AS 3S 4S 5S 6S 7S"]}, {}, "AS is named twice"),
        ({"upcard": "JK"}, {}, "JK is not a card of this game's pack"),
        ({"hands": ["AS 2S 3S"]}, {}, "has 3 cards; each player is dealt 7"),
        ({"hands": [SEVEN, SEVEN.replace("S", "H"), 8]}, {}, "seat 2's hand has 8 cards"),
        ({"hands": ["ZZ"]}, {}, "seat 0's hand"),
        ({"upcard": "KD QD"}, {}, "'upcard' is one card"),
        ({"dealer": 3}, {}, "the dealer is a seat 0..2, not 3"),
        ({"hand": []}, {}, "unknown key 'hand'"),
        ({"turn": -1}, {}, "the turn is a seat 0..2"),
        ({"phase": "call"}, {}, "the phase is 'draw'"),
        ({"melds": [{"seat": 0, "cards": "5H 6H 8H"}]}, {}, "meld 1: '5H 6H 8H' is not a set"),
        ({"melds": [{"seat": 0, "cards": "7C 7H 7H"}]}, {}, "meld 1: .* names a card twice"),
        ({"melds": [{"seat": 0, "cards": "JK=5H JK=6H JK=7H"}]}, {"jokers": True}, "natural"),
        ({"melds": [{"seat": 4, "cards": "5H 6H 7H"}]}, {}, "the seat of meld 1 is a seat"),
        ({"melds": [{"seat": [0, 1], "cards": "5H 6H 7H"}]}, {}, "3 cards and 2 seats"),
        ({"melds": [{"cards": "5H 6H 7H"}]}, {}, "meld 1 names its seat and its cards"),
        ({"hands": ["5H 6H"], "turn": 0}, {}, "seat 0 holds 2 cards, fewer than the 7 it was"),
        (
            {"hands": ["5H 6H 7H"], "melds": [SPENT], "phase": "play", "turn": 0},
            {},
            "less the 4 it put on the table plus the card it drew",
        ),
        (
            {"hands": [0], "melds": [SPENT, {"seat": 0, "cards": "KC KD KH"}]},
            {},
            "seat 0 holds no cards: the hand would have ended",
        ),
        (
            {"hands": [3], "melds": [SPENT], "discard_pile": []},
            {},
            "the stock has 31 cards; the deal leaves it 30",
        ),
        ({"hands": [30, 30], "turn": 0}, {}, "the deal names too many cards"),
        ({"upcard": "KD", "discard_pile": "QD KD"}, {}, "not both"),
        ({"scores": [10, 0, 0]}, {}, "the scores are all 0 before the first hand"),
        ({"scores": [10, 0]}, {}, "'scores' is a list of 3 whole numbers"),
        ({"scores": [510, 20, 0], "hands_played": 3}, {}, "the match would be over"),
        ({"hands_played": 4}, {"max_hands": 4}, "'hands_played' counts the hands before"),
    ],
)
def test_a_deal_the_rules_cannot_reach_is_refused_naming_why(spec, options, message) -> None:
    with pytest.raises(ScenarioError, match=message):
        scenario.deal(GAME, spec, options=options, seats=3)


def test_r2_r5_a_run_from_the_low_ace_to_the_king_keeps_its_ace_low() -> None:
    # A..K is made from A-2-3 laid off up to the king: its ace is worth 1, where the
    # same cards melded at once read 2..A, the ace high (the ruling of R5)
    run = [(c, c, 0) for c in parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")]
    state = Rummy500.at_position(
        get_game(GAME).options(),
        0,
        3,
        dealer=0,
        hands=[parse_cards("2C 3C 4C 5C"), parse_cards("2D 3D 4D 5D 6D 7D 8D"), []],
        discard_pile=[],
        stock=[],
        turn=1,
        table=[run],
    )
    hand = state.view(0).hand
    assert str(hand.melds[0].cards[0].card) == "AS"
    assert hand.melded_points[0] == 1 + (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10) + 10 + 10 + 10
