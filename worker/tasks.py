"""The platform's Celery tasks: thin, named, taking ids (ARCHITECTURE decision 6).

- ``arena.drain(tournament_id)``: claim and play the tournament's queued matches one after
  another, for up to :data:`DRAIN_S` seconds, then enqueue itself again if some are left.
  A tournament is started with a few of these rather than one task per match: one task
  per match costs the broker's round trip and a task's bookkeeping on every match, which
  is more than the platform's whole budget for a short match (``docs/performance.md``).
- ``arena.play_match(match_id)``: claim that match and play it (a match queued again by
  the sweep, or a single match).
- ``arena.sweep()``: re-queue matches whose lease expired, and enqueue each again (run
  every :data:`SWEEP_S` seconds by ``arena scheduler``).
- ``arena.ladder_tick()``: rate the ladders' new results and queue their next matches
  (every :data:`LADDER_TICK_S` seconds).

Every task is safe to run twice: the atomic claim of the match row decides, and a finish
is committed only under the claim that played it.
"""

from __future__ import annotations

from typing import Any

from referee import settings
from worker import host
from worker.app import app

#: How long one drain task plays before handing over to a fresh task (seconds); well
#: within the tasks' soft time limit, so a warm shutdown never waits long.
DRAIN_S = 60.0
#: How often the scheduler sweeps expired leases (seconds; ``ARENA_SWEEP_S``).
SWEEP_S = settings.load().sweep_s
#: How often the scheduler ticks the ladders (seconds; ``ARENA_LADDER_TICK_S``).
LADDER_TICK_S = settings.load().ladder_tick_s


@app.task(name="arena.drain", acks_late=True, reject_on_worker_lost=True)
def drain(tournament_id: int) -> int:
    """Play the tournament's claimable matches for up to :data:`DRAIN_S`; returns how
    many this task played."""
    played, more = host.current().drain(tournament_id, DRAIN_S)
    if more and not host.current().stopping.is_set():
        drain.delay(tournament_id)
    return played


@app.task(name="arena.play_match", acks_late=True, reject_on_worker_lost=True)
def play_match(match_id: int) -> bool:
    """Claim and play one match; False if it was not claimable."""
    return host.current().play_one(match_id)


@app.task(name="arena.sweep", acks_late=True, reject_on_worker_lost=True)
def sweep() -> dict[str, Any]:
    """Re-queue expired leases and enqueue the matches queued again."""
    moved = host.sweep(host.current().store, play_match.delay)
    return {str(k): v for k, v in moved.items()}


@app.task(name="arena.ladder_tick", acks_late=True, reject_on_worker_lost=True)
def ladder_tick() -> dict[str, list[int]]:
    """Tick every running ladder; their new matches are enqueued after their commit."""
    from worker import ladder

    queued = ladder.tick(host.current().store, play_match.delay)
    return {str(k): v for k, v in queued.items()}


app.conf.beat_schedule = {
    "sweep-expired-leases": {"task": "arena.sweep", "schedule": SWEEP_S},
    "tick-ladders": {"task": "arena.ladder_tick", "schedule": LADDER_TICK_S},
}
