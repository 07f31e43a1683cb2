"""What every part of the store runs on: the connection pool, whole-call retries, and the
transaction whose statements travel in one pipeline (``docs/storage.md``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Self, TypeVar

import psycopg
from psycopg_pool import ConnectionPool

from referee import settings
from worker import db, ratings

T = TypeVar("T")

ELO_K_ENV = settings.ELO_K


class StoreError(Exception):
    """A request the store refuses (unknown id, inconsistent results)."""


#: What each kind of counted write is: its table, the column of who made it, and when.
COUNTED = {
    "submissions": ("bot_versions", "submitted_by", "submitted_at"),
    "tournaments": ("tournaments", "created_by", "created_at"),
}


@dataclass(frozen=True, slots=True)
class Allowance:
    """How many writes of ``kind`` (a key of :data:`COUNTED`) ``user`` may have made
    since ``since`` for one more to be allowed."""

    user: str
    kind: str
    limit: int
    since: datetime


class AllowanceSpent(StoreError):
    """A write refused because its user had made :attr:`made` (their times, oldest
    first), as many as the allowance allows."""

    def __init__(self, allowance: Allowance, made: list[datetime]) -> None:
        super().__init__(f"{allowance.user} has made {len(made)} {allowance.kind}")
        self.allowance = allowance
        self.made = made


def writes_since(conn: psycopg.Connection, user: str, kind: str, since: datetime) -> list[datetime]:
    """When ``user`` made each of their writes of ``kind`` since ``since``, oldest first."""
    table, who, when = COUNTED[kind]
    rows = conn.execute(
        f"SELECT {when} FROM {table} WHERE {who} = %s AND {when} >= %s ORDER BY {when}",
        (user, since),
    ).fetchall()
    return [r[0] for r in rows]


def spend(conn: psycopg.Connection, allowance: Allowance | None) -> None:
    """Inside the transaction of a counted write, before it: take the lock of the user's
    writes of that kind, held to the commit, and :class:`AllowanceSpent` when they have
    made their allowance. Counting and writing under one lock is what makes the limit
    exact: two writes at once cannot both see the last free place."""
    if allowance is None:
        return
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
        (f"allowance:{allowance.kind}:{allowance.user}",),
    )
    made = writes_since(conn, allowance.user, allowance.kind, allowance.since)
    if len(made) >= allowance.limit:
        raise AllowanceSpent(allowance, made)


@contextlib.contextmanager
def one_trip_transaction(conn: psycopg.Connection) -> Iterator[None]:
    """A transaction on an autocommit (pooled) connection whose BEGIN, statements and
    COMMIT travel in pipeline mode: BEGIN goes with the first statement and COMMIT with the
    last writes, so a body that reads once and then writes costs two round trips. The
    COMMIT is sent only when the body returns, and the call returns only after the server
    answered it (a synchronous commit is durable by then). Any error rolls the whole
    transaction back."""
    try:
        with conn.pipeline():
            conn.execute("BEGIN")
            yield
            conn.execute("COMMIT")
    except BaseException:
        # A failed statement leaves the transaction aborted (the pipeline skipped the
        # COMMIT); an exception from the body leaves it open. Either way: roll back.
        if conn.info.transaction_status in (
            psycopg.pq.TransactionStatus.INTRANS,
            psycopg.pq.TransactionStatus.INERROR,
        ):
            with contextlib.suppress(psycopg.Error):
                conn.execute("ROLLBACK")
        raise


class StoreBase:
    """The pool, the retry rule and the Elo K that the store's parts share: each call runs
    through :meth:`_run` on a pooled connection in autocommit, so a statement on its own is
    its own transaction."""

    def __init__(self, pool: ConnectionPool, url: str, *, elo_k: float = ratings.DEFAULT_K):
        self.pool = pool
        self.url = url
        self.elo_k = elo_k
        self.retry_attempts = 5
        self.retry_delay = 0.1

    @classmethod
    def open(
        cls,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 8,
        migrate: bool = True,
        elo_k: float | None = None,
        attempts: int = 5,
    ) -> Self:
        """Connect to ``url`` (retrying), apply pending migrations, and open a pool."""
        # No per-checkout health check (a round trip per call): a connection found broken
        # fails its call, the pool discards it, and _run retries on a fresh one.
        with db.connect(url, attempts=attempts) as conn:
            if migrate:
                db.migrate(conn)
        pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True},
            open=False,
            name="arena-store",
        )
        try:
            db.with_retry(url, lambda: pool.open(wait=True, timeout=10), attempts=attempts)
        except BaseException:
            pool.close()
            raise
        if elo_k is None:
            elo_k = settings.load().elo_k
        return cls(pool, url, elo_k=elo_k)

    def close(self) -> None:
        """Close every pooled connection."""
        self.pool.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, operation: Callable[[psycopg.Connection], T]) -> T:
        def once() -> T:
            with self.pool.connection() as conn:
                return operation(conn)

        return db.with_retry(
            self.url,
            once,
            attempts=self.retry_attempts,
            delay=self.retry_delay,
            on_failure=self._discard_broken,
        )

    def _discard_broken(self) -> None:
        """After a lost connection, test the idle pooled ones and replace the broken: when
        the server restarted, every pooled connection is dead, and without this each retry
        would take the next dead one (a pool can hold more than the retry attempts)."""
        with contextlib.suppress(Exception):
            self.pool.check()
