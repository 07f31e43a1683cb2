"""A worker host's bot processes (docs/architecture.md, decision 12): one process per bot version,
started the first time a match needs it, reused for every later match (it serves them
through its session with the referee, several at once), started again when it has died,
and stopped when idle for :data:`IDLE_S` or when the worker stops.

The one exception is a duplicate deal (decision 8), whose matches play the same cards:
a process given one match of a :class:`Deal` is never given another, so a bot cannot
carry what it saw of the cards into the deal's other rotations. Such a match goes to the
version's first process not yet given one of its deal, or to a new one; each process
stays for later matches of other deals, so a deal of K rotations keeps K processes of a
version busy, not one per match.

A process runs in a folder of its own where its version's archive is unpacked, with the
command of its manifest (``python`` there is this worker's interpreter), confined by the
host's sandbox (:mod:`worker.sandbox`: its own namespaces, uid, cgroup and limits) and
with the environment of :func:`worker.sandbox.bot_environment` and nothing else: never
the database's or the broker's address, nor the referee's secret. Its standard output and
error are read by the pool, which keeps their last :data:`LOG_TAIL` bytes.
:meth:`BotPool.launch` is the one place that starts a bot.
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import psutil

from worker import archive, cgroups, metrics, stage, syscalls
from worker.archive import ArchiveError
from worker.children import stop_group
from worker.referee_link import RefereeLink
from worker.sandbox import BOT_RUN, HOST_NODE, PATH, PYTHON, Sandbox, bot_environment

log = logging.getLogger(__name__)

#: A bot process unused for this long is stopped (seconds).
IDLE_S = 300.0
#: How long a stopped bot process has to exit before it is killed.
STOP_S = 3.0
#: The pool's folder: ``<temp>/arena-bots-<pid of its worker>-<random>``.
FOLDER_PREFIX = "arena-bots-"
#: How much of a bot process's output (standard output and error) the pool keeps: the
#: newest bytes.
LOG_TAIL = 64 * 1024
#: How much of what a bot wrote during a match is kept with the match (the newest bytes).
MATCH_LOG = 16 * 1024
#: How long a process whose seat never joined may take to exit once its match is over
#: (seconds): one still starting then is about to fail, or too slow to play, and is
#: stopped. Generous, for a host whose sandbox and interpreter start slowly under load.
UNJOINED_EXIT_S = 30.0


@dataclass(frozen=True, slots=True)
class Deal:
    """A duplicate deal: the matches of a tournament that share a ``duplicate_set`` (and
    so a seed: the same cards, the seats rotated)."""

    tournament_id: int | None
    duplicate_set: int

    @staticmethod
    def of(tournament_id: int | None, duplicate_set: int | None) -> Deal | None:
        """The deal of a match of ``tournament_id`` and ``duplicate_set`` (None: of none)."""
        return None if duplicate_set is None else Deal(tournament_id, duplicate_set)


class BotStartError(RuntimeError):
    """A bot version's process could not be started for a reason of its own (no command,
    a program that is missing or cannot run, an archive that does not unpack): its seat
    forfeits, the match goes on."""


class VersionSource(Protocol):
    """What the pool reads of a bot version: its label, its manifest, its archive."""

    def bot_version(self, version_id: int) -> object: ...

    def bot_archive(self, version_id: int) -> bytes: ...


#: The signals the kernel sends a process at an rlimit (``prlimit``), by the limit:
#: SIGXCPU at its CPU seconds, SIGXFSZ at a file's size (Python ignores that one: its
#: write fails instead, which the bot's last log line says).
RLIMIT_SIGNALS: dict[int | None, str] = {signal.SIGXCPU: "cpu", signal.SIGXFSZ: "file size"}


def _signal_of(code: int | None) -> int | None:
    """The signal that ended a process from its exit code: negative for the process
    itself, 128 + the signal for one under a shell or bubblewrap, which pass it on so."""
    if code is None or code == 0:
        return None
    if code < 0:
        return -code
    return code - 128 if 128 < code < 128 + 65 else None


def remove_orphaned_folders(root: Path | None = None) -> list[Path]:
    """Remove the pool folders of workers that are gone (a killed worker cannot remove its
    own); returns them."""
    removed = []
    for folder in Path(root or tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*-*"):
        if _orphaned(folder.name):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def remove_orphaned_groups(groups: cgroups.Root) -> list[str]:
    """Remove the cgroups of the bots of workers that are gone (named after their pool's
    folder); returns their names."""
    removed = [name for name in groups.names() if _orphaned(name)]
    for name in removed:
        groups.remove(name)
    return removed


def _orphaned(name: str) -> bool:
    """Whether ``name`` (a pool's folder, or a group named after it) is of a worker that
    is gone: its pid follows :data:`FOLDER_PREFIX`."""
    if not name.startswith(FOLDER_PREFIX):
        return False
    owner = name.removeprefix(FOLDER_PREFIX).split("-", 1)[0]
    return owner.isdigit() and not psutil.pid_exists(int(owner))


def runtime_problem(runtime: object) -> str | None:
    """What this host lacks to run a bot of ``runtime`` (its manifest's: ``python``,
    ``node``, ``binary``; None for one submitted before runtimes were named), or None.
    Python and static binaries need nothing more; a Node.js bot needs ``node`` and the
    platform's Node.js runtime (``runtimes/node``, installed by ``make``)."""
    if runtime != "node":
        return None
    if shutil.which("node", path=PATH) is None:
        return "it is a Node.js bot and this host has no node program (install Node.js 18+)"
    if not (HOST_NODE / "node_modules" / "@grpc" / "grpc-js").is_dir():
        return (
            f"it is a Node.js bot and this host's Node.js runtime is not installed "
            f"({HOST_NODE / 'node_modules'} is missing: run make node-runtime)"
        )
    return None


def _runnable(program: str, folder: Path) -> bool:
    """Whether ``program`` (a path, absolute or in the bot's ``folder``, or a name on
    :data:`PATH`) is a file anyone may run, as a sandboxed bot must."""
    if "/" in program:
        candidates = [Path(program) if program.startswith("/") else folder / program]
    else:
        candidates = [Path(d) / program for d in PATH.split(":")]
    for path in candidates:
        try:
            if path.is_file() and path.stat().st_mode & 0o001:  # not resolved: /proc/PID/root
                return True
        except OSError:
            continue
    return False


class LogTail:
    """The newest :data:`LOG_TAIL` bytes a process wrote to a pipe, read by a thread of
    its own so that a bot that writes without end is never blocked, nor kept whole."""

    def __init__(self, pipe: io.BufferedReader | None, limit: int = LOG_TAIL) -> None:
        self.limit = limit
        self._data = bytearray()
        self.written = 0  # bytes read from the pipe, ever: a mark for :meth:`since`
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe: io.BufferedReader | None) -> None:
        if pipe is None:
            return
        with pipe:
            while chunk := pipe.read1(65536):
                with self._lock:
                    self._data += chunk
                    self.written += len(chunk)
                    if len(self._data) > 2 * self.limit:
                        del self._data[: len(self._data) - self.limit]

    @property
    def held(self) -> int:
        """How many bytes are kept now: never more than twice the tail, however much the
        process wrote."""
        with self._lock:
            return len(self._data)

    def text(self) -> str:
        """The newest bytes written, as text."""
        with self._lock:
            return bytes(self._data[-self.limit :]).decode(errors="replace")

    def since(self, mark: int, limit: int) -> str:
        """What was written after ``mark`` (a value of :attr:`written`), its newest
        ``limit`` bytes at most, as text."""
        with self._lock:
            new = min(self.written - mark, len(self._data), limit)
            return (
                bytes(self._data[len(self._data) - new :]).decode(errors="replace")
                if new > 0
                else ""
            )


@dataclass(eq=False)
class BotProcess:
    """One bot version's running process, its session with the referee, its output's
    tail and its cgroup (when the sandbox has them)."""

    version_id: int
    label: str
    session_id: str
    process: subprocess.Popen[bytes]
    folder: Path
    log: LogTail
    group: cgroups.Group | None = None
    last_used: float = field(default_factory=time.monotonic)
    death_counted: bool = False  # its exit on its own is in the metrics
    #: The duplicate deals it has been given a match of: it is given no other of theirs.
    deals: set[Deal] = field(default_factory=set)
    #: How many matches' seats it has been given.
    given: int = 0

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.process.poll() is None


class BotPool:
    """The bot processes of one worker host, by bot version: its first process (number
    0), and for duplicate deals as many more as a deal needs. Thread-safe."""

    def __init__(
        self,
        versions: VersionSource,
        referee: RefereeLink,
        *,
        root: Path | None = None,
        idle_s: float = IDLE_S,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.versions = versions
        self.referee = referee
        self.sandbox = sandbox or Sandbox("off")
        remove_orphaned_folders(root)
        if self.sandbox.cgroup_root is not None:
            remove_orphaned_groups(self.sandbox.cgroup_root)
        # a sandboxed bot's folder, and its socket, come from the sandboxes' own file system
        self.stage = stage.get() if self.sandbox.on else None
        # the worker's pid names what a killed worker leaves (its folder, its cgroups),
        # but not the folders in the stage, which go with it: they are named in the
        # bots' mount tables
        prefix = f"{FOLDER_PREFIX}{os.getpid()}-"
        self.group_prefix = prefix
        if self.stage is not None:
            root, prefix = self.stage.bots(), "pool-"
        self.root = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
        self.group_prefix += self.root.name.removeprefix(prefix)
        self.idle_s = idle_s
        self._bots: dict[tuple[int, int], BotProcess] = {}  # by (version, number)
        self.starts = 0  # processes started, ever (the bench reports it)
        self._lock = threading.Lock()
        self._deaths = threading.Lock()
        self._closed = False

    @property
    def processes(self) -> dict[int, BotProcess]:
        """Each version's first process, by version: the one every match outside a
        duplicate deal is given."""
        with self._lock:
            return {v: bot for (v, number), bot in self._bots.items() if number == 0}

    def session(self, version_id: int, deal: Deal | None = None) -> str:
        """The session id of a process of ``version_id`` for a match of ``deal`` (None:
        of no duplicate deal): its first process not yet given a match of ``deal``, else
        a new one; a process that died is started again in its place."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is stopped")
            number = 0
            while True:
                bot = self._bots.get((version_id, number))
                if bot is not None and not bot.alive:
                    log.warning(
                        "bot %s exited (code %s); starting it again",
                        bot.label,
                        bot.process.returncode,
                    )
                    self._stop(bot)
                    bot = None
                if bot is None or deal is None or deal not in bot.deals:
                    break
                number += 1  # it has seen this deal's cards
            if bot is None:
                bot = self._bots[version_id, number] = self.launch(version_id)
            if deal is not None:
                bot.deals.add(deal)
            bot.given += 1
            bot.last_used = time.monotonic()
            return bot.session_id

    def _given(self, version_id: int, session: str | None) -> BotProcess | None:
        """The process of ``version_id`` that holds ``session`` (None: its first)."""
        if session is None:
            return self._bots.get((version_id, 0))
        for (v, _), bot in self._bots.items():
            if v == version_id and bot.session_id == session:
                return bot
        return None

    def exit_note(self, version_id: int, session: str | None = None) -> str | None:
        """Why ``version_id``'s process (the one of ``session``, else its first) is gone,
        when it is: its exit code and the last line of its log (what a seat that never
        joined or dropped out left behind)."""
        with self._lock:
            bot = self._given(version_id, session)
            if bot is None or bot.alive:
                return None
            code = bot.process.returncode
            bot.log.thread.join(1.0)  # what it wrote before it died
            lines = bot.log.text().strip().splitlines()
            limit = self._stopped_by(bot)
            self._count_death(bot)
        said = f": {lines[-1][:300]}" if lines else ""
        if limit is not None:
            return f"its bot process was stopped by the sandbox's {self._limit(limit)}{said}"
        return f"its bot process exited with code {code}{said}"

    def unjoined_note(
        self, version_id: int, session: str | None, join_ms: int, wait_s: float = UNJOINED_EXIT_S
    ) -> str | None:
        """Why the seat of ``version_id``'s process (the one of ``session``, else its
        first) never joined, whichever came first, its exit or the join time: as
        :meth:`exit_note` once it has exited, waiting up to ``wait_s`` for it; else it is
        stopped, and the note says so and gives its last log line. None when no process
        of it is here (a remote bot's), or when it is alive and has been given other
        matches: it serves them, and a seat it missed is not a reason to stop it."""
        with self._lock:
            bot = self._given(version_id, session)
            serving = bot is not None and bot.given > 1
        if bot is None:
            return None
        if bot.alive and serving:
            return None
        if bot.alive:
            log.warning(
                "bot %s never joined its seat; waiting up to %.0f s for its process to exit",
                bot.label,
                wait_s,
            )
            try:
                bot.process.wait(wait_s)
            except subprocess.TimeoutExpired:
                return self._stop_unjoined(bot, join_ms)
        return self.exit_note(version_id, session)

    def _stop_unjoined(self, bot: BotProcess, join_ms: int) -> str:
        """Stop a process that never joined its seat and did not exit after it."""
        with self._lock:
            for key, held in list(self._bots.items()):
                if held is bot:
                    del self._bots[key]  # the next match starts a new one
        self._stop(bot)
        bot.log.thread.join(1.0)
        lines = bot.log.text().strip().splitlines()
        said = f": {lines[-1][:300]}" if lines else ""
        return (
            f"its bot process did not join within its join time ({join_ms} ms) and was "
            f"stopped{said}"
        )

    def stopped_by(self, version_id: int, session: str | None = None) -> str | None:
        """Which limit of the sandbox stopped ``version_id``'s process (the one of
        ``session``, else its first), if it is gone and one did: ``memory``,
        ``processes``, ``cpu`` (its CPU time) or ``file size``."""
        with self._lock:
            bot = self._given(version_id, session)
            return None if bot is None or bot.alive else self._stopped_by(bot)

    def _count_death(self, bot: BotProcess) -> None:
        """Count, once, a process that exited on its own (:mod:`worker.metrics`): when a
        finished match asks why it is gone, else when the pool lets it go."""
        with self._deaths:
            if bot.alive or bot.death_counted:
                return
            bot.death_counted = True
        metrics.bot_died(self._stopped_by(bot))

    def _stopped_by(self, bot: BotProcess) -> str | None:
        limit = bot.group.stopped_by() if bot.group is not None else None
        if limit is None and self.sandbox.on:
            limit = RLIMIT_SIGNALS.get(_signal_of(bot.process.returncode))
        return limit

    def _limit(self, which: str) -> str:
        limits = self.sandbox.limits
        if which == "memory":
            return f"memory limit ({limits.memory_mb} MiB)"
        if which == "cpu":
            return f"CPU time limit ({limits.cpu_s} s)"
        if which == "file size":
            return f"file size limit ({limits.file_mb} MiB)"
        return f"process limit ({limits.processes} processes and threads)"

    def log_mark(self, version_id: int, session: str | None = None) -> int | None:
        """Where the output of ``version_id``'s process (the one of ``session``, else its
        first) stands now (None: no such process here)."""
        with self._lock:
            bot = self._given(version_id, session)
        return None if bot is None else bot.log.written

    def log_since(self, version_id: int, mark: int | None, session: str | None = None) -> str:
        """What ``version_id``'s process (the one of ``session``, else its first) wrote
        after ``mark``: its newest :data:`MATCH_LOG` bytes."""
        with self._lock:
            bot = self._given(version_id, session)
        if bot is None or mark is None:
            return ""
        if not bot.alive:
            bot.log.thread.join(1.0)  # what it wrote before it died
        return bot.log.since(mark, MATCH_LOG)

    def log_tail(self, version_id: int) -> str | None:
        """The newest output of ``version_id``'s first process (its standard error and
        output), or None if it has none here."""
        with self._lock:
            bot = self._bots.get((version_id, 0))
        return None if bot is None else bot.log.text()

    def launch(self, version_id: int) -> BotProcess:
        """Unpack the version, open its session and start its process;
        :class:`BotStartError` when the bot itself is why it cannot start."""
        version = self.versions.bot_version(version_id)
        label = str(getattr(version, "label", f"version {version_id}"))
        manifest = getattr(version, "manifest", {}) or {}
        command = list(manifest.get("command") or ())
        if not command:
            raise BotStartError(f"bot {label} has no command in its manifest")
        if command[0] in ("python", "python3"):
            command[0] = PYTHON if self.sandbox.on else sys.executable
            if command[1:5] == ["-m", "arena", "bot", "run"]:  # a bot of a single file
                command[1:3] = BOT_RUN
        self.starts += 1
        folder = self.root / f"v{version_id}-{self.starts}"
        folder.mkdir()
        try:  # by the reader that checked it at submission, never following a link
            archive.unpack(self.versions.bot_archive(version_id), folder)
        except (ArchiveError, OSError) as exc:
            shutil.rmtree(folder, ignore_errors=True)
            raise BotStartError(f"bot {label}'s files do not unpack: {exc}") from None
        problem = runtime_problem(manifest.get("runtime"))
        if problem is not None:
            shutil.rmtree(folder, ignore_errors=True)
            raise BotStartError(f"bot {label} cannot start on this worker host: {problem}")
        if self.sandbox.on and not _runnable(command[0], folder):  # found before the sandbox
            shutil.rmtree(folder, ignore_errors=True)
            raise BotStartError(
                f"bot {label}'s command {command[0]!r} could not start: no such program "
                f"(in its folder, or on the sandbox's PATH {PATH})"
            )
        sandboxed = self.sandbox.on
        socket = ""
        if self.stage is not None:
            if self.referee.socket is None:
                shutil.rmtree(folder, ignore_errors=True)
                raise RuntimeError("the sandbox needs a referee with a Unix socket")
            socket = str(self.stage.socket())  # the session's own, which serves it alone
        session_id, key = self.referee.open_session(label, socket)
        env = bot_environment(key, label, sandboxed=sandboxed, address=self.referee.address)
        group = None
        argv = command
        syscalls_fd: int | None = None
        if self.stage is not None:
            cgroup_root = self.sandbox.cgroup_root
            if cgroup_root is not None:
                limits = self.sandbox.limits
                group = cgroup_root.group(
                    f"{self.group_prefix}-{folder.name}",
                    memory_mb=limits.memory_mb,
                    processes=limits.processes,
                )
            syscalls_fd = syscalls.program_fd()
            argv = self.sandbox.command(
                command,
                folder,
                socket,
                stage=self.stage,
                uid=self.sandbox.uid_of(version_id),
                syscalls_fd=syscalls_fd,
                cgroup=group,
            )
        try:
            process = subprocess.Popen(
                argv,
                cwd=folder,
                env=env,  # the session key among it: never on a command line
                pass_fds=() if syscalls_fd is None else (syscalls_fd,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                process_group=0,
            )
        except OSError as exc:  # a missing program, or one that cannot be run
            self.referee.close_session(session_id)
            if group is not None:
                group.remove()
            shutil.rmtree(folder, ignore_errors=True)
            raise BotStartError(
                f"bot {label}'s command {command[0]!r} could not start: "
                f"{exc.strerror or type(exc).__name__}"
            ) from None
        finally:
            if syscalls_fd is not None:
                os.close(syscalls_fd)  # bubblewrap has its own copy
        tail = LogTail(process.stdout)  # type: ignore[arg-type]
        log.info("started bot %s (pid %d)", label, process.pid)
        metrics.BOT_STARTS.inc()
        return BotProcess(version_id, label, session_id, process, folder, tail, group)

    def rebind(self, referee: RefereeLink) -> None:
        """Use a new referee (the old one died and was started again): the processes
        of the old one's sessions are stopped; the next match starts them anew."""
        with self._lock:
            bots, self._bots = list(self._bots.values()), {}
            self.referee = referee
        for bot in bots:
            self._count_death(bot)
            stop_group(bot.process, STOP_S)
            if bot.group is not None:
                bot.group.remove()
            shutil.rmtree(bot.folder, ignore_errors=True)

    def reap(self) -> int:
        """Stop the processes idle for longer than the pool's idle time, and forget dead
        ones; returns how many were stopped."""
        now = time.monotonic()
        with self._lock:
            idle = {
                key: b
                for key, b in self._bots.items()
                if not b.alive or now - b.last_used > self.idle_s
            }
            for key in idle:
                del self._bots[key]
        for bot in idle.values():
            self._stop(bot)
        return len(idle)

    def close(self) -> None:
        """Stop every process and remove their folders."""
        with self._lock:
            self._closed = True
            bots, self._bots = list(self._bots.values()), {}
        for bot in bots:
            self._stop(bot)
        shutil.rmtree(self.root, ignore_errors=True)

    def pids(self) -> list[int]:
        """The process ids of the running bot processes."""
        with self._lock:
            return [b.process.pid for b in self._bots.values() if b.alive]

    def _stop(self, bot: BotProcess) -> None:
        self._count_death(bot)  # before its cgroup, which says which limit, is removed
        self.referee.close_session(bot.session_id)
        stop_group(bot.process, STOP_S)  # its sandbox's PID namespace dies with it
        if bot.group is not None:
            bot.group.remove()  # and whatever else is left in its cgroup
        shutil.rmtree(bot.folder, ignore_errors=True)
