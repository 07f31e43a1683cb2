"""Ratings (ARCHITECTURE decision 9): online Elo and a batch Bradley–Terry fit. Pure
functions over plain values; the store feeds them rows and writes back their numbers.

A match result is a sequence of :class:`SeatResult` (one per seat). Every multiplayer
result is read as the pairwise games it implies: the better rank wins, equal ranks draw,
and a seat that forfeited ranks below every seat that did not. See ``docs/storage.md``
for the maths.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's batch rating on the Elo scale, with its 95% confidence interval and the
    probability that it is stronger than the player listed after it (None for the last)."""

    player: Hashable
    rating: float
    low: float
    high: float
    games: float
    score: float
    p_stronger_than_next: float | None


@dataclass
class PairwiseTally:
    """Pairwise games between players: ``wins[(a, b)]`` is a's score against b (draws count
    half), ``games[(a, b)]`` the games they played, with a < b in the players' order."""

    wins: dict[tuple[Hashable, Hashable], float] = field(default_factory=lambda: defaultdict(float))
    games: dict[tuple[Hashable, Hashable], float] = field(
        default_factory=lambda: defaultdict(float)
    )
    players: set[Hashable] = field(default_factory=set)

    def add_match(self, seats: Sequence[SeatResult]) -> None:
        """Add the pairwise games of one result."""
        for s in seats:
            self.players.add(s.player)
        for i, j, score in pairwise_scores(seats):
            self.add_game(seats[i].player, seats[j].player, score)

    def add_game(self, a: Hashable, b: Hashable, score_a: float) -> None:
        """Add one game of ``a`` against ``b`` in which ``a`` scored ``score_a``."""
        self.players.update((a, b))
        key, s = ((a, b), score_a) if _order(a) <= _order(b) else ((b, a), 1.0 - score_a)
        self.wins[key] += s
        self.games[key] += 1.0


def _order(player: Hashable) -> tuple[str, str]:
    """A stable sort key for players of any hashable type (integers in numeric order)."""
    if isinstance(player, int):
        return ("", f"{player:020d}")
    return (type(player).__name__, str(player))


class NoFiniteFit(ValueError):
    """The maximum-likelihood strengths are infinite (a player won or lost everything, or
    the players fall into groups that never met); fit with a prior instead."""


def bradley_terry(
    tally: PairwiseTally, prior_draws: float = 1.0, tolerance: float = 1e-10
) -> list[Standing]:
    """Maximum-likelihood Bradley–Terry ratings on the Elo scale, best first.

    ``P(a beats b) = 1 / (1 + exp(θb − θa))``; a draw counts as half a win each way. With
    ``prior_draws`` > 0 every player also draws that many virtual games against a fixed
    1500 reference (a weak prior that keeps undefeated players finite); with 0 the plain
    maximum-likelihood fit is centred on a mean of 1500. Intervals come from the observed
    Fisher information; "stronger than next" is ``Φ((θa − θb) / sd(θa − θb))``. The fit
    depends on the tallies only, never on the order in which results arrived."""
    players = sorted(tally.players, key=_order)
    n = len(players)
    if n == 0:
        return []
    index = {p: i for i, p in enumerate(players)}
    pairs = [(index[a], index[b], tally.wins[(a, b)], g) for (a, b), g in tally.games.items()]
    theta = [0.0] * n
    if prior_draws <= 0.0 and not _strongly_connected(n, pairs):
        raise NoFiniteFit(
            "no finite maximum-likelihood fit: some players won (or lost) every game against "
            "the rest, or groups of players never met; fit with a prior (prior_draws > 0)"
        )

    def loglik(t: Sequence[float]) -> float:
        total = 0.0
        for i, j, w, g in pairs:
            d = t[i] - t[j]
            total += w * _log_sigmoid(d) + (g - w) * _log_sigmoid(-d)
        for i in range(n):
            total += prior_draws * 0.5 * (_log_sigmoid(t[i]) + _log_sigmoid(-t[i]))
        return total

    def gradient_and_information(t: Sequence[float]) -> tuple[list[float], list[list[float]]]:
        grad = [0.0] * n
        info = [[0.0] * n for _ in range(n)]
        for i, j, w, g in pairs:
            p = _sigmoid(t[i] - t[j])
            grad[i] += w - g * p
            grad[j] -= w - g * p
            v = g * p * (1.0 - p)
            info[i][i] += v
            info[j][j] += v
            info[i][j] -= v
            info[j][i] -= v
        for i in range(n):
            p = _sigmoid(t[i])
            grad[i] += prior_draws * (0.5 - p)
            info[i][i] += prior_draws * p * (1.0 - p)
        return grad, info

    centred = prior_draws <= 0.0
    current = loglik(theta)
    for _ in range(200):
        grad, info = gradient_and_information(theta)
        covariance = _covariance(info, centred)
        step = [sum(covariance[i][j] * grad[j] for j in range(n)) for i in range(n)]
        scale = 1.0
        while True:
            trial = [t + scale * s for t, s in zip(theta, step, strict=True)]
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, previous, current = trial, current, value
        if max(abs(t) for t in theta) > 30.0:
            raise NoFiniteFit(
                "no finite maximum-likelihood fit: some player won or lost every game "
                "(or groups of players never met); use a prior (prior_draws > 0)"
            )
        if max(abs(scale * s) for s in step) < tolerance or abs(current - previous) < 1e-14:
            break
    _, info = gradient_and_information(theta)
    covariance = _covariance(info, centred)
    played: dict[int, float] = defaultdict(float)
    scored: dict[int, float] = defaultdict(float)
    for i, j, w, g in pairs:
        played[i] += g
        played[j] += g
        scored[i] += w
        scored[j] += g - w
    order = sorted(range(n), key=lambda i: (-theta[i], _order(players[i])))
    standings = []
    for pos, i in enumerate(order):
        sd = math.sqrt(max(covariance[i][i], 0.0))
        rating = INITIAL_RATING + ELO_PER_NAT * theta[i]
        p_next = None
        if pos + 1 < len(order):
            j = order[pos + 1]
            var = covariance[i][i] + covariance[j][j] - 2.0 * covariance[i][j]
            diff = theta[i] - theta[j]
            p_next = _normal_cdf(diff / math.sqrt(var)) if var > 0 else 1.0 if diff > 0 else 0.5
        standings.append(
            Standing(
                player=players[i],
                rating=rating,
                low=rating - 1.959963984540054 * ELO_PER_NAT * sd,
                high=rating + 1.959963984540054 * ELO_PER_NAT * sd,
                games=played[i],
                score=scored[i],
                p_stronger_than_next=p_next,
            )
        )
    return standings


def _strongly_connected(n: int, pairs: Sequence[tuple[int, int, float, float]]) -> bool:
    """Whether every player scored against someone who scored against … every other player:
    Zermelo's condition for a finite maximum-likelihood fit."""
    beat: list[set[int]] = [set() for _ in range(n)]
    beaten_by: list[set[int]] = [set() for _ in range(n)]
    for i, j, w, g in pairs:
        if w > 0:
            beat[i].add(j)
            beaten_by[j].add(i)
        if g - w > 0:
            beat[j].add(i)
            beaten_by[i].add(j)

    def reaches_all(edges: list[set[int]]) -> bool:
        seen, todo = {0}, [0]
        while todo:
            for nxt in edges[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return len(seen) == n

    return reaches_all(beat) and reaches_all(beaten_by)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _covariance(info: list[list[float]], centred: bool) -> list[list[float]]:
    """The inverse of the information matrix; when centred (no prior), the Moore–Penrose
    inverse of the singular information, i.e. the covariance under sum(θ) = 0."""
    n = len(info)
    if not centred:
        return _invert(info)
    shifted = [[info[i][j] + 1.0 / n for j in range(n)] for i in range(n)]
    inverse = _invert(shifted)
    return [[inverse[i][j] - 1.0 / n for j in range(n)] for i in range(n)]


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan inversion with partial pivoting (the matrices here are small)."""
    n = len(matrix)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise NoFiniteFit("the information matrix is singular: some players never met")
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1.0 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


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
