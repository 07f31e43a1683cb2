"""The platform's Celery tasks: thin, named, taking ids (docs/architecture.md, decision 6).

- ``arena.drain(tournament_id)``: claim and play the tournament's queued matches one after
  another, for up to :data:`DRAIN_S` seconds, then enqueue itself again if some are left
  (later, if those left are waiting out a retry's back-off); a duel's drain then takes
  the duel's next step (:mod:`worker.duel`), which queues its next matches.
  A tournament is started with a few of these rather than one task per match: one task
  per match costs the broker's round trip and a task's bookkeeping on every match, which
  is more than the platform's whole budget for a short match (``docs/performance.md``).
- ``arena.play_match(match_id)``: claim that match and play it (a match queued again by
  the sweep, or a single match); enqueued again after its back-off if it was put back. A
  match seating a remote bot is sent on to the workers that take remote bots
  (:data:`~worker.app.REMOTE_QUEUE`): only the host its bot is connected to claims it.
- ``arena.sweep()``: re-queue matches whose lease expired, and enqueue each again; send
  work for queued matches that no task works on, whatever the broker remembers; take a
  step of every running duel (run every :data:`SWEEP_S` seconds by ``arena scheduler``).
- ``arena.ladder_tick()``: rate the ladders' new results and queue their next matches
  (every :data:`LADDER_TICK_S` seconds).
- ``arena.qualify(version_id)``: play a new bot version's qualification and record its
  outcome (:mod:`worker.qualify`); the sweep sends it again for a version still qualifying
  :data:`QUALIFY_STALL_S` after it was sent (its task lost with the broker or its worker).

Every task is safe to run twice: the atomic claim of the match row decides, and a finish
is committed only under the claim that played it. A task lost (the broker restarted
empty, a task that could not enqueue its successor) loses nothing: Postgres holds the
queued matches, and the sweep finds them.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from kombu.exceptions import OperationalError

from referee import settings
from worker import (
    census,  # noqa: F401 - registers the command `arena status` asks
    duel,
    host,
)
from worker.app import REMOTE_QUEUE, app
from worker.metrics import LADDER_TICK_SECONDS, leases_expired
from worker.store import MatchState, Store

log = logging.getLogger(__name__)

#: How long one drain task plays before handing over to a fresh task (seconds;
#: ``ARENA_DRAIN_S``); well within the tasks' soft time limit, so a warm shutdown never
#: waits long.
DRAIN_S = settings.load().drain_s
#: Drain tasks sent for a tournament (at most one per queued match): the most matches the
#: cluster plays at once for it. A drain task that finds nothing left returns at once, so
#: a cap above the cluster's slots costs little.
PARALLEL = 32
#: How often the scheduler sweeps expired leases (seconds; ``ARENA_SWEEP_S``).
SWEEP_S = settings.load().sweep_s
#: How often the scheduler ticks the ladders (seconds; ``ARENA_LADDER_TICK_S``).
LADDER_TICK_S = settings.load().ladder_tick_s
#: How long a qualification sent to the workers may take before the sweep sends it again
#: (seconds): far longer than the longest (a match per seat count, one hand each).
QUALIFY_STALL_S = 600.0


def start_drains(store: Store, tournament_id: int, queued: int, parallel: int = PARALLEL) -> int:
    """Send drain tasks for the tournament (one per queued match, at most ``parallel``),
    noting in Postgres that work was sent, so the sweep sends it again if it is lost;
    returns how many."""
    store.mark_dispatched(tournament_id)
    count = min(queued, parallel)
    for _ in range(count):
        drain.delay(tournament_id)
    return count


def send_qualification(store: Store, version_id: int) -> None:
    """Send a version's qualification to the workers, noting when in Postgres."""
    qualify.delay(version_id)
    store.mark_qualification_sent(version_id)


def sweep_now(store: Store) -> dict[int, MatchState]:
    """The sweep (:func:`worker.host.sweep`), its work enqueued as tasks; and the
    qualifications never sent, or sent long ago and not decided, sent again."""
    moved = host.sweep(store, play_match.delay, lambda t, n: start_drains(store, t, n))
    for version_id in store.qualifications_to_send(QUALIFY_STALL_S):
        log.warning("bot version %d: its qualification is not under way; sending it", version_id)
        qualify.delay(version_id)
    return moved


@app.task(name="arena.drain", acks_late=True, reject_on_worker_lost=True)
def drain(tournament_id: int) -> int:
    """Play the tournament's claimable matches for up to :data:`DRAIN_S`; returns how
    many this task played."""
    worker = host.current()
    played, more = worker.drain(tournament_id, DRAIN_S)
    if played:  # a duel's matches finished: its next step (nothing for other tournaments)
        duel.advance(worker.store, tournament_id, lambda t, n: start_drains(worker.store, t, n))
    if worker.stopping.is_set():
        return played
    wait = 0.0 if more else worker.store.next_claim_in(tournament_id)
    if wait is not None:
        _enqueue(drain, tournament_id, wait)
    return played


@app.task(name="arena.play_match", acks_late=True, reject_on_worker_lost=True)
def play_match(match_id: int) -> bool:
    """Claim and play one match; False if it was not claimable."""
    worker = host.current()
    state = worker.play_one(match_id)
    if state is None and worker.remote is None and worker.store.seats_remote_bot(match_id):
        # a remote bot's match: for the workers that take remote bots
        try:
            play_match.apply_async((match_id,), queue=REMOTE_QUEUE)
        except (OperationalError, ConnectionError, OSError) as exc:
            log.warning("match %d not sent to the remote bots' workers: %s", match_id, exc)
    if state == "queued" and not worker.stopping.is_set():
        _enqueue(play_match, match_id, worker.store.next_claim_in(match_id=match_id) or 0.0)
    return state is not None


def _enqueue(task: Any, arg: int, countdown: float) -> None:
    """Enqueue ``task(arg)`` after ``countdown`` seconds; if the broker is away, say so
    and go on: the sweep sends work for what no task works on."""
    try:
        task.apply_async((arg,), countdown=countdown or None)
    except (OperationalError, ConnectionError, OSError) as exc:
        log.warning("%s(%d) not enqueued, the broker is away: %s", task.name, arg, exc)


@app.task(name="arena.sweep", acks_late=True, reject_on_worker_lost=True)
def sweep() -> dict[str, Any]:
    """Re-queue expired leases and enqueue the matches queued again; send work for
    stranded matches."""
    moved = sweep_now(host.current().store)
    leases_expired(moved.values())
    return {str(k): v for k, v in moved.items()}


@app.task(name="arena.ladder_tick", acks_late=True, reject_on_worker_lost=True)
def ladder_tick() -> dict[str, list[int]]:
    """Tick every running ladder; their new matches are enqueued after their commit."""
    from worker import ladder

    began = time.perf_counter()
    queued = ladder.tick(host.current().store, play_match.delay)
    LADDER_TICK_SECONDS.observe(time.perf_counter() - began)
    return {str(k): v for k, v in queued.items()}


@app.task(name="arena.qualify", acks_late=True, reject_on_worker_lost=True)
def qualify(version_id: int) -> str | None:
    """Qualify a new bot version; its new qualification, or None if it was not
    qualifying (decided already)."""
    from worker import qualify as qualification

    report = qualification.run(host.current().store, version_id)
    return None if report is None else ("qualified" if report["qualified"] else "failed")


app.conf.beat_schedule = {
    "sweep-expired-leases": {"task": "arena.sweep", "schedule": SWEEP_S},
    "tick-ladders": {"task": "arena.ladder_tick", "schedule": LADDER_TICK_S},
}
