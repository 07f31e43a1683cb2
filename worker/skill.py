"""Ladder ratings (pure): OpenSkill's Plackett–Luce model (Weng and Lin), a Bayesian
rating μ ± σ updated after each match from its whole ranking, ties and any number of
seats included. Where the batch fit (:mod:`worker.ratings`) reads a result as pairwise
games, this reads it as one ranking, and it needs no refit: the ladder applies matches in
completion order. See ``docs/storage.md`` ("Ladder ratings").

A rating is a ``(mu, sigma)`` pair on OpenSkill's scale (a new player is 25 ± 25/3); it is
shown on the Elo-like scale of :func:`display`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar, cast

from openskill.models import PlackettLuce

from worker.ratings import ELO_PER_NAT, INITIAL_RATING, SeatResult, effective_ranks

Rating = tuple[float, float]
#: A player: any hashable id, the same type as the keys of the ratings.
Player = TypeVar("Player", bound=Hashable)

#: A new player's μ and σ (OpenSkill's defaults).
MU = 25.0
SIGMA = 25.0 / 3.0
#: The spread of one player's performance in one game, on the μ scale (OpenSkill's default).
BETA = 25.0 / 6.0
#: A rating is provisional while its σ is above this: until what is unknown of the
#: player's skill is no larger than the luck of one game (about 30 two-player games).
PROVISIONAL_SIGMA = BETA
#: Displayed points per unit of μ. Two settled players (σ → 0) are predicted to finish
#: in order with P = 1 / (1 + e^(−Δμ / (√2·β))); shown as 1500 + 400/ln 10 · μ / (√2·β)
#: (about 29.5 per unit), the Elo formula on the displayed gap gives that same P.
DISPLAY_PER_MU = ELO_PER_NAT / (math.sqrt(2.0) * BETA)
#: How many σ below μ the conservative rating lies.
CONSERVATIVE_SIGMAS = 3.0
_Z95 = 1.959963984540054


def model() -> PlackettLuce:
    """The ladder's model: OpenSkill's Plackett–Luce with its default μ, σ and β, and no
    drift (τ = 0): a bot version is a fixed program whose strength does not change
    between games, so its σ may shrink as far as its games allow."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=0.0)


def initial() -> Rating:
    """A new player's rating."""
    return (MU, SIGMA)


def rate_match(
    model: PlackettLuce, ratings: Mapping[Player, Rating], seats: Sequence[SeatResult]
) -> dict[Player, Rating]:
    """The new ratings of the players of one match, from their ratings before it (missing
    players start at :func:`initial`). Equal ranks tie; forfeiting seats rank below every
    other seat and tie with each other (:func:`worker.ratings.effective_ranks`).

    A player seated twice is rated as two seats with its one rating; its μ moves by the
    sum of its seats' moves (as its Elo does) and its σ becomes the smaller of theirs.
    A match with fewer than two distinct players changes nothing."""
    players = [cast(Player, s.player) for s in seats]
    before = {p: ratings.get(p, (model.mu, model.sigma)) for p in players}
    if len(before) < 2:
        return dict(before)
    teams = [[model.rating(mu=before[p][0], sigma=before[p][1])] for p in players]
    ranks = [float(r) for r in effective_ranks(seats)]
    rated = model.rate(teams, ranks=ranks)
    moved: dict[Player, float] = {}
    sigmas: dict[Player, float] = {}
    for p, [after] in zip(players, rated, strict=True):
        moved[p] = moved.get(p, 0.0) + after.mu - before[p][0]
        sigmas[p] = min(sigmas.get(p, math.inf), after.sigma)
    return {p: (before[p][0] + moved[p], sigmas[p]) for p in before}


def provisional(sigma: float) -> bool:
    """Whether a rating with this σ is still provisional (see :data:`PROVISIONAL_SIGMA`)."""
    return sigma > PROVISIONAL_SIGMA


def conservative(mu: float, sigma: float) -> float:
    """μ − 3σ: a value the player's skill is very likely above (the ladder sorts by it)."""
    return mu - CONSERVATIVE_SIGMAS * sigma


def display(mu: float, sigma: float) -> tuple[float, float, float]:
    """The rating and its 95% interval (μ ± 1.96σ) on the Elo-like displayed scale, where a
    new player's μ shows as 1500 (see :data:`DISPLAY_PER_MU`)."""
    value = INITIAL_RATING + (mu - MU) * DISPLAY_PER_MU
    half = _Z95 * sigma * DISPLAY_PER_MU
    return value, value - half, value + half
