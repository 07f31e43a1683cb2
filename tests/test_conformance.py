"""One conformance suite over every registered game (STYLE: OpenSpiel's API test).

For every game, at every seat count and option variant the game declares
(``GameSpec.test_variants``): random playouts never stall, never raise and end
within the caps; the same seed and actions give the same record; a seat's view
is unchanged when cards it has never seen are changed (the hidden-information
leak test, C9); results are consistent; every action's text round-trips.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from referee.cards import Card, SplitMix64
from referee.engine import GameSpec, GameState, Result, game_names, get_game

PLAYOUTS_PER_GAME = 1000
DECISION_CAP = 200_000  # far above any capped match; a playout past it has stalled


def combos(spec: GameSpec) -> list[tuple[int, dict[str, Any]]]:
    """Every (seat count, option variant) the suite plays for ``spec``."""
    return [
        (seats, dict(variant))
        for seats in range(spec.min_seats, spec.max_seats + 1)
        for variant in spec.test_variants
    ]


def random_playout(
    state: GameState, rng: random.Random, limit: int = DECISION_CAP
) -> Iterator[tuple[GameState, Any]]:
    """Play uniformly random legal actions, yielding (state, action) before each apply."""
    for _ in range(limit):
        seat = state.to_act()
        if seat is None:
            return
        legal = state.legal_actions()
        assert legal, f"{state.game}: seat {seat} to act with no legal action"
        action = rng.choice(legal)
        yield state, action
        state.apply(action)
    raise AssertionError(f"{state.game}: no end after {limit} decisions (stalled)")


def check_result(spec: GameSpec, state: GameState, options: dict[str, Any]) -> Result:
    """The result exists, has one rank and score per seat, competition ranks, caps kept."""
    result = state.result()
    assert result is not None, "a match that is over has a result"
    n = state.num_seats
    assert len(result.ranks) == n and len(result.scores) == n
    for rank in result.ranks:
        assert rank == sum(1 for other in result.ranks if other < rank), result.ranks
    opts = spec.options(options)
    for count_key, cap_key in (("hands", "max_hands"), ("rounds", "max_rounds")):
        if count_key in result.detail and hasattr(opts, cap_key):
            assert 1 <= result.detail[count_key] <= getattr(opts, cap_key)
    return result


@pytest.mark.parametrize("game", game_names())
def test_random_playouts_end_within_caps(game: str) -> None:
    """1,000 seeded random playouts per game never stall, never raise, end within caps."""
    spec = get_game(game)
    runs = combos(spec)
    for i in range(PLAYOUTS_PER_GAME):
        seats, options = runs[i % len(runs)]
        state = spec.new_match(i, seats=seats, options=options)
        for _ in random_playout(state, random.Random(i)):
            pass
        check_result(spec, state, options)


@pytest.mark.parametrize("game", game_names())
def test_action_text_round_trips(game: str) -> None:
    """Every legal action met in play parses back from its text to the same value."""
    spec = get_game(game)
    seen = 0
    for i, (seats, options) in enumerate(combos(spec)):
        state = spec.new_match(1000 + i, seats=seats, options=options)
        for st, _ in random_playout(state, random.Random(i)):
            for action in st.legal_actions():
                assert st.parse_action(str(action)) == action, str(action)
                seen += 1
    assert seen > 100


@pytest.mark.parametrize("game", game_names())
def test_same_seed_and_actions_give_same_record(game: str) -> None:
    """Determinism (C6): replaying the actions of a match from its seed reproduces it."""
    spec = get_game(game)
    for i, (seats, options) in enumerate(combos(spec)):
        first = spec.new_match(77 + i, seats=seats, options=options)
        actions = [str(a) for _, a in random_playout(first, random.Random(i))]
        again = spec.new_match(77 + i, seats=seats, options=options)
        for text in actions:
            again.apply_checked(text)
        assert again.is_over()
        assert [str(e) for e in again.events] == [str(e) for e in first.events]
        assert again.result() == first.result()


@pytest.mark.parametrize("game", game_names())
def test_clone_is_independent(game: str) -> None:
    """A clone evolves on its own and reproduces the original's future."""
    spec = get_game(game)
    state = spec.new_match(5)
    rng = random.Random(5)
    for _ in range(15):
        if state.is_over():
            break
        state.apply(rng.choice(state.legal_actions()))
    copy = state.clone()
    before = [str(e) for e in state.events]
    tail = random.Random(9)
    for _ in random_playout(copy, tail):
        pass
    assert [str(e) for e in state.events] == before
    replay_rng = random.Random(9)
    for _ in random_playout(state, replay_rng):
        pass
    assert state.result() == copy.result()


def cards_in(value: Any) -> set[int]:
    """Every Card found anywhere inside a view value."""
    found: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Card):
            found.add(int(v))
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif isinstance(v, tuple | list | set | frozenset):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return found


def stacked_deck(spec: GameSpec, options: dict[str, Any], seats: int, seed: int) -> list[Card]:
    deck = list(spec.deck(spec.options(options), seats))
    SplitMix64(seed).shuffle(deck)
    return deck


def replay(
    spec: GameSpec,
    seed: int,
    seats: int,
    options: dict[str, Any],
    deck: list[Card],
    actions: list[Any],
) -> GameState | None:
    """The state after ``actions`` from the stacked ``deck``, or None if one is illegal."""
    state = spec.new_match(seed, seats=seats, options=options, decks=[deck])
    for action in actions:
        if action not in state.legal_actions():
            return None
        state.apply(action)
    return state


def observation(state: GameState, seat: int) -> tuple[Any, ...]:
    legal = state.legal_actions() if state.to_act() == seat else []
    return state.view(seat), [str(e) for e in state.events_for(seat)], legal


@pytest.mark.parametrize("game", game_names())
def test_views_leak_no_hidden_card(game: str) -> None:
    """C9: changing cards a seat has never seen leaves its view, events and legal
    actions unchanged."""
    spec = get_game(game)
    compared = 0
    for i, (seats, options) in enumerate(combos(spec)):
        for trial in range(3):
            seed = 500 + 10 * i + trial
            rng = random.Random(seed)
            deck = stacked_deck(spec, options, seats, seed)
            state = spec.new_match(seed, seats=seats, options=options, decks=[deck])
            seen: list[set[int]] = [set() for _ in range(seats)]
            actions: list[Any] = []
            checkpoints = {3, 8, 20, 45}
            for step, (st, action) in enumerate(random_playout(state, rng)):
                for s in range(seats):
                    seen[s] |= cards_in(st.view(s))
                if step in checkpoints:
                    compared += _compare_with_swaps(
                        spec, seed, seats, options, deck, actions, st, seen, rng
                    )
                actions.append(action)
                if step > max(checkpoints):
                    break
    assert compared >= 10, f"{game}: only {compared} leak comparisons could be made"


def _compare_with_swaps(
    spec: GameSpec,
    seed: int,
    seats: int,
    options: dict[str, Any],
    deck: list[Card],
    actions: list[Any],
    state: GameState,
    seen: list[set[int]],
    rng: random.Random,
) -> int:
    compared = 0
    for seat in range(seats):
        hidden = [p for p, c in enumerate(deck) if int(c) not in seen[seat]]
        for _ in range(2):
            if len(hidden) < 2:
                break
            a, b = rng.sample(hidden, 2)
            if deck[a] == deck[b]:
                continue
            other = list(deck)
            other[a], other[b] = other[b], other[a]
            twin = replay(spec, seed, seats, options, other, actions)
            if twin is None:
                continue  # another seat's action became illegal: not this seat's business
            assert observation(twin, seat) == observation(state, seat), (
                f"{spec.name}: seat {seat} can tell {deck[a]} from {deck[b]} after "
                f"{len(actions)} actions"
            )
            compared += 1
    return compared


@pytest.mark.parametrize("game", game_names())
def test_views_list_the_legal_actions_texts_in_order(game: str) -> None:
    """The view of the seat to act lists exactly ``str(a)`` of each legal action, in
    order: the referee sends those texts and records them (engines may make the texts
    alongside the actions, from tables, rather than with ``str``)."""
    spec = get_game(game)
    for i, (seats, variant) in enumerate(combos(spec)):
        state = spec.new_match(7_000 + i, seats=seats, options=variant)
        for step, (st, _) in enumerate(random_playout(state, random.Random(i))):
            if step % 3:
                continue
            seat = st.to_act()
            assert seat is not None
            view = st.view(seat)
            assert tuple(view.legal_actions) == tuple(str(a) for a in st.legal_actions())
