"""Ratings maths (docs/architecture.md, decision 9): online Elo, Bradley–Terry, duplicate sets."""

from __future__ import annotations

import math
import random

import pytest

from worker.ratings import (
    ELO_PER_NAT,
    NoFiniteFit,
    PairwiseTally,
    SeatResult,
    bradley_terry,
    duplicate_standings,
    effective_ranks,
    elo_update,
    expected_score,
    fit_bradley_terry,
    replay_elo,
)


def test_elo_two_players_even_win_moves_half_k() -> None:
    after = elo_update([SeatResult("a", 0), SeatResult("b", 1)], {}, k=24)
    assert after == {"a": 1512.0, "b": 1488.0}


def test_elo_two_players_draw_at_even_ratings_changes_nothing() -> None:
    after = elo_update([SeatResult("a", 0), SeatResult("b", 0)], {}, k=24)
    assert after == {"a": 1500.0, "b": 1500.0}


def test_elo_underdog_win_uses_expected_score() -> None:
    before = {"a": 1400.0, "b": 1600.0}
    after = elo_update([SeatResult("a", 0), SeatResult("b", 1)], before, k=32)
    e = 1 / (1 + 10 ** (200 / 400))
    assert after["a"] == pytest.approx(1400 + 32 * (1 - e))
    assert after["b"] == pytest.approx(1600 - 32 * (1 - e))
    assert after["a"] + after["b"] == pytest.approx(3000)


def test_elo_three_players_share_k_over_two_opponents() -> None:
    # All at 1500: first beats two (2 × 0.5 above expectation), second wins one and loses
    # one, third loses two; K = 24 shared over N − 1 = 2 opponents.
    seats = [SeatResult("a", 0), SeatResult("b", 1), SeatResult("c", 2)]
    assert elo_update(seats, {}, k=24) == {"a": 1512.0, "b": 1500.0, "c": 1488.0}


def test_elo_equal_ranks_draw_in_multiplayer() -> None:
    seats = [SeatResult("a", 0), SeatResult("b", 0), SeatResult("c", 2)]
    after = elo_update(seats, {}, k=24)
    assert after["a"] == after["b"] == 1506.0
    assert after["c"] == 1488.0


def test_elo_forfeit_ranks_last() -> None:
    seats = [SeatResult("a", 0, forfeit=True), SeatResult("b", 1), SeatResult("c", 2)]
    assert effective_ranks(seats) == [3, 1, 2]
    after = elo_update(seats, {}, k=24)
    assert after["a"] == 1488.0 and after["b"] == 1512.0 and after["c"] == 1500.0


def test_elo_two_forfeits_draw_with_each_other() -> None:
    seats = [SeatResult("a", 0, True), SeatResult("b", 1, True), SeatResult("c", 2)]
    after = elo_update(seats, {}, k=24)
    assert after["a"] == after["b"] == 1494.0
    assert after["c"] == 1512.0


def test_elo_is_zero_sum_and_order_dependent() -> None:
    rng = random.Random(5)
    players = list("abcdef")
    matches = []
    for _ in range(200):
        n = rng.randint(2, 4)
        seated = rng.sample(players, n)
        matches.append([SeatResult(p, rng.randrange(n), rng.random() < 0.05) for p in seated])
    table = replay_elo(matches, k=24)
    assert sum(table.values()) == pytest.approx(1500 * len(table))
    reversed_table = replay_elo(list(reversed(matches)), k=24)
    assert reversed_table != table  # Elo depends on completion order; the batch fit does not


def _tally(games: list[tuple[str, str, float]]) -> PairwiseTally:
    tally = PairwiseTally()
    for a, b, s in games:
        tally.add_game(a, b, s)
    return tally


def test_bradley_terry_hand_computed_two_players() -> None:
    # A scores 3 of 4 against B: p = 3/4, so θA − θB = ln 3; centred on 1500 the Elo gap is
    # 400·log10(3). Fisher information of the gap: n·p(1 − p) = 3/4, var(gap) = 4/3, and
    # each centred θ has variance var(gap)/4 = 1/3.
    standings = bradley_terry(
        _tally([("A", "B", 1), ("A", "B", 1), ("A", "B", 1), ("B", "A", 1)]), 0
    )
    a, b = standings
    assert (a.player, b.player) == ("A", "B")
    gap = 400 * math.log10(3)
    assert a.rating == pytest.approx(1500 + gap / 2, abs=1e-6)
    assert b.rating == pytest.approx(1500 - gap / 2, abs=1e-6)
    half_width = 1.959963984540054 * ELO_PER_NAT * math.sqrt(1 / 3)
    assert a.high - a.rating == pytest.approx(half_width, rel=1e-6)
    assert a.rating - a.low == pytest.approx(half_width, rel=1e-6)
    z = math.log(3) / math.sqrt(4 / 3)
    assert a.p_stronger_than_next == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)), rel=1e-6)
    assert a.p_stronger_than_next == pytest.approx(0.8293, abs=1e-4)
    assert b.p_stronger_than_next is None
    assert (a.games, a.score, b.score) == (4, 3, 1)


def test_bradley_terry_draws_count_as_half_wins() -> None:
    # One win and one draw: 1.5 of 2, the same estimate p = 3/4 as above.
    a, b = bradley_terry(_tally([("A", "B", 1), ("A", "B", 0.5)]), 0)
    assert a.rating - b.rating == pytest.approx(400 * math.log10(3), abs=1e-6)


def test_bradley_terry_cycle_is_all_even() -> None:
    standings = bradley_terry(_tally([("A", "B", 1), ("B", "C", 1), ("C", "A", 1)]), 0)
    for s in standings:
        assert s.rating == pytest.approx(1500, abs=1e-9)
    assert standings[0].p_stronger_than_next == pytest.approx(0.5, abs=1e-9)


def test_bradley_terry_undefeated_needs_a_prior() -> None:
    games = [("A", "B", 1), ("A", "B", 1), ("B", "C", 1), ("C", "B", 1)]
    with pytest.raises(NoFiniteFit):
        bradley_terry(_tally(games), prior_draws=0)
    standings = bradley_terry(_tally(games), prior_draws=1)
    assert standings[0].player == "A"
    assert all(math.isfinite(s.rating) and s.low < s.rating < s.high for s in standings)


def test_bradley_terry_recovers_known_strengths_and_ignores_order() -> None:
    rng = random.Random(2024)
    truth = {"p0": -300.0, "p1": -150.0, "p2": -40.0, "p3": 60.0, "p4": 200.0, "p5": 330.0}
    names = list(truth)
    results = []
    for _ in range(6000):
        a, b = rng.sample(names, 2)
        p = expected_score(truth[a], truth[b])
        # A draw in one game in ten, keeping a's expected score at p.
        d = min(0.1, 2 * p, 2 * (1 - p))
        u = rng.random()
        results.append((a, b, 1.0 if u < p - d / 2 else 0.5 if u < p + d / 2 else 0.0))
    fitted = bradley_terry(_tally(results), prior_draws=0)
    assert [s.player for s in fitted] == sorted(names, key=lambda n: -truth[n])
    mean_truth = sum(truth.values()) / len(truth)
    inside = sum(s.low <= 1500 + truth[s.player] - mean_truth <= s.high for s in fitted)
    assert inside >= 5
    assert all(s.p_stronger_than_next is None or s.p_stronger_than_next > 0.9 for s in fitted)
    rng.shuffle(results)
    shuffled = bradley_terry(_tally(results), prior_draws=0)
    for x, y in zip(fitted, shuffled, strict=True):
        assert x.player == y.player
        assert x.rating == pytest.approx(y.rating, abs=1e-9)


def test_bradley_terry_from_multiplayer_results() -> None:
    tally = PairwiseTally()
    for _ in range(3):
        tally.add_match([SeatResult("a", 0), SeatResult("b", 1), SeatResult("c", 2)])
        tally.add_match([SeatResult("c", 0), SeatResult("b", 1), SeatResult("a", 2)])
    standings = bradley_terry(tally, prior_draws=0)
    assert all(s.rating == pytest.approx(1500, abs=1e-9) for s in standings)
    assert all(s.games == 12 for s in standings)


def test_bradley_terry_intervals_narrow_with_games_under_the_default_prior() -> None:
    # A scores 3 of 4 against B. The intervals describe strengths relative to the pool
    # mean, so they shrink like 1/sqrt(games): var(gap) = 1 / (n·p(1 − p)) = 16 / (3n),
    # each centred strength a quarter of it. The prior's fixed reference does not enter.
    widths = []
    for n in (100, 10_000):
        tally = _tally([("A", "B", 1.0 if k % 4 else 0.0) for k in range(n)])
        a, b = bradley_terry(tally)
        assert a.rating - 1500 == pytest.approx(1500 - b.rating, abs=1e-6)
        half_width = 1.959963984540054 * ELO_PER_NAT * math.sqrt(16 / (3 * n) / 4)
        assert a.high - a.rating == pytest.approx(half_width, rel=0.02)
        widths.append(a.high - a.low)
    assert widths[1] == pytest.approx(widths[0] / 10, rel=0.02)
    assert widths[1] < 10


def test_bradley_terry_prior_keeps_an_undefeated_player_finite_not_certain() -> None:
    # 10–0: the prior keeps the gap finite, and the variance of the games under the fitted
    # odds (not their residuals, which vanish) keeps "stronger" short of certainty.
    a, _ = bradley_terry(_tally([("A", "B", 1)] * 10))
    assert math.isfinite(a.rating) and a.low < a.rating < a.high
    assert a.p_stronger_than_next is not None and 0.95 < a.p_stronger_than_next < 0.995
    assert a.high - a.low > 400


def test_bradley_terry_clusters_widen_multiplayer_intervals() -> None:
    # The six pairwise games of a four-player match move together (first place beat all
    # three others at once); read as independent they would overstate what is known. With
    # random ranks a seat's pairwise points (3 − rank) vary by 5/4 per match, not the 3/4
    # of three independent games: the variances grow by about 5/3.
    tally = PairwiseTally()
    rng = random.Random(11)
    for _ in range(400):
        ranks = rng.sample(range(4), 4)
        tally.add_match([SeatResult(p, r) for p, r in zip("abcd", ranks, strict=True)])
    clustered = fit_bradley_terry(tally)
    naive = fit_bradley_terry(tally, clustered=False)
    for i in range(4):
        assert 1.4 < clustered.covariance[i, i] / naive.covariance[i, i] < 2.0
        for j in range(i + 1, 4):
            assert clustered.difference_sd(i, j) > naive.difference_sd(i, j)
    assert clustered.strength == pytest.approx(naive.strength)


def test_bradley_terry_duplicate_sets_are_one_cluster() -> None:
    # Each set replays one deal with the seats swapped. The deal decides most sets (each
    # bot wins once), so a set tells more than two independent games would: clustered by
    # set, the interval is narrower; clustered by match (each a single game), not.
    by_set, by_match = PairwiseTally(), PairwiseTally()
    for number in range(20):
        a_wins_both = number % 4 == 0
        deals = [
            [SeatResult("a", 0), SeatResult("b", 1)],
            [SeatResult("b", 1 if a_wins_both else 0), SeatResult("a", 0 if a_wins_both else 1)],
        ]
        for seats in deals:
            by_set.add_match(seats, cluster=("set", number))
            by_match.add_match(seats)
    (a, _), (a_alone, _) = bradley_terry(by_set), bradley_terry(by_match)
    assert (a.player, a.score, a.games) == ("a", 25, 40)
    assert a.rating == pytest.approx(a_alone.rating)
    assert a.high - a.low < 0.7 * (a_alone.high - a_alone.low)
    assert a.p_stronger_than_next is not None and a_alone.p_stronger_than_next is not None
    assert a.p_stronger_than_next > a_alone.p_stronger_than_next


def test_bradley_terry_clustered_single_games_are_independent_games() -> None:
    # A cluster of one game carries no correlation: clusters named or not, the same fit.
    games = [("A", "B", 1), ("B", "C", 1), ("C", "A", 0.5), ("A", "C", 1), ("B", "A", 1)]
    plain = bradley_terry(_tally(games))
    named = PairwiseTally()
    for k, (x, y, s) in enumerate(games):
        named.add_game(x, y, s, cluster=k)
    for p, q in zip(plain, bradley_terry(named), strict=True):
        assert (p.player, p.rating, p.low) == pytest.approx((q.player, q.rating, q.low))


def test_bradley_terry_settled_places() -> None:
    # A far ahead of B and C, who are even: A's place is settled; B and C could swap.
    games = [("A", x, 1.0 if k % 10 else 0.0) for x in "BC" for k in range(100)]
    games += [("B", "C", float(k % 2)) for k in range(100)]
    a, b, c = bradley_terry(_tally(games))
    assert a.player == "A" and a.p_stronger_than_next is not None
    assert a.p_stronger_than_next > 0.99 and a.settled
    assert b.p_stronger_than_next is not None and b.p_stronger_than_next < 0.95
    assert not b.settled and not c.settled
    lone = PairwiseTally()
    lone.add_match([SeatResult("A", 0), SeatResult("A", 1)])  # seated twice: no games
    (alone,) = bradley_terry(lone)
    assert alone.settled and alone.games == 0 and alone.rating == 1500


def test_duplicate_standings_sum_scores_over_each_set() -> None:
    # Set 1: the deal favours seat 0; a wins its deal by 30 and loses the rotated deal by
    # 10, so a wins the set. Set 2: equal sums, a drawn set.
    sets = {
        1: [[("a", 30), ("b", 0)], [("b", 10), ("a", 0)]],
        2: [[("a", 5), ("b", 0)], [("b", 5), ("a", 0)]],
    }
    a, b = duplicate_standings(sets)
    assert (a.player, a.sets, a.set_points, a.total_score) == ("a", 2, 1.5, 35)
    assert (b.player, b.sets, b.set_points, b.total_score) == ("b", 2, 0.5, 15)
    assert a.mean_score == 17.5
