"""Ratings (docs/architecture.md, decision 9): online Elo and a batch Bradley–Terry fit. Pure
functions over plain values; the store feeds them rows and writes back their numbers.

A match result is a sequence of :class:`SeatResult` (one per seat). Every multiplayer
result is read as the pairwise games it implies: the better rank wins, equal ranks draw,
and a seat that forfeited ranks below every seat that did not. The games of one match (or
one duplicate set) are correlated, and the batch fit's intervals account for it. See
``docs/storage.md`` for the maths.
"""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

#: Every player's rating before its first rated match.
INITIAL_RATING = 1500.0
#: Default Elo K: the most a two-player game can move a rating is K (a win at even odds moves K/2).
DEFAULT_K = 24.0
#: Elo points per natural-log unit of Bradley–Terry strength (400 / ln 10).
ELO_PER_NAT = 400.0 / math.log(10.0)


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's outcome: who sat there, its rank (0 = first) and whether it forfeited."""

    player: Hashable
    rank: int
    forfeit: bool = False


def effective_ranks(seats: Sequence[SeatResult]) -> list[int]:
    """Ranks with every forfeiting seat moved below all others (forfeiters tie for last)."""
    last = len(seats)
    return [last if s.forfeit else s.rank for s in seats]


def pairwise_scores(seats: Sequence[SeatResult]) -> list[tuple[int, int, float]]:
    """The pairwise games a result implies: ``(seat i, seat j, score of i)`` for i < j,
    1 for a win, 0.5 for a draw, 0 for a loss. Pairs of one player with itself are left out."""
    ranks = effective_ranks(seats)
    games = []
    for i in range(len(seats)):
        for j in range(i + 1, len(seats)):
            if seats[i].player == seats[j].player:
                continue
            score = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
            games.append((i, j, score))
    return games


def expected_score(rating: float, opponent: float) -> float:
    """Elo's expected score of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def elo_update(
    seats: Sequence[SeatResult], ratings: Mapping[Hashable, float], k: float = DEFAULT_K
) -> dict[Hashable, float]:
    """New ratings of the players of one match, from their ratings before it.

    Each seat plays one game against each other seat; the K of a seat is shared over its
    N−1 opponents, so a two-player match is exactly one Elo game. Players missing from
    ``ratings`` start at :data:`INITIAL_RATING`."""
    players = [s.player for s in seats]
    ranks = effective_ranks(seats)
    after = elo_after(players, ranks, [ratings.get(p, INITIAL_RATING) for p in players], k)
    return dict(zip(players, after, strict=True))


def elo_after(
    players: Sequence[Hashable], ranks: Sequence[int], before: Sequence[float], k: float
) -> list[float]:
    """The Elo core over plain tuples: each seat's rating after the match, given effective
    ranks (forfeits already last) and ratings before it. The online update and the
    recompute both call this, in the same order, so their numbers are bit-identical.
    A player in several seats gets the sum of its seats' changes (the last entry holds it);
    pairs of one player with itself are not games."""
    n = len(players)
    if n < 2:
        return list(before)
    delta = [0.0] * n
    for i in range(n):
        ri, pi, bi = ranks[i], players[i], before[i]
        for j in range(i + 1, n):
            if players[j] == pi:
                continue
            score = 1.0 if ri < ranks[j] else 0.5 if ri == ranks[j] else 0.0
            expected = 1.0 / (1.0 + 10.0 ** ((before[j] - bi) / 400.0))
            delta[i] += score - expected
            delta[j] += expected - score
    share = k / (n - 1)
    total: dict[Hashable, float] = {}
    after = []
    for p, b, d in zip(players, before, delta, strict=True):
        value = total.get(p, b) + share * d
        total[p] = value
        after.append(value)
    return after


def replay_elo(
    matches: Iterable[Sequence[SeatResult]],
    k: float = DEFAULT_K,
    ratings: dict[Hashable, float] | None = None,
) -> dict[Hashable, float]:
    """Ratings after applying ``matches`` in order (the completion order) from ``ratings``."""
    table: dict[Hashable, float] = {} if ratings is None else ratings
    for seats in matches:
        table.update(elo_update(seats, table, k))
    return table


# -- batch: Bradley–Terry ------------------------------------------------------------------

#: A place is settled when its bot is stronger than the next one, and weaker than the one
#: before it, each with at least this probability.
SETTLED_PROBABILITY = 0.95
_STANDARD_NORMAL = NormalDist()
#: The two-sided 95% point of the standard normal distribution.
_Z95 = _STANDARD_NORMAL.inv_cdf(0.975)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's batch rating on the Elo scale relative to the pool (whose mean is shown
    as 1500), with its 95% confidence interval, the probability that it is stronger than
    the player listed after it (None for the last), and whether its place is settled: it
    is stronger than the next player and weaker than the one before, each with probability
    at least :data:`SETTLED_PROBABILITY` (the first place has no one before it, the last no
    one after it; a lone player is settled)."""

    player: Hashable
    rating: float
    low: float
    high: float
    games: float
    score: float
    p_stronger_than_next: float | None
    settled: bool


@dataclass
class PairwiseTally:
    """Pairwise games between players: ``wins[(a, b)]`` is a's score against b (draws count
    half), ``games[(a, b)]`` the games they played and ``squares[(a, b)]`` the sum of a's
    squared scores (which tells the draws apart), with a < b in the players' order.

    The games of one cluster (one match, or the matches of one duplicate set) are also kept
    one by one, so the fit can measure how they move together; a game without a cluster is
    independent of every other."""

    wins: dict[tuple[Hashable, Hashable], float] = field(default_factory=lambda: defaultdict(float))
    games: dict[tuple[Hashable, Hashable], float] = field(
        default_factory=lambda: defaultdict(float)
    )
    squares: dict[tuple[Hashable, Hashable], float] = field(
        default_factory=lambda: defaultdict(float)
    )
    players: set[Hashable] = field(default_factory=set)
    # The clustered games as parallel arrays: cluster number, the two players (numbered in
    # the order they were first seen) and the first one's score. Compact, because a pool
    # can hold millions of multiplayer games.
    _clusters: dict[Hashable, int] = field(default_factory=dict, repr=False)
    _cluster_count: int = field(default=0, repr=False)
    _numbers: dict[Hashable, int] = field(default_factory=dict, repr=False)
    _game_cluster: array[int] = field(default_factory=lambda: array("q"), repr=False)
    _game_a: array[int] = field(default_factory=lambda: array("q"), repr=False)
    _game_b: array[int] = field(default_factory=lambda: array("q"), repr=False)
    _game_score: array[float] = field(default_factory=lambda: array("d"), repr=False)

    def add_match(self, seats: Sequence[SeatResult], cluster: Hashable | None = None) -> None:
        """Add the pairwise games of one result. They are correlated (a seat that did well
        beat every opponent at once), so they form one cluster: the match's own, or
        ``cluster`` when several matches belong together (the id of a duplicate set)."""
        games = pairwise_scores(seats)
        self.players.update(s.player for s in seats)
        number = None
        if cluster is not None:
            number = self._cluster_number(cluster)
        elif len(games) > 1:
            number = self._cluster_count
            self._cluster_count += 1
        for i, j, score in games:
            self._add(seats[i].player, seats[j].player, score, number)

    def add_game(
        self, a: Hashable, b: Hashable, score_a: float, cluster: Hashable | None = None
    ) -> None:
        """Add one game of ``a`` against ``b`` in which ``a`` scored ``score_a``; games with
        the same ``cluster`` are correlated, a game without one is independent."""
        self._add(a, b, score_a, None if cluster is None else self._cluster_number(cluster))

    def _cluster_number(self, cluster: Hashable) -> int:
        number = self._clusters.get(cluster)
        if number is None:
            number = self._clusters[cluster] = self._cluster_count
            self._cluster_count += 1
        return number

    def _add(self, a: Hashable, b: Hashable, score_a: float, cluster: int | None) -> None:
        self.players.update((a, b))
        key, s = ((a, b), score_a) if _order(a) <= _order(b) else ((b, a), 1.0 - score_a)
        self.wins[key] += s
        self.games[key] += 1.0
        self.squares[key] += s * s
        if cluster is not None:
            numbers = self._numbers
            self._game_cluster.append(cluster)
            self._game_a.append(numbers.setdefault(a, len(numbers)))
            self._game_b.append(numbers.setdefault(b, len(numbers)))
            self._game_score.append(score_a)


def _order(player: Hashable) -> tuple[str, str]:
    """A stable sort key for players of any hashable type (integers in numeric order)."""
    if isinstance(player, int):
        return ("", f"{player:020d}")
    return (type(player).__name__, str(player))


class NoFiniteFit(ValueError):
    """The maximum-likelihood strengths are infinite (a player won or lost everything, or
    the players fall into groups that never met); fit with a prior instead."""


@dataclass(frozen=True, slots=True)
class BradleyTerryFit:
    """A fitted pool: each player's strength relative to the pool mean, ``θ − mean(θ)`` in
    natural-log units, the covariance of those strengths, and each player's games and
    score; players in their sort order (the arrays' order)."""

    players: tuple[Hashable, ...]
    strength: FloatArray
    covariance: FloatArray
    games: FloatArray
    score: FloatArray

    def difference_sd(self, i: int, j: int) -> float:
        """The standard error of ``strength[i] − strength[j]``."""
        c = self.covariance
        return math.sqrt(max(float(c[i, i] + c[j, j] - 2.0 * c[i, j]), 0.0))


def bradley_terry(
    tally: PairwiseTally,
    prior_draws: float = 1.0,
    tolerance: float = 1e-10,
    *,
    clustered: bool = True,
) -> list[Standing]:
    """Bradley–Terry ratings on the Elo scale, best first: :func:`fit_bradley_terry` read
    as standings. Each interval is ±1.96 standard errors of the player's strength relative
    to the pool mean; "stronger than next" is ``Φ((θa − θb) / sd(θa − θb))``."""
    fit = fit_bradley_terry(tally, prior_draws, tolerance, clustered=clustered)
    strength = fit.strength
    order = sorted(range(len(fit.players)), key=lambda i: (-strength[i], _order(fit.players[i])))
    p_next: list[float | None] = []
    for pos, i in enumerate(order):
        if pos + 1 == len(order):
            p_next.append(None)
            continue
        j = order[pos + 1]
        diff, sd = float(strength[i] - strength[j]), fit.difference_sd(i, j)
        p_next.append(_STANDARD_NORMAL.cdf(diff / sd) if sd > 0 else 1.0 if diff > 0 else 0.5)
    standings = []
    for pos, i in enumerate(order):
        above = pos == 0 or (p_next[pos - 1] or 0.0) >= SETTLED_PROBABILITY
        below = pos + 1 == len(order) or (p_next[pos] or 0.0) >= SETTLED_PROBABILITY
        rating = INITIAL_RATING + ELO_PER_NAT * float(strength[i])
        half = _Z95 * ELO_PER_NAT * math.sqrt(max(float(fit.covariance[i, i]), 0.0))
        standings.append(
            Standing(
                player=fit.players[i],
                rating=rating,
                low=rating - half,
                high=rating + half,
                games=float(fit.games[i]),
                score=float(fit.score[i]),
                p_stronger_than_next=p_next[pos],
                settled=above and below,
            )
        )
    return standings


def fit_bradley_terry(
    tally: PairwiseTally,
    prior_draws: float = 1.0,
    tolerance: float = 1e-10,
    *,
    clustered: bool = True,
) -> BradleyTerryFit:
    """Maximum-likelihood Bradley–Terry strengths and their cluster-robust covariance.

    ``P(a beats b) = 1 / (1 + exp(θb − θa))``; a draw counts as half a win each way. With
    ``prior_draws`` > 0 every player also draws that many virtual games against a fixed
    reference, which keeps undefeated players finite; with 0 the plain maximum-likelihood
    fit, refused when it does not exist. Only differences are reported: strengths relative
    to the pool mean, and their covariance.

    The covariance is a sandwich ``I⁻¹ M I⁻¹`` (``I`` the observed information, prior
    included): ``M`` holds each game's variance under the model (``p(1 − p)``, less what
    the pair's draws take off) and, when ``clustered``, the products of the score
    residuals of different games of one cluster, which is how correlated games widen (or,
    in duplicate sets, narrow) the intervals. With neither clusters nor draws it is
    ``I⁻¹``. The fit
    depends on the tallies only, never on the order in which results arrived."""
    players = sorted(tally.players, key=_order)
    n = len(players)
    if n == 0:
        empty = np.zeros(0)
        return BradleyTerryFit((), empty, np.zeros((0, 0)), empty, empty)
    index = {p: i for i, p in enumerate(players)}
    keys = list(tally.games)
    a = np.array([index[x] for x, _ in keys], dtype=np.intp)
    b = np.array([index[y] for _, y in keys], dtype=np.intp)
    g = np.array([tally.games[k] for k in keys], dtype=np.float64)
    w = np.array([tally.wins[k] for k in keys], dtype=np.float64)
    q = np.array([tally.squares[k] for k in keys], dtype=np.float64)
    centred = prior_draws <= 0.0
    if centred and not _strongly_connected(n, a, b, w, g):
        raise NoFiniteFit(
            "no finite maximum-likelihood fit: some players won (or lost) every game against "
            "the rest, or groups of players never met; fit with a prior (prior_draws > 0)"
        )
    # Without a prior only differences are defined: adding 1/n to every entry of the
    # information makes it invertible, and for gradients that sum to zero the solution is
    # the one with sum(θ) = 0 (the Moore–Penrose inverse).
    shift = 1.0 / n if centred else 0.0

    def loglik(t: FloatArray) -> float:
        d = t[a] - t[b]
        prior = 0.5 * prior_draws * float(np.sum(_log_sigmoid(t) + _log_sigmoid(-t)))
        return float(w @ _log_sigmoid(d) + (g - w) @ _log_sigmoid(-d)) + prior

    def gradient_and_information(t: FloatArray) -> tuple[FloatArray, FloatArray]:
        p = _sigmoid(t[a] - t[b])
        r = w - g * p
        grad = _sums(a, r, n) - _sums(b, r, n)
        info = _laplacian(n, a, b, g * p * _sigmoid(t[b] - t[a]))
        s = _sigmoid(t)
        grad += prior_draws * (0.5 - s)
        info[np.diag_indices(n)] += prior_draws * s * (1.0 - s)
        return grad, info

    theta = np.zeros(n)
    current = loglik(theta)
    for _ in range(200):
        grad, info = gradient_and_information(theta)
        step = _solve(info + shift, grad)
        scale = 1.0
        while True:
            trial = theta + scale * step
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, previous, current = trial, current, value
        if float(np.max(np.abs(theta))) > 30.0:
            raise NoFiniteFit(
                "no finite maximum-likelihood fit: some player won or lost every game "
                "(or groups of players never met); use a prior (prior_draws > 0)"
            )
        if scale * float(np.max(np.abs(step))) < tolerance or abs(current - previous) < 1e-14:
            break
    _, info = gradient_and_information(theta)
    inverse = _inverse(info + shift) - shift
    # Each game's variance under the model: p(1 − p) for a win or a loss, and a draw (score
    # ½, s − s² = ¼) takes ¼ off, so a pair's games sum to g·p(1 − p) − Σ(s − s²). The
    # prior's curvature counts as if it were data: without correlation, M = I.
    variance = g * _sigmoid(theta[a] - theta[b]) * _sigmoid(theta[b] - theta[a])
    meat = _laplacian(n, a, b, np.maximum(variance - (w - q), 0.0))
    s = _sigmoid(theta)
    meat[np.diag_indices(n)] += prior_draws * s * (1.0 - s)
    if clustered:
        meat += _within_clusters(tally, index, theta)
    covariance = inverse @ _nonnegative(meat, shift) @ inverse
    covariance = (
        covariance
        - covariance.mean(axis=0, keepdims=True)
        - covariance.mean(axis=1, keepdims=True)
        + covariance.mean()
    )
    return BradleyTerryFit(
        players=tuple(players),
        strength=theta - theta.mean(),
        covariance=covariance,
        games=_sums(a, g, n) + _sums(b, g, n),
        score=_sums(a, w, n) + _sums(b, g - w, n),
    )


def _within_clusters(
    tally: PairwiseTally, index: Mapping[Hashable, int], theta: FloatArray
) -> FloatArray:
    """``Σ_c U_c U_cᵀ − Σ_g u_g u_gᵀ``: the products of the score residuals ``u_g`` of two
    different games of one cluster ``c`` (``U_c`` the sum of its games' residuals)."""
    n = len(theta)
    if not tally._game_cluster:
        return np.zeros((n, n))
    number = np.array([index[p] for p in tally._numbers], dtype=np.intp)
    cluster = np.frombuffer(tally._game_cluster, dtype=np.int64)
    a = number[np.frombuffer(tally._game_a, dtype=np.int64)]
    b = number[np.frombuffer(tally._game_b, dtype=np.int64)]
    u = np.frombuffer(tally._game_score, dtype=np.float64) - _sigmoid(theta[a] - theta[b])
    # U_c as one entry per (cluster, player), sorted by cluster.
    keys, position = np.unique(
        np.concatenate([cluster * n + a, cluster * n + b]), return_inverse=True
    )
    total = _sums(position, np.concatenate([u, -u]), len(keys))
    owner, player = keys // n, (keys % n).astype(np.intp)
    start = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    size = np.diff(np.r_[start, len(keys)])
    outer = np.zeros(n * n)
    for k in np.unique(size).tolist():
        entries = start[size == k][:, None] + np.arange(k)
        ps, us = player[entries], total[entries]
        for x in range(k):
            for y in range(k):
                outer += _sums(ps[:, x] * n + ps[:, y], us[:, x] * us[:, y], n * n)
    return outer.reshape(n, n) - _laplacian(n, a, b, u * u)


def _sums(index: IntArray, weight: FloatArray, length: int) -> FloatArray:
    """``out[k]`` = the sum of ``weight`` where ``index`` is k."""
    return np.asarray(np.bincount(index, weight, length), dtype=np.float64)


def _laplacian(n: int, a: IntArray, b: IntArray, weight: FloatArray) -> FloatArray:
    """``Σ weight · (e_a − e_b)(e_a − e_b)ᵀ`` as a dense n × n matrix."""
    cells = np.concatenate([a * n + a, b * n + b, a * n + b, b * n + a])
    values = np.concatenate([weight, weight, -weight, -weight])
    return _sums(cells, values, n * n).reshape(n, n)


def _nonnegative(matrix: FloatArray, shift: float) -> FloatArray:
    """The nearest positive semi-definite matrix: a variance estimated from few clusters
    can come out negative in some direction, which no variance can be. ``shift`` (1/n
    without a prior) fills the direction of the pool's level, which carries no variance.
    Cholesky tells cheaply that nothing needs doing, the usual case."""
    n = len(matrix)
    symmetric = (matrix + matrix.T) / 2.0
    jitter = 1e-12 * float(np.abs(np.diag(symmetric)).max(initial=0.0)) + 1e-300
    try:
        np.linalg.cholesky(symmetric + shift + jitter * np.eye(n))
        return symmetric
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(symmetric)
        return np.asarray((vectors * np.maximum(values, 0.0)) @ vectors.T, dtype=np.float64)


def _solve(matrix: FloatArray, vector: FloatArray) -> FloatArray:
    try:
        return np.asarray(np.linalg.solve(matrix, vector), dtype=np.float64)
    except np.linalg.LinAlgError as exc:
        raise NoFiniteFit("the information matrix is singular: some players never met") from exc


def _inverse(matrix: FloatArray) -> FloatArray:
    try:
        return np.asarray(np.linalg.inv(matrix), dtype=np.float64)
    except np.linalg.LinAlgError as exc:
        raise NoFiniteFit("the information matrix is singular: some players never met") from exc


def _strongly_connected(n: int, a: IntArray, b: IntArray, w: FloatArray, g: FloatArray) -> bool:
    """Whether every player scored against someone who scored against … every other player:
    Zermelo's condition for a finite maximum-likelihood fit."""
    beat: list[set[int]] = [set() for _ in range(n)]
    beaten_by: list[set[int]] = [set() for _ in range(n)]
    for i, j, won, played in zip(a.tolist(), b.tolist(), w.tolist(), g.tolist(), strict=True):
        if won > 0:
            beat[i].add(j)
            beaten_by[j].add(i)
        if played - won > 0:
            beat[j].add(i)
            beaten_by[i].add(j)

    def reaches_all(edges: list[set[int]]) -> bool:
        seen, todo = {0}, [0]
        while todo:
            for nxt in edges[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return len(seen) == n

    return n == 0 or (reaches_all(beat) and reaches_all(beaten_by))


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=np.float64)


def _log_sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(-np.logaddexp(0.0, -x), dtype=np.float64)


# -- duplicate sets ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DuplicateStanding:
    """A player's results over whole duplicate sets: sets played, set points (pairwise
    set wins plus half the drawn sets), and its total and mean score per set."""

    player: Hashable
    sets: int
    set_points: float
    set_games: int
    total_score: float

    @property
    def mean_score(self) -> float:
        """Mean score per set."""
        return self.total_score / self.sets if self.sets else 0.0


def duplicate_standings(
    sets: Mapping[Hashable, Sequence[Sequence[tuple[Hashable, float]]]],
) -> list[DuplicateStanding]:
    """Standings over duplicate sets (decision 8). ``sets`` maps a set id to its matches,
    each a sequence of ``(player, score)`` per seat. Within a set every player's scores are
    summed over the rotations; the player with the larger sum wins the set against each
    other player (equal sums draw), so the luck of the deal cancels out."""
    count: dict[Hashable, int] = defaultdict(int)
    points: dict[Hashable, float] = defaultdict(float)
    games: dict[Hashable, int] = defaultdict(int)
    totals: dict[Hashable, float] = defaultdict(float)
    for matches in sets.values():
        sums: dict[Hashable, float] = defaultdict(float)
        for match in matches:
            for player, score in match:
                sums[player] += score
        members = sorted(sums, key=_order)
        for p in members:
            count[p] += 1
            totals[p] += sums[p]
        for a_pos, a in enumerate(members):
            for b in members[a_pos + 1 :]:
                games[a] += 1
                games[b] += 1
                if sums[a] > sums[b]:
                    points[a] += 1.0
                elif sums[a] < sums[b]:
                    points[b] += 1.0
                else:
                    points[a] += 0.5
                    points[b] += 0.5
    result = [DuplicateStanding(p, count[p], points[p], games[p], totals[p]) for p in count]
    result.sort(key=lambda s: (-s.set_points, -s.total_score, _order(s.player)))
    return result
