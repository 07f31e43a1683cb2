"""The repository layer over Postgres that the worker, the CLI and the web viewer share:
plain SQL through psycopg 3 and a psycopg_pool ConnectionPool (``docs/storage.md``).

One module per aggregate, each a part of :class:`Store`: ``users`` (users and their API
keys), ``bots`` (bots and their versions), ``matches`` (the match state machine, finishing
a match, its record), ``competitions`` (tournaments), ``ladders`` (ladders, their pools and
ratings), ``ratings`` (Elo tables, history, recompute, standings) and ``status`` (what
``arena status`` reads).
``finished`` is what a worker hands in when a match ends and the check made on it before a
finish; ``base`` is the pool, the retries and the one-round-trip transaction they all use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from worker import db
from worker.store.base import ELO_K_ENV, Allowance, AllowanceSpent, StoreError
from worker.store.bots import Bot, BotStore, BotSummary, BotVersion, RatedVersion, SeatMatch
from worker.store.competitions import (
    TOURNAMENT_STATES,
    CompetitionStore,
    DuelStep,
    ScheduledMatch,
    SeatResultRow,
    TableResult,
    Tournament,
    TournamentState,
)
from worker.store.finished import RECORD_FORMAT, FinishedMatch, InvalidResult, SeatOutcome
from worker.store.ladders import Ladder, LadderStanding, LadderStore, TickPlan
from worker.store.matches import (
    MATCH_STATES,
    CorruptRecord,
    Match,
    MatchState,
    MatchStore,
    RecordEntry,
    UnknownMatch,
    seed_commitment,
)
from worker.store.ratings import RatingRow, RatingStore, RecomputeStats
from worker.store.status import StatusStore, StoreStatus
from worker.store.users import (
    PLATFORM_USER,
    ApiKey,
    KeyProblem,
    KeyRefused,
    NewKey,
    User,
    UserStore,
    UserSummary,
)

__all__ = [
    "ELO_K_ENV",
    "MATCH_STATES",
    "PLATFORM_USER",
    "RECORD_FORMAT",
    "TOURNAMENT_STATES",
    "Allowance",
    "AllowanceSpent",
    "ApiKey",
    "Bot",
    "BotSummary",
    "BotVersion",
    "CorruptRecord",
    "DuelStep",
    "FinishedMatch",
    "InvalidResult",
    "KeyProblem",
    "KeyRefused",
    "Ladder",
    "LadderStanding",
    "Match",
    "MatchState",
    "NewKey",
    "RatedVersion",
    "RatingRow",
    "RecomputeStats",
    "RecordEntry",
    "ScheduledMatch",
    "SeatMatch",
    "SeatOutcome",
    "SeatResultRow",
    "Store",
    "StoreError",
    "StoreStatus",
    "TableResult",
    "TickPlan",
    "Tournament",
    "TournamentState",
    "UnknownMatch",
    "User",
    "UserSummary",
    "open_store",
    "seed_commitment",
]


# One class with one part per aggregate rather than a facade over separate repositories:
# the parts share only what StoreBase holds (the pool, the retry rule, the Elo K), call
# none of each other's methods, and callers keep one object whose settings they can change
# in one place (``store.elo_k``, ``store.retry_attempts``), with no method written twice.
class Store(
    UserStore, BotStore, CompetitionStore, LadderStore, MatchStore, RatingStore, StatusStore
):
    """Users, bots, matches, records and ratings in one Postgres database. Thread-safe:
    every call takes a connection from the pool. Calls that lose their connection are
    retried with backoff; when the server stays down they raise
    :class:`worker.db.StoreUnavailable`."""


@contextlib.contextmanager
def open_store(url: str | None = None, **kwargs: Any) -> Iterator[Store]:
    """A migrated store on ``url``, ``ARENA_DATABASE_URL`` or the embedded server (started
    for the ``with`` block and stopped after it)."""
    with db.database_url(url) as resolved, Store.open(resolved, **kwargs) as store:
        yield store
