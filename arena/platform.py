"""The platform as one command sees it: the store, the broker and, where the command needs
them, local worker processes (docs/architecture.md, decision 10).

Without ``ARENA_DATABASE_URL`` the embedded Postgres runs under ``ARENA_HOME``; without
``ARENA_REDIS_URL`` a private Redis does. Workers started here are ``arena worker``
processes like any other, told where both are: the same code path as a cluster. Every
process started here is stopped when the command ends, also on Ctrl-C, SIGTERM or an
error (workers first, then Redis, then Postgres).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from arena.commands.db import local_database, store_errors
from referee import settings
from referee.settings import arena_home
from worker import broker, db
from worker.app import configure
from worker.children import child_env, stop_group
from worker.store import Store

#: How long a local worker has to finish its current match when the command ends.
WORKER_STOP_S = 20.0


@dataclass
class Platform:
    """What a command holds while it runs: the store, the broker's URL, whether the
    services are embedded, and the local worker processes."""

    store: Store
    database_url: str
    redis_url: str
    embedded: bool
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: Path = field(default_factory=lambda: arena_home() / "logs")

    def start_workers(self, count: int, concurrency: int) -> None:
        """Start ``count`` ``arena worker`` processes (each with its referee and bot pool),
        logging to ``ARENA_HOME/logs/worker-N.log``."""
        self.logs.mkdir(parents=True, exist_ok=True)
        env = child_env(
            {
                **os.environ,
                db.DATABASE_URL_ENV: self.database_url,
                broker.REDIS_URL_ENV: self.redis_url,
            }
        )
        for _ in range(count):
            number = len(self.workers)
            with open(self.logs / f"worker-{number}.log", "ab") as log:
                self.workers.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "arena",
                            "worker",
                            "--concurrency",
                            str(concurrency),
                        ],
                        env=env,
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        process_group=0,
                    )
                )

    def stop_workers(self) -> None:
        """Stop the local workers: each finishes its current match, or is killed after
        :data:`WORKER_STOP_S`."""
        workers, self.workers = self.workers, []
        for process in workers:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
        for process in workers:
            stop_group(process, WORKER_STOP_S)

    def dead_workers(self) -> list[int]:
        """Exit codes of local workers that have stopped on their own."""
        return [p.returncode for p in self.workers if p.poll() is not None]


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def platform(
    *, workers: int = 0, concurrency: int = 2, database_url: str | None = None
) -> Iterator[Platform]:
    """The store (on ``database_url``, else the configured or embedded one) and broker
    (configured or embedded) and ``workers`` local worker processes, all stopped when the
    ``with`` block ends. SIGTERM ends the block like Ctrl-C does."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    configured = settings.load()
    embedded = not configured.database_url or not configured.redis_url
    try:
        with (
            store_errors(),
            local_database(database_url) as resolved,
            broker.redis_url() as redis_url,
            Store.open(resolved) as store,
        ):
            configure(redis_url)
            running = Platform(store, resolved, redis_url, embedded)
            try:
                if workers:
                    running.start_workers(workers, concurrency)
                yield running
            finally:
                running.stop_workers()
    finally:
        signal.signal(signal.SIGTERM, previous)
