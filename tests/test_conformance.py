"""One conformance suite over every registered game (after OpenSpiel's API test).

For every game, at every seat count and option variant the game declares
(``GameSpec.test_variants``): random playouts never stall, never raise and end
within the caps and the game's ``most_actions``; no legal action leaves the seat
to act without one (C7); the same seed and actions give the same record; every
seat's view shows only cards the seat may know, by a model built from the deal,
its own draws and the public events (the hidden-information test, C9); results
are consistent; every action's text round-trips.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest

from referee.engine import Action, GameSpec, GameState, IllegalActionError, Result
from referee.games import game_names, get_game
from tests.knowledge import HAND_FIELDS, Knowledge, view_leaks

PLAYOUTS_PER_GAME = 1000
LOOKAHEAD_DECISIONS = 40  # per seat count and option variant, where every action is tried
C9_DECISIONS = 300  # per seat count and option variant, in the hidden-information test
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
    """1,000 seeded random playouts per game never stall, never raise, end within caps,
    and take no more actions than the game's ``most_actions`` (the match's wall-clock
    cap is made from it)."""
    spec = get_game(game)
    runs = combos(spec)
    for i in range(PLAYOUTS_PER_GAME):
        seats, options = runs[i % len(runs)]
        state = spec.new_match(i, seats=seats, options=options)
        most = spec.most_actions(spec.options(options), seats)
        for _ in random_playout(state, random.Random(i), limit=most + 1):
            pass
        check_result(spec, state, options)


@pytest.mark.parametrize("game", game_names())
def test_c7_no_legal_action_leaves_the_seat_to_act_without_one(game: str) -> None:
    """C7: at decisions spread over a playout of every seat count and option variant,
    every legal action, not only the one random play picks, leads to the end of the
    match or to a seat to act with a legal action: no offered move strands a player."""
    spec = get_game(game)
    for i, (seats, options) in enumerate(combos(spec)):
        seed = 3_000 + i
        first = spec.new_match(seed, seats=seats, options=options)
        length = sum(1 for _ in random_playout(first, random.Random(seed)))
        stride = max(1, length // LOOKAHEAD_DECISIONS)  # the checks spread over the match
        state = spec.new_match(seed, seats=seats, options=options)
        for step, (st, _) in enumerate(random_playout(state, random.Random(seed))):
            if step % stride:
                continue
            for action in st.legal_actions():
                after = st.clone()
                after.apply(action)
                seat = after.to_act()
                assert seat is None or after.legal_actions(), (
                    f"{game} ({seats} seats, {options}, seed {seed}, decision {step}): "
                    f"after {action}, seat {seat} has no legal action"
                )


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


CLONE_POINTS = 6  # per seat count and option variant, spread over the match


def clone_points(spec: GameSpec) -> Iterator[tuple[GameState, int]]:
    """States spread over a playout of every seat count and option variant of ``spec``,
    each with a seed for what is played from it."""
    for i, (seats, options) in enumerate(combos(spec)):
        seed = 6_000 + i
        length = sum(
            1
            for _ in random_playout(
                spec.new_match(seed, seats=seats, options=options), random.Random(seed)
            )
        )
        stride = max(1, length // CLONE_POINTS)
        state = spec.new_match(seed, seats=seats, options=options)
        for step, (st, _) in enumerate(random_playout(state, random.Random(seed))):
            if step % stride == 0:
                yield st, seed + step


def play_alike(a: GameState, b: GameState, seed: int) -> None:
    """Play ``a`` and ``b`` with the same random actions to the end, asserting that they
    agree at every decision: every seat's view, the legal actions, the events."""
    rng = random.Random(seed)
    while True:
        assert a.to_act() == b.to_act()
        for seat in range(a.num_seats):
            assert a.view(seat) == b.view(seat)
        assert a.legal_actions() == b.legal_actions()
        if a.is_over():
            break
        action = rng.choice(a.legal_actions())
        a.apply(action)
        b.apply(action)
    assert [str(e) for e in a.events] == [str(e) for e in b.events]
    assert a.result() == b.result()


@pytest.mark.parametrize("game", game_names())
def test_clone_is_independent(game: str) -> None:
    """A clone (what the sampler's users and the search bot copy positions with) goes
    its own way without touching the original, and reproduces the original's future:
    at points spread over matches of every seat count and variant, the original played
    on after its clone was played to the end goes exactly as a deep copy made beside
    the clone, and so does the clone itself."""
    spec = get_game(game)
    for state, seed in clone_points(spec):
        reference = copy.deepcopy(state)
        again = copy.deepcopy(state)
        clone = state.clone()
        for _ in random_playout(clone, random.Random(seed + 1)):
            pass
        original = copy.deepcopy(state)  # the playout's state goes on: play a copy
        play_alike(original, reference, seed)
        play_alike(state.clone(), again, seed + 2)


class Foreign(Action):
    """An action no game has."""

    def __str__(self) -> str:
        return "foreign"


@pytest.mark.parametrize("game", game_names())
def test_apply_refuses_an_action_of_no_kind_it_knows(game: str) -> None:
    """``apply`` trusts its caller, but an action of a kind the engine has no method for
    is an IllegalActionError naming it, never another exception."""
    state = get_game(game).new_match(1)
    rng = random.Random(1)
    for _ in range(4):
        with pytest.raises(IllegalActionError, match="foreign is not"):
            state.apply(Foreign())
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game", game_names())
def test_clone_names_every_field_it_changes(game: str) -> None:
    """``clone`` shares every field but those in ``copied``: every list, dict or set a
    state holds is named there, or in ``shared`` as one the engine never changes in
    place, so a field added to an engine cannot be shared by its clones unseen."""
    spec = get_game(game)
    for state, _ in clone_points(spec):
        declared = state.copied.keys() | state.shared
        for name, value in vars(state).items():
            if isinstance(value, list | dict | set):
                assert name in declared, f"{game}: {name} is in neither copied nor shared"
        assert declared <= vars(state).keys(), declared - vars(state).keys()


def c9_leaks(game: str, decisions: int = C9_DECISIONS) -> Iterator[str]:
    """Random playouts of every seat count and option variant of ``game``, at least
    ``decisions`` decisions of each. At every decision the view of the seat to act
    and of one other seat in turn, and at the end every seat's view, is checked
    against what the seat may know by the events it was told (tests/knowledge.py);
    each card it may not know is yielded as a leak."""
    spec = get_game(game)
    for i, (seats, options) in enumerate(combos(spec)):
        played = trial = 0
        while played < decisions:
            seed = 500 + 100 * i + trial
            trial += 1
            state = spec.new_match(seed, seats=seats, options=options)
            model = Knowledge(range(seats))
            for st, _ in random_playout(state, random.Random(seed)):
                played += 1
                model.follow(st)
                to_act = st.to_act()
                assert to_act is not None
                yield from _leaks(game, model, st, {to_act, played % seats}, options)
            model.follow(state)
            yield from _leaks(game, model, state, set(range(seats)), options)


def _leaks(
    game: str, model: Knowledge, state: GameState, seats: set[int], options: dict[str, Any]
) -> Iterator[str]:
    for seat in sorted(seats):
        for leak in view_leaks(game, model[seat], state.view(seat)):
            where = f"{state.num_seats} seats, {options}, after {len(state.events)} events"
            yield f"{game} ({where}): {leak}"


@pytest.mark.parametrize("game", game_names())
def test_c9_views_show_only_cards_the_seat_may_know(game: str) -> None:
    """C9: in random playouts (the seat to act and one other seat in turn at every
    decision, every seat at the end), every card a view shows is one the seat was
    told of this hand (in the last hand's summary: that hand's too) by the deal, its
    own draws and the public events, and a card shown in a seat's hand is one it
    knows to be there. The model of what a seat may know is built from the event
    log (tests/knowledge.py), never from a view."""
    assert game in HAND_FIELDS, f"tests/knowledge.py does not know where {game} shows hands"
    leaks = list(itertools.islice(c9_leaks(game), 10))
    assert not leaks, "\n".join(leaks)


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
