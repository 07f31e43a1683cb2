"""Who is working: each ``arena worker`` process answers a Celery remote-control command
with its own account of itself (:meth:`worker.host.Host.describe`: its referee's health,
its sandbox, its bots), and the broker's queues are counted where they are, in Redis.
``arena status`` (:mod:`arena.app.status`) puts these beside what the store says
(``docs/operations.md``, "What runs").

A worker that does not answer within the timeout is not listed here; the store still
shows the matches it holds, so a vanished worker is seen by its leases."""

from __future__ import annotations

from typing import Any

import redis
from celery import Celery
from celery.worker.control import inspect_command

from worker.app import QUEUE, REMOTE_QUEUE
from worker.broker import key_prefix

#: The remote-control command every worker answers (``celery inspect arena_status``).
COMMAND = "arena_status"
#: The priority steps kombu's Redis transport keeps a queue's messages under: one list
#: per step, the first under the queue's own name (kombu's ``PRIORITY_STEPS``).
_PRIORITY_STEPS = (0, 3, 6, 9)
_PRIORITY_SEP = "\x06\x16"


@inspect_command(name=COMMAND)  # type: ignore[untyped-decorator]
def arena_status(state: Any) -> dict[str, Any]:
    """This worker process's account of itself (runs in the worker, on request)."""
    from worker import host

    try:
        return host.current().describe()
    except host.NoHost as exc:
        return {"error": str(exc)}


def ask_workers(app: Celery, timeout_s: float = 1.0) -> dict[str, dict[str, Any]]:
    """Every worker's answer to :data:`COMMAND` within ``timeout_s``, by Celery node
    name (``worker1@host``)."""
    replies = app.control.broadcast(COMMAND, reply=True, timeout=timeout_s) or []
    found: dict[str, dict[str, Any]] = {}
    for reply in replies:
        for node, answer in reply.items():
            found[node] = answer if isinstance(answer, dict) else {"error": repr(answer)}
    return dict(sorted(found.items()))


def queue_lengths(client: redis.Redis, prefix: str | None = None) -> dict[str, int]:
    """How many tasks wait in each of the platform's queues (all priority steps)."""
    prefix = key_prefix() if prefix is None else prefix
    lengths = {}
    for queue in (QUEUE, REMOTE_QUEUE):
        names = [
            f"{prefix}{queue}" if step == 0 else f"{prefix}{queue}{_PRIORITY_SEP}{step}"
            for step in _PRIORITY_STEPS
        ]
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.llen(name)
        lengths[queue] = sum(int(n) for n in pipe.execute())
    return lengths
