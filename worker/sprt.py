"""Duels: the sequential probability ratio test (SPRT) that decides whether bot A is stronger
than bot B, as chess engine testers (Fishtest, fastchess, cutechess, OpenBench) run it.

H0 says A is ``elo0`` logistic Elo stronger than B, H1 says ``elo1``; games are added one by
one (or in seat-swapped pairs) and the test stops as soon as the log-likelihood ratio (LLR)
of H1 against H0 leaves Wald's bounds. The LLR is the generalized SPRT's, computed exactly:
each hypothesis is replaced by the distribution of outcomes closest (in likelihood) to the
observed one among those whose expected score is the hypothesis's score. That is Michel
Van den Bergh's "Comparing the approximations for the generalized log likelihood ratio of
a multinomial distribution", Proposition 1.1, which is Fishtest's ``LLRcalc.LLR_logistic``
and fastchess's ``SPRT::getLLR_logistic`` (its default ``logistic`` model). It is chosen over
the mean-and-variance approximation ``N·(s1−s0)·(2·mean−s0−s1)/(2·var)`` because a duel
between bots of very different strength decides in a few dozen games, where that
approximation is poor: after a single win (with the usual regularisation) it is already
far beyond the upper bound, while the exact LLR grows by at most ln(s1/s0) per win.

Outcomes are trinomial (loss, draw, win of single games) or, for duplicate duels where each
deal is played twice with the seats swapped, pentanomial: the pair's score 0, ½, 1, 1½, 2
(LL, LD, DD or WL, WD, WW) is one outcome, so the luck the two games share cancels out of
the variance. See ``docs/duels.md``.

At a table of more than two (A against ``opponents`` seats of B) a game's score is A's
pairwise score, as the ratings count a table (decision 9): the mean over B's seats of 1,
½ or 0 for finishing above, level with or below it, so a game's outcomes are the
multiples of 1 / (2 · opponents); a duplicate set plays one deal with A in every seat and
its outcome is the mean of its games. With one opponent these are the trinomial and
pentanomial outcomes above.
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Verdict = Literal["continue", "H0", "H1"]

#: Per-game score of each trinomial outcome: loss, draw, win.
TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
#: Per-game score of each pentanomial outcome (the pair's score halved): LL, LD, DD/WL, WD, WW.
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: The count an empty outcome bin is given in the LLR, as fastchess does: every bin must be
#: possible under the fitted distributions, or a run of wins (or of draws) would make the
#: LLR infinite or undefined.
EMPTY_BIN = 1e-3
#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


def logistic_score(elo: float) -> float:
    """Expected per-game score of a player ``elo`` logistic Elo stronger than its opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """Inverse of :func:`logistic_score`; ±inf at scores 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: H0 is accepted at or below the lower, H1 at or above
    the upper, for a false-H1 rate ``alpha`` and a false-H0 rate ``beta``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def game_score(rank_a: int, rank_b: int) -> float:
    """A's score in a two-player match from the seats' ranks (0 = first): 1, ½ or 0."""
    return 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0


def _constrained_mle(probs: Sequence[float], scores: Sequence[float], s: float) -> list[float]:
    """The distribution on ``scores`` with mean ``s`` that maximises the likelihood of the
    empirical ``probs`` (all > 0): ``p_i = probs_i / (1 + θ·(scores_i − s))`` where θ solves
    ``Σ probs_i·d_i / (1 + θ·d_i) = 0``, ``d_i = scores_i − s`` (Van den Bergh, eq. 1.2–1.3).

    The left side decreases strictly in θ over ``(−1/max d, −1/min d)`` and runs from +∞ to
    −∞ there, so Newton's method kept inside a shrinking bracket cannot miss the one root."""
    d = [a - s for a in scores]
    lo, hi = -1.0 / max(d), -1.0 / min(d)
    theta = 0.0
    for _ in range(200):
        f = 0.0
        slope = 0.0
        for p_i, d_i in zip(probs, d, strict=True):
            q = d_i / (1.0 + theta * d_i)
            f += p_i * q
            slope -= p_i * q * q
        if f > 0.0:
            lo = theta
        elif f < 0.0:
            hi = theta
        else:
            break
        step = theta - f / slope
        if not lo < step < hi:
            step = 0.5 * (lo + hi)
        if abs(step - theta) <= 1e-13 * (1.0 + abs(theta)):
            theta = step
            break
        theta = step
    return [p_i / (1.0 + theta * d_i) for p_i, d_i in zip(probs, d, strict=True)]


def llr_logistic(
    counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float
) -> float:
    """The generalized LLR of "``elo1``" against "``elo0``" (logistic Elo) for outcome
    ``counts`` with per-game ``scores``; empty bins count :data:`EMPTY_BIN`, no outcomes 0."""
    if sum(counts) == 0:
        return 0.0
    regularised = [c if c > 0 else EMPTY_BIN for c in counts]
    total = sum(regularised)
    probs = [c / total for c in regularised]
    p0 = _constrained_mle(probs, scores, logistic_score(elo0))
    p1 = _constrained_mle(probs, scores, logistic_score(elo1))
    return total * sum(
        p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0, strict=True)
    )


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """A's Elo advantage with its 95% interval (±inf when the interval reaches a score of 0
    or 1), from the mean score and its standard error over ``outcomes`` games or pairs."""

    elo: float
    low: float
    high: float
    score: float
    outcomes: int


def table_score(ranks: Sequence[int], mine: int) -> float:
    """A's score at a table from every seat's rank (0 = first): the mean of its
    :func:`game_score` against each other seat."""
    others = [r for seat, r in enumerate(ranks) if seat != mine]
    return sum(game_score(ranks[mine], r) for r in others) / len(others)


@dataclass
class Sprt:
    """One duel's running test. ``counts`` holds the trinomial (L, D, W) or pentanomial
    (LL, LD, DD/WL, WD, WW) outcomes, or at a larger table (``opponents`` seats of B) those
    of the module's docstring; ``pending`` a two-seat duplicate game still waiting for its
    seat-swapped partner. All may be given to resume a duel from :meth:`as_dict`."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    pentanomial: bool = False
    counts: list[int] = field(default_factory=list)
    pending: float | None = None
    opponents: int = 1

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise ValueError("alpha and beta must lie strictly between 0 and 1")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("alpha + beta must be below 1")
        if not 1 <= self.opponents <= 7:
            raise ValueError(
                f"opponents must be 1 to 7 (seats of B at the table), not {self.opponents}"
            )
        size = len(self.scores)
        if not self.counts:
            self.counts = [0] * size
        if len(self.counts) != size or min(self.counts) < 0:
            raise ValueError(f"counts must be {size} non-negative numbers")
        if self.pending is not None and not self.pentanomial:
            raise ValueError("only a duplicate (pentanomial) duel has a pending game")
        if self.pending is not None:
            self._check(self.pending)

    @property
    def steps(self) -> int:
        """The outcome bins less one: a game's (or a set's mean) score is a multiple of
        1 / steps."""
        per_game = 2 * self.opponents
        return per_game * (self.opponents + 1) if self.pentanomial else per_game

    @property
    def scores(self) -> tuple[float, ...]:
        """Per-game score of each outcome bin."""
        if self.opponents == 1:
            return PENTANOMIAL_SCORES if self.pentanomial else TRINOMIAL_SCORES
        return tuple(j / self.steps for j in range(self.steps + 1))

    @property
    def outcomes(self) -> int:
        """Outcomes counted so far: games, or pairs for a duplicate duel."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """Games added so far, a pending unpaired one included."""
        if not self.pentanomial:
            return self.outcomes
        return (self.opponents + 1) * self.outcomes + (self.pending is not None)

    def _check(self, score: float) -> int:
        """``score`` as a multiple of one game's step, checked."""
        per_game = 2 * self.opponents
        units = round(score * per_game)
        if not (0 <= units <= per_game and math.isclose(units, score * per_game)):
            allowed = "0, 0.5 or 1" if per_game == 2 else f"a multiple of 1/{per_game} in 0..1"
            raise ValueError(f"a game score is {allowed}, not {score!r}")
        return units

    def add_game(self, score_of_a: float) -> None:
        """Count one game (A's score 0, ½ or 1 against one opponent; its pairwise score at
        a larger table). In a two-seat duplicate duel the first game of a pair waits in
        ``pending`` and the second completes the pair; a larger duplicate table adds its
        sets whole (:meth:`add_set`)."""
        units = self._check(score_of_a)
        if not self.pentanomial:
            self.counts[units] += 1
        elif self.opponents > 1:
            raise ValueError("a duplicate duel at a table of more than two adds whole sets")
        elif self.pending is None:
            self.pending = score_of_a
        else:
            first, self.pending = self.pending, None
            self.add_pair(first, score_of_a)

    def add_pair(self, score_a_game1: float, score_a_game2: float) -> None:
        """Count the two games of one deal played with the seats swapped: one pentanomial
        outcome, or two trinomial ones if the duel is not duplicate."""
        self.add_set([score_a_game1, score_a_game2])

    def add_set(self, scores_of_a: Sequence[float]) -> None:
        """Count the games of one deal played with A in each seat in turn: one outcome of
        a duplicate duel (its mean), or a game each if the duel is not duplicate."""
        if len(scores_of_a) != self.opponents + 1:
            raise ValueError(f"a set is {self.opponents + 1} games, not {len(scores_of_a)}")
        units = [self._check(score) for score in scores_of_a]
        if self.pentanomial:
            self.counts[sum(units)] += 1
        else:
            for score in scores_of_a:
                self.add_game(score)

    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 so far (finite, 0 before any outcome)."""
        return llr_logistic(self.counts, self.scores, self.elo0, self.elo1)

    def bounds(self) -> tuple[float, float]:
        """The (lower, upper) LLR bounds of :func:`sprt_bounds`."""
        return sprt_bounds(self.alpha, self.beta)

    def status(self) -> Verdict:
        """``"H1"`` at or above the upper bound, ``"H0"`` at or below the lower, else
        ``"continue"``."""
        lower, upper = self.bounds()
        llr = self.llr()
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return "continue"

    def elo(self) -> EloEstimate | None:
        """A's Elo advantage over B estimated from the counts (the raw ones, not regularised),
        or None before any outcome. For pairs the score is per game and its variance that
        of the pair, as fastchess reports pentanomial Elo."""
        n = self.outcomes
        if n == 0:
            return None
        mean = sum(c * a for c, a in zip(self.counts, self.scores, strict=True)) / n
        var = sum(c * (a - mean) ** 2 for c, a in zip(self.counts, self.scores, strict=True)) / n
        half = Z95 * math.sqrt(var / n)
        return EloEstimate(
            elo=score_to_elo(mean),
            low=score_to_elo(mean - half),
            high=score_to_elo(mean + half),
            score=mean,
            outcomes=n,
        )

    def as_dict(self) -> dict[str, Any]:
        """The duel's state and figures as JSON-ready values (infinite Elo bounds are None)."""
        lower, upper = self.bounds()
        estimate = self.elo()
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "pentanomial": self.pentanomial,
            "counts": list(self.counts),
            "pending": self.pending,
            "opponents": self.opponents,
            "games": self.games,
            "llr": self.llr(),
            "lower": lower,
            "upper": upper,
            "status": self.status(),
            "elo": None
            if estimate is None
            else {
                "elo": _finite(estimate.elo),
                "low": _finite(estimate.low),
                "high": _finite(estimate.high),
                "score": estimate.score,
            },
        }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True, slots=True)
class SimulatedDuel:
    """How a simulated duel ended: its verdict (``"continue"`` if ``max_games`` ran out)
    and the games it took."""

    verdict: Verdict
    games: int


def simulate(
    true_elo: float,
    elo0: float,
    elo1: float,
    *,
    alpha: float = 0.05,
    beta: float = 0.05,
    draw_ratio: float = 0.0,
    pentanomial: bool = False,
    rng: np.random.Generator,
    max_games: int = 100_000,
) -> SimulatedDuel:
    """Play independent games of known strength (A scores ``logistic_score(true_elo)`` on
    average, draws a ``draw_ratio`` of them) until the test stops or ``max_games`` are
    played. A duplicate duel checks the test after each pair, a plain one after each game."""
    s = logistic_score(true_elo)
    win = s - draw_ratio / 2.0
    loss = 1.0 - s - draw_ratio / 2.0
    if not (0.0 <= draw_ratio <= 1.0 and win >= 0.0 and loss >= 0.0):
        raise ValueError(f"draw ratio {draw_ratio} is impossible at {true_elo} Elo")
    sprt = Sprt(elo0, elo1, alpha, beta, pentanomial)
    lower, upper = sprt.bounds()
    step = 2 if pentanomial else 1
    while sprt.games + step <= max_games:
        u = rng.random(256 * step)
        scores = np.where(u < win, 1.0, np.where(u < win + draw_ratio, 0.5, 0.0)).tolist()
        for i in range(0, len(scores), step):
            if pentanomial:
                sprt.add_pair(scores[i], scores[i + 1])
            else:
                sprt.add_game(scores[i])
            llr = sprt.llr()
            if llr >= upper or llr <= lower:
                return SimulatedDuel("H1" if llr >= upper else "H0", sprt.games)
            if sprt.games + step > max_games:
                break
    return SimulatedDuel("continue", sprt.games)


def simulation_table(
    true_elos: Sequence[float],
    elo0: float,
    elo1: float,
    *,
    duels: int,
    draw_ratio: float,
    pentanomial: bool,
    seed: int,
) -> list[tuple[float, float, float, float]]:
    """For each true Elo: (true Elo, share of duels accepting H1, share accepting H0, median
    games), over ``duels`` simulated duels at alpha = beta = 0.05."""
    rng = np.random.default_rng(seed)
    rows = []
    for true_elo in true_elos:
        results = [
            simulate(true_elo, elo0, elo1, draw_ratio=draw_ratio, pentanomial=pentanomial, rng=rng)
            for _ in range(duels)
        ]
        h1 = sum(r.verdict == "H1" for r in results) / duels
        h0 = sum(r.verdict == "H0" for r in results) / duels
        rows.append((true_elo, h1, h0, statistics.median(r.games for r in results)))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Print a Markdown table of simulated duels: ``python -m worker.sprt``."""
    parser = argparse.ArgumentParser(prog="python -m worker.sprt", description=main.__doc__)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--draw-ratio", type=float, default=0.2)
    parser.add_argument("--duels", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    gap = args.elo1 - args.elo0
    true_elos = [args.elo0 + k * gap / 2.0 for k in range(-2, 5)]
    print(
        f"elo0 = {args.elo0:g}, elo1 = {args.elo1:g}, alpha = beta = 0.05, "
        f"draw ratio {args.draw_ratio:g}, {args.duels} duels a row\n"
    )
    print("| true Elo | model | H1 accepted | H0 accepted | median games |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for pentanomial in (False, True):
        model = "pentanomial" if pentanomial else "trinomial"
        table = simulation_table(
            true_elos,
            args.elo0,
            args.elo1,
            duels=args.duels,
            draw_ratio=args.draw_ratio,
            pentanomial=pentanomial,
            seed=args.seed,
        )
        for true_elo, h1, h0, median in table:
            print(f"| {true_elo:g} | {model} | {h1:.1%} | {h0:.1%} | {median:g} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
