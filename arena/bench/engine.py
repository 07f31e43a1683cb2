"""``arena bench engine``: random legal play through the engines, hands/s and decisions/s.

Every decision lists the complete set of legal actions and picks one at random,
so the figure covers legal-move generation, meld search and scoring. When
OpenSpiel is importable its Gin Rummy engine is measured in the same run, the
same way (random play from a cloned initial state), and the ratio printed.
Runs alternate between the engines and the medians are reported, because this
machine is noisy.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from referee.games import get_game

OPENSPIEL_GAME = "gin_rummy"
OPENSPIEL_PARAMS = {"undercut_bonus": 10}


@dataclass(frozen=True)
class Sample:
    """One timed run."""

    hands: int
    decisions: int
    seconds: float

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds


def hands_of(result_detail: dict[str, Any]) -> int:
    """Hands (or rounds) a finished match played."""
    return int(result_detail.get("hands", result_detail.get("rounds", 0)))


def run_ours(
    game: str, seconds: float, seats: int | None, options: dict[str, Any], seed: int
) -> Sample:
    """Play random matches of ``game`` for about ``seconds``; count hands and decisions."""
    spec = get_game(game)
    rng = random.Random(seed)
    choice = rng.choice
    hands = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    match_seed = seed
    while time.perf_counter() < deadline:
        state = spec.new_match(match_seed, seats=seats, options=options)
        match_seed += 1
        legal_actions, apply, to_act = state.legal_actions, state.apply, state.to_act
        n = 0
        while to_act() is not None:
            apply(choice(legal_actions()))
            n += 1
            if n & 1023 == 0 and time.perf_counter() > deadline:
                break
        decisions += n
        result = state.result()
        if result is not None:
            hands += hands_of(dict(result.detail))
        else:  # stopped mid-match: count the hands it finished
            hands += _hands_so_far(state)
    return Sample(hands, decisions, time.perf_counter() - start)


def _hands_so_far(state: Any) -> int:
    """Hands (rounds) a match stopped at the deadline has finished."""
    if isinstance(getattr(state, "sheet", None), list):  # Hollywood Gin's score sheet
        return len(state.sheet)
    if isinstance(getattr(state, "hands_played", None), int):  # Gin for three, Rummy 500
        return int(state.hands_played)
    if isinstance(getattr(state, "round_no", None), int):  # Flip Flop: the round in play
        return max(0, int(state.round_no) - 1)
    return 0


def openspiel_available() -> bool:
    """Whether OpenSpiel's Python bindings import."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def run_openspiel(seconds: float, seed: int) -> Sample:
    """OpenSpiel's Gin Rummy, random play from a cloned initial state (one hand per game)."""
    import pyspiel

    game = pyspiel.load_game(OPENSPIEL_GAME, OPENSPIEL_PARAMS)
    initial = game.new_initial_state()
    rng = random.Random(seed)
    hands = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = initial.clone()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        hands += 1
    return Sample(hands, decisions, time.perf_counter() - start)


@dataclass(frozen=True)
class Report:
    """Medians over the repeats, with the reference engine measured in the same run.

    The Gin games are compared with OpenSpiel's Gin Rummy on hands per second;
    the other games with our own Hollywood Gin engine on decisions per second
    (no public engine exists for them)."""

    game: str
    seats: int
    repeats: int
    seconds: float
    hands_per_s: float
    decisions_per_s: float
    reference: str | None
    reference_hands_per_s: float | None
    reference_decisions_per_s: float | None

    @property
    def ratio_metric(self) -> str:
        return "hands/s" if self.reference == "openspiel gin_rummy" else "decisions/s"

    @property
    def ratio(self) -> float | None:
        if self.reference_hands_per_s is None or self.reference_decisions_per_s is None:
            return None
        if self.ratio_metric == "hands/s":
            return self.hands_per_s / self.reference_hands_per_s
        return self.decisions_per_s / self.reference_decisions_per_s

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.seats,
            "repeats": self.repeats,
            "seconds_per_run": self.seconds,
            "hands_per_s": round(self.hands_per_s, 1),
            "decisions_per_s": round(self.decisions_per_s, 1),
            "reference": self.reference,
            "reference_hands_per_s": _round(self.reference_hands_per_s),
            "reference_decisions_per_s": _round(self.reference_decisions_per_s),
            "ratio": _round(self.ratio, 3),
            "ratio_metric": self.ratio_metric if self.reference else None,
        }


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


GIN_GAMES = ("hollywood-gin", "gin-three")


def bench_engine(
    game: str,
    *,
    seconds: float = 3.0,
    repeats: int = 3,
    seats: int | None = None,
    options: dict[str, Any] | None = None,
    reference: bool = True,
) -> Report:
    """Measure ``game`` and its reference engine, alternating runs, medians reported."""
    spec = get_game(game)
    n = spec.default_seats if seats is None else seats
    ref_name: str | None = None
    if reference and game in GIN_GAMES and openspiel_available():
        ref_name = "openspiel gin_rummy"
    elif reference and game not in GIN_GAMES:
        ref_name = "hollywood-gin"
    ours: list[Sample] = []
    theirs: list[Sample] = []
    for i in range(repeats):
        ours.append(run_ours(game, seconds, n, options or {}, seed=i))
        if ref_name == "openspiel gin_rummy":
            theirs.append(run_openspiel(seconds, seed=i))
        elif ref_name is not None:
            theirs.append(run_ours("hollywood-gin", seconds, 2, {}, seed=i))
    return Report(
        game=game,
        seats=n,
        repeats=repeats,
        seconds=seconds,
        hands_per_s=statistics.median(s.hands_per_s for s in ours),
        decisions_per_s=statistics.median(s.decisions_per_s for s in ours),
        reference=ref_name,
        reference_hands_per_s=statistics.median(s.hands_per_s for s in theirs) if theirs else None,
        reference_decisions_per_s=statistics.median(s.decisions_per_s for s in theirs)
        if theirs
        else None,
    )
