"""A duel played by the platform to its verdict (``docs/duels.md``, "How the platform
runs a duel").

A duel is a tournament of format ``duel`` whose options hold its test (:class:`Settings`).
Each step (:func:`advance`, under the tournament's row lock: :meth:`Store.advance_duel`)
re-runs the test over the duel's done matches in the order they were made
(:func:`run_test`), then either queues matches to keep ``batch`` of them in flight, or,
once the test has decided (or the game limit is reached with nothing in flight), cancels
those still queued and keeps the result. A step is taken when the duel is made, when a
worker's drain task for it ends, and on every sweep (the scheduler's, or a command's that
runs its own workers); taking one twice, or two at once, queues nothing twice.

So a duel needs nobody watching it: the command that asked for it, here or through the
API, only reads its state (``arena.app.duels``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from worker.ratings import SeatResult, effective_ranks
from worker.sprt import Sprt, Verdict, table_score
from worker.store import DuelStep, ScheduledMatch, Store, TableResult, Tournament

#: A duel's defaults: matches queued or running at once, and games before it stops
#: undecided.
BATCH = 8
MAX_GAMES = 20_000

#: ``drain(tournament id, matches queued)``: send workers the matches a step queued
#: (``worker.tasks.start_drains``).
Drain = Callable[[int, int], object]


@dataclass(frozen=True, slots=True)
class Settings:
    """A duel's test as its tournament keeps it: A and B (bot version ids), the SPRT's
    hypotheses and error rates, whether each deal is played once with A in each seat
    (pentanomial, at two seats), how many matches it keeps in flight, its game limit, the
    seed its deals come from, and the seats at the table (A in one, B in the others)."""

    a: int
    b: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    pentanomial: bool
    batch: int = BATCH
    max_games: int = MAX_GAMES
    seed: int = 0
    seats: int = 2

    def __post_init__(self) -> None:
        self.sprt()
        if self.batch < self.unit or self.max_games < self.unit:
            per = "game" if not self.pentanomial else "pair" if self.seats == 2 else "set"
            raise ValueError(
                f"batch and max_games must be at least {self.unit} (a duel plays whole {per}s)"
            )

    @property
    def unit(self) -> int:
        """Matches of one outcome: a game, or the games of a duplicate set (a pair at two
        seats)."""
        return self.seats if self.pentanomial else 1

    def sprt(self) -> Sprt:
        """A new test with these hypotheses and error rates."""
        return Sprt(
            self.elo0,
            self.elo1,
            self.alpha,
            self.beta,
            pentanomial=self.pentanomial,
            opponents=self.seats - 1,
        )

    def as_options(self) -> dict[str, Any]:
        """What a duel's tournament keeps of it in its options (beside the game's options
        and the clock)."""
        return {
            "a": self.a,
            "b": self.b,
            "sprt": {
                "elo0": self.elo0,
                "elo1": self.elo1,
                "alpha": self.alpha,
                "beta": self.beta,
                "pentanomial": self.pentanomial,
            },
            "batch": self.batch,
            "max_games": self.max_games,
            "seed": self.seed,
            "seats": self.seats,
        }

    @classmethod
    def of(cls, tournament: Tournament) -> Settings | None:
        """The duel's settings, or None for a tournament that is not a duel or whose test
        cannot be read. A duel made before the platform ran duels (its command did) kept
        neither A and B nor its batch: A is then its first entry and B its last; one made
        before duels had tables of more than two kept no seats: it has two."""
        options = tournament.options
        stored = options.get("sprt")
        if tournament.format != "duel" or not isinstance(stored, Mapping):
            return None
        entries = tournament.entries
        try:
            return cls(
                a=int(options.get("a", entries[0] if entries else -1)),
                b=int(options.get("b", entries[-1] if entries else -1)),
                elo0=float(stored["elo0"]),
                elo1=float(stored["elo1"]),
                alpha=float(stored["alpha"]),
                beta=float(stored["beta"]),
                pentanomial=bool(stored["pentanomial"]),
                batch=int(options.get("batch", BATCH)),
                max_games=int(options.get("max_games", MAX_GAMES)),
                seed=int(options.get("seed", 0)),
                seats=int(options.get("seats", 2)),
            )
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True, slots=True)
class Test:
    """The test re-run over a duel's done matches: ``sprt`` fed every one of them,
    ``verdict`` the first bound crossed in the order the matches were made (a sequential
    test stops there), and ``decided`` the test's state at that moment
    (:meth:`Sprt.as_dict`; None while it goes on)."""

    sprt: Sprt
    verdict: Verdict
    decided: dict[str, Any] | None


def run_test(settings: Settings, results: Sequence[TableResult]) -> Test:
    """The duel's test over ``results`` (its done matches, in match id order). A game's
    score is A's against the other seats (:func:`worker.sprt.table_score`). A duplicate
    set counts once all its games are done, so a game whose partners are still being
    played counts nothing yet (``docs/architecture.md``, decision 13); a forfeit ranks
    last."""
    sprt = settings.sprt()
    sets: dict[int, list[float]] = {}
    decided: dict[str, Any] | None = None
    for r in results:
        versions = [s.version for s in r.seats]
        if len(versions) != settings.seats or settings.a not in versions:
            continue
        ranks = effective_ranks([SeatResult(s.version, s.rank, s.forfeit) for s in r.seats])
        score = table_score(ranks, versions.index(settings.a))
        if sprt.pentanomial and r.duplicate_set is not None:
            games = sets.setdefault(r.duplicate_set, [])
            games.append(score)
            if len(games) < settings.seats:
                continue
            sprt.add_set(games)
        else:
            sprt.add_game(score)
        if decided is None and sprt.status() != "continue":
            decided = sprt.as_dict()
    return Test(sprt, "continue" if decided is None else decided["status"], decided)


def deal_seed(seed: int, deal: int) -> int:
    """The seed of the duel's ``deal``-th deal (63 bits), the same whichever step makes it."""
    digest = hashlib.blake2b(f"{seed}/{deal}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def next_matches(settings: Settings, made: int, in_flight: int) -> list[ScheduledMatch]:
    """The matches that bring the duel back to ``batch`` in flight, within its game limit,
    after ``made`` matches: A's seat goes round the table (B in every other), and in a
    duplicate duel each deal is played once with A in each seat (whole sets only: a pair
    with the seats swapped at two)."""
    unit, n = settings.unit, settings.seats
    room = min(settings.batch - in_flight, settings.max_games - made) // unit * unit
    out = []
    for k in range(made, made + max(room, 0)):
        place = k % n
        seats = tuple(settings.a if s == place else settings.b for s in range(n))
        if settings.pentanomial:
            out.append(ScheduledMatch(seats, deal_seed(settings.seed, k // n), k // n, place))
        else:
            out.append(ScheduledMatch(seats, deal_seed(settings.seed, k)))
    return out


def step(duel: Tournament, results: list[TableResult], counts: dict[str, int]) -> DuelStep:
    """What the duel does next, from its done matches and its matches' states: queue
    more, or end with the test's result (``verdict``, and the test's state when it
    decided, or now if its game limit came first)."""
    settings = Settings.of(duel)
    if settings is None:  # nothing can be played for it: close it as it stands
        return DuelStep(result={"verdict": "continue", "error": "the duel's test cannot be read"})
    test = run_test(settings, results)
    if test.decided is not None:
        return DuelStep(result={"verdict": test.verdict, **test.decided})
    in_flight = counts["queued"] + counts["running"]
    new = next_matches(settings, sum(counts.values()), in_flight)
    if not new and in_flight == 0:  # the game limit, with nothing left to play
        return DuelStep(result={"verdict": "continue", **test.sprt.as_dict()})
    return DuelStep(matches=new)


def advance(store: Store, tournament_id: int, drain: Drain) -> int:
    """Take one step of the duel (nothing for a tournament that is not a running duel)
    and send workers the matches it queued; returns how many."""
    queued = store.advance_duel(tournament_id, step)
    if queued:
        drain(tournament_id, len(queued))
    return len(queued)


def tick(store: Store, drain: Drain) -> dict[int, int]:
    """Take a step of every running duel; returns tournament id → matches queued, for
    those that queued some."""
    moved = {t: advance(store, t, drain) for t in store.running_duels()}
    return {t: n for t, n in moved.items() if n}
