"""Round-robin schedules: which bots meet, in which seats, on which deals (pure).

Two-player games: every pair plays ``games`` matches, the seats alternating. Games of more
players: every table of ``table_size`` of the entrants (all combinations, so every pair of
bots meets at the same number of tables) plays ``games`` matches, the seats rotating by one
from match to match. With ``duplicate`` each deal is played once per rotation of its
table's seats (docs/architecture.md, decision 8): ``games`` is rounded up to a multiple of the table
size, and the matches of one deal share a ``duplicate_set`` and a seed, so every bot of the
table plays every seat of the deal and the luck of the cards cancels out.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

#: The most matches one tournament may schedule (a larger one is better run as a ladder).
MAX_MATCHES = 100_000


class ScheduleError(ValueError):
    """A tournament that cannot be scheduled as asked (too few bots, a bad table size)."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """One scheduled match: the entrant (index into the entrants) in each seat, its seed,
    and, with duplicate deals, its deal's set number and its rotation within the set."""

    seats: tuple[int, ...]
    seed: int
    duplicate_set: int | None = None
    rotation: int | None = None


def rotate(table: tuple[int, ...], shift: int) -> tuple[int, ...]:
    """The table's entrants moved ``shift`` seats on: seat ``i`` gets ``table[i - shift]``."""
    n = len(table)
    return tuple(table[(i - shift) % n] for i in range(n))


def round_robin(
    entrants: int,
    table_size: int,
    games: int,
    *,
    duplicate: bool = False,
    seed: int = 0,
) -> list[Pairing]:
    """Every table of ``table_size`` of ``entrants`` bots, each playing ``games`` matches
    with the seats rotating (``games`` rounded up to a multiple of ``table_size`` with
    ``duplicate``). Seeds are drawn from ``seed``, one per deal, so a schedule is
    reproducible. Matches are interleaved across tables (the first match of every table,
    then the second…), so standings fill evenly while a tournament runs."""
    if table_size < 2:
        raise ScheduleError(f"a table seats at least 2 bots, not {table_size}")
    if entrants < table_size:
        raise ScheduleError(
            f"{entrants} bots cannot fill a table of {table_size}; enter more bots or give a "
            "smaller --table-size"
        )
    if games < 1:
        raise ScheduleError(f"each table plays at least one match, not {games}")
    if duplicate:
        games = -(-games // table_size) * table_size
    tables = list(itertools.combinations(range(entrants), table_size))
    if len(tables) * games > MAX_MATCHES:
        raise ScheduleError(
            f"{len(tables)} tables × {games} matches is over {MAX_MATCHES:,} matches; "
            "enter fewer bots, give a larger --table-size or fewer --games"
        )
    rng = random.Random(seed)
    deals_per_table = games // table_size if duplicate else games
    deal_seeds = [[rng.getrandbits(63) for _ in range(deals_per_table)] for _ in tables]
    out = []
    for k in range(games):
        for t, table in enumerate(tables):
            shift = k % table_size
            if duplicate:
                deal = k // table_size
                out.append(
                    Pairing(
                        rotate(table, shift),
                        deal_seeds[t][deal],
                        duplicate_set=t * deals_per_table + deal,
                        rotation=shift,
                    )
                )
            else:
                out.append(Pairing(rotate(table, shift), deal_seeds[t][k]))
    return out


def gauntlet(
    entrants: int,
    table_size: int,
    games: int,
    *,
    duplicate: bool = False,
    seed: int = 0,
) -> list[Pairing]:
    """Entrant 0 against the others: the round robin's tables that seat entrant 0 (with two
    players, entrant 0 against each other bot in turn), each playing ``games`` matches."""
    return [
        p
        for p in round_robin(entrants, table_size, games, duplicate=duplicate, seed=seed)
        if 0 in p.seats
    ]


def meetings(pairings: list[Pairing]) -> dict[tuple[int, int], int]:
    """How many matches each pair of entrants (smaller index first) sat at together."""
    count: dict[tuple[int, int], int] = {}
    for p in pairings:
        for a, b in itertools.combinations(sorted(p.seats), 2):
            count[a, b] = count.get((a, b), 0) + 1
    return count


def tables_count(entrants: int, table_size: int) -> int:
    """The number of distinct tables of a round robin."""
    return math.comb(entrants, table_size)
