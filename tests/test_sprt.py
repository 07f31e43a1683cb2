"""Duels: the SPRT's bounds, its LLR against fastchess's published figures, its error rates
in simulated duels, and the degenerate starts."""

from __future__ import annotations

import json
import math
import statistics

import numpy as np
import pytest

from worker.sprt import (
    PENTANOMIAL_SCORES,
    TRINOMIAL_SCORES,
    Sprt,
    game_score,
    llr_logistic,
    logistic_score,
    score_to_elo,
    simulate,
    sprt_bounds,
)

DUELS = 300
#: What a duel keeps of its test and resumes it from (:meth:`Sprt.as_dict`).
RESUMED = ("elo0", "elo1", "alpha", "beta", "pentanomial", "counts", "pending", "opponents")


def _rate_bound(p: float) -> float:
    """Three binomial standard errors of a rate ``p`` over :data:`DUELS` duels."""
    return 3.0 * math.sqrt(p * (1.0 - p) / DUELS)


def test_bounds_are_walds_for_alpha_beta_five_percent() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=5e-4)
    assert upper == pytest.approx(2.944, abs=5e-4)


def test_bounds_put_beta_below_and_alpha_above() -> None:
    lower, upper = Sprt(0, 5, alpha=0.05, beta=0.1).bounds()
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))


@pytest.mark.parametrize(
    ("losses_draws_wins", "elo0", "elo1", "expected"),
    [((21184, 40708, 21404), 0.5, 2.5, -1.57), ((57030, 106593, 57433), 0.0, 2.0, -2.59)],
)
def test_trinomial_llr_matches_fastchess_logistic(
    losses_draws_wins: tuple[int, int, int], elo0: float, elo1: float, expected: float
) -> None:
    # fastchess's app/tests/sprt_test.cpp, "logistic trinomial 1" and "2".
    assert llr_logistic(losses_draws_wins, TRINOMIAL_SCORES, elo0, elo1) == pytest.approx(
        expected, abs=0.01
    )


@pytest.mark.parametrize(
    ("ll_ld_wl_dd_wd_ww", "elo0", "elo1", "expected"),
    [
        ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07),
        ((871, 26175, 55003, 980, 26678, 821), 0.0, 2.0, -4.98),
    ],
)
def test_pentanomial_llr_matches_fastchess_logistic(
    ll_ld_wl_dd_wd_ww: tuple[int, ...], elo0: float, elo1: float, expected: float
) -> None:
    # fastchess's "logistic pentanomial 1" and "2": WL and DD share the score-1 bin.
    ll, ld, wl, dd, wd, ww = ll_ld_wl_dd_wd_ww
    counts = (ll, ld, wl + dd, wd, ww)
    assert llr_logistic(counts, PENTANOMIAL_SCORES, elo0, elo1) == pytest.approx(expected, abs=0.01)


def test_game_score_from_ranks() -> None:
    assert [game_score(0, 1), game_score(1, 1), game_score(1, 0)] == [1.0, 0.5, 0.0]


def test_pentanomial_counts_pairs_and_odd_game_waits() -> None:
    sprt = Sprt(0, 50, pentanomial=True)
    sprt.add_game(1.0)
    assert (sprt.outcomes, sprt.games, sprt.pending) == (0, 1, 1.0)
    sprt.add_game(0.0)  # completes a WL pair: score 1, the middle bin
    sprt.add_pair(1.0, 0.5)
    sprt.add_pair(0.0, 0.0)
    assert sprt.counts == [1, 0, 1, 1, 0]
    assert (sprt.outcomes, sprt.games, sprt.pending) == (3, 6, None)


def test_trinomial_pair_is_two_games() -> None:
    sprt = Sprt(0, 50)
    sprt.add_pair(1.0, 0.5)
    sprt.add_game(0.0)
    assert sprt.counts == [1, 1, 1]
    assert sprt.games == 3


def test_sprt_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="elo0"):
        Sprt(20, 0)
    with pytest.raises(ValueError, match="alpha"):
        Sprt(0, 20, alpha=0.0)
    with pytest.raises(ValueError, match=r"0\.25"):
        Sprt(0, 20).add_game(0.25)


def test_a_duel_resumes_from_its_dict() -> None:
    sprt = Sprt(0, 50, alpha=0.05, beta=0.1, pentanomial=True)
    for pair in [(1.0, 0.5), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0)]:
        sprt.add_pair(*pair)
    sprt.add_game(0.5)
    state = json.loads(json.dumps(sprt.as_dict(), allow_nan=False))
    keys = ("elo0", "elo1", "alpha", "beta", "pentanomial", "counts", "pending")
    resumed = Sprt(**{k: state[k] for k in keys})
    assert resumed.llr() == state["llr"] == sprt.llr()
    assert resumed.games == state["games"] == 9


def test_elo_estimate_and_interval_from_the_score() -> None:
    sprt = Sprt(0, 50)
    for score, times in [(1.0, 60), (0.5, 20), (0.0, 20)]:
        for _ in range(times):
            sprt.add_game(score)
    estimate = sprt.elo()
    assert estimate is not None
    assert estimate.score == pytest.approx(0.7)
    assert estimate.elo == pytest.approx(score_to_elo(0.7))
    assert estimate.elo == pytest.approx(147.19, abs=0.01)
    half = 1.959963984540054 * math.sqrt((0.6 * 0.09 + 0.2 * 0.04 + 0.2 * 0.49) / 100)
    assert estimate.low == pytest.approx(score_to_elo(0.7 - half))
    assert estimate.high == pytest.approx(score_to_elo(0.7 + half))
    assert logistic_score(estimate.elo) == pytest.approx(0.7)


def test_no_games_is_neutral_and_json_ready() -> None:
    sprt = Sprt(0, 50, pentanomial=True)
    assert sprt.llr() == 0.0
    assert sprt.status() == "continue"
    assert sprt.elo() is None
    json.dumps(sprt.as_dict(), allow_nan=False)


@pytest.mark.parametrize("pentanomial", [False, True])
def test_all_wins_stays_finite_and_accepts_h1_after_a_few_dozen_games(pentanomial: bool) -> None:
    sprt = Sprt(0, 50, pentanomial=pentanomial)
    sprt.add_game(1.0)
    sprt.add_game(1.0)
    llrs = []
    while sprt.status() == "continue":
        assert math.isfinite(sprt.llr())
        llrs.append(sprt.llr())
        sprt.add_game(1.0)
    assert sprt.status() == "H1"
    # Each won game (or won pair) is worth at most ln(s1 / s0): one lucky win is no verdict.
    assert llrs[0] <= 2 * math.log(logistic_score(50) / 0.5) + 1e-9
    assert 20 <= sprt.outcomes <= 25
    assert llrs == sorted(llrs)
    state = json.loads(json.dumps(sprt.as_dict(), allow_nan=False))
    assert state["elo"]["high"] is None  # a score of 1 has no finite Elo


@pytest.mark.parametrize("pentanomial", [False, True])
def test_all_draws_stays_finite_and_accepts_h0(pentanomial: bool) -> None:
    sprt = Sprt(0, 50, pentanomial=pentanomial)
    for _ in range(200):
        sprt.add_game(0.5)
        assert math.isfinite(sprt.llr())
        if sprt.status() != "continue":
            break
    assert sprt.status() == "H0"
    estimate = sprt.elo()
    assert estimate is not None
    assert (estimate.low, estimate.elo, estimate.high) == (0.0, 0.0, 0.0)


def _verdicts(true_elo: float, pentanomial: bool, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [
        simulate(
            true_elo, 0, 50, draw_ratio=0.2, pentanomial=pentanomial, rng=rng, max_games=20_000
        ).verdict
        for _ in range(DUELS)
    ]


@pytest.mark.parametrize("pentanomial", [False, True])
def test_true_elo_at_elo1_accepts_h1_about_one_minus_beta(pentanomial: bool) -> None:
    verdicts = _verdicts(50, pentanomial, seed=11)
    assert verdicts.count("H1") / DUELS >= 0.95 - _rate_bound(0.05)


@pytest.mark.parametrize("pentanomial", [False, True])
def test_identical_copy_accepts_h0_about_one_minus_alpha(pentanomial: bool) -> None:
    # True Elo 0 = elo0: A against a copy of itself. A false H1 is the alpha error.
    verdicts = _verdicts(0, pentanomial, seed=12)
    assert verdicts.count("H1") / DUELS <= 0.05 + _rate_bound(0.05)
    assert verdicts.count("H0") / DUELS >= 0.95 - _rate_bound(0.05)


@pytest.mark.parametrize("pentanomial", [False, True])
def test_strong_player_accepts_h1_in_few_games(pentanomial: bool) -> None:
    rng = np.random.default_rng(13)
    duels = [
        simulate(300, 0, 50, draw_ratio=0.2, pentanomial=pentanomial, rng=rng, max_games=2_000)
        for _ in range(100)
    ]
    assert {d.verdict for d in duels} == {"H1"}
    assert statistics.median(d.games for d in duels) < 60
    assert max(d.games for d in duels) < 100


def test_simulate_stops_at_max_games_without_verdict() -> None:
    duel = simulate(25, 0, 50, rng=np.random.default_rng(14), max_games=10)
    assert duel.verdict == "continue"
    assert duel.games == 10


def test_a_table_of_three_counts_pairwise_scores_in_quarters() -> None:
    """Against two seats of B a game's score is a multiple of 1/4 (A's mean against each
    seat), and a duplicate set of three games is one outcome in twelfths; with one
    opponent the bins are the trinomial and pentanomial ones."""
    plain = Sprt(0, 50, opponents=2)
    assert plain.scores == (0.0, 0.25, 0.5, 0.75, 1.0)
    for score in (1.0, 0.75, 0.75, 0.0):
        plain.add_game(score)
    assert plain.counts == [1, 0, 0, 2, 1] and plain.games == 4
    with pytest.raises(ValueError, match="multiple of 1/4"):
        plain.add_game(0.6)
    sets = Sprt(0, 50, pentanomial=True, opponents=2)
    assert len(sets.scores) == 13 and sets.scores[6] == 0.5
    sets.add_set([1.0, 0.5, 0.25])  # mean 7/12
    assert sets.counts[7] == 1 and sets.games == 3
    with pytest.raises(ValueError, match="whole sets"):
        sets.add_game(1.0)
    with pytest.raises(ValueError, match="a set is 3 games"):
        sets.add_set([1.0, 1.0])
    again = Sprt(**{k: sets.as_dict()[k] for k in RESUMED})
    assert again.llr() == sets.llr() and again.opponents == 2
    assert Sprt(0, 50).scores == TRINOMIAL_SCORES
    assert Sprt(0, 50, pentanomial=True).scores == PENTANOMIAL_SCORES


def test_at_a_table_of_three_all_wins_accept_h1_and_even_play_does_not() -> None:
    """The exact LLR works on any outcome bins: a bot that finishes first every time
    is accepted stronger in a few dozen games; one that scores the mean of a fair table
    (first, second, last in turn) never is."""
    strong = Sprt(0, 50, opponents=2)
    while strong.status() == "continue":
        strong.add_game(1.0)
    assert strong.status() == "H1" and strong.games < 40
    even = Sprt(0, 50, opponents=2)
    for _ in range(300):
        for score in (1.0, 0.5, 0.0):
            even.add_game(score)
    assert even.status() == "H0"
