"""``arena bench tournament``: a round robin through the whole platform (Celery, Postgres,
workers, their referees and bot pools) against the same matches played by a referee and
the same bot processes alone, in the same run (``docs/performance.md``).

The matches are Hollywood Gin of one hand (``max_hands=1``) between two random bots: the
shortest honest matches, so the platform's own cost per match shows most. Both sides play
the same seeds in the same seats, ``workers × concurrency`` matches at a time, after a
warm-up that starts the bot processes. Figures:

- matches per second for each, and their ``ratio`` (platform / alone);
- ``platform_cpu_ms_per_match``: the CPU of the worker processes themselves (Celery and
  the bookkeeping, not their referee or bots), of the Postgres backends serving the
  bench's scratch database (not the server's other clients, nor its shared background
  writers, nor the bench's own watcher of each round's progress) and of every Redis
  server process, per match;
- the referee's CPU per match on each side (the same work, as a check), and
  ``platform_to_referee_cpu``: the platform's CPU per match over the referee's alone;
- queued-to-first-decision latency (p50, p99): with the workers idle, one match at a time
  is queued (its row committed, its task sent) and the time to its first decision is read
  from its record;
- how many bot processes ran (a pool starts one per bot version per worker, not one per
  match).
"""

from __future__ import annotations

import os
import secrets
import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psutil

from arena.bench.referee import cpu_seconds

GAME = "hollywood-gin"
OPTIONS = {"max_hands": 1}
#: How long the bench waits with no match finishing before it gives up (a one-hand match
#: takes a fraction of a second).
STALL_S = 60.0
RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"


@dataclass
class TournamentBench:
    """The figures of one run."""

    matches: int
    workers: int
    concurrency: int
    repeats: int
    alone_matches_per_s: float
    platform_matches_per_s: float
    ratio: float
    ratios: list[float]
    platform_cpu_ms_per_match: float
    worker_cpu_ms_per_match: float
    postgres_cpu_ms_per_match: float
    redis_cpu_ms_per_match: float
    referee_cpu_ms_per_match_alone: float
    referee_cpu_ms_per_match_platform: float
    #: The platform's CPU per match over the referee's for the same match played alone.
    platform_to_referee_cpu: float
    queued_to_first_decision_p50_ms: float
    queued_to_first_decision_p99_ms: float
    latency_samples: int
    bot_processes: int

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready mapping."""
        return asdict(self)


def _servers(name: str) -> list[int]:
    """Process ids whose command name is ``name`` (every Redis server here)."""
    return [p.pid for p in psutil.process_iter(["name"]) if p.info["name"] == name]


#: The ``application_name`` of the bench's own connection that watches each round's
#: progress (20 times a second): its backend is the bench's cost, not the platform's.
WATCHER = "arena-bench-watcher"


def _backends(store: Any) -> set[int]:
    """The Postgres backends serving the bench's scratch database but its watcher: the
    server's other clients (a test run beside the bench, say) are not the platform's
    cost, and neither is the bench's polling."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name IS DISTINCT FROM %s",
            (WATCHER,),
        ).fetchall()
    return {int(pid) for (pid,) in rows}


def _cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(p) or 0.0 for p in pids)


def descendants(pid: int) -> set[int]:
    """Living descendants of ``pid``."""
    try:
        return {p.pid for p in psutil.Process(pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


def _runs(pid: int, *words: str) -> bool:
    """True if ``words`` appear in a row among the arguments of process ``pid``."""
    try:
        line = tuple(psutil.Process(pid).cmdline())
    except psutil.Error:
        return False
    return any(line[i : i + len(words)] == words for i in range(len(line)))


def _is_bot(pid: int) -> bool:
    """A bot's own process (a Python running ``bot run``), not its sandbox's wrappers,
    which carry its command among their arguments."""
    try:
        program = Path(psutil.Process(pid).cmdline()[0]).name
    except (psutil.Error, IndexError):
        return False
    return "python" in program and _runs(pid, "bot", "run")


def _referee_of(pid: int) -> int | None:
    return next((child for child in descendants(pid) if _runs(child, "referee", "--port")), None)


def bench_tournament(
    *, workers: int, matches: int, concurrency: int = 2, repeats: int = 3
) -> TournamentBench:
    """Run the benchmark in a scratch database and under a scratch Redis prefix."""
    from arena.bench.store import ScratchDatabase
    from arena.commands.db import local_database
    from arena.platform import platform
    from worker import broker

    os.environ[broker.REDIS_PREFIX_ENV] = f"arena-bench-{secrets.token_hex(4)}:"
    with (
        local_database() as server,
        ScratchDatabase(server) as scratch,
        platform(database_url=scratch) as running,
    ):
        return _bench(running, workers, matches, concurrency, repeats)


def _register(store: Any) -> list[int]:
    from arena.app.packaging import package
    from arena.commands.bot import store_version

    bot = package(RANDOM_BOT)
    return [
        store_version(store, bot, name, GAME, "bench").id
        for name in ("bench-random-a", "bench-random-b")
    ]


def _bench(
    running: Any, workers: int, matches: int, concurrency: int, repeats: int
) -> TournamentBench:
    from psycopg.conninfo import make_conninfo

    from worker import tasks
    from worker.pool import BotPool
    from worker.referee_link import LocalReferee, RefereeLink
    from worker.schedule import round_robin
    from worker.store import ScheduledMatch, Store

    store = running.store
    watcher = Store.open(make_conninfo(running.database_url, application_name=WATCHER), max_size=1)
    versions = _register(store)
    slots = workers * concurrency
    pairings = round_robin(2, 2, matches, seed=11)
    scheduled = [ScheduledMatch(tuple(versions[i] for i in p.seats), p.seed) for p in pairings]

    # alone: one referee, bot processes of the same versions, the same matches
    referee = LocalReferee(tcp_sessions=True)  # the pool's bots run unconfined, over TCP
    link = RefereeLink(referee.address, referee.secret)
    pool = BotPool(store, link)
    threads = ThreadPoolExecutor(slots)
    try:
        sessions = {v: pool.session(v) for v in versions}

        def play_alone(k: int, tag: str) -> None:
            m = scheduled[k % len(scheduled)]
            match_id = f"{tag}{k}"
            link.create_match(
                match_id, GAME, OPTIONS, m.seed, ["a", "b"], [sessions[v] for v in m.seats]
            )
            link.wait(match_id, 120, release=True)  # as a worker does

        def alone(tag: str, count: int) -> tuple[float, float]:
            """(seconds, referee CPU seconds) for ``count`` matches."""
            before = cpu_seconds(referee.process.pid) or 0.0
            began = time.perf_counter()
            list(threads.map(lambda k: play_alone(k, tag), range(count)))
            return time.perf_counter() - began, (cpu_seconds(referee.process.pid) or 0.0) - before

        alone("w", slots * 2)  # warm-up: the bots' first matches

        # the platform: workers (their referees and bot pools), Celery, Postgres
        running.start_workers(workers, concurrency)
        worker_pids = [p.pid for p in running.workers]
        warm = store.create_tournament("bench warm-up", GAME, versions, options={})
        store.schedule_matches(warm, GAME, OPTIONS, scheduled[: slots * 2])
        for _ in range(slots):
            tasks.drain.delay(warm)
        _wait_done(store, warm, running)
        referees = [r for r in (_referee_of(p) for p in worker_pids) if r is not None]
        redis_pids = _servers("redis-server")
        bots: set[int] = set()

        def platform(round_: int) -> tuple[float, tuple[float, ...]]:
            """(seconds, CPU seconds of workers, Postgres, Redis, referees)."""
            tournament = store.create_tournament(f"bench {round_}", GAME, versions, options={})
            store.schedule_matches(tournament, GAME, OPTIONS, scheduled)
            backends = _backends(store)
            before = (_cpu(worker_pids), _cpu(list(backends)), _cpu(redis_pids), _cpu(referees))
            began = time.perf_counter()
            for _ in range(slots):
                tasks.drain.delay(tournament)
            for pids in _poll_done(watcher, tournament, running, worker_pids):
                bots.update(pids)
            took = time.perf_counter() - began
            # a backend that started during the round counts from zero
            grown = _backends(store) - backends
            after = (
                _cpu(worker_pids),
                _cpu(list(backends | grown)),
                _cpu(redis_pids),
                _cpu(referees),
            )
            return took, tuple(b - a for a, b in zip(before, after, strict=True))

        rounds = []
        for round_ in range(repeats):  # alternate, so both see the same machine
            alone_s, referee_alone = alone(f"m{round_}-", matches)
            platform_s, cpu = platform(round_)
            rounds.append((alone_s, referee_alone, platform_s, cpu))
    finally:
        threads.shutdown()
        pool.close()
        link.close()
        referee.stop()
        watcher.close()
    alone_rates = [matches / r[0] for r in rounds]
    platform_rates = [matches / r[2] for r in rounds]
    ratios = [p / a for p, a in zip(platform_rates, alone_rates, strict=True)]

    def median_ms(values: list[float]) -> float:
        return round(statistics.median(values) * 1000.0 / matches, 2)

    worker_cpu = median_ms([r[3][0] for r in rounds])
    pg_cpu = median_ms([r[3][1] for r in rounds])
    redis_cpu = median_ms([r[3][2] for r in rounds])
    platform_cpu = median_ms([r[3][0] + r[3][1] + r[3][2] for r in rounds])
    referee_alone_ms = median_ms([r[1] for r in rounds])
    referee_platform_ms = median_ms([r[3][3] for r in rounds])

    # -- latency: one match at a time, workers idle ------------------------------------
    latencies = []
    for k in range(min(30, max(10, matches // 10))):
        m = scheduled[k % len(scheduled)]
        match = store.create_match(GAME, list(m.seats), options=OPTIONS, seed=m.seed)
        queued = time.time()
        tasks.play_match.delay(match.id)
        deadline = time.monotonic() + 60
        while (found := store.match(match.id)) is not None and found.state != "done":
            if time.monotonic() > deadline:
                raise RuntimeError(f"latency match {match.id} did not finish in 60 s")
            time.sleep(0.005)
        from referee.wire import decode_record

        record = decode_record(store.record(match.id))
        latencies.append(record.started_unix_ms - queued * 1000)
    latencies.sort()

    return TournamentBench(
        matches=matches,
        workers=workers,
        concurrency=concurrency,
        repeats=repeats,
        alone_matches_per_s=round(statistics.median(alone_rates), 1),
        platform_matches_per_s=round(statistics.median(platform_rates), 1),
        ratio=round(statistics.median(ratios), 3),
        ratios=[round(r, 3) for r in ratios],
        platform_cpu_ms_per_match=platform_cpu,
        worker_cpu_ms_per_match=worker_cpu,
        postgres_cpu_ms_per_match=pg_cpu,
        redis_cpu_ms_per_match=redis_cpu,
        referee_cpu_ms_per_match_alone=referee_alone_ms,
        referee_cpu_ms_per_match_platform=referee_platform_ms,
        platform_to_referee_cpu=round(platform_cpu / referee_alone_ms, 3),
        queued_to_first_decision_p50_ms=round(statistics.median(latencies), 1),
        queued_to_first_decision_p99_ms=round(latencies[int(0.99 * (len(latencies) - 1))], 1),
        latency_samples=len(latencies),
        bot_processes=len(bots),
    )


def _wait_done(store: Any, tournament: int, running: Any) -> None:
    for _ in _poll_done(store, tournament, running, []):
        pass


def _poll_done(store: Any, tournament: int, running: Any, roots: list[int]) -> Iterator[set[int]]:
    """Until the tournament has no queued or running match: yields the bot processes
    under ``roots`` every few polls."""
    deadline = time.monotonic() + 900
    polls = 0
    done, progressed = -1, time.monotonic()
    while True:
        counts = store.tournament_progress(tournament)
        if counts["queued"] == 0 and counts["running"] == 0:
            return
        if running.workers and len(running.dead_workers()) == len(running.workers):
            raise RuntimeError(f"the bench's workers stopped; see {running.logs}")
        now = time.monotonic()
        if counts["done"] != done:
            done, progressed = counts["done"], now
        elif now - progressed > STALL_S:
            raise RuntimeError(
                f"no match of the bench finished in {STALL_S:.0f} s ({counts['queued']} "
                f"queued, {counts['running']} running); see the workers' logs in {running.logs}"
            )
        if now > deadline:
            raise RuntimeError("the bench's tournament did not finish in 15 minutes")
        polls += 1
        if roots and polls % 20 == 1:
            yield {p for r in roots for p in descendants(r) if _is_bot(p)}
        time.sleep(0.05)
