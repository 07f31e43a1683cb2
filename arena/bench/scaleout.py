"""``arena bench tournament --hosts``: the same round robin played by one worker host and
then by two, each a network namespace of its own (:mod:`arena.bench.hosts`) with its own
address, as the multi-host test builds them: a host for Postgres and Redis, one that
creates and follows the tournaments, and the worker hosts, each running ``arena worker``
with its local referee and its bots (``docs/performance.md``, "Scale-out over worker
hosts").

Each phase is a tournament of its own between the same two bots, played to its end; its
rate is its matches over the time from its first match's start to its last match's end,
as the store has them. On a machine of two cores two worker hosts share the same cores,
so the figures show that a second host takes its share of the queue, not how far it
scales: ``docs/performance.md`` says what a larger deployment should expect per core."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GAME = "hollywood-gin"
BOTS = Path(__file__).resolve().parents[2] / "bots" / "examples"
#: The hosts: the servers, the one that makes and follows tournaments, the workers.
NAMES = ("db", "ctl", "w1", "w2")
#: Short leases and sweeps, as the multi-host test has them: a phase's end is not held up.
SETTINGS = {"ARENA_LEASE_S": "10", "ARENA_SWEEP_S": "1", "ARENA_DRAIN_S": "5"}
#: How long a phase may take before the bench gives up (seconds).
PHASE_S = 900.0


#: The port each worker serves its metrics on, at its host's address.
METRICS_PORT = 9400


def run(*, matches: int = 200, concurrency: int = 2) -> dict[str, Any]:
    """Matches per second with one worker host and with two (each ``arena worker
    --concurrency N``), each over a round robin of ``matches`` one-hand matches, and how
    many each host played (its own ``arena_matches_finished_total``)."""
    from arena.bench.hosts import HostedPlatform, Hosts, Servers

    with Hosts(NAMES) as hosts:
        servers = Servers(hosts, "db", durable=False).start()
        platform = HostedPlatform(hosts, servers, settings=dict(SETTINGS))
        for name in ("randa", "randb"):
            _ok(
                platform.arena(
                    "ctl", "bot", "submit", str(BOTS / "random_bot.py"), "--name", name,
                    "--game", GAME, "--json",
                )
            )  # fmt: skip
        store = platform.open_store("ctl")
        out: dict[str, Any] = {"matches": matches, "concurrency": concurrency}
        try:
            for workers in (("w1",), ("w1", "w2")):
                started = [
                    platform.start(
                        name, "worker", "--concurrency", str(concurrency),
                        "--node-name", f"{name}@%h",
                        "--metrics", f"{hosts[name].address}:{METRICS_PORT}",
                    )
                    for name in workers
                ]  # fmt: skip
                try:
                    rate = _phase(platform, store, matches)
                    by_host = {name: _finished(hosts, hosts[name].address) for name in workers}
                finally:
                    for process in started:
                        process.terminate()
                    for process in started:
                        process.wait(60)
                out[f"hosts_{len(workers)}"] = {
                    "worker_hosts": len(workers),
                    "matches_per_s": round(rate, 2),
                    "matches_by_host": by_host,
                }
        finally:
            store.close()
    one, two = out["hosts_1"]["matches_per_s"], out["hosts_2"]["matches_per_s"]
    out["two_over_one"] = round(two / one, 2) if one else 0.0
    return out


def _ok(done: Any) -> Any:
    if done.returncode != 0:
        raise RuntimeError(f"a command of the bench failed: {done.stderr.strip()[-2000:]}")
    return done


def _phase(platform: Any, store: Any, matches: int) -> float:
    """Play one tournament through the worker hosts now running, from the ``ctl`` host,
    to its end; its matches per second, first start to last finish."""
    made = _ok(
        platform.arena(
            "ctl", "tournament", "create", "--game", GAME, "--bots", "randa,randb",
            "--games", str(matches), "--option", "max_hands=1", "--json",
        )
    )  # fmt: skip
    tournament = int(json.loads(made.stdout)["tournament"])
    _ok(
        platform.arena(
            "ctl", "tournament", "run", str(tournament), "--quiet", "--local-workers", "0",
            timeout=PHASE_S,
        )
    )  # fmt: skip
    with store.pool.connection() as conn:
        row = conn.execute(
            "SELECT count(*), extract(epoch FROM max(finished_at) - min(started_at))"
            " FROM matches WHERE tournament_id = %s AND state = 'done'",
            (tournament,),
        ).fetchone()
    assert row is not None
    done, seconds = int(row[0]), float(row[1] or 0)
    return done / seconds if seconds else 0.0


def _finished(hosts: Any, address: str) -> int:
    """The matches a worker says it finished (``arena_matches_finished_total``, every
    game), read from its metrics at ``address`` from inside the ``ctl`` host."""
    import urllib.request

    with hosts.entered("ctl"):
        url = f"http://{address}:{METRICS_PORT}/metrics"
        with urllib.request.urlopen(url, timeout=10) as answer:
            text = answer.read().decode()
    return int(
        sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("arena_matches_finished_total{")
        )
    )
