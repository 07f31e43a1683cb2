"""A worker host: what one ``arena worker`` process holds for its tasks (its store, its
own referee process, its bot pool) and how it plays a match it has claimed
(ARCHITECTURE decisions 6 and 12).

Playing a claimed match: its seats' bot versions get their pool processes' sessions; the
match is created on the referee under an id of this attempt (``m<id>a<attempt>``), so a
match played again after its worker vanished is a new referee match from the start; the
lease is renewed while it runs; the finished match is handed to
:meth:`worker.store.Store.finish_match`, which commits record, results and ratings in one
transaction if, and only if, the claim is still this attempt's (so no match is counted
twice); a notice goes to the tournament's watchers. A match the referee aborted, or that
could not be played, goes back to the queue while attempts remain.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from referee import settings, wire
from referee.clock import ClockRules
from rummyarena.v1 import common_pb2
from worker import notices
from worker.pool import BotPool
from worker.referee_link import LocalReferee, RefereeLink
from worker.store import FinishedMatch, InvalidResult, Match, SeatOutcome, Store

log = logging.getLogger(__name__)

LEASE_ENV = settings.LEASE_S
#: How long a claim holds without renewal by default (seconds; ``ARENA_LEASE_S``); a
#: claim is renewed every third of it.
LEASE_S = settings.DEFAULT_LEASE_S
#: How long a bot process may take to start and join its first match (milliseconds).
JOIN_MS = 30_000
#: The longest a match may run before the worker gives up on it (seconds).
MATCH_S = 600.0


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
    stopping: threading.Event = field(default_factory=threading.Event)
    name: str = field(default_factory=lambda: f"{socket.gethostname()}/{os.getpid()}")
    _clocks: dict[int, ClockRules] = field(default_factory=dict)
    _labels: dict[int, str] = field(default_factory=dict)  # bot versions never change

    def close(self) -> None:
        """Stop the bot processes and the referee."""
        self.stopping.set()
        self.pool.close()
        self.link.close()
        if self.referee is not None:
            self.referee.stop()
        with contextlib.suppress(redis.RedisError):
            self.redis.close()

    # -- claiming --------------------------------------------------------------------

    def drain(self, tournament_id: int | None, budget_s: float) -> tuple[int, bool]:
        """Claim and play the tournament's matches one after another until none is left
        to claim, the worker is stopping, or ``budget_s`` has passed; returns (matches
        played, whether some may be left)."""
        played = 0
        deadline = time.monotonic() + budget_s
        while not self.stopping.is_set():
            if time.monotonic() > deadline:
                return played, True
            holder = self._holder()
            match = self.store.claim_match(
                holder, lease_seconds=self.lease_s, tournament_id=tournament_id
            )
            if match is None:
                return played, False
            self.play(match, holder)
            played += 1
        return played, True

    def play_one(self, match_id: int) -> bool:
        """Claim the match ``match_id`` and play it; False if it was not claimable (done,
        cancelled, or held by a live lease): a task delivered twice does nothing twice."""
        holder = self._holder()
        match = self.store.claim_match(holder, lease_seconds=self.lease_s, match_id=match_id)
        if match is None:
            return False
        self.play(match, holder)
        return True

    def _holder(self) -> str:
        return f"{self.name}/{uuid.uuid4().hex[:12]}"

    # -- playing ---------------------------------------------------------------------

    def play(self, match: Match, holder: str) -> str:
        """Play a match claimed by ``holder`` to its end and hand it in; returns the
        match's state afterwards (``done``, ``queued`` or ``failed``; ``lost`` if the claim
        was no longer this attempt's)."""
        stop_renewing = threading.Event()
        renewer = threading.Thread(
            target=self._renew,
            args=(match.id, holder, stop_renewing),
            name=f"lease-{match.id}",
            daemon=True,
        )
        renewer.start()
        try:
            state = self._play(match, holder)
        except Exception as exc:  # the match could not be played: back to the queue
            log.exception("match %d could not be played", match.id)
            state = (
                self.store.fail_match(match.id, holder, f"{type(exc).__name__}: {exc}") or "lost"
            )
        finally:
            stop_renewing.set()
            renewer.join()
        notices.publish(self.redis, match.tournament_id, match_id=match.id, state=state)
        return state

    def _play(self, match: Match, holder: str) -> str:
        if not self._labels.keys() >= set(match.seats):
            self._labels.update(self.store.labels(match.seats))
        labels = self._labels
        sessions = [self.pool.session(v) for v in match.seats]
        referee_id = f"m{match.id}a{match.attempts}"
        began = time.monotonic()
        self.link.create_match(
            referee_id,
            match.game,
            match.options,
            match.seed,
            [labels.get(v, f"version {v}") for v in match.seats],
            sessions,
            self._clock(match.tournament_id),
        )
        notices.set_live(self.redis, match.id, self.link.address, referee_id, MATCH_S)
        try:
            reply = self.link.wait(referee_id, MATCH_S)
        finally:
            notices.clear_live(self.redis, match.id)
        try:
            result = reply.result
            if result.status == common_pb2.MATCH_STATUS_ABORTED:
                return (
                    self.store.fail_match(match.id, holder, f"aborted: {result.reason}") or "lost"
                )
            finished = FinishedMatch(
                record=reply.record.SerializeToString(),
                results=[
                    SeatOutcome(
                        s.seat, s.rank, s.score, wire.status_from_proto(s.status), s.forfeited
                    )
                    for s in result.seats
                ],
                num_actions=len(reply.record.action_index) or len(reply.record.actions),
                duration_ms=round((time.monotonic() - began) * 1000),
            )
            try:
                done = self.store.finish_match(match.id, holder, finished)
            except InvalidResult as exc:  # the referee's record does not fit: never retried
                return self.store.fail_match(match.id, holder, str(exc), retry=False) or "lost"
            return "done" if done else "lost"
        finally:
            self.link.release(referee_id)

    def _renew(self, match_id: int, holder: str, stop: threading.Event) -> None:
        while not stop.wait(self.lease_s / 3):
            try:
                if not self.store.renew_lease(match_id, holder, self.lease_s):
                    log.warning("match %d: the lease is no longer ours", match_id)
                    return
            except Exception:  # the store is away: try again at the next tick
                log.exception("match %d: renewing the lease failed", match_id)

    def _clock(self, tournament_id: int | None) -> ClockRules:
        if tournament_id is None:
            return ClockRules(join_ms=JOIN_MS)
        clock = self._clocks.get(tournament_id)
        if clock is None:
            settings = self.store.tournament(tournament_id).options.get("clock") or {}
            clock = self._clocks[tournament_id] = ClockRules(**{"join_ms": JOIN_MS, **settings})
        return clock

    # -- the scheduler's sweep -----------------------------------------------------------


def sweep(store: Store, enqueue: Callable[[int], Any]) -> dict[int, str]:
    """Re-queue the running matches whose lease expired (their worker vanished) and
    enqueue a task for each one queued again; returns match id → new state."""
    moved = store.requeue_expired()
    for match_id, state in moved.items():
        if state == "queued":
            enqueue(match_id)
    return moved


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


def start_host(store: Store, redis_url: str) -> Host:
    """A host with its own referee process and an empty bot pool."""
    referee = LocalReferee()
    try:
        link = RefereeLink(referee.address, referee.secret)
        pool = BotPool(store, link)
        client = redis.Redis.from_url(redis_url)
    except BaseException:
        referee.stop()
        raise
    return Host(store, referee, link, pool, client)
