"""What runs on the platform, for its operators (``arena status``, ``GET /api/v1/status``;
``docs/operations.md``, "What runs"): the workers that answer with their hosts, referees,
sandboxes and the matches they hold; the queues; the matches of the last hour; the
ladders and their last tick; the bots failing qualification; and the problems these
show, each said in a line an operator can act on.

The store is the truth about matches; a worker's own answer is the truth about its
referee and sandbox. A worker that holds matches but does not answer is listed as such:
a vanished worker is seen by its leases until the sweep re-queues them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from arena.app.actors import Action, Actor, require
from arena.app.reads import iso
from referee import settings
from worker.store import Store, StoreStatus

#: A ladder not ticked for this many scheduler periods is reported (its scheduler stopped).
LATE_TICKS = 6


@dataclass(frozen=True, slots=True)
class Probe:
    """How the app reaches the running platform beyond its store: each worker's answer
    (by Celery node name) and the broker's queue lengths. Either may raise when the broker
    cannot be reached; the status then says so."""

    workers: Callable[[], dict[str, dict[str, Any]]]
    queues: Callable[[], dict[str, int]]


def broker_probe(redis_url: str, timeout_s: float = 1.0) -> Probe:
    """A probe over the platform's broker at ``redis_url``."""
    import redis

    from worker import census
    from worker.app import configure

    app = configure(redis_url)
    client = redis.Redis.from_url(redis_url, socket_timeout=max(timeout_s, 1.0))
    return Probe(
        workers=lambda: census.ask_workers(app, timeout_s),
        queues=lambda: census.queue_lengths(client),
    )


@dataclass(frozen=True, slots=True)
class Playing:
    """Whether the platform plays now: how many workers answer (None: it cannot tell,
    and ``said`` says why), and a line for a user who waits on it."""

    workers: int | None
    said: str


#: What a user waiting on a platform with no worker is told.
NO_WORKER = (
    "no worker of the platform answers: nothing is qualified or played until one runs "
    "(its operator starts `arena worker`)"
)


def playing(probe: Probe | None) -> Playing:
    """How many workers answer now (anyone may ask: the status's count, without the
    rest, which is the operators')."""
    if probe is None:
        return Playing(None, "this process has no broker to ask (ARENA_REDIS_URL)")
    try:
        count = len(probe.workers())
    except Exception as exc:  # the broker is away
        return Playing(None, f"the platform's broker does not answer: {type(exc).__name__}")
    return Playing(count, NO_WORKER if count == 0 else f"{count} worker(s) answer")


def status(store: Store, actor: Actor, probe: Probe | None) -> dict[str, Any]:
    """The platform's status as JSON-ready values (operators only)."""
    require(actor, Action.STATUS, what="see the platform's status")
    found = store.status()
    broker: dict[str, Any] = {"reachable": False, "error": None, "queues": None}
    answers: dict[str, dict[str, Any]] = {}
    if probe is None:
        broker["error"] = "no broker configured for this process (ARENA_REDIS_URL)"
    else:
        try:
            broker["queues"] = probe.queues()
            answers = probe.workers()
            broker["reachable"] = True
        except Exception as exc:  # the broker is away: say so, show the store's part
            broker["error"] = f"{type(exc).__name__}: {exc}"
    workers, unanswered = _workers(found, answers)
    out: dict[str, Any] = {
        "at": iso(datetime.now(UTC)),
        "workers": workers,
        "unanswered": unanswered,
        "broker": broker,
        "matches": {
            "running": sum(len(h.match_ids) for h in found.held),
            "queued": found.queued,
            "waiting_to_retry": found.waiting,
            "done_last_hour": found.done_last_hour,
            "failed_last_hour": found.failed_last_hour,
        },
        "ladders": [
            {
                "name": lad.name,
                "game": lad.game,
                "active": lad.active,
                "last_tick": iso(lad.ticked_at),
                "in_flight": lad.in_flight,
            }
            for lad in found.ladders
        ],
        "failed_qualification": [
            {"bot": f.bot, "version": f.version, "owner": f.owner, "reason": f.reason}
            for f in found.failed_qualification
        ],
        "remote_bots_connected": found.remote_bots,
    }
    out["problems"] = problems(out, found)
    return out


def _workers(
    found: StoreStatus, answers: dict[str, dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The answering workers with the matches they hold, and the lease holders that did
    not answer."""
    held = {h.worker: h for h in found.held}
    workers = []
    for node, answer in answers.items():
        mine = held.pop(str(answer.get("name")), None)
        workers.append(
            {
                "node": node,
                **answer,
                "running": list(mine.match_ids) if mine else [],
            }
        )
    unanswered = [
        {"worker": h.worker, "running": list(h.match_ids), "expired_leases": h.expired}
        for h in held.values()
    ]
    return workers, unanswered


def problems(out: dict[str, Any], found: StoreStatus) -> list[str]:
    """What an operator should look at, one line each (empty when all is well)."""
    said = []
    broker = out["broker"]
    if not broker["reachable"]:
        said.append(f"the broker cannot be asked: {broker['error']}")
    elif not out["workers"]:
        said.append(
            "no worker answers: matches are not played (start `arena worker`; docs/operations.md)"
        )
    for w in out["workers"]:
        if "error" in w:
            said.append(f"worker {w['node']}: {w['error']}")
            continue
        health = w["referee"]["health"]
        if health != "SERVING":
            said.append(f"worker {w['node']}: its referee is {health}")
        if not w["sandbox"]["on"]:
            said.append(f"worker {w['node']}: {w['sandbox']['describe']}")
    for u in out["unanswered"]:
        said.append(
            f"{u['worker']} holds match(es) {', '.join(map(str, u['running']))} but does not "
            f"answer ({u['expired_leases']} lease(s) expired; the scheduler's sweep re-queues "
            "them: is `arena scheduler` running?)"
        )
    late_s = LATE_TICKS * settings.load().ladder_tick_s
    now = datetime.now(UTC)
    for lad in found.ladders:
        since = lad.ticked_at or lad.created_at
        if lad.active and (now - since).total_seconds() > late_s:
            said.append(
                f"ladder {lad.name!r} has not been ticked for over {late_s:.0f} s "
                "(is `arena scheduler` running?)"
            )
    if found.failed_last_hour:
        said.append(
            f"{found.failed_last_hour} match(es) failed in the last hour "
            "(`arena match show ID` says why; `arena tournament retry ID` puts them back)"
        )
    return said
