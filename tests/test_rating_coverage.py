"""The batch ratings' 95% intervals (docs/architecture.md, decision 9), checked against the
truth by seeded simulation: pools with known strengths play many small tournaments, and we
count how often the intervals contain the true differences.

Every tournament contributes several intervals, which are not independent of each other;
the tolerance is therefore that of one interval per tournament, ``3·sqrt(0.95·0.05/R)``
over R tournaments (0.021 for R = 1000), which the pooled count can only beat."""

from __future__ import annotations

import math

import numpy as np

from worker.ratings import (
    ELO_PER_NAT,
    INITIAL_RATING,
    BradleyTerryFit,
    PairwiseTally,
    SeatResult,
    bradley_terry,
    fit_bradley_terry,
)

Z95 = 1.959963984540054
TOURNAMENTS = 1000
TOLERANCE = 3.0 * math.sqrt(0.95 * 0.05 / TOURNAMENTS)


def _two_player_pool(rng: np.random.Generator) -> tuple[np.ndarray, PairwiseTally]:
    """Five players (strengths spread ±100 Elo or so) play 300 games between random pairs,
    a tenth of them drawn, each won with the Bradley–Terry probability."""
    truth = rng.normal(0.0, 0.6, 5)
    tally = PairwiseTally()
    for _ in range(300):
        i, j = (int(x) for x in rng.choice(5, 2, replace=False))
        p = 1.0 / (1.0 + math.exp(truth[j] - truth[i]))
        draw = min(0.1, 2 * p, 2 * (1 - p))  # keeps i's expected score at p
        u = rng.random()
        tally.add_game(i, j, 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0)
    return truth, tally


def _four_player_pool(rng: np.random.Generator) -> tuple[np.ndarray, PairwiseTally]:
    """Six players play 100 four-player matches with Plackett–Luce rankings (each seat's
    finishing time is exponential with rate e^θ), whose pairwise marginals are exactly
    Bradley–Terry: P(i ahead of j) = e^θi / (e^θi + e^θj). The six pairwise games of one
    match are correlated: a seat that finished first beat everyone at once."""
    truth = rng.normal(0.0, 0.6, 6)
    tally = PairwiseTally()
    for _ in range(100):
        seated = rng.choice(6, 4, replace=False)
        finish = rng.exponential(1.0 / np.exp(truth[seated]))
        ranks = np.argsort(np.argsort(finish))
        tally.add_match([SeatResult(int(p), int(r)) for p, r in zip(seated, ranks, strict=True)])
    return truth, tally


def _covered_differences(fit: BradleyTerryFit, truth: np.ndarray) -> tuple[int, int]:
    """How many of the 95% intervals of the pairwise differences θi − θj hold the truth."""
    strength = fit.strength
    true = truth[[int(p) for p in fit.players]]  # type: ignore[call-overload]
    hits = total = 0
    for i in range(len(strength)):
        for j in range(i + 1, len(strength)):
            error = (strength[i] - strength[j]) - (true[i] - true[j])
            hits += abs(error) <= Z95 * fit.difference_sd(i, j)
            total += 1
    return hits, total


def _covered_ratings(tally: PairwiseTally, truth: np.ndarray) -> tuple[int, int]:
    """How many standings' intervals hold the true rating relative to the pool mean."""
    centred = truth - truth.mean()
    standings = bradley_terry(tally)
    hits = sum(
        s.low <= INITIAL_RATING + ELO_PER_NAT * centred[int(s.player)] <= s.high  # type: ignore[call-overload]
        for s in standings
    )
    return hits, len(standings)


def test_two_player_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(20240611)
    pairs = [0, 0]
    ratings = [0, 0]
    for _ in range(TOURNAMENTS):
        truth, tally = _two_player_pool(rng)
        for total, (hits, count) in (
            (pairs, _covered_differences(fit_bradley_terry(tally), truth)),
            (ratings, _covered_ratings(tally, truth)),
        ):
            total[0] += hits
            total[1] += count
    assert abs(pairs[0] / pairs[1] - 0.95) < TOLERANCE, pairs
    assert abs(ratings[0] / ratings[1] - 0.95) < TOLERANCE, ratings


def test_four_player_matches_need_the_clustered_variance() -> None:
    # Read as independent games, the six pairwise games of each match give intervals that
    # hold the truth only about 88% of the time; clustered by match, about 95%.
    rng = np.random.default_rng(7)
    clustered = [0, 0]
    naive = [0, 0]
    ratings = [0, 0]
    for _ in range(TOURNAMENTS):
        truth, tally = _four_player_pool(rng)
        for total, (hits, count) in (
            (clustered, _covered_differences(fit_bradley_terry(tally), truth)),
            (naive, _covered_differences(fit_bradley_terry(tally, clustered=False), truth)),
            (ratings, _covered_ratings(tally, truth)),
        ):
            total[0] += hits
            total[1] += count
    assert abs(clustered[0] / clustered[1] - 0.95) < TOLERANCE, clustered
    assert abs(ratings[0] / ratings[1] - 0.95) < TOLERANCE, ratings
    assert naive[0] / naive[1] < 0.95 - 2 * TOLERANCE, naive
