"""Fixtures for tests of the whole platform (load with ``pytest_plugins``): real Postgres,
real Redis, real ``arena worker`` processes with their referee and bot pools.

Redis: the local server on 127.0.0.1:6379 when it answers, else a private one started for
the test session. Every test gets its own database (created, migrated, dropped), its own
Redis key prefix (its keys deleted afterwards) and its own ``ARENA_HOME``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest
import redis

from tests.store_fixtures import create_database, drop_database
from worker import broker, db
from worker.store import Store

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
PLATFORM_BOTS = Path(__file__).resolve().parent / "bots" / "platform"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Redis URL where tests may keep keys under their own prefix."""
    if broker.answers(LOCAL_REDIS):
        yield LOCAL_REDIS
        return
    embedded = broker.EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    with embedded as url:
        yield url


@dataclass
class PlatformEnv:
    """One test's platform: its environment for ``arena`` processes, its store, and the
    worker processes it started (stopped at the end)."""

    env: dict[str, str]
    store: Store
    home: Path
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def arena(
        self, *args: str, timeout: float = 240, key: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run an ``arena`` command to its end (as the user whose API key is ``key``; else
        as the operator)."""
        return subprocess.run(
            [sys.executable, "-m", "arena", *args],
            env=self.env if key is None else {**self.env, "ARENA_API_KEY": key},
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
        )

    def start_worker(self, concurrency: int = 2, *more: str) -> subprocess.Popen[bytes]:
        """Start an ``arena worker`` process (logging to the test's home), with ``more``
        of its options."""
        return self._start("worker", "--concurrency", str(concurrency), *more)

    def start_scheduler(self) -> subprocess.Popen[bytes]:
        """Start ``arena scheduler`` (its sweep every second in tests)."""
        return self._start("scheduler")

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.home / f"{args[0]}-{len(self.workers)}.log", "ab")  # noqa: SIM115
        process = subprocess.Popen(
            [sys.executable, "-m", "arena", *args],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            start_new_session=True,
        )
        log.close()
        self.workers.append(process)
        return process

    def submit(self, path: Path, name: str, game: str) -> int:
        """Register a bot file; returns its version id."""
        done = self.arena("bot", "submit", str(path), "--name", name, "--game", game, "--json")
        assert done.returncode == 0, done.stderr
        bot = self.store.bot_by_name(name)
        assert bot is not None
        return self.store.bot_versions(bot.id)[-1].version.id

    def play_tournament(self, game: str, bots: list[str], games: int = 2) -> list[Any]:
        """Create a tournament of one-hand matches of ``bots``, start a worker, run it to
        its end (it must succeed) and give its stored results."""
        created = self.arena(
            "tournament", "create", "--game", game, "--bots", ",".join(bots),
            "--games", str(games), "--option", "max_hands=1", "--json",
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        tournament = json.loads(created.stdout)["tournament"]
        self.start_worker()
        run = self.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
        assert run.returncode == 0, run.stderr + self.worker_log()
        return list(self.store.tournament_results(tournament))

    def user(self, name: str) -> str:
        """Make the user ``name``; their API key."""
        made = self.arena("user", "create", name, "--json")
        assert made.returncode == 0, made.stderr
        return str(json.loads(made.stdout)["key"])

    def wait_for(self, predicate: object, timeout: float, what: str) -> None:
        """Poll ``predicate()`` until true; fail naming ``what`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not predicate():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.1)

    def worker_log(self) -> str:
        """Every worker log of the test, for failure messages."""
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.home.glob("*.log")))


@pytest.fixture
def platform_env(pg_admin_url: str, redis_server: str, tmp_path: Path) -> Iterator[PlatformEnv]:
    """A database, a Redis prefix and a home of this test's own; workers it starts are
    stopped (SIGTERM, then SIGKILL) at the end, and its Redis keys deleted."""
    name, url = create_database(pg_admin_url)
    prefix = f"arena-test-{os.getpid()}-{secrets.token_hex(4)}:"
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        db.DATABASE_URL_ENV: url,
        broker.REDIS_URL_ENV: redis_server,
        broker.REDIS_PREFIX_ENV: prefix,
        "ARENA_HOME": str(home),
        "ARENA_LEASE_S": "3",
        "ARENA_SWEEP_S": "1",
    }
    with psycopg.connect(url) as conn:
        db.migrate(conn)
    store = Store.open(url, max_size=4)
    running = PlatformEnv(env, store, home)
    try:
        yield running
    finally:
        for process in running.workers:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process in running.workers:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        store.close()
        drop_database(pg_admin_url, name)
        client = redis.Redis.from_url(redis_server)
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()


def descendants(pid: int) -> set[int]:
    """The process ids of every living descendant of ``pid``."""
    try:
        return {child.pid for child in psutil.Process(pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def bot_folders(worker: int, name: str = "*") -> list[Path]:
    """The files ``name`` in the unpacked bot folders of the pools of the worker ``worker``
    and of its children: in its sandboxes' own file system (worker.stage), which the host
    reaches through a process in its mount namespace, or in a folder of its pool's."""
    temp = tempfile.gettempdir()
    found = list(Path(temp).glob(f"arena-bots-{worker}-*/v*/{name}"))
    for pid in descendants(worker) | {worker}:
        inside = Path(f"/proc/{pid}/root{temp}")
        with contextlib.suppress(OSError):
            found += inside.glob(f"arena-stage-*/bots/pool-*/v*/{name}")
    return found
