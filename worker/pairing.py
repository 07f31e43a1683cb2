"""Which matches a ladder plays next (pure): games where they settle the most.

Every bot version of the pool has a Plackett–Luce rating μ ± σ (:mod:`worker.skill`).
A version with fewer than ``placement`` ladder games is *placing*: it plays first, against
opponents spread over the whole pool. Otherwise each table starts from the bot whose
rating is least certain (largest σ; fewest games breaks ties) and adds the opponents whose
order against it is least certain: those for which P(a is stronger than b) is closest to
½. So games
go where the order of the pool is still open, and a bot whose place is settled plays
less. After choosing a table its bots count as having played once more (their σ shrunk a
little) so that one tick's tables spread over the pool.

:func:`simulate` plays a pool of bots of known strength under a pairing policy and counts
the games until the ladder's order is right; ``python -m worker.pairing`` compares the
policies (``docs/performance.md``).
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from worker.ratings import SeatResult

#: The performance spread of one game on the μ scale (OpenSkill's default β = σ₀ / 2).
BETA = 25.0 / 6.0
#: How much a chosen bot's σ counts as shrinking for the rest of one tick.
VIRTUAL_SHRINK = 0.9


@dataclass(frozen=True, slots=True)
class Entry:
    """A bot version of a ladder's pool and its rating."""

    version: int
    mu: float
    sigma: float
    games: int


def p_beats(a: Entry, b: Entry) -> float:
    """P(a finishes ahead of b) under the ratings' normal model."""
    spread = math.sqrt(2 * BETA * BETA + a.sigma * a.sigma + b.sigma * b.sigma)
    return statistics.NormalDist(0.0, spread).cdf(a.mu - b.mu)


def p_stronger(a: Entry, b: Entry) -> float:
    """P(a's true rating is above b's): how sure the ladder is of their order."""
    spread = math.sqrt(a.sigma * a.sigma + b.sigma * b.sigma) or 1e-9
    return statistics.NormalDist(0.0, spread).cdf(a.mu - b.mu)


def order_uncertainty(a: Entry, b: Entry) -> float:
    """How open the order of ``a`` and ``b`` is: 1 when a coin toss, 0 when settled."""
    return 1.0 - abs(2.0 * p_stronger(a, b) - 1.0)


def choose_tables(
    pool: Sequence[Entry],
    table_size: int,
    count: int,
    *,
    placement: int = 0,
    rng: random.Random | None = None,
) -> list[tuple[int, ...]]:
    """``count`` tables of ``table_size`` bot versions to play next (seat order shuffled);
    fewer when the pool is smaller than a table."""
    rng = rng or random.Random()
    entries = {e.version: e for e in pool}
    if len(entries) < table_size:
        return []
    tables = []
    for _ in range(count):
        placing = [e for e in entries.values() if e.games < placement]
        if placing:
            first = min(placing, key=lambda e: (e.games, e.version))
            others = [e for e in entries.values() if e.version != first.version]
            chosen = [first, *rng.sample(others, table_size - 1)]
        else:
            first = max(entries.values(), key=lambda e: (e.sigma, -e.games, -e.version))
            chosen = [first]
            while len(chosen) < table_size:
                rest = [e for e in entries.values() if e not in chosen]
                chosen.append(
                    max(
                        rest,
                        key=lambda e: (
                            sum(order_uncertainty(e, c) for c in chosen),
                            -e.games,
                            -e.version,
                        ),
                    )
                )
        for e in chosen:
            entries[e.version] = replace(e, games=e.games + 1, sigma=e.sigma * VIRTUAL_SHRINK)
        seats = [e.version for e in chosen]
        rng.shuffle(seats)
        tables.append(tuple(seats))
    return tables


def uniform_tables(
    pool: Sequence[Entry], table_size: int, count: int, *, rng: random.Random
) -> list[tuple[int, ...]]:
    """The reference policy: tables drawn uniformly at random."""
    versions = [e.version for e in pool]
    return [tuple(rng.sample(versions, table_size)) for _ in range(count)]


Policy = Callable[[Sequence[Entry], int, random.Random], list[tuple[int, ...]]]


def uncertainty_policy(
    pool: Sequence[Entry], count: int, rng: random.Random
) -> list[tuple[int, ...]]:
    """Two-player tables by :func:`choose_tables`."""
    return choose_tables(pool, 2, count, rng=rng)


def uniform_policy(pool: Sequence[Entry], count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Two-player tables by :func:`uniform_tables`."""
    return uniform_tables(pool, 2, count, rng=rng)


def simulate(
    strengths: Sequence[float],
    policy: Policy,
    *,
    rng: random.Random,
    batch: int = 4,
    max_games: int = 20_000,
    settled: float = 0.95,
) -> int:
    """Play two-player games between bots of known Elo ``strengths`` (a game is won with
    the Elo probability) under ``policy``, rating them with :mod:`worker.skill`, in
    batches of ``batch`` games; return the games played until the ladder's order is
    right and every neighbouring pair's order is at least ``settled`` sure (or
    ``max_games``)."""
    from worker import skill

    model = skill.model()
    ratings = {v: skill.initial() for v in range(len(strengths))}
    games = dict.fromkeys(ratings, 0)
    truth = sorted(ratings, key=lambda v: -strengths[v])
    played = 0
    while played < max_games:
        pool = [Entry(v, mu, sigma, games[v]) for v, (mu, sigma) in ratings.items()]
        order = sorted(pool, key=lambda e: -e.mu)
        if [e.version for e in order] == truth and all(
            p_stronger(a, b) >= settled for a, b in itertools.pairwise(order)
        ):
            return played
        for a, b in policy(pool, batch, rng):
            expected = 1.0 / (1.0 + 10 ** ((strengths[b] - strengths[a]) / 400.0))
            a_wins = rng.random() < expected
            seats = [
                SeatResult(a, 0 if a_wins else 1),
                SeatResult(b, 1 if a_wins else 0),
            ]
            ratings.update(skill.rate_match(model, ratings, seats))
            games[a] += 1
            games[b] += 1
            played += 1
    return played


def compare(pools: int = 12, bots: int = 8, seed: int = 1) -> dict[str, float]:
    """Median games to settle a pool, per policy, over ``pools`` seeded pools of ``bots``
    bots whose Elo strengths are 60 apart."""
    out = {}
    for name, policy in (("uncertainty", uncertainty_policy), ("uniform", uniform_policy)):
        counts = []
        for k in range(pools):
            rng = random.Random(seed * 1000 + k)
            strengths = [60.0 * i for i in range(bots)]
            rng.shuffle(strengths)
            counts.append(simulate(strengths, policy, rng=random.Random(seed * 7919 + k)))
        out[name] = statistics.median(counts)
    return out


if __name__ == "__main__":
    figures = compare()
    print(
        "games until a pool of 8 bots (60 Elo apart) is in the right order with every "
        "neighbouring pair 95% sure; median of 12 seeded pools:"
    )
    for name, value in figures.items():
        print(f"  {name:<12} {value:,.0f}")
    print(f"  ratio        {figures['uncertainty'] / figures['uniform']:.2f}")
