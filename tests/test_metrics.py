"""The platform's metrics (docs/operations.md, "Metrics"): a real ``arena worker`` started
with ``--metrics`` serves them in Prometheus's text format, read here with
prometheus_client's own parser; after a tournament its counts are the matches it played,
their decisions as their stored records tell them, its queue waits, finishes and bot
starts; a bot the sandbox's memory limit stops counts as a kill; in multiprocess mode
(``PROMETHEUS_MULTIPROC_DIR``) the same counts come from the value files. The docs' table
and the registry are the same list. Real Postgres, Redis, worker, referee and bots.

``.venv/bin/python -m tests.test_metrics --write`` rewrites the docs' table."""

from __future__ import annotations

import json
import re
import socket
import sys
import urllib.request
from pathlib import Path

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from referee.wire import decode_record
from tests.platform_support import EXAMPLES, ROOT, PlatformEnv
from tests.test_cli_conventions import arena, one_line_error
from worker import metrics

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
OPERATIONS = ROOT / "docs" / "operations.md"
#: A worker's line saying where it serves its metrics (port 0: the one it picked).
SERVED = re.compile(r"metrics at http://127\.0\.0\.1:(\d+)/metrics")
HOG = """
from bots.sdk import Bot, Request, run


class Hog(Bot):
    def decide(self, request: Request) -> int:
        hog = []
        while True:  # allocates without end: the sandbox's memory limit stops it
            hog.append(bytearray(8 << 20))


if __name__ == "__main__":
    run(Hog())
"""

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _metrics_port(env: PlatformEnv) -> int:
    """The port the test's worker serves its metrics on, from its log."""
    found: list[int] = []

    def said() -> bool:
        found[:] = [int(p) for p in SERVED.findall(env.worker_log())]
        return bool(found)

    env.wait_for(said, 120, "the worker to say where it serves its metrics")
    return found[0]


def _scrape(port: int) -> Samples:
    """Every sample the metrics endpoint serves, by name and labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 for a series never observed (a counter not yet touched)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def _tournament(env: PlatformEnv, bots: str, games: int) -> int:
    made = env.arena(
        "tournament", "create", "--game", GAME, "--bots", bots, "--games", str(games),
        "--option", "max_hands=1", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return int(json.loads(made.stdout)["tournament"])


def _run(env: PlatformEnv, tournament: int) -> None:
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 0, run.stderr + env.worker_log()


def test_a_worker_counts_its_matches_their_decisions_and_its_bot_starts(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    env.submit(EXAMPLES / "minimal_bot.py", "minimal", GAME)
    tournament = _tournament(env, "random,minimal", 3)
    env.start_worker(2, "--metrics", "0")
    port = _metrics_port(env)
    _run(env, tournament)
    played = env.store.list_matches(tournament_id=tournament)
    assert len(played) == 3 and all(m.state == "done" for m in played)
    # the counter moves just after each commit: wait for the last one
    env.wait_for(
        lambda: _value(_scrape(port), "arena_matches_finished_total", game=GAME) == 3,
        60,
        "the worker to count its three matches",
    )
    samples = _scrape(port)
    # each decision a bot answered, and each time-out, as the stored records tell them
    actions = [a for m in played for a in decode_record(env.store.record(m.id)).actions]
    answered = [a for a in actions if a.source not in ("timeout", "forced", "forfeited")]
    assert answered, "the matches had decisions"
    assert _value(samples, "arena_decision_seconds_count", game=GAME) == len(answered)
    assert _value(samples, "arena_decision_seconds_sum", game=GAME) == pytest.approx(
        sum(a.think_us for a in answered) / 1e6
    )
    timeouts = sum(a.source == "timeout" for a in actions)
    assert _value(samples, "arena_decision_timeouts_total", game=GAME) == timeouts
    assert _value(samples, "arena_decision_seconds_bucket", game=GAME, le="+Inf") == len(answered)
    for name in (
        "arena_queue_wait_seconds_count",  # every match was claimed for its first play
        "arena_finish_transaction_seconds_count",
        "arena_match_duration_seconds_count",
    ):
        assert _value(samples, name, game=GAME) == 3, name
    assert _value(samples, "arena_bot_starts_total") == 2  # one process per bot version
    assert _value(samples, "arena_bot_deaths_total") == 0
    assert _value(samples, "arena_matches_failed_total", game=GAME) == 0
    assert ("process_cpu_seconds_total", frozenset()) in samples  # prometheus_client's own


def test_a_bot_stopped_by_the_sandboxs_memory_limit_counts_as_a_kill(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    hog = tmp_path / "hog.py"
    hog.write_text(HOG)
    env.submit(hog, "hog", GAME)  # an operator's: exempt from qualification, which it fails
    env.submit(EXAMPLES / "random_bot.py", "house", GAME)
    tournament = _tournament(env, "hog,house", 1)
    env.start_worker(2, "--metrics", "0")
    port = _metrics_port(env)
    _run(env, tournament)
    (result,) = env.store.tournament_results(tournament)
    assert any(s.stopped_by == "memory" for s in env.store.seat_results(result.match_id))
    # counted when the finished match asks why its seat is gone, or at the latest when the
    # pool lets the dead process go (its reaper runs every 30 s)
    env.wait_for(
        lambda: _value(_scrape(port), "arena_sandbox_kills_total", limit="memory") == 1,
        120,
        "the worker to count the hog's kill",
    )
    samples = _scrape(port)
    assert _value(samples, "arena_bot_deaths_total") == 1
    assert _value(samples, "arena_matches_finished_total", game=GAME) == 1


def test_in_multiprocess_mode_the_worker_serves_its_value_files(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    folder = tmp_path / "prometheus"
    folder.mkdir()
    env.env[metrics.MULTIPROC_DIR] = str(folder)
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    env.submit(EXAMPLES / "minimal_bot.py", "minimal", GAME)
    tournament = _tournament(env, "random,minimal", 1)
    env.start_worker(2, "--metrics", "0")
    port = _metrics_port(env)
    _run(env, tournament)
    env.wait_for(
        lambda: _value(_scrape(port), "arena_matches_finished_total", game=GAME) == 1,
        60,
        "the worker to count its match",
    )
    samples = _scrape(port)
    assert _value(samples, "arena_bot_starts_total") == 2
    assert _value(samples, "arena_decision_seconds_count", game=GAME) > 0
    assert list(folder.glob("counter_*.db")) and list(folder.glob("histogram_*.db"))
    assert ("process_cpu_seconds_total", frozenset()) not in samples  # one process's only


def test_a_bad_metrics_address_or_a_port_in_use_is_one_line() -> None:
    one_line_error(
        arena("worker", "--metrics", "nine"), 2, "arena worker: --metrics takes PORT or HOST:PORT"
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one_line_error(
            arena("scheduler", "--metrics", str(port)),
            2,
            f"arena scheduler: --metrics {port}: cannot listen on 127.0.0.1:{port}",
            "pass another port",
        )


def test_the_docs_list_every_metric_the_registry_holds() -> None:
    documented = {m.name for m in metrics.DOCUMENTED}
    registered = set()
    for family in REGISTRY.collect():
        if family.name.startswith("arena_"):
            suffix = "_total" if family.type == "counter" else ""
            registered.add(family.name + suffix)
    assert registered == documented, (registered - documented, documented - registered)
    assert metrics.markdown_table() in OPERATIONS.read_text(), (
        "docs/operations.md's metrics table is not worker.metrics.DOCUMENTED: rewrite it "
        "with `.venv/bin/python -m tests.test_metrics --write`"
    )


def write() -> None:
    """Rewrite the metrics table of docs/operations.md ("Metrics") from the registry."""
    text = OPERATIONS.read_text()
    start = text.index("| metric | type | labels | meaning | served by |")
    end = text.index("\n\n", start) + 1
    OPERATIONS.write_text(text[:start] + metrics.markdown_table() + text[end:])


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.test_metrics --write")
    write()


def test_observing_a_matchs_decisions_at_once_counts_what_observing_each_counts() -> None:
    import random

    from prometheus_client import CollectorRegistry, Histogram

    rng = random.Random(7)
    values = [rng.choice([0.0, 1e-4, 0.001, 0.0025]) for _ in range(50)]
    values += [rng.expovariate(20.0) for _ in range(500)] + [120.0, 1e9]  # past every bound
    each, once = CollectorRegistry(), CollectorRegistry()
    by_one = Histogram("d", "d", ["game"], buckets=metrics.DECISION_BUCKETS, registry=each)
    at_once = Histogram("d", "d", ["game"], buckets=metrics.DECISION_BUCKETS, registry=once)
    for v in values:
        by_one.labels("g").observe(v)
    metrics.observe_all(at_once.labels("g"), values[:300])
    metrics.observe_all(at_once.labels("g"), values[300:])
    metrics.observe_all(at_once.labels("g"), [])

    def samples(registry: CollectorRegistry) -> list[tuple[str, dict[str, str], float]]:
        return [
            (s.name, s.labels, round(s.value, 9))
            for family in registry.collect()
            for s in family.samples
            if not s.name.endswith("_created")
        ]

    assert samples(once) == samples(each)
    assert ("d_count", {"game": "g"}, float(len(values))) in samples(once)
