"""``arena bench tournament``: a round robin through the whole platform (Celery, Postgres,
workers, their referees and bot pools) against the same matches played by a referee and
the same bot processes alone, in the same run (``docs/performance.md``).

The matches are Hollywood Gin of one hand (``max_hands=1``) between two random bots: the
shortest honest matches, so the platform's own cost per match shows most. Both sides play
the same seeds in the same seats, ``workers × concurrency`` matches at a time, after a
warm-up that starts the bot processes. Figures:

- matches per second for each, and their ``ratio`` (platform / alone);
- ``platform_cpu_ms_per_match``: the CPU of the worker processes themselves (Celery and
  the bookkeeping, not their referee or bots), of every Postgres and Redis server
  process, per match;
- the referee's CPU per match on each side (the same work, as a check);
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

from arena.bench.referee import cpu_seconds

GAME = "hollywood-gin"
OPTIONS = {"max_hands": 1}
RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"


@dataclass
class TournamentBench:
    """The figures of one run."""

    matches: int
    workers: int
    concurrency: int
    alone_matches_per_s: float
    platform_matches_per_s: float
    ratio: float
    platform_cpu_ms_per_match: float
    worker_cpu_ms_per_match: float
    postgres_cpu_ms_per_match: float
    redis_cpu_ms_per_match: float
    referee_cpu_ms_per_match_alone: float
    referee_cpu_ms_per_match_platform: float
    queued_to_first_decision_p50_ms: float
    queued_to_first_decision_p99_ms: float
    latency_samples: int
    bot_processes: int

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready mapping."""
        return asdict(self)


def _servers(name: str) -> list[int]:
    """Process ids whose command name is ``name`` (every Postgres or Redis server here)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def _cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(p) or 0.0 for p in pids)


def descendants(pid: int) -> set[int]:
    """Living descendants of ``pid``, from /proc."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, p in parent.items() if p in frontier} - found
        found |= frontier
    return found


def _is_bot(pid: int) -> bool:
    try:
        return b"bot\0run" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _referee_of(pid: int) -> int | None:
    for child in descendants(pid):
        try:
            if b"referee\0--port" in Path(f"/proc/{child}/cmdline").read_bytes():
                return child
        except OSError:
            continue
    return None


def bench_tournament(*, workers: int, matches: int, concurrency: int = 2) -> TournamentBench:
    """Run the benchmark in a scratch database and under a scratch Redis prefix."""
    from arena.bench.store import ScratchDatabase
    from arena.platform import platform
    from worker import broker, db

    os.environ[broker.REDIS_PREFIX_ENV] = f"arena-bench-{secrets.token_hex(4)}:"
    with (
        db.database_url() as server,
        ScratchDatabase(server) as scratch,
        platform(database_url=scratch) as running,
    ):
        return _bench(running, workers, matches, concurrency)


def _register(store: Any) -> list[int]:
    import getpass

    from arena.commands.bot_registry import ARCHIVE_FORMAT, package

    bot = package(RANDOM_BOT)
    manifest = {"game": GAME, "command": bot.command, "archive": ARCHIVE_FORMAT}
    versions = []
    for name in ("bench-random-a", "bench-random-b"):
        bot_id = store.add_bot(name, getpass.getuser())
        versions.append(store.add_bot_version(bot_id, bot.archive, manifest, "bench").id)
    return versions


def _bench(running: Any, workers: int, matches: int, concurrency: int) -> TournamentBench:
    from worker import tasks
    from worker.pool import BotPool
    from worker.referee_link import LocalReferee, RefereeLink
    from worker.schedule import round_robin
    from worker.store import ScheduledMatch

    store = running.store
    versions = _register(store)
    slots = workers * concurrency
    pairings = round_robin(2, 2, matches, seed=11)
    scheduled = [ScheduledMatch(tuple(versions[i] for i in p.seats), p.seed) for p in pairings]

    # -- alone: one referee, the same bot processes, the same matches ------------------
    referee = LocalReferee()
    link = RefereeLink(referee.address, referee.secret)
    pool = BotPool(store, link)
    try:
        sessions = {v: pool.session(v) for v in versions}

        def play_alone(k: int, m: ScheduledMatch, tag: str) -> None:
            match_id = f"{tag}{k}"
            link.create_match(
                match_id, GAME, OPTIONS, m.seed, ["a", "b"], [sessions[v] for v in m.seats]
            )
            link.wait(match_id, 120)
            link.release(match_id)

        with ThreadPoolExecutor(slots) as threads:  # warm-up: the bots' first matches
            list(threads.map(lambda k: play_alone(k, scheduled[k], "w"), range(slots * 2)))
            referee_before = cpu_seconds(referee.process.pid) or 0.0
            started = time.perf_counter()
            list(threads.map(lambda k: play_alone(k, scheduled[k], "m"), range(matches)))
            alone_s = time.perf_counter() - started
            referee_alone = (cpu_seconds(referee.process.pid) or 0.0) - referee_before
    finally:
        pool.close()
        link.close()
        referee.stop()

    # -- the platform: workers, Celery, Postgres --------------------------------------
    running.start_workers(workers, concurrency)
    worker_pids = [p.pid for p in running.workers]
    warm = store.create_tournament("bench warm-up", GAME, versions, options={})
    store.schedule_matches(warm, GAME, OPTIONS, scheduled[: slots * 2])
    for _ in range(slots):
        tasks.drain.delay(warm)
    _wait_done(store, warm, running)
    referees = [r for r in (_referee_of(p) for p in worker_pids) if r is not None]
    tournament = store.create_tournament("bench", GAME, versions, options={})
    store.schedule_matches(tournament, GAME, OPTIONS, scheduled)
    servers = _servers("postgres") + _servers("postgres.real")
    redis_pids = _servers("redis-server")
    before = (_cpu(worker_pids), _cpu(servers), _cpu(redis_pids), _cpu(referees))
    bots: set[int] = set()
    started = time.perf_counter()
    for _ in range(slots):
        tasks.drain.delay(tournament)
    for pids in _poll_done(store, tournament, running, worker_pids):
        bots |= pids
    platform_s = time.perf_counter() - started
    after = (_cpu(worker_pids), _cpu(servers), _cpu(redis_pids), _cpu(referees))
    worker_cpu, pg_cpu, redis_cpu, ref_cpu = (b - a for a, b in zip(before, after, strict=True))

    # -- latency: one match at a time, workers idle ------------------------------------
    latencies = []
    for k in range(min(30, max(10, matches // 10))):
        m = scheduled[k]
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

    alone_rate = matches / alone_s
    platform_rate = matches / platform_s
    per = 1000.0 / matches
    return TournamentBench(
        matches=matches,
        workers=workers,
        concurrency=concurrency,
        alone_matches_per_s=round(alone_rate, 1),
        platform_matches_per_s=round(platform_rate, 1),
        ratio=round(platform_rate / alone_rate, 3),
        platform_cpu_ms_per_match=round((worker_cpu + pg_cpu + redis_cpu) * per, 2),
        worker_cpu_ms_per_match=round(worker_cpu * per, 2),
        postgres_cpu_ms_per_match=round(pg_cpu * per, 2),
        redis_cpu_ms_per_match=round(redis_cpu * per, 2),
        referee_cpu_ms_per_match_alone=round(referee_alone * per, 2),
        referee_cpu_ms_per_match_platform=round(ref_cpu * per, 2),
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
    while True:
        counts = store.tournament_progress(tournament)
        if counts["queued"] == 0 and counts["running"] == 0:
            return
        if running.workers and len(running.dead_workers()) == len(running.workers):
            raise RuntimeError(f"the bench's workers stopped; see {running.logs}")
        if time.monotonic() > deadline:
            raise RuntimeError("the bench's tournament did not finish in 15 minutes")
        polls += 1
        if roots and polls % 20 == 1:
            yield {p for r in roots for p in descendants(r) if _is_bot(p)}
        time.sleep(0.05)
