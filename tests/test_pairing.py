"""The ladder's pairing (worker/pairing.py): games go where the order is least certain,
new versions place first, and on simulated pools of known strength the uncertainty-driven
pairing settles the order with fewer games than uniform random pairing."""

from __future__ import annotations

import random
import statistics

from worker.pairing import (
    Entry,
    choose_tables,
    order_uncertainty,
    simulate,
    uncertainty_policy,
    uniform_policy,
)


def test_the_most_uncertain_pair_plays_first() -> None:
    pool = [
        Entry(1, mu=40.0, sigma=1.0, games=50),  # settled far above
        Entry(2, mu=10.0, sigma=1.0, games=50),  # settled far below
        Entry(3, mu=25.0, sigma=6.0, games=5),  # these two: order wide open
        Entry(4, mu=25.5, sigma=6.0, games=5),
    ]
    assert order_uncertainty(pool[2], pool[3]) > 0.9 > 0.01 > order_uncertainty(pool[0], pool[1])
    (first,) = choose_tables(pool, 2, 1, rng=random.Random(1))
    assert sorted(first) == [3, 4]
    tables = choose_tables(pool, 2, 6, rng=random.Random(1))
    assert sum(1 for t in tables if set(t) == {1, 2}) == 0  # a settled pair is not replayed


def test_a_new_version_plays_its_placement_matches_first() -> None:
    pool = [Entry(v, mu=25.0 + v, sigma=2.0, games=40) for v in range(1, 6)]
    pool.append(Entry(9, mu=25.0, sigma=8.33, games=0))
    tables = choose_tables(pool, 2, 5, placement=3, rng=random.Random(2))
    assert all(9 in t for t in tables[:3])  # its three placement games come first
    opponents = {v for t in tables[:3] for v in t if v != 9}
    assert len(opponents) >= 2  # against the pool, not one opponent
    four = choose_tables(pool, 4, 2, placement=3, rng=random.Random(3))
    assert all(9 in t and len(set(t)) == 4 for t in four)


def test_uncertainty_pairing_settles_a_pool_with_fewer_games_than_uniform() -> None:
    games: dict[str, list[int]] = {"uncertainty": [], "uniform": []}
    for k in range(6):
        strengths = [80.0 * i for i in range(6)]
        random.Random(k).shuffle(strengths)
        for name, policy in (("uncertainty", uncertainty_policy), ("uniform", uniform_policy)):
            games[name].append(simulate(strengths, policy, rng=random.Random(100 + k)))
    assert statistics.median(games["uncertainty"]) < statistics.median(games["uniform"]), games
