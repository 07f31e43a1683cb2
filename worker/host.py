"""A worker host: what one ``arena worker`` process holds for its tasks (its store, its
own referee process, its bot pool) and how it plays a match it has claimed
(docs/architecture.md, decisions 6 and 12).

Playing a claimed match: its seats' bot versions get their pool processes' sessions (of
processes that have seen no other match of its duplicate deal, if it is of one); the
match is created on the referee under an id of this attempt (``m<id>a<attempt>``), so a
match played again after its worker vanished is a new referee match from the start; the
lease is renewed while it runs (:mod:`worker.leases`, one thread for all of them); the
finished match is handed to :meth:`worker.store.Store.finish_match`, which commits
record, results and ratings in one transaction if, and only if, the claim is still this
attempt's (so no match is counted twice); a notice goes to the tournament's watchers. A
match the referee aborted, or that could not be played, goes back to the queue while
attempts remain, after a back-off that doubles with each attempt. A seat whose bot cannot
be started forfeits (the match goes on without it: that is the bot's fault, not the
match's); a fault of the platform's own before the deal (its referee gone, its database
away) gives the attempt back, since attempts count only plays that started.

The host supervises its referee: when the referee process dies the host stops claiming
matches at once, starts a new referee (waiting longer after each failure, up to
:data:`RESTART_WAITS_S`), and only then claims again; if no referee will start, it stops
the worker with the reason, for its own supervisor (systemd, compose) to act on.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import grpc
import psycopg
import psycopg_pool
import redis
from google.protobuf.message import DecodeError

from referee import settings, walltime, wire
from referee.clock import ClockRules
from rummyarena.v1 import common_pb2, record_pb2
from worker import duel, logs, metrics, notices, sandbox, stage
from worker.leases import Leases
from worker.pool import BotPool, BotStartError, Deal
from worker.referee_link import LocalReferee, RefereeGone, RefereeLink
from worker.remote import Admit, RemoteDesk
from worker.store import FinishedMatch, InvalidResult, Match, MatchState, Store
from worker.store.matches import referee_match_id

log = logging.getLogger(__name__)

LEASE_ENV = settings.LEASE_S
#: How long a claim holds without renewal by default (seconds; ``ARENA_LEASE_S``); a
#: claim is renewed every third of it.
LEASE_S = settings.DEFAULT_LEASE_S
#: How long a bot process may take to start and join its first match (milliseconds).
JOIN_MS = 30_000
#: The waits before each try to start the referee again after it died (seconds); after
#: the last one fails the worker stops.
RESTART_WAITS_S = (0.5, 1.0, 2.0, 4.0, 8.0)
#: The longest wait before a match that could not be played is tried again (seconds).
MAX_RETRY_WAIT_S = 60.0
#: A match's state after a worker played it, or ``lost`` when the claim was no longer
#: its attempt's (or the store could not be told; the lease will expire).
Played: TypeAlias = MatchState | Literal["lost"]
#: The referee's answers that say the referee (not the match) is at fault.
_REFEREE_AWAY = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "RESOURCE_EXHAUSTED")


def platform_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is a fault of the platform's own (its referee away, its database
    or broker unreachable) rather than of the match being played."""
    if isinstance(exc, RefereeGone):
        return exc.code in _REFEREE_AWAY
    return isinstance(exc, (psycopg.OperationalError, psycopg_pool.PoolTimeout, redis.RedisError))


def retry_wait(attempts: int, base_s: float | None = None) -> float:
    """The back-off before a match that has had ``attempts`` plays is tried again:
    ``ARENA_RETRY_S`` doubled per attempt, at most :data:`MAX_RETRY_WAIT_S`."""
    base = settings.load().retry_s if base_s is None else base_s
    return min(MAX_RETRY_WAIT_S, base * 2.0 ** max(0, attempts - 1))


class NoHost(RuntimeError):
    """A task ran outside ``arena worker`` (no referee and bot pool in this process)."""


@dataclass(eq=False)
class Host:
    """One worker process's store, referee, bot pool and Redis client."""

    store: Store
    referee: LocalReferee | None
    link: RefereeLink
    pool: BotPool
    redis: redis.Redis
    lease_s: float = field(default_factory=lambda: settings.load().lease_s)
    #: the longest any match is played (ARENA_MAX_MATCH_S; its referee's too, which
    #: inherits this process's environment)
    max_match_s: float = field(default_factory=lambda: settings.load().max_match_s)
    stopping: threading.Event = field(default_factory=threading.Event)
    #: Set while the referee answers; cleared from its death until a new one is up.
    ready: threading.Event = field(default_factory=threading.Event)
    #: Why the worker must stop (its referee will not start again), once it must.
    fatal: str | None = None
    name: str = field(default_factory=lambda: f"{socket.gethostname()}/{os.getpid()}")
    #: What its referee is started with (a listener for remote bots, say), each time.
    referee_args: tuple[str, ...] = ()
    #: The address its referee's match service listens on, each time: loopback unless
    #: the web app's live view runs on another host and dials it there.
    referee_host: str = "127.0.0.1"
    #: Its remote bots, when it takes them (:mod:`worker.remote`).
    remote: RemoteDesk | None = None
    _clocks: dict[int, ClockRules] = field(default_factory=dict)
    _remote_versions: dict[int, bool] = field(default_factory=dict)
    _labels: dict[int, str] = field(default_factory=dict)  # bot versions never change
    #: The leases of the matches being played, renewed from one thread.
    leases: Leases = field(init=False)

    def __post_init__(self) -> None:
        self.ready.set()
        self.leases = Leases(self.store, self.lease_s)

    def close(self) -> None:
        """Stop renewing leases, the bot processes and the referee."""
        self.stopping.set()
        self.leases.close()
        self.pool.close()
        self.link.close()
        if self.referee is not None:
            self.referee.stop()
        with contextlib.suppress(redis.RedisError):
            self.redis.close()

    # -- the referee's supervision ---------------------------------------------------------

    def supervise(self) -> threading.Thread:
        """Watch the referee process from a thread of its own (started here): on its death
        stop claiming, start a new one, then claim again (:meth:`_restart_referee`)."""
        thread = threading.Thread(target=self._watch_referee, name="referee-watch", daemon=True)
        thread.start()
        return thread

    def _watch_referee(self) -> None:
        while self.referee is not None and not self.stopping.is_set():
            code = self.referee.process.wait()  # returns the moment it dies (and reaps it)
            if self.stopping.is_set():
                return
            self.ready.clear()
            log.error("the worker's referee exited (code %s): starting a new one", code)
            if not self._restart_referee():
                return

    def _restart_referee(self) -> bool:
        """Start a new referee, waiting longer after each failure; on success rebind the
        link and the bot pool to it and claim again. If none starts, stop the worker."""
        problem = ""
        for wait in RESTART_WAITS_S:
            if self.stopping.wait(wait):
                return False
            try:
                referee = LocalReferee(
                    extra_args=self.referee_args,
                    host=self.referee_host,
                    tcp_sessions=not self.pool.sandbox.on,
                )
            except (RefereeGone, OSError) as exc:
                problem = str(exc)
                log.error("the referee did not start again: %s", problem)
                continue
            old_link, old_referee = self.link, self.referee
            self.referee = referee
            self.link = RefereeLink(referee.address, referee.secret, referee.socket)
            self.pool.rebind(self.link)
            old_link.close()
            if old_referee is not None:
                old_referee.stop()
            log.warning("a new referee listens on %s: taking matches again", referee.address)
            self.ready.set()
            return True
        self.fatal = (
            f"the worker's referee died and did not start again after "
            f"{len(RESTART_WAITS_S)} tries ({problem or 'no reason given'})"
        )
        log.critical("%s: stopping the worker", self.fatal)
        self.stopping.set()
        self.ready.set()  # let waiting tasks see that the worker stops
        os.kill(os.getpid(), signal.SIGTERM)  # a warm shutdown of the Celery worker
        return False

    def _wait_ready(self) -> bool:
        """Wait while the referee is being started again; False if the worker stops."""
        while not self.ready.wait(0.5):
            if self.stopping.is_set():
                return False
        return not self.stopping.is_set()

    # -- what it says about itself ----------------------------------------------------

    def describe(self, health_timeout_s: float = 1.0) -> dict[str, Any]:
        """This worker process as ``arena status`` shows it (:mod:`worker.census`): its
        name (its leases' prefix), its referee and whether it answers a gRPC health check,
        its sandbox and its bot processes."""
        referee = self.referee
        return {
            "name": self.name,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "stopping": self.stopping.is_set(),
            "referee": {
                "address": self.link.address,
                "pid": None if referee is None else referee.process.pid,
                "health": self._referee_health(health_timeout_s),
            },
            "sandbox": {"on": self.pool.sandbox.on, "describe": self.pool.sandbox.describe()},
            "bots_running": len(self.pool.pids()),
            "remote": self.remote is not None,
        }

    def _referee_health(self, timeout_s: float) -> str:
        """The referee's answer to a gRPC health check (``SERVING``), or why there is
        none."""
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        if not self.ready.is_set():
            return "RESTARTING"
        try:
            answer = health_pb2_grpc.HealthStub(self.link.channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout_s
            )
        except grpc.RpcError as exc:
            return f"UNREACHABLE ({exc.code().name})"
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status))

    # -- claiming --------------------------------------------------------------------

    def drain(self, tournament_id: int | None, budget_s: float) -> tuple[int, bool]:
        """Claim and play the tournament's matches one after another until none is left
        to claim, the worker is stopping, or ``budget_s`` has passed; returns (matches
        played, whether some may be left)."""
        played = 0
        deadline = time.monotonic() + budget_s
        while self._wait_ready():
            if time.monotonic() > deadline:
                return played, True
            holder = self._holder()
            at = self.link.address  # the claim records where the play runs
            match = self.store.claim_match(
                holder,
                lease_seconds=self.lease_s,
                tournament_id=tournament_id,
                remote_host=self.remote_host,
                live_referee=at,
            )
            if match is None:
                return played, False
            self.play(match, holder, claimed_at=at)
            played += 1
        return played, True

    def play_one(self, match_id: int) -> Played | None:
        """Claim the match ``match_id`` and play it; returns its state afterwards, or None
        if it was not claimable (done, cancelled, backing off, or held by a live lease): a
        task delivered twice does nothing twice."""
        if not self._wait_ready():
            return None
        holder = self._holder()
        at = self.link.address
        match = self.store.claim_match(
            holder,
            lease_seconds=self.lease_s,
            match_id=match_id,
            remote_host=self.remote_host,
            live_referee=at,
        )
        if match is None:
            return None
        return self.play(match, holder, claimed_at=at)

    @property
    def remote_host(self) -> str | None:
        """The name remote bots' rows give this host, when it takes remote bots."""
        return None if self.remote is None else self.name

    def _holder(self) -> str:
        return f"{self.name}/{uuid.uuid4().hex[:12]}"

    # -- playing ---------------------------------------------------------------------

    def play(self, match: Match, holder: str, *, claimed_at: str | None = None) -> Played:
        """Play a match claimed by ``holder`` to its end and hand it in; returns the
        match's state afterwards (``done``, ``queued`` or ``failed``; ``lost`` if the claim
        was no longer this attempt's). ``claimed_at``: the referee address the claim
        recorded as the live location (None: it recorded none). What it logs meanwhile
        carries the match's id, and what it says of WARNING and up is kept with the match
        (:mod:`worker.logs`)."""
        metrics.claimed(match, self.lease_s)
        fault = None
        with logs.about_match(match.id) as said, self.leases.held(match.id, holder):
            started = False
            try:
                live = self._start(match, holder)
                started = True
                state = self._finish(match, holder, live, claimed_at)
            except Exception as exc:  # the match could not be played: back to the queue
                fault = "platform" if platform_fault(exc) else "match"
                state = self._give_back(match, holder, exc, started)
        metrics.played(match.game, state, fault)
        self._keep_said(match, said)
        notices.publish(self.redis, match.tournament_id, match_id=match.id, state=state)
        return state

    def _keep_said(self, match: Match, said: logs.Said) -> None:
        """Keep what this worker logged about the play (WARNING and up), if anything, for
        the match's page; a log that cannot be kept is only a log."""
        if not said.lines:
            return
        try:
            self.store.keep_worker_log(match.id, match.attempts, self.name, list(said.lines))
        except Exception:
            log.exception("match %d: what the worker said about it could not be kept", match.id)

    def _give_back(self, match: Match, holder: str, exc: Exception, started: bool) -> Played:
        """Put a match that could not be played back in the queue (after a back-off),
        or fail it when out of attempts; a platform fault before the deal does not use
        up an attempt. ``lost`` if the store cannot be told (the lease will expire)."""
        ours = platform_fault(exc)
        log.log(
            logging.WARNING if ours else logging.ERROR,
            "match %d could not be played%s: %s: %s",
            match.id,
            " (a fault of the platform's)" if ours else "",
            type(exc).__name__,
            exc,
            exc_info=not ours,
        )
        counted = started or not ours
        try:
            state = self.store.fail_match(
                match.id,
                holder,
                f"{type(exc).__name__}: {exc}",
                started=counted,
                wait_s=retry_wait(match.attempts if counted else 1),
            )
        except Exception:
            log.exception("match %d: the store could not be told; its lease will expire", match.id)
            return "lost"
        return state or "lost"

    def _start(self, match: Match, holder: str) -> _Live:
        """Seat the match's bots and create it on the referee: the play has started."""
        if not self._labels.keys() >= set(match.seats):
            self._labels.update(self.store.labels(match.seats))
        labels = [self._labels.get(v, f"version {v}") for v in match.seats]
        deal = Deal.of(match.tournament_id, match.duplicate_set)
        sessions, faults = [], []
        for seat, v in enumerate(match.seats):
            try:
                if self._is_remote(v):  # its label says so already (Store.labels)
                    sessions.append(self._remote_session(v))
                else:
                    sessions.append(self.pool.session(v, deal))
                faults.append("")
            except BotStartError as exc:  # the bot's own fault: its seat forfeits
                log.warning("match %d: %s", match.id, exc, extra={"seat": seat})
                sessions.append("")
                faults.append(str(exc))
        marks = [
            self.pool.log_mark(v, session) for v, session in zip(match.seats, sessions, strict=True)
        ]
        referee_id = referee_match_id(match.id, match.attempts, holder)
        link = self.link  # the referee of this play, even if it is replaced meanwhile
        link.create_match(
            referee_id,
            match.game,
            match.options,
            match.seed,
            labels,
            sessions,
            self._clock(match.tournament_id),
            faults,
        )
        note = "; ".join(
            f"seat {seat} ({label}) forfeited: {fault}"
            for seat, (label, fault) in enumerate(zip(labels, faults, strict=True))
            if fault
        )
        return _Live(link, referee_id, time.monotonic(), note or None, sessions, marks)

    def _is_remote(self, version_id: int) -> bool:
        if version_id not in self._remote_versions:
            manifest = self.store.bot_version(version_id).manifest
            self._remote_versions[version_id] = manifest.get("runtime") == "remote"
        return self._remote_versions[version_id]

    def _remote_session(self, version_id: int) -> str:
        """The session of a remote bot connected here; :class:`BotStartError` (its seat
        forfeits) if it dropped since the claim."""
        session = None if self.remote is None else self.remote.session(version_id)
        if session is None:
            raise BotStartError(f"its remote bot is not connected to {self.name}")
        return session

    def _finish(self, match: Match, holder: str, live: _Live, claimed_at: str | None) -> Played:
        """Wait for the referee's result and commit it (or give the match back if the
        referee aborted it)."""
        link, referee_id = live.link, live.referee_id
        # The claim recorded the live location, unless it did not or the referee was
        # replaced since; nothing here clears it: whatever ends this play moves the match
        # out of ``running`` or to another holder, and that clears it (migration 0004).
        if claimed_at != link.address:
            notices.set_live(self.store, match.id, holder, link.address, referee_id)
        # the referee forgets the match as it answers: this worker holds the record now,
        # and commits it or plays the match again
        # the referee ends it at its wall-clock cap: no slot is held for longer
        clock = self._clock(match.tournament_id)
        cap = walltime.cap_s(match.game, match.options, len(match.seats), clock, self.max_match_s)
        reply = link.wait(referee_id, cap + walltime.FINISH_S, release=True)
        finished = FinishedMatch(
            record=reply.record_data,
            duration_ms=round((time.monotonic() - live.began) * 1000),
            note=self._note(match, live, reply.record_data, clock.join_ms),
        )
        try:
            began = time.perf_counter()
            done = self.store.finish_match(match.id, holder, finished)
            metrics.FINISH_SECONDS.labels(match.game).observe(time.perf_counter() - began)
        except InvalidResult as exc:  # aborted: played again; a record that does not fit
            log.warning("match %d was not finished: %s", match.id, exc.reason)
            wait = retry_wait(match.attempts) if exc.retry else 0.0  # is never retried
            return (
                self.store.fail_match(match.id, holder, exc.reason, retry=exc.retry, wait_s=wait)
                or "lost"
            )
        if done:
            metrics.finished(match.game, reply.record_data, (finished.duration_ms or 0) / 1e3)
            self._keep_logs(match, live)
            self._keep_limits(match, live)
        return "done" if done else "lost"

    def _keep_limits(self, match: Match, live: _Live) -> None:
        """Note, beside their status, the seats whose bot a limit of the sandbox stopped."""
        limits = {
            seat: limit
            for seat, (version, session) in enumerate(zip(match.seats, live.sessions, strict=True))
            if (limit := self.pool.stopped_by(version, session)) is not None
        }
        try:
            self.store.mark_stopped_by(match.id, limits)
        except Exception:
            log.exception("match %d: the limits that stopped its bots could not be noted", match.id)

    def _keep_logs(self, match: Match, live: _Live) -> None:
        """Keep what each seat's bot wrote while the match was played (its owner's to
        read); a log that cannot be kept is only a log."""
        logs = {
            seat: self.pool.log_since(version, mark, session)
            for seat, (version, session, mark) in enumerate(
                zip(match.seats, live.sessions, live.marks, strict=True)
            )
        }
        try:
            self.store.keep_match_logs(match.id, {s: t for s, t in logs.items() if t})
        except Exception:
            log.exception("match %d: its bots' logs could not be kept", match.id)

    def _note(self, match: Match, live: _Live, record: bytes, join_ms: int) -> str | None:
        """What the platform notes of a finished match's seats: those that could not
        start (``live.note``), and for each seat whose bot process is gone by the end (it
        never joined, or dropped out), its exit code and last log line. A seat that never
        joined is noted whichever came first, its process's exit or the join time: its
        process is waited for (:meth:`BotPool.unjoined_note`)."""
        notes = [live.note] if live.note else []
        unjoined = _unjoined_seats(record)
        said: dict[tuple[int, str], str | None] = {}  # a process may hold several seats
        for seat, (version, session) in enumerate(zip(match.seats, live.sessions, strict=True)):
            if (version, session) not in said:
                said[version, session] = (
                    self.pool.unjoined_note(version, session, join_ms)
                    if seat in unjoined and session
                    else self.pool.exit_note(version, session)
                )
            why = said[version, session]
            if why is not None:
                notes.append(f"seat {seat} ({self._labels.get(version, version)}): {why}")
        return "; ".join(notes) or None

    def _clock(self, tournament_id: int | None) -> ClockRules:
        if tournament_id is None:
            return ClockRules(join_ms=JOIN_MS)
        clock = self._clocks.get(tournament_id)
        if clock is None:
            settings = self.store.tournament(tournament_id).options.get("clock") or {}
            clock = self._clocks[tournament_id] = ClockRules(**{"join_ms": JOIN_MS, **settings})
        return clock

    # -- the scheduler's sweep -----------------------------------------------------------


def sweep(
    store: Store,
    enqueue: Callable[[int], Any],
    drain: Callable[[int, int], Any],
    stall_s: float | None = None,
) -> dict[int, MatchState]:
    """Re-queue the running matches whose lease expired (their worker vanished) and
    enqueue a task for each one queued again; then send work for the queued matches no
    task is working on (:meth:`Store.stranded`: their tasks were lost with the broker,
    say), ``drain(tournament id, claimable matches)`` for a tournament's; and take a step
    of every running duel (:func:`worker.duel.tick`). Returns match id → new state of the
    re-queued ones."""
    moved = store.requeue_expired()
    for match_id, state in moved.items():
        if state == "queued":
            enqueue(match_id)
    tournaments, lone = store.stranded(settings.load().stall_s if stall_s is None else stall_s)
    for tournament_id, claimable in tournaments.items():
        log.warning("tournament %d: queued matches no task works on; sending work", tournament_id)
        drain(tournament_id, claimable)
    for match_id in lone:
        log.warning("match %d is queued with no task working on it: sending one", match_id)
        enqueue(match_id)
    duel.tick(store, drain)  # a duel whose last step was lost with its worker goes on
    return moved


def _unjoined_seats(record: bytes) -> set[int]:
    """The seats of a finished match's record that never joined: forfeited as
    ``disconnected`` with no action of their own. Only a record with such a seat is
    decoded whole (its actions' seats are named by re-running the engine); one that does
    not decode has none (the store says why it refuses it)."""
    try:
        header = record_pb2.MatchRecord.FromString(record)
        if not any(s.status == common_pb2.SEAT_STATUS_DISCONNECTED for s in header.seats):
            return set()
        decoded = wire.decode_record(record)
    except (DecodeError, wire.CodecError):
        return set()
    acted = {action.seat for action in decoded.actions if action.source == "bot"}
    return {
        seat
        for seat, entry in enumerate(decoded.seats)
        if entry.status == "disconnected" and entry.forfeited and seat not in acted
    }


@dataclass(frozen=True, slots=True)
class _Live:
    """A match created on a referee: that referee, its id there, when it began
    (monotonic), what the platform noted of its seats, and each seat's session ("": it
    forfeited before the deal)."""

    link: RefereeLink
    referee_id: str
    began: float
    note: str | None
    sessions: list[str]
    marks: list[int | None]  # where each seat's bot output stood when it began


_current: Host | None = None


def install(host: Host | None) -> None:
    """Make ``host`` this process's host (``arena worker`` does, before taking tasks)."""
    global _current
    _current = host


def current() -> Host:
    """This process's host; :class:`NoHost` outside ``arena worker``."""
    if _current is None:
        raise NoHost("this task runs in `arena worker` (which starts a referee and bot pool)")
    return _current


def start_host(
    store: Store,
    redis_url: str,
    *,
    remote: Sequence[str] = (),
    admit: Admit | None = None,
    referee_host: str = "127.0.0.1",
) -> Host:
    """A host with its own referee process and an empty bot pool, its bots confined as
    ``ARENA_SANDBOX`` says (:class:`~worker.sandbox.SandboxUnavailable` when they cannot
    be here); with ``admit``, one that takes remote bots, its referee started with the
    arguments ``remote`` (its listener for them). Its referee's match service listens on
    ``referee_host``: the address the live view dials, as each match's row records it."""
    box = sandbox.configure(settings.load().sandbox)
    if box.on:
        log.info("the sandbox of hosted bots is %s", box.describe())
        # the sandboxes' file system takes a moment to fill: made before the referee, whose
        # remote port would otherwise refuse remote bots until the pool and its desk exist
        stage.get()
    else:
        log.warning("THE SANDBOX IS %s", box.describe())
    # unconfined bots are given the referee's TCP address, and serve their sessions there
    referee = LocalReferee(extra_args=remote, host=referee_host, tcp_sessions=not box.on)
    try:
        link = RefereeLink(referee.address, referee.secret, referee.socket)
        pool = BotPool(store, link, sandbox=box)
        client = redis.Redis.from_url(redis_url)
    except BaseException:
        referee.stop()
        raise
    host = Host(
        store, referee, link, pool, client, referee_args=tuple(remote), referee_host=referee_host
    )
    if admit is not None:
        host.remote = RemoteDesk(host, admit)
        host.remote.start()
    host.supervise()
    return host
