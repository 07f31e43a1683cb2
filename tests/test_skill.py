"""Ladder ratings (worker.skill): OpenSkill Plackett–Luce μ ± σ over whole rankings."""

from __future__ import annotations

import itertools
import random

import pytest

from worker import skill
from worker.ratings import SeatResult


def test_a_stronger_player_rises_above_a_weaker_one() -> None:
    # Four players of known strength play four-player matches; each seat's performance is
    # its strength plus noise, ranked best first.
    rng = random.Random(3)
    strength = {"weak": 0.0, "fair": 1.0, "good": 2.0, "best": 3.0}
    model = skill.model()
    ratings = {p: skill.initial() for p in strength}
    for _ in range(150):
        performance = {p: s + rng.gauss(0.0, 1.5) for p, s in strength.items()}
        order = sorted(performance, key=lambda p: -performance[p])
        seats = [SeatResult(p, order.index(p)) for p in strength]
        ratings.update(skill.rate_match(model, ratings, seats))
    by_mu = sorted(ratings, key=lambda p: -ratings[p][0])
    assert by_mu == ["best", "good", "fair", "weak"]
    assert ratings["best"][0] > skill.MU > ratings["weak"][0]
    assert skill.conservative(*ratings["best"]) > skill.conservative(*ratings["weak"])


def test_sigma_shrinks_with_games_and_provisional_ends() -> None:
    model = skill.model()
    ratings = {"a": skill.initial(), "b": skill.initial()}
    sigmas = [ratings["a"][1]]
    for k in range(60):
        seats = [SeatResult("a", k % 2), SeatResult("b", 1 - k % 2)]
        ratings.update(skill.rate_match(model, ratings, seats))
        sigmas.append(ratings["a"][1])
    assert all(later < earlier for earlier, later in itertools.pairwise(sigmas))
    assert skill.provisional(sigmas[0]) and skill.provisional(sigmas[10])
    assert not skill.provisional(sigmas[-1])
    assert ratings["a"][0] == pytest.approx(ratings["b"][0], abs=1.0)


def test_forfeits_rank_last() -> None:
    # The forfeiting seat "won" on the table but ranks below both others.
    model = skill.model()
    seats = [SeatResult("a", 0, forfeit=True), SeatResult("b", 1), SeatResult("c", 2)]
    after = skill.rate_match(model, {}, seats)
    assert after["b"][0] > after["c"][0] > skill.MU > after["a"][0]
    # Two forfeiters tie with each other.
    seats = [SeatResult("a", 0, True), SeatResult("b", 1, True), SeatResult("c", 2)]
    after = skill.rate_match(model, {}, seats)
    assert after["a"] == pytest.approx(after["b"])
    assert after["c"][0] > skill.MU > after["a"][0]


def test_ties_are_accepted_and_symmetric() -> None:
    model = skill.model()
    after = skill.rate_match(model, {}, [SeatResult("a", 0), SeatResult("b", 0)])
    assert after["a"] == pytest.approx(after["b"])
    assert after["a"][0] == pytest.approx(skill.MU)
    assert after["a"][1] < skill.SIGMA
    three = [SeatResult("a", 0), SeatResult("b", 1), SeatResult("c", 1)]
    after = skill.rate_match(model, {}, three)
    assert after["b"] == pytest.approx(after["c"])
    assert after["a"][0] > after["b"][0]


def test_a_player_seated_twice_sums_its_seats_moves() -> None:
    model = skill.model()
    seats = [SeatResult("a", 0), SeatResult("a", 1), SeatResult("c", 2)]
    after = skill.rate_match(model, {}, seats)
    assert set(after) == {"a", "c"}
    # Beaten by both of a's seats, c loses; a's seats trade places with each other, so a
    # gains what c loses.
    assert after["c"][0] < skill.MU
    assert after["a"][0] - skill.MU == pytest.approx(skill.MU - after["c"][0])
    alone = skill.rate_match(model, {"a": (30.0, 2.0)}, [SeatResult("a", 0), SeatResult("a", 1)])
    assert alone == {"a": (30.0, 2.0)}


def test_missing_players_start_at_the_initial_rating() -> None:
    model = skill.model()
    seats = [SeatResult("old", 1), SeatResult("new", 0)]
    after = skill.rate_match(model, {"old": (30.0, 3.0)}, seats)
    assert after["new"][0] > skill.MU and after["new"][1] < skill.SIGMA
    assert after["old"][0] < 30.0


def test_display_scale() -> None:
    value, low, high = skill.display(*skill.initial())
    assert value == 1500.0
    assert high - value == pytest.approx(value - low)
    # One β·√2 of μ is one natural-log unit of odds: 400 / ln 10 displayed points.
    gap = skill.display(skill.MU + skill.BETA * 2**0.5, 1.0)[0] - value
    assert gap == pytest.approx(173.7178, abs=1e-3)
    assert skill.conservative(25.0, 2.0) == 19.0
