"""Sampled and chosen positions of Game Flip Flop (``referee.scenario``): a sample
agrees with everything its seat knows (C9) and nothing more, plays on legally, and
deals the unseen cards uniformly among the deals that agree with what the round
showed (F5 answers, F6 reveals, F7 plays); a chosen deal deals what it names (F4)
and refuses what the rules cannot reach."""

from __future__ import annotations

import inspect
import random
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import scenario
from referee.cards import STANDARD_CARDS, cards_of, make_deck, mask_of, parse_card, parse_cards
from referee.engine import IllegalActionError
from referee.games import get_game, new_match
from referee.games.flip_flop import FlipFlop, Phase
from referee.games.flip_flop.deal import declarable
from referee.games.flip_flop.tables import SEAT_ORDERS
from referee.scenario import ScenarioError
from referee.scenario import flip_flop as module
from tests.scenario_support import chi_square_critical, from_the_wire, play_out, texts

GAME = "flip-flop"
VARIANTS = get_game(GAME).test_variants


def playing(state: FlipFlop, rng: random.Random) -> str:
    """A random legal action, seldom a drop (F9): a drop ends the round at once, and
    rounds played on reach positions with more to know."""
    actions = texts(state)
    kept = [a for a in actions if not a.endswith("drop")]
    return rng.choice(kept if kept and rng.random() > 0.05 else actions)


def played(seats: int, seed: int, steps: int, options: dict) -> FlipFlop:
    """A match after ``steps`` random legal actions, or fewer: it stops short of the
    action that would end the match."""
    state = new_match(GAME, seed, seats=seats, options=options)
    assert isinstance(state, FlipFlop)
    rng = random.Random(seed)
    for _ in range(steps):
        after = state.clone()
        after.apply_checked(playing(after, rng))
        if after.is_over():
            break
        state = after
    return state


def sampled(state: FlipFlop, seat: int, rng: random.Random, options: dict) -> FlipFlop:
    result = scenario.sample(
        from_the_wire(state, seat), state.events_for(seat), rng, options=options
    )
    assert isinstance(result, FlipFlop)
    return result


def hidden_places(state: FlipFlop, seat: int) -> dict[str, Counter]:
    """Where the cards ``seat`` cannot see lie (test-side): each other hand beyond its
    face-up cards, and the stock."""
    places = {
        f"seat {s}": Counter(cards_of(state.hands[s] & ~state.known[s]))
        for s in state.order
        if s != seat
    }
    places["stock"] = Counter(state.stock[state.stock_pos :])
    return places


def opening_hands(state: FlipFlop) -> dict[int, int]:
    """Each seat's opening hand this round, read from the full log (test-side)."""
    events = state.events
    opened = f"round {state.round_no}: "
    start = max(i for i, e in enumerate(events) if e.seat is None and e.text.startswith(opened))
    return {
        e.seat: mask_of(parse_cards(e.text[len("dealt ") :]))
        for e in events[start:]
        if e.seat is not None and e.text.startswith("dealt ")
    }


positions = st.tuples(
    st.integers(3, 5),
    st.integers(0, 2**32),
    st.integers(0, 400),
    st.integers(0, len(VARIANTS) - 1),
)


# -- what a sample agrees with ---------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_c9_a_sample_shows_its_seat_exactly_the_seats_view(position, sample_seed) -> None:
    seats, seed, steps, variant = position
    options = VARIANTS[variant]
    state = played(seats, seed, steps, options)
    rng = random.Random(sample_seed)
    for seat in range(seats):
        assert sampled(state, seat, rng, options).view(seat) == state.view(seat)


@settings(max_examples=40, deadline=None)
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
        assert sorted(result.ranks)[0] == 0
        left = sum(result.detail["pots"].values())  # F2: stakes are never made or lost
        assert sum(result.scores) + left == seats * get_game(GAME).options(options).starting_stakes


@settings(max_examples=40, deadline=None)
@given(positions)
def test_f5_f6_f7_what_a_seat_infers_of_the_opening_hands_is_true_of_the_real_deal(
    position,
) -> None:
    """The facts the sample conditions on hold of the real deal: no card the F6 reveals
    exclude, every card known to be there (flip card, reveals), the 49/50 answers; and
    the real deal has ways to have come about (F7): the truth is never ruled out."""
    seats, seed, steps, variant = position
    state = played(seats, seed, steps, VARIANTS[variant])
    real = opening_hands(state)
    for seat in range(seats):
        view = state.view(seat)
        others, _ = module._read_round(view, state.events_for(seat))
        module._learn(view, others)
        for s in others.values():
            assert not real[s.seat] & s.excluded, (seat, s)
            assert real[s.seat] & s.opening == s.opening
            assert s.fact is None or declarable(real[s.seat]) == s.fact
            hidden = cards_of(state.hands[s.seat] & ~state.known[s.seat])
            assert s.ways(s.items(hidden))[-1][s.free] > 0


def test_f6_samples_agree_at_every_step_of_rounds_with_reveals_and_low_bankrolls() -> None:
    """Reveals (F6) and all-in seats (F3), met along random matches (the 49/50
    question, rarer, has tests of its own below)."""
    met: Counter = Counter()
    for seed in range(4):
        options = VARIANTS[seed % len(VARIANTS)]
        state = new_match(GAME, seed, seats=3 + seed % 3, options=options)
        assert isinstance(state, FlipFlop)
        rng = random.Random(seed)
        while not state.is_over():
            met[state.phase] += 1
            met["reveals"] += bool(state.reveals)
            met["all in"] += 1 in state.stakes.eligible
            for seat in range(state.num_seats):
                sample = sampled(state, seat, rng, options)
                assert sample.view(seat) == state.view(seat)
                assert seat != state.to_act() or texts(sample) == texts(state)
            state.apply_checked(playing(state, rng))
    assert met["reveals"] >= 300 and met["all in"] >= 50 and met[Phase.PLAY] >= 200, met


# -- uniformity ------------------------------------------------------------------------------


def test_c9_before_anyone_acts_every_unseen_card_lands_in_each_hidden_place_uniformly() -> None:
    """At a round's first turn, the seat to act has seen nobody reveal or play: every
    unseen card lies in each other hand (beyond the dealer's flip card) and the stock
    at the rate of a uniform deal. (The one thing the round told is that nobody was
    asked about 49 or 50, F5: it moves these rates by well under 1%.) The real hidden
    cards are not favoured: a leak would put them where they really are."""
    for seats, seed in ((3, 3), (5, 8)):
        state = new_match(GAME, seed, seats=seats)
        assert isinstance(state, FlipFlop) and state.phase is Phase.DRAW
        seat = state.to_act()
        real = hidden_places(state, seat)
        unseen = sum(real.values(), Counter())
        free = {p: cards.total() for p, cards in real.items()}
        total = unseen.total()
        samples = 3000
        landed: dict[str, Counter] = {p: Counter() for p in real}
        rng = random.Random(seed)
        for _ in range(samples):
            for p, cards in hidden_places(sampled(state, seat, rng, {}), seat).items():
                landed[p].update(cards)
        stat = 0.0
        for card in unseen:
            for p in real:
                expected = samples * free[p] / total
                stat += (landed[p][card] - expected) ** 2 / expected
        df = len(unseen) * (len(real) - 1)
        assert stat < chi_square_critical(df), (stat, df)
        for p, cards in real.items():
            if p != "stock":
                rate = sum(landed[p][c] for c in cards) / (samples * len(cards))
                assert rate < free[p] / total + 0.05, (p, rate)


#: A round of three dealt by seat 2, the flip card 9H (hearts the flip suit, diamonds the
#: flop suit). Seat 0 reveals 4H and no diamond: it held no AH-3H and no diamond (F6).
#: Seat 1 reveals 5D. Seat 2 reveals nothing: it held no AH-3H, no AD-4D.
SHOWN = {
    "dealer": 2,
    "hands": ["4H 7C KS 2C JC", "5D 8S 3S TD QC", "6S 2S KC 8D 9H"],
}
SHOWN_PLAY = (
    "reveal 4H, draw stock",
    "discard JC",
    "reveal 5D, draw discard",
    "discard 8S",
    "draw stock",
    "discard KC",
    "draw stock",
    "discard 7C",
)
#: The cards seat 1 sees played of unknown origin, each with the seat that played it and
#: the stock draws it had made by then (F7): they lay in its opening hand or those draws.
SHOWN_PLAYED = {parse_card("JC"): (0, 1), parse_card("KC"): (2, 1), parse_card("7C"): (0, 2)}


def reference_deals(spec: dict, actions: tuple[str, ...], seat: int, count: int, seed: int):
    """Deals agreeing with all ``seat`` knows, drawn independently of the sampler: whole
    decks at random, the seat's own cards and the flip card where they were, replayed
    through the engine and kept when every action is legal for the same seat and the
    seat is told exactly the same events (rejection from the true deal). Cards that
    must lie in a set of places (revealed cards in the opening hand, played cards among
    the opening hand and the draws before, ``SHOWN_PLAYED``) are put in one of those
    places at random first, which only skips deals that would be rejected."""
    real = scenario.deal(GAME, spec, seats=3, seed=seed)
    assert isinstance(real, FlipFlop)
    deck = list(real.stock)  # the whole deck, dealt from its top
    order = SEAT_ORDERS[3][real.dealer]
    opening = {s: [j + 3 * i for i in range(5)] for j, s in enumerate(order)}
    draws: dict[int, list[int]] = {s: [] for s in order}
    actors = []
    for text in actions:
        actors.append(real.to_act())
        if text.endswith("draw stock"):
            draws[real.turn].append(real.stock_pos)
        real.apply_checked(text)
    told = [e.text for e in real.events_for(seat)]
    fixed = set(opening[seat]) | set(draws[seat]) | {14}  # 14: the flip card's place
    musts = [
        (c, opening[s][:4] if s == real.dealer else opening[s])
        for s, _, c in real.reveals
        if s != seat
    ]
    musts += [
        (c, [p for p in opening[s] + draws[s][:k] if p not in fixed])
        for c, (s, k) in SHOWN_PLAYED.items()
    ]
    musts.sort(key=lambda must: len(must[1]))  # nested sets: the smaller first
    loose = [c for i, c in enumerate(deck) if i not in fixed and c not in dict(musts)]
    rng = random.Random(seed)
    kept = []
    while len(kept) < count:
        trial = [deck[i] if i in fixed else None for i in range(52)]
        for card, places in musts:
            trial[rng.choice([p for p in places if trial[p] is None])] = card
        rng.shuffle(loose)
        rest = iter(loose)
        trial = [next(rest) if c is None else c for c in trial]
        state = FlipFlop(real.options, seed, 3, [trial], dealer=real.dealer)
        try:
            for actor, text in zip(actors, actions, strict=True):
                assert state.to_act() == actor
                state.apply_checked(text)
        except (AssertionError, IllegalActionError):
            continue
        if [e.text for e in state.events_for(seat)] == told:
            kept.append(state)
    return real, kept


def test_c9_f6_f7_unseen_cards_land_where_the_true_deal_puts_them_after_reveals_and_plays():
    """After a round of reveals and plays, seat 1's samples put each unseen card in each
    hidden place as often as deals drawn from the true deal and kept when they agree
    with all seat 1 was told (a two-sample chi-square test, card by card): cards the
    F6 reveals exclude from an opening hand reach that hand only by its stock draws."""
    real, reference = reference_deals(SHOWN, SHOWN_PLAY, 1, 2000, 5)
    rng = random.Random(6)
    ours = [sampled(real, 1, rng, {}) for _ in range(3000)]
    counts = []
    for states in (ours, reference):
        landed: dict[str, Counter] = {p: Counter() for p in hidden_places(real, 1)}
        for state in states:
            for p, cards in hidden_places(state, 1).items():
                landed[p].update(cards)
        counts.append(landed)
    unseen = sum(hidden_places(real, 1).values(), Counter())
    stat, df = 0.0, 0
    for card in unseen:
        rows = [[landed[p][card] for p in landed] for landed in counts]
        sizes = [sum(r) for r in rows]
        places = [p for p in range(len(rows[0])) if rows[0][p] + rows[1][p]]
        df += len(places) - 1
        for r, size in zip(rows, sizes, strict=True):
            for p in places:
                expected = size * (rows[0][p] + rows[1][p]) / sum(sizes)
                stat += (r[p] - expected) ** 2 / expected
    assert stat < chi_square_critical(df), (stat, df)
    # the facts themselves: seat 0's hidden diamonds are at most its two stock draws
    diamonds = mask_of(c for c in unseen if c.suit == 1)
    for state in ours:
        assert (state.hands[0] & diamonds).bit_count() <= 2


def test_f5_a_seat_that_passed_on_50_holds_49_or_50_in_every_sample() -> None:
    # seat 0 is asked and passes; seat 1, asked next, holds 50 too: seat 2 sees both
    state = scenario.deal(
        GAME,
        {"dealer": 2, "hands": ["KS KH KD KC QS", "QH QD QC JS JH", "2C 3C 4C 5C 6C"]},
        seats=3,
        seed=1,
    )
    state.apply_checked("pass")
    assert state.to_act() == 1 and state.phase is Phase.DECLARE
    rng = random.Random(3)
    assert texts(sampled(state, 1, rng, {})) == ["declare 50", "pass"]
    hands = set()
    for _ in range(300):
        sample = sampled(state, 2, rng, {})
        assert declarable(sample.hands[0]) and declarable(sample.hands[1])
        hands.add(sample.hands[0])
    assert len(hands) > 200  # still drawn at random
    state.apply_checked("pass")  # play begins: the answers still hold
    view = state.view(2)
    others, _ = module._read_round(view, state.events_for(2))
    module._learn(view, others)
    assert [others[0].fact, others[1].fact] == [True, True]
    for _ in range(100):
        sample = sampled(state, 2, rng, {})
        assert declarable(sample.hands[0]) and declarable(sample.hands[1])


def test_f5_a_seat_not_asked_never_holds_49_or_50() -> None:
    # the dealer shows KH: about one deal in 50 would give it 49 or 50 with its four
    # unseen cards, but it was not asked, so it holds neither in any sample
    state = scenario.deal(
        GAME, {"dealer": 2, "hands": ["", "2C 3C 4C 5C 6C", "2D 3D 4D 5D KH"]}, seats=3, seed=2
    )
    assert state.phase is Phase.DRAW and state.to_act() == 0
    view = state.view(1)
    others, _ = module._read_round(view, state.events_for(1))
    module._learn(view, others)
    assert [others[0].fact, others[2].fact] == [False, False]
    rng = random.Random(4)
    for _ in range(1000):
        sample = sampled(state, 1, rng, {})
        assert not declarable(sample.hands[0]) and not declarable(sample.hands[2])


# -- the counting the sample rests on ---------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.booleans()), max_size=4),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(1, 3),
)
def test_f6_f7_the_ways_a_seats_cards_came_are_counted_as_one_by_one_counting_does(
    played_cards, hidden, excluded_hidden, free
) -> None:
    """``_Seat.ways`` against every placement of the cards counted one by one: each card
    of unknown origin in a free place of the opening hand (not if F6 excludes it) or in
    one of the stock draws made by the time it was played (F7)."""
    draws = len(played_cards) + hidden - free
    if draws < max([k for k, _ in played_cards], default=0) or draws < 0:
        return
    excluded_hidden = min(excluded_hidden, hidden)
    cards = iter(STANDARD_CARDS)  # clubs and diamonds; the known cards are spades
    seat = module._Seat(0, draws=draws)
    seat.opening = mask_of(STANDARD_CARDS[-(5 - free) :]) if free < 5 else 0
    kinds = []
    for k, excluded in played_cards:
        c = next(cards)
        seat.played.append((c, k))
        seat.excluded |= excluded << c
        kinds.append((k, excluded))
    held = [next(cards) for _ in range(hidden)]
    for c in held[:excluded_hidden]:
        seat.excluded |= 1 << c
    kinds += [(draws, i < excluded_hidden) for i in range(hidden)]
    places = ["opening"] * free + list(range(1, draws + 1))  # opening places alike
    count = 0
    for placement in set(permutations(places)):
        count += all(
            (not excluded) if place == "opening" else place <= k
            for place, (k, excluded) in zip(placement, kinds, strict=True)
        )
    assert seat.ways(seat.items(held))[-1][free] == count


# -- no leak -----------------------------------------------------------------------------------


def test_c9_the_sampler_is_never_given_the_state() -> None:
    assert list(inspect.signature(module.sample).parameters) == ["view", "events", "rng", "options"]


def test_the_sample_needs_the_rounds_events() -> None:
    state = played(4, 2, 12, {})
    with pytest.raises(ScenarioError, match="needs the events of round"):
        scenario.sample(from_the_wire(state, 0))


def test_a_finished_match_has_nothing_to_sample() -> None:
    state = new_match(GAME, 1, options={"max_rounds": 1})
    rng = random.Random(1)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    with pytest.raises(ScenarioError, match="the match is over"):
        scenario.sample(from_the_wire(state, 0), state.events_for(0), options={"max_rounds": 1})


# -- the position constructor ----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(positions)
def test_a_position_built_from_a_states_own_cards_plays_on_as_that_state(position) -> None:
    """``FlipFlop.at_position`` given the real cards works out the same reveals due,
    flip and flop winners and 49/50 questions (F5, F6) as the deal did, and plays the
    round to the same end."""
    seats, seed, steps, variant = position
    state = played(seats, seed, steps, VARIANTS[variant])
    s = state.stakes
    built = FlipFlop.at_position(
        state.options,
        seed,
        seats,
        bankrolls=s.bankroll,
        set_aside=s.set_aside,
        eligible=s.eligible,
        eliminated_in=s.eliminated_in,
        pots=s.pots,
        round_no=state.round_no,
        dealer=state.dealer,
        flip_card=state.flip_card,
        hands=[cards_of(h) for h in state.hands],
        face_up=[cards_of(k & h) for k, h in zip(state.known, state.hands, strict=True)],
        stock=state.stock[state.stock_pos :],
        discard_pile=state.discard_pile,
        spreads=list(zip(state.spread_owners, map(cards_of, state.spread_masks), strict=True)),
        phase=state.phase,
        turn=state.turn,
        turns=state.turns,
        taken=None if state.taken < 0 else state.taken,
        declared=state.declared,
        reveals=state.reveals,
        side_result=state.side_result,
        last_round=state.last_round(),
    )
    for name in ("pending", "winners", "declare_queue", "started", "side_paid", "order"):
        assert getattr(built, name) == getattr(state, name), name
    rng = random.Random(seed)
    round_no = state.round_no
    while state.round_no == round_no and not state.is_over():
        assert [state.view(k) for k in range(seats)] == [built.view(k) for k in range(seats)]
        action = rng.choice(texts(state))
        state.apply_checked(action)
        built.apply_checked(action)
    assert built.last_round() == state.last_round()
    assert built.stakes.bankroll == state.stakes.bankroll and built.stakes.pots == state.stakes.pots


# -- chosen deals ----------------------------------------------------------------------------


def test_f4_a_chosen_deal_deals_the_named_hands_flip_card_stock_and_dealer() -> None:
    hands = ["AS 2S 3S 4S 6D", "AH 2H 3H 4H 6C", "AC 2C 3C 4C 7H", "AD 2D 3D 4D 7S"]
    state = scenario.deal(GAME, {"dealer": 3, "hands": hands, "stock": "QC JC"}, seats=4, seed=9)
    assert isinstance(state, FlipFlop)
    for seat, cards in enumerate(hands):
        view = state.view(seat)
        assert sorted(view.hand) == sorted(parse_cards(cards))
    view = state.view(0)
    assert view.dealer == 3 and view.to_act == 0  # play starts left of the dealer (F7)
    assert view.flip_card == parse_card("7S")  # the dealer's fifth card (F4)
    assert view.players[3].face_up == (parse_card("7S"),)
    assert view.stock_size == 52 - 20
    state.apply_checked("reveal AS, draw stock")  # spades the flip suit, clubs the flop (F6)
    assert parse_card("QC") in state.view(0).hand
    told = [e.text for e in state.events_for(0)]
    assert told[0] == "seat 3 deals first" and told[1].startswith("round 1: seat 3 deals")
    assert told[2:4] == ["dealt 6D AS 2S 3S 4S", "flip card 7S"]  # dealt as F4 deals


def test_c6_what_a_deal_leaves_out_is_dealt_from_its_seed() -> None:
    spec = {"dealer": 0, "hands": ["", "AS 2S 3S 4S 5S"]}
    a = scenario.deal(GAME, spec, seats=3, seed=5)
    b = scenario.deal(GAME, spec, seats=3, seed=5)
    c = scenario.deal(GAME, spec, seats=3, seed=6)
    assert a.view(0) == b.view(0)
    assert a.view(0) != c.view(0)
    assert a.view(1).hand == c.view(1).hand == tuple(parse_cards("AS 2S 3S 4S 5S"))


def test_f5_a_chosen_deal_of_fifty_starts_with_the_question() -> None:
    state = scenario.deal(GAME, {"dealer": 0, "hands": ["", "KS KH KD KC QS"]}, seats=3)
    assert state.view(1).phase == Phase.DECLARE.value
    assert state.view(1).legal_actions == ("declare 50", "pass")


def test_a_deal_file_names_the_deal(tmp_path) -> None:
    path = tmp_path / "deal.toml"
    path.write_text(
        'game = "flip-flop"\n'
        "seats = 3\n"
        "seed = 7\n"
        "options = {starting_stakes = 3}\n"
        "[deal]\n"
        "dealer = 1\n"
        'hands = ["5H 6H 7H 8C 9C", "", "QD KD 2S 3S 4S"]\n'
        'stock = ["TC"]\n'
    )
    state = scenario.deal_from_file(path)
    view = state.view(2)
    assert view.to_act == 2 and view.flip_card is not None and view.pots == (3, 3, 0)  # F3
    assert state.view(0).players[0].eligible == ("game", "flip")
    state.apply_checked(next(a for a in view.legal_actions if a.endswith("draw stock")))
    assert parse_card("TC") in state.view(2).hand


FIVE = "AS 2S 3S 4S 5S"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"hands": ["AS AS 3S 4S 5S"]}, "AS is named twice"),
        ({"hands": [FIVE], "stock": "5S"}, "5S is named twice"),
        ({"stock": "JK"}, "JK is not a card of this game's pack"),
        ({"hands": ["AS 2S 3S"]}, "seat 0's hand has 3 cards; each player is dealt 5"),
        ({"hands": ["", "", "AS 2S 3S 4S 5S 6S"]}, "seat 2's hand has 6 cards"),
        ({"hands": ["ZZ"]}, "seat 0's hand"),
        ({"hands": [FIVE, "", "", ""]}, "'hands' is a list of at most 3 hands"),
        ({"hands": "AS 2S"}, "'hands' is a list"),
        ({"dealer": 3}, "the dealer is a seat 0..2, not 3"),
        ({"dealer": True}, "the dealer is a seat"),
        ({"bankrolls": [40, 40, 40]}, "unknown key 'bankrolls' in a flip-flop deal; keys are"),
        ({"stock": [str(c) for c in make_deck()[:40]]}, "the deal names too many cards"),
    ],
)
def test_a_deal_the_rules_cannot_reach_is_refused_naming_why(spec, message) -> None:
    with pytest.raises(ScenarioError, match=message):
        scenario.deal(GAME, spec, seats=3)
