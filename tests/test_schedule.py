"""Round-robin schedules (worker/schedule.py): every pair meets equally often, seats rotate,
and duplicate deals give every bot of a table every seat of a deal (docs/architecture.md,
decision 8)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from worker.schedule import ScheduleError, gauntlet, meetings, round_robin


def test_two_player_every_pair_plays_n_matches_with_seats_alternated() -> None:
    pairings = round_robin(3, 2, 4, seed=1)
    assert len(pairings) == 3 * 4
    assert set(meetings(pairings).values()) == {4}
    for pair in ((0, 1), (0, 2), (1, 2)):
        firsts = Counter(p.seats[0] for p in pairings if sorted(p.seats) == list(pair))
        assert firsts == {pair[0]: 2, pair[1]: 2}
    assert len({p.seed for p in pairings}) == len(pairings)  # a new deal every match
    assert all(p.duplicate_set is None for p in pairings)


@given(
    entrants=st.integers(2, 7),
    table=st.integers(2, 5),
    games=st.integers(1, 6),
    duplicate=st.booleans(),
)
def test_pairs_meet_equally_often_and_seats_rotate(
    entrants: int, table: int, games: int, duplicate: bool
) -> None:
    if entrants < table:
        with pytest.raises(ScheduleError):
            round_robin(entrants, table, games, duplicate=duplicate)
        return
    pairings = round_robin(entrants, table, games, duplicate=duplicate, seed=7)
    met = meetings(pairings)
    assert len(met) == entrants * (entrants - 1) // 2
    assert len(set(met.values())) == 1
    # per table, each bot sits in each seat equally often once games fill full rotations
    per_table: dict[frozenset[int], list[tuple[int, ...]]] = {}
    for p in pairings:
        per_table.setdefault(frozenset(p.seats), []).append(p.seats)
    played = len(next(iter(per_table.values())))
    if played % table == 0:
        for seatings in per_table.values():
            for seat in range(table):
                counts = Counter(s[seat] for s in seatings)
                assert len(set(counts.values())) == 1 and len(counts) == table


@given(entrants=st.integers(2, 6), table=st.integers(2, 4), games=st.integers(1, 5))
def test_duplicate_deals_put_every_bot_in_every_seat_of_a_deal(
    entrants: int, table: int, games: int
) -> None:
    if entrants < table:
        return
    pairings = round_robin(entrants, table, games, duplicate=True, seed=3)
    assert len(pairings) % table == 0
    sets: dict[int | None, list[tuple[tuple[int, ...], int]]] = {}
    for p in pairings:
        sets.setdefault(p.duplicate_set, []).append((p.seats, p.seed))
    assert None not in sets
    for deal in sets.values():
        assert len(deal) == table
        assert len({seed for _, seed in deal}) == 1  # one deal
        for seat in range(table):
            assert {seats[seat] for seats, _ in deal} == set(deal[0][0])


def test_schedule_is_reproducible_from_its_seed() -> None:
    assert round_robin(4, 3, 2, seed=5) == round_robin(4, 3, 2, seed=5)
    assert round_robin(4, 3, 2, seed=5) != round_robin(4, 3, 2, seed=6)


def test_refusals_name_the_problem() -> None:
    with pytest.raises(ScheduleError, match="cannot fill a table of 4"):
        round_robin(3, 4, 1)
    with pytest.raises(ScheduleError, match="at least one match"):
        round_robin(3, 2, 0)
    with pytest.raises(ScheduleError, match="over 100,000 matches"):
        round_robin(60, 4, 1)


def test_gauntlet_seats_the_first_bot_at_every_table() -> None:
    two = gauntlet(4, 2, 3, seed=1)
    assert len(two) == 3 * 3 and all(0 in p.seats for p in two)
    assert Counter(max(p.seats) for p in two) == {1: 3, 2: 3, 3: 3}
    assert Counter(p.seats[0] for p in two)[0] == 6  # seats alternate: first in 2 of 3
    tables = gauntlet(5, 3, 3, duplicate=True, seed=2)
    assert all(0 in p.seats for p in tables)
    assert len({frozenset(p.seats) for p in tables}) == 6  # every table of 3 with bot 0
