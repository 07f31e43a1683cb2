"""C9's checks shown to catch leaks: each game's view is made to show other seats'
hands (planted here, by wrapping the view; the engines are untouched), and the
conformance suite's check and the wire check must both report it. Also what the
knowledge model (tests/knowledge.py) lets a seat know, rule by rule."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from referee.engine import GameState
from referee.games import game_names, get_game
from referee.wire import decision_message
from tests.knowledge import GAME_POT, VERB, Knowledge, known_cards, view_leaks
from tests.test_conformance import c9_leaks, combos
from tests.test_referee_hidden import seat_leaks

View = Callable[[GameState, int], Any]


def _gin_hands(view: View, state: GameState, seat: int) -> Any:
    """Hollywood Gin and Gin for three: the opponent's whole hand as ``opponent_known``
    (and, for Gin for three's sitter, the box's in the hand it advises on)."""
    v = view(state, seat)
    changes = {}
    for part in ("hand", "advising"):
        hand = getattr(v, part, None)
        if hand is not None:
            theirs = view(state, hand.opponent).hand.hand
            changes[part] = dataclasses.replace(hand, opponent_known=theirs)
    return dataclasses.replace(v, **changes)


def _rummy500_hands(view: View, state: GameState, seat: int) -> Any:
    """Rummy 500: ``known`` lists every seat's whole hand."""
    v = view(state, seat)
    if v.hand is None:
        return v
    known = tuple(view(state, s).hand.hand for s in range(state.num_seats))
    return dataclasses.replace(v, hand=dataclasses.replace(v.hand, known=known))


def _flip_flop_hands(view: View, state: GameState, seat: int) -> Any:
    """Flip Flop: every player's ``face_up`` is that player's whole hand."""
    v = view(state, seat)
    players = tuple(dataclasses.replace(p, face_up=view(state, p.seat).hand) for p in v.players)
    return dataclasses.replace(v, players=players)


#: Per game, a view that carries the other seats' hands along.
LEAKY_VIEWS: dict[str, Callable[[View, GameState, int], Any]] = {
    "hollywood-gin": _gin_hands,
    "gin-three": _gin_hands,
    "rummy-500": _rummy500_hands,
    "flip-flop": _flip_flop_hands,
}


def plant_leak(monkeypatch: pytest.MonkeyPatch, game: str) -> None:
    """Make every view of ``game`` show the other seats' hands, for this test only."""
    assert game in LEAKY_VIEWS, f"no leak to plant in {game}'s view"
    engine = type(get_game(game).new_match(1))
    honest: View = engine.view
    leaky = LEAKY_VIEWS[game]
    monkeypatch.setattr(engine, "view", lambda self, seat: leaky(honest, self, seat))


@pytest.mark.parametrize("game", game_names())
def test_c9_the_view_check_reports_other_seats_hands(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """The conformance suite's C9 check fails on views that show other seats' hands."""
    plant_leak(monkeypatch, game)
    leak = next(c9_leaks(game), None)
    assert leak is not None, f"{game}: views showing other seats' hands passed the C9 check"
    assert "was not told of it" in leak or "does not know them to be there" in leak, leak


@pytest.mark.parametrize("game", game_names())
def test_c9_the_wire_check_reports_other_seats_hands(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """The wire check passes a decision as the referee sends it, and fails it once
    the view in it shows other seats' hands."""
    state = get_game(game).new_match(5)
    seat = state.to_act()
    assert seat is not None
    model = Knowledge(range(state.num_seats))
    model.follow(state)
    legal = [str(a) for a in state.legal_actions()]

    def message() -> Any:
        view = state.view(seat)
        return decision_message(0, view, legal, state.events_for(seat), 100, 100)

    assert seat_leaks(game, model[seat], message()) == []
    plant_leak(monkeypatch, game)
    assert seat_leaks(game, model[seat], message()) != []


# -- what the model lets a seat know ----------------------------------------------------------


def test_g2_c9_after_the_deal_a_gin_seat_knows_its_ten_cards_and_the_upcard() -> None:
    state = get_game("hollywood-gin").new_match(3)
    for seat in (0, 1):
        hand = set(state.view(seat).hand.hand)
        upcard = state.view(seat).hand.discard_pile[-1]
        assert known_cards(state.events, seat) == hand | {upcard}


def test_g4_c9_the_card_taken_from_the_discard_pile_is_known_in_the_takers_hand() -> None:
    state = get_game("hollywood-gin").new_match(3)
    taker = state.to_act()
    assert taker is not None
    upcard = state.view(taker).hand.discard_pile[-1]
    state.apply_checked("draw discard")
    model = Knowledge([1 - taker])
    model.follow(state)
    assert model[1 - taker].hand(taker)[upcard] == 1
    keep = next(str(a) for a in state.legal_actions() if str(a).startswith("discard "))
    state.apply_checked(keep)
    model.follow(state)
    assert model[1 - taker].hand(taker)[upcard] == 1  # it was not the card discarded
    assert len(known_cards(state.events, 1 - taker)) == 10 + 2  # own, upcard, the discard


def test_t3_c9_the_sitter_knows_the_captains_hand_and_the_box_does_not() -> None:
    state = get_game("gin-three").new_match(4)
    roles = state.view(0).roles
    captain_hand = set(state.view(roles.captain).hand.hand)
    model = Knowledge(range(3))
    model.follow(state)
    assert set(model[roles.sitter].hand(roles.captain)) == captain_hand
    assert not set(model[roles.box].hand(roles.captain))
    assert not captain_hand & model[roles.box].seen


def test_f4_c9_the_flip_card_is_known_in_the_dealers_hand() -> None:
    state = get_game("flip-flop").new_match(6)
    view = state.view(0)
    model = Knowledge(range(state.num_seats))
    model.follow(state)
    for seat in range(state.num_seats):
        assert model[seat].hand(view.dealer)[view.flip_card] == 1


def test_f7_f11_c9_rounds_played_without_drops_show_only_what_a_seat_may_know() -> None:
    """Random play mostly drops (F9); played without drops, Flip Flop rounds reach
    spreads, lay-offs, going out and the empty stock (F7, F8, F10, F11), and every
    seat's view on the way shows only cards it may know."""
    spec = get_game("flip-flop")
    verbs: Counter[str] = Counter()
    for i, (seats, options) in enumerate(combos(spec)):
        state = spec.new_match(900 + i, seats=seats, options=options)
        rng = random.Random(i)
        model = Knowledge(range(seats))
        while state.to_act() is not None:
            legal = state.legal_actions()
            state.apply(rng.choice([a for a in legal if "drop" not in str(a)] or legal))
            model.follow(state)
            for seat in range(seats):
                leaks = view_leaks("flip-flop", model[seat], state.view(seat))
                assert not leaks, leaks
        verbs.update(m.group(0) for e in state.events if (m := VERB.match(e.text)))
        verbs.update(m.group("ending") for e in state.events if (m := GAME_POT.match(e.text)))
    assert verbs["spread"] and verbs["lay off"] and verbs["empty stock"], verbs


def test_r1_c9_holding_one_copy_of_a_card_says_nothing_of_the_other() -> None:
    """With two packs (R1), a seat holding 7H does not know where the other 7H is: a
    view showing it in another seat's hand leaks, though the seat knows a 7H."""
    spec = get_game("rummy-500")
    for seed in range(100):
        state = spec.new_match(seed, seats=5)
        hands = [state.view(s).hand.hand for s in range(5)]
        shared = [
            (s, p, c) for s in range(5) for p in range(s) for c in set(hands[s]) & set(hands[p])
        ]
        if shared:
            break
    seat, other, card = shared[0]
    model = Knowledge(range(5))
    model.follow(state)
    view = state.view(seat)
    assert view_leaks("rummy-500", model[seat], view) == []
    known = tuple((card,) if s == other else k for s, k in enumerate(view.hand.known))
    leaky = dataclasses.replace(view, hand=dataclasses.replace(view.hand, known=known))
    leaks = view_leaks("rummy-500", model[seat], leaky)
    assert len(leaks) == 1 and "does not know them to be there" in leaks[0], leaks


def test_r8_c9_every_hand_left_at_the_end_of_a_hand_is_shown_to_all() -> None:
    state = get_game("rummy-500").new_match(8, seats=3, options={"max_turns": 6})
    model = Knowledge(range(3))
    while state.view(0).hands_played == 0:
        state.apply(state.legal_actions()[-1])
    model.follow(state)
    left = {c for cards in state.view(0).last_hand.left_in_hand for c in cards}
    assert left
    for seat in range(3):
        assert left <= model[seat].earlier
