"""Pytest fixtures for tests that need Postgres (load with ``pytest_plugins``).

The server: ``ARENA_TEST_DATABASE_URL`` if set, else the local server on 127.0.0.1:5432
(user postgres) when it answers, else an embedded pgserver in a temporary folder. Each
test process creates its own uniquely named database, migrates it, and drops it at the end.
:func:`finished_match` builds what a worker hands in when a match ends.

PYTEST_DONT_REWRITE: test modules import this module's helpers before pytest loads it as
a plugin, and it has no asserts to rewrite.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator, Sequence

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from referee import settings
from referee.engine import Result
from referee.games import get_game
from referee.record import MatchRecord, SeatEntry, options_dict
from referee.wire import encode_record
from worker import db
from worker.store import FinishedMatch, Store

LOCAL_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
TABLES = (
    "ladder_ratings, rating_history, ratings, match_records, match_seats, matches,"
    " ladder_entries, ladders, tournament_entries, tournaments, bot_versions, bots,"
    " match_logs, match_worker_logs, match_analyses, ladder_withdrawals, remote_sessions,"
    " web_sessions, api_keys"
)
# The house user comes with the schema (migration 0006) and stays.
HOUSE_USER = "arena"


def _local_answers() -> bool:
    try:
        with psycopg.connect(LOCAL_URL, connect_timeout=2):
            return True
    except psycopg.Error:
        return False


@pytest.fixture(scope="session")
def pg_admin_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A URL on a server where the tests may create and drop databases."""
    configured = settings.load().test_database_url
    if configured:
        yield configured
    elif _local_answers():
        yield LOCAL_URL
    else:
        with db.EmbeddedPostgres(tmp_path_factory.mktemp("embedded-pg")) as url:
            yield url


def create_database(admin_url: str) -> tuple[str, str]:
    """Create a uniquely named empty database; returns (name, URL)."""
    name = f"arena_test_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return name, make_conninfo(admin_url, dbname=name)


def drop_database(admin_url: str, name: str) -> None:
    """Drop a test database, closing whatever still uses it."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@pytest.fixture
def empty_db_url(pg_admin_url: str) -> Iterator[str]:
    """A fresh database without any migration, dropped after the test."""
    name, url = create_database(pg_admin_url)
    try:
        yield url
    finally:
        drop_database(pg_admin_url, name)


@pytest.fixture(scope="session")
def store_db_url(pg_admin_url: str) -> Iterator[str]:
    """A migrated database for this test process."""
    name, url = create_database(pg_admin_url)
    try:
        with psycopg.connect(url) as conn:
            db.migrate(conn)
        yield url
    finally:
        drop_database(pg_admin_url, name)


@pytest.fixture(scope="session")
def session_store(store_db_url: str) -> Iterator[Store]:
    store = Store.open(store_db_url, max_size=12, elo_k=24.0)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def store(session_store: Store) -> Store:
    """The process's store, emptied before the test."""
    with session_store.pool.connection() as conn:
        conn.execute(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE")
        conn.execute("ALTER SEQUENCE match_finish_seq RESTART")
        conn.execute("DELETE FROM users WHERE name <> %s", (HOUSE_USER,))
    session_store.retry_attempts = 5
    session_store.elo_k = 24.0
    return session_store


def make_bots(store: Store, n: int, game: str = "hollywood-gin") -> list[int]:
    """``n`` bot versions of ``game``."""
    versions = []
    for i in range(n):
        bot = store.add_bot(f"bot{i}", owner="tester")
        manifest = {"game": game, "command": ["python", "bot.py"]}
        versions.append(store.add_bot_version(bot, f"code {i}".encode(), manifest, "tester").id)
    return versions


def finished_match(
    game: str,
    ranks: Sequence[int],
    scores: Sequence[int],
    *,
    statuses: Sequence[str] | None = None,
    forfeits: Sequence[bool] | None = None,
    seed: int = 1,
    duration_ms: int | None = None,
    aborted: str = "",
) -> FinishedMatch:
    """A finish as a worker hands it in: an encoded ``MatchRecord`` of ``game`` (default
    options, no actions, the given ranks, scores, statuses and forfeits as its result).
    With ``aborted`` (a reason), the record is of a match the referee aborted, as it
    writes one: no result, only the reason."""
    n = len(ranks)
    statuses = statuses or ["ok"] * n
    forfeits = forfeits or [False] * n
    record = MatchRecord(
        game=game,
        options=options_dict(get_game(game).options()),
        seed=seed,
        seats=tuple(SeatEntry(f"seat-{i}", statuses[i], forfeited=forfeits[i]) for i in range(n)),
        actions=(),
        result=Result(tuple(ranks), tuple(scores), {"hands": 1}),
        status="aborted" if aborted else "completed",
        reason=aborted,
    )
    return FinishedMatch(record=encode_record(record), duration_ms=duration_ms)
