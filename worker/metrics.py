"""The platform's metrics for a Prometheus scraper (``docs/operations.md``, "Metrics"):
their definitions, what observes them, and the HTTP server each long-running role serves
them on (``--metrics [HOST:]PORT``).

A worker (``arena worker``) runs its Celery tasks on a pool of threads, in one process, so
one registry holds all it counts. With ``PROMETHEUS_MULTIPROC_DIR`` set (a deployment that
runs the tasks in several processes) prometheus_client keeps every process's values in
files there and :func:`serve` answers with their sum (its multiprocess collector).

Decision latency and time-outs are read from the record of each match a worker finishes
(its per-decision think times and who chose each action), once its finish is committed: a
match is counted once, whichever referee played it. :data:`DOCUMENTED` lists every metric
for the docs' table (:func:`markdown_table`).
"""

from __future__ import annotations

import bisect
import collections
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    start_http_server,
)
from prometheus_client.multiprocess import MultiProcessCollector

from rummyarena.v1 import record_pb2

if TYPE_CHECKING:
    from worker.store import Match

#: prometheus_client's own variable: a folder of value files shared by the processes of one
#: role (its multiprocess mode).
MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"

#: A bot's answer: from a quarter of a millisecond (the round trip over loopback) to the
#: longest clocks.
DECISION_BUCKETS = (
    0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip
#: The finish transaction: a few milliseconds normally, seconds when Postgres struggles.
FINISH_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: A match's wait in the queue: a moment, to the hours a large tournament takes.
QUEUE_BUCKETS = (0.01, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 14400.0, 86400.0)
#: A match's play: a one-hand match in a fraction of a second, up to the worker's limit.
MATCH_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
#: A ladder tick: rating new results and queueing matches, for every ladder.
TICK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

#: The actions that were no decision of a bot's (C7 forced, a forfeited seat's) or no
#: answer (a time-out): not in the decision latency.
_NOT_ANSWERED = frozenset(
    (
        record_pb2.ACTION_SOURCE_TIMEOUT,
        record_pb2.ACTION_SOURCE_FORCED,
        record_pb2.ACTION_SOURCE_FORFEITED,
    )
)

# no `_created` series beside each: a scraper needs none
disable_created_metrics()  # type: ignore[no-untyped-call]


@dataclass(frozen=True, slots=True)
class Documented:
    """One metric as the docs list it: its exposed name, type, labels, meaning and the
    role that serves it."""

    name: str
    kind: str
    labels: tuple[str, ...]
    meaning: str
    role: str


#: Every metric of the platform's, in the order of the docs' table.
DOCUMENTED: list[Documented] = []


def _counter(name: str, meaning: str, labels: Sequence[str] = (), role: str = "worker") -> Counter:
    DOCUMENTED.append(Documented(f"{name}_total", "counter", tuple(labels), meaning, role))
    return Counter(name, meaning, labels)


def _histogram(
    name: str,
    meaning: str,
    buckets: Sequence[float],
    labels: Sequence[str] = (),
    role: str = "worker",
) -> Histogram:
    DOCUMENTED.append(Documented(name, "histogram", tuple(labels), meaning, role))
    return Histogram(name, meaning, labels, buckets=buckets)


MATCHES_FINISHED = _counter(
    "arena_matches_finished",
    "matches played and committed (state done) by this worker",
    ["game"],
)
MATCHES_FAILED = _counter(
    "arena_matches_failed",
    "plays that left their match failed: out of attempts, or a record that can never be stored",
    ["game"],
)
MATCHES_REQUEUED = _counter(
    "arena_matches_requeued",
    "plays that gave their match back to the queue, to be played again; `fault`: "
    "`platform` (its referee away, the database or the broker unreachable: the attempt "
    "does not count) or `match` (the referee aborted it, or it could not be played)",
    ["game", "fault"],
)
MATCHES_LOST = _counter(
    "arena_matches_lost",
    "plays whose claim was no longer theirs at the end (the lease expired and the match "
    "went to another worker), or whose end the store could not be told",
    ["game"],
)
DECISION_SECONDS = _histogram(
    "arena_decision_seconds",
    "how long a bot took to answer a decision, from the records of the matches this "
    "worker finished (time-outs, forced actions and forfeited seats are not in it)",
    DECISION_BUCKETS,
    ["game"],
)
DECISION_TIMEOUTS = _counter(
    "arena_decision_timeouts",
    "decisions a bot did not answer in time (the referee chose for it), from the same records",
    ["game"],
)
QUEUE_WAIT_SECONDS = _histogram(
    "arena_queue_wait_seconds",
    "from a match's creation to its first claim (Postgres's clock at both ends)",
    QUEUE_BUCKETS,
    ["game"],
)
FINISH_SECONDS = _histogram(
    "arena_finish_transaction_seconds",
    "the finish transaction of a played match: record, results and ratings committed "
    "(`Store.finish_match`)",
    FINISH_BUCKETS,
    ["game"],
)
MATCH_SECONDS = _histogram(
    "arena_match_duration_seconds",
    "a finished match's play, from its creation on the referee to its result",
    MATCH_BUCKETS,
    ["game"],
)
BOT_STARTS = _counter(
    "arena_bot_starts",
    "bot processes this worker started: its pool's (one per bot version, one more per "
    "rotation of a duplicate deal, again after one died) and those of the qualifications "
    "it plays",
)
BOT_DEATHS = _counter(
    "arena_bot_deaths",
    "bot processes of this worker's that exited on their own, not stopped by their pool "
    "(crashed, or stopped by a limit of the sandbox)",
)
SANDBOX_KILLS = _counter(
    "arena_sandbox_kills",
    "bot processes a limit of the sandbox stopped; `limit`: `memory`, `processes`, `cpu` "
    "or `file size`",
    ["limit"],
)
LEASES_EXPIRED = _counter(
    "arena_leases_expired",
    "running matches whose lease expired (their worker vanished), found by the scheduler's "
    "sweep; `state`: `queued` again, or `failed` (out of attempts)",
    ["state"],
    role="worker (the scheduler's sweep task)",
)
LADDER_TICK_SECONDS = _histogram(
    "arena_ladder_tick_seconds",
    "one tick of every running ladder: its new results rated, its next matches queued",
    TICK_BUCKETS,
    role="worker (the scheduler's ladder task)",
)


# -- what observes them --------------------------------------------------------------------


def claimed(match: Match, lease_s: float) -> None:
    """A match was claimed for its first play: its wait in the queue (the claim's time is
    its lease's expiry less the lease, both on Postgres's clock)."""
    if match.attempts == 1 and match.lease_expires is not None:
        claimed_at = match.lease_expires - timedelta(seconds=lease_s)
        wait = (claimed_at - match.created_at).total_seconds()
        QUEUE_WAIT_SECONDS.labels(match.game).observe(max(0.0, wait))


def played(game: str, state: str, fault: str | None) -> None:
    """A play ended in ``state`` (``done``, ``queued``, ``failed`` or ``lost``); ``fault``
    is ``platform`` or ``match`` for a play that raised."""
    if state == "done":
        MATCHES_FINISHED.labels(game).inc()
    elif state == "queued":
        MATCHES_REQUEUED.labels(game, fault or "match").inc()
    elif state == "failed":
        MATCHES_FAILED.labels(game).inc()
    else:
        MATCHES_LOST.labels(game).inc()


def finished(game: str, record: bytes, duration_s: float) -> None:
    """A match's finish was committed: its play's duration, and each decision's think time
    and each time-out from its record (protobuf ``MatchRecord``, format 1 or 2)."""
    MATCH_SECONDS.labels(game).observe(duration_s)
    msg = record_pb2.MatchRecord.FromString(record)
    if msg.format_version == 1:
        sources = [a.source for a in msg.actions]
        thinks: Iterable[int] = [a.think_us for a in msg.actions]
    else:
        sources = [record_pb2.ACTION_SOURCE_BOT] * len(msg.think_us)
        for mark in msg.sources:
            if mark.action < len(sources):
                sources[mark.action] = mark.source
        thinks = msg.think_us
    answered = []
    timeouts = 0
    for think_us, source in zip(thinks, sources, strict=False):
        if source == record_pb2.ACTION_SOURCE_TIMEOUT:
            timeouts += 1
        elif source not in _NOT_ANSWERED:
            answered.append(think_us / 1e6)
    observe_all(DECISION_SECONDS.labels(game), answered)
    if timeouts:
        DECISION_TIMEOUTS.labels(game).inc(timeouts)


def observe_all(histogram: Histogram, values: Sequence[float]) -> None:
    """``histogram.observe(v)`` for every value, as one increment per bucket filled and
    one of the sum: a match's hundred decisions would otherwise be a hundred calls, each
    taking the histogram's lock (most of what counting a match cost the worker). It uses
    the child's buckets and sum as ``observe`` does (prometheus_client keeps each bucket's
    own count, cumulated when collected); ``tests/test_metrics.py`` checks that it counts
    what ``observe`` counts, in both value modes."""
    if not values:
        return
    bounds = histogram._upper_bounds
    filled = collections.Counter(bisect.bisect_left(bounds, v) for v in values)
    histogram._sum.inc(sum(values))
    for bucket, count in filled.items():
        histogram._buckets[bucket].inc(count)


def bot_died(limit: str | None) -> None:
    """A bot process exited on its own; ``limit``: the sandbox's limit that stopped it."""
    BOT_DEATHS.inc()
    if limit is not None:
        SANDBOX_KILLS.labels(limit).inc()


def leases_expired(states: Iterable[str]) -> None:
    """The sweep moved these matches on (their new states)."""
    for state in states:
        LEASES_EXPIRED.labels(state).inc()


# -- serving them ---------------------------------------------------------------------------


class MetricsAddressError(ValueError):
    """``--metrics`` was given an address it cannot listen on."""


def parse_address(text: str) -> tuple[str, int]:
    """``PORT`` or ``HOST:PORT`` (``[::1]:PORT`` for IPv6) as (host, port); the host
    defaults to loopback."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise MetricsAddressError(
            f"--metrics takes PORT or HOST:PORT (0: any free port), not {text!r}"
        )
    return host, int(port)


def serve(host: str, port: int) -> int:
    """Serve the metrics at ``http://HOST:PORT/metrics`` from a thread of its own
    (prometheus_client's server); returns the port bound. In multiprocess mode
    (``PROMETHEUS_MULTIPROC_DIR``) it answers with every process's values summed.
    :class:`OSError` when the port cannot be bound."""
    registry: CollectorRegistry = REGISTRY
    if os.environ.get(MULTIPROC_DIR):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    server, _ = start_http_server(port, addr=host, registry=registry)
    return int(server.server_port)


def markdown_table() -> str:
    """:data:`DOCUMENTED` as the table of ``docs/operations.md``, "Metrics"."""
    rows = ["| metric | type | labels | meaning | served by |", "| --- | --- | --- | --- | --- |"]
    for m in DOCUMENTED:
        labels = ", ".join(f"`{label}`" for label in m.labels) or "–"
        rows.append(f"| `{m.name}` | {m.kind} | {labels} | {m.meaning} | {m.role} |")
    return "\n".join(rows) + "\n"
