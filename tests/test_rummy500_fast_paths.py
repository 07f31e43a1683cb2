"""The Rummy 500 engine's fast paths against the plain rule checks they inline.

The deep-draw scan (R4), the rummy-call scan (R6) and the filter that keeps an
owed card meldable (R4) test cards with bit-mask shortcuts for speed. Here,
along random playouts at every table size, their answers are compared with
:func:`meldable` called card by card and with a plain list filter, as the
engine computed them before the shortcuts.
"""

from __future__ import annotations

import random

import pytest

from referee.engine import Action
from referee.games.rummy500 import (
    CALL,
    DECLINE,
    DRAW,
    JK,
    PLAY,
    SPEC,
    DrawDeep,
    LayOff,
    NewMeld,
    Rummy500,
    call_rummy,
    deep_draw,
    holds,
    lay_off,
)
from referee.games.rummy500.legal import still_meldable
from referee.games.rummy500.melds import meldable, pos_card


def _reference_deep_draws(s: Rummy500) -> list[Action]:
    seat = s.turn
    pile = s.pile
    out: list[Action] = []
    if len(pile) < 2:
        return out
    pool, jokers = s.held[seat], s.jokers_held[seat]
    if pile[-1] == JK:
        jokers += 1
    else:
        pool |= 1 << pile[-1]
    for depth in range(2, len(pile) + 1):
        c = pile[-depth]
        if meldable(c, pool, jokers, s.accept, s.joker_ok, s.runs):
            out.append(deep_draw(depth, c))
        if c == JK:
            jokers += 1
        else:
            pool |= 1 << c
    return out


def _reference_calls(s: Rummy500) -> list[Action]:
    pool = jokers = 0
    out: list[Action] = []
    for depth, c in enumerate(reversed(s.pile), 1):
        if meldable(c, pool, jokers, s.accept, s.joker_ok, ()):
            out.append(call_rummy(depth, c))
        if c == JK:
            jokers += 1
        else:
            pool |= 1 << c
    return out


def _playouts(seats: int, jokers: bool, matches: int) -> list[Rummy500]:
    """Every decision state of a few random matches (a clone each)."""
    rng = random.Random(seats * 2 + jokers)
    states = []
    for seed in range(matches):
        s = SPEC.new_match(seed, seats=seats, options={"jokers": jokers, "max_hands": 3})
        assert isinstance(s, Rummy500)
        while s.to_act() is not None:
            states.append(s.clone())
            s.apply(rng.choice(s.legal_actions()))
    return states


def _check_table_index(s: Rummy500) -> None:
    """The table bookkeeping kept up to date as melds are made and laid off on equals
    the same worked out from the table melds afresh."""
    accept = 0
    natural: dict[int, list[LayOff]] = {}
    runs = []
    ends = near2 = 0
    for number, tm in enumerate(s.table, 1):  # melds are numbered from 1, in table order
        assert tm.number == number
        accept |= tm.accept
        for cid in range(64):
            if tm.accept >> cid & 1:
                natural.setdefault(cid, []).append(lay_off(cid, False, number))
        if tm.is_run:
            runs.append((tm.key, tm.lo, tm.hi))
            ends |= tm.accept
            if tm.lo >= 2:
                near2 |= 1 << pos_card(tm.key, tm.lo - 2)
            if tm.hi <= 11:
                near2 |= 1 << pos_card(tm.key, tm.hi + 2)
    assert s.accept == accept
    assert s.joker_ok == (accept != 0)
    assert s.natural_layoffs == {c: tuple(a) for c, a in natural.items()}
    assert sorted(s.runs) == sorted(runs)  # two decks: the same run twice
    assert s.run_ends & ends == ends and s.run_near2 & near2 == near2  # supersets
    assert s.joker_lay_offs() == tuple(
        lay_off(cid, True, number)
        for number, tm in enumerate(s.table, 1)
        for cid in range(64)
        if tm.accept >> cid & 1
    )


def _nothing_owed(s: Rummy500) -> Rummy500:
    """The same hands, table and pile in the play phase, with nothing owed (R4): built
    afresh by the engine's position constructor, its table index from the melds alone."""
    return Rummy500.at_position(
        s.options,
        0,
        s.num_seats,
        dealer=s.dealer,
        hands=[s.hand_cards(seat) for seat in range(s.num_seats)],
        discard_pile=s.pile,
        stock=s.stock[s.stock_pos :],
        turn=s.turn,
        phase=PLAY,
        table=[tm.placed for tm in s.table],
    )


@pytest.mark.parametrize("seats", [2, 4, 8])
@pytest.mark.parametrize("jokers", [False, True])
def test_r4_r6_scans_and_table_index_agree_with_the_plain_checks(seats: int, jokers: bool) -> None:
    checked_draws = checked_calls = checked_owed = 0
    for s in _playouts(seats, jokers, 6):
        _check_table_index(s)
        legal = s.legal_actions()
        if s.phase == DRAW:
            deep = [a for a in legal if isinstance(a, DrawDeep)]
            assert deep == _reference_deep_draws(s)
            checked_draws += len(deep)
            assert (DECLINE in legal) == (s.stock_pos >= len(s.stock))
        elif s.phase == CALL:
            assert list(s.calls) == _reference_calls(s)
            checked_calls += 1
        elif s.phase == PLAY and s.must_meld >= 0 and not s.must_meld_now:
            free = _nothing_owed(s)
            _check_table_index(free)
            every = [a for a in free.legal_actions() if isinstance(a, (NewMeld, LayOff))]
            want = [a for a in every if holds(a, s.must_meld) or still_meldable(s, a, s.must_meld)]
            assert [a for a in legal if isinstance(a, (NewMeld, LayOff))] == want
            checked_owed += 1
    assert checked_draws and checked_calls and checked_owed
