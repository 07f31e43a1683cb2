"""``arena status`` and ``GET /api/v1/status`` (docs/operations.md, "What runs") show a
running platform truthfully: the workers that answer, with their hosts, referees,
sandboxes and the matches they hold; a killed worker by the leases it left; the queues,
the last hour's matches, the ladders' ticks and the bots failing qualification. Real
Postgres, Redis, Celery workers, referees and sandboxed bots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.app.status import Probe, status
from arena.site import create_site
from tests.platform_support import EXAMPLES, PLATFORM_BOTS, ROOT, PlatformEnv
from tests.test_qualification import CRASHER
from worker import broker
from worker.store import Store

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"


def _status(env: PlatformEnv) -> dict[str, Any]:
    shown = env.arena("status", "--json", "--timeout", "2")
    assert shown.returncode == 0, shown.stderr
    return dict(json.loads(shown.stdout))


def _running_ids(store: Store) -> set[int]:
    return {m.id for m in store.list_matches(limit=500) if m.state == "running"}


def test_status_follows_workers_matches_ladders_and_failures(
    platform_env: PlatformEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = platform_env
    ann = env.user("ann")
    env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", GAME)
    env.submit(EXAMPLES / "random_bot.py", "rnd", GAME)
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    failed = env.arena("bot", "submit", str(crasher), "--name", "anns", "--game", GAME, key=ann)
    assert failed.returncode == 1, failed.stdout + failed.stderr

    # nobody works yet: the broker answers, no worker does, and status says so
    idle = _status(env)
    assert idle["broker"]["reachable"] and idle["workers"] == []
    assert any("no worker answers" in line for line in idle["problems"])
    (failing,) = idle["failed_qualification"]
    assert failing["bot"] == "anns" and failing["owner"] == "ann" and failing["version"] == 1
    assert "error instead of an answer" in failing["reason"]

    env.start_worker(1, "--node-name", "keep@%h")
    lost = env.start_worker(1, "--node-name", "lost@%h")
    env.wait_for(
        lambda: {w["node"].split("@")[0] for w in _status(env)["workers"]} == {"keep", "lost"},
        120,
        "both workers to answer",
    )
    for w in _status(env)["workers"]:
        assert w["referee"]["health"] == "SERVING", w
        assert w["sandbox"]["on"] and "bubblewrap" in w["sandbox"]["describe"]
        assert w["host"] == os.uname().nodename and w["name"].endswith(f"/{w['pid']}")

    created = env.arena(
        "tournament", "create", "--game", GAME, "--bots", "slow,rnd", "--games", "6",
        "--option", "max_hands=2", "--json",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    tournament = json.loads(created.stdout)["tournament"]
    argv = ["tournament", "run", str(tournament), "--quiet", "--local-workers", "0"]
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", *argv, "--parallel", "2"],
        env=env.env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # while both play, each running match is shown under the worker holding it
        def both_hold() -> bool:
            found = _status(env)
            held = {w["node"].split("@")[0]: set(w["running"]) for w in found["workers"]}
            return bool(held.get("keep")) and bool(held.get("lost"))

        env.wait_for(both_hold, 120, "each worker to hold a match")
        found = _status(env)
        shown = {i for w in found["workers"] for i in w["running"]}
        assert shown <= _running_ids(env.store) | _done_ids(env.store)
        victim = next(w for w in found["workers"] if w["node"].startswith("lost@"))

        def victim_holds() -> bool:  # a match of its own at the moment it is killed
            running = env.store.list_matches(tournament_id=tournament, state="running")
            return any((m.lease_holder or "").startswith(f"{victim['name']}/") for m in running)

        env.wait_for(victim_holds, 120, "the worker to be killed to hold a match")

        # killed with its referee and bots: it answers no more, its leases stay behind
        os.killpg(lost.pid, signal.SIGKILL)
        lost.wait()

        seen: list[dict[str, Any]] = []

        def shows_the_loss() -> bool:  # keeps the answer: a sweep may re-queue them next
            seen[:] = [_status(env)]
            nodes = {w["node"].split("@")[0] for w in seen[0]["workers"]}
            return nodes == {"keep"} and any(
                u["worker"] == victim["name"] for u in seen[0]["unanswered"]
            )

        # a loaded machine's worker may miss the status's one-second census now and then
        env.wait_for(shows_the_loss, 180, "the killed worker's leases without an answer")
        (left,) = [u for u in seen[0]["unanswered"] if u["worker"] == victim["name"]]
        assert left["running"] and set(left["running"]) <= _tournament_ids(env.store, tournament)
        assert any(
            victim["name"] in line and "does not answer" in line for line in seen[0]["problems"]
        )

        # the scheduler's sweep gives its matches to the other, which plays them all
        env.start_scheduler()
        assert run.wait(240) == 0
    finally:
        if run.poll() is None:
            run.kill()
    done = _status(env)
    assert done["unanswered"] == [] and done["matches"]["running"] == 0
    assert done["matches"]["queued"] == 0 and done["broker"]["queues"]["arena"] == 0
    assert done["matches"]["done_last_hour"] == len(_done_ids(env.store)) >= 6
    assert not any("does not answer" in line for line in done["problems"])

    # a ladder shows its last tick once the scheduler has ticked it
    started = env.arena("ladder", "start", "--game", "rummy-500", "--local-workers", "0")
    assert started.returncode == 0, started.stderr
    env.wait_for(
        lambda: any(lad["last_tick"] for lad in _status(env)["ladders"]), 60, "a ladder tick"
    )

    # the same through the API, for operators only
    ops = json.loads(env.arena("user", "create", "ops", "--operator", "--json").stdout)["key"]
    monkeypatch.setenv(broker.REDIS_PREFIX_ENV, env.env[broker.REDIS_PREFIX_ENV])
    with TestClient(create_site(env.store, redis_url=env.env[broker.REDIS_URL_ENV])) as client:
        assert client.get("/api/v1/status").status_code == 401
        refused = client.get("/api/v1/status", headers={"Authorization": f"Bearer {ann}"})
        assert refused.status_code == 403 and "operators" in refused.json()["error"]["message"]
        answer = client.get("/api/v1/status", headers={"Authorization": f"Bearer {ops}"})
        assert answer.status_code == 200, answer.text
        body = answer.json()
    assert [w["node"].split("@")[0] for w in body["workers"]] == ["keep"]
    assert body["matches"]["done_last_hour"] == done["matches"]["done_last_hour"]
    assert [lad["game"] for lad in body["ladders"]] == ["rummy-500"]

    # the text form says the same
    text = env.arena("status", "--timeout", "2")
    assert text.returncode == 0, text.stderr
    assert "keep@" in text.stdout and "SERVING" in text.stdout and "rummy-500" in text.stdout
    assert "failed qualification: anns v1 (ann)" in text.stdout


def _tournament_ids(store: Store, tournament: int) -> set[int]:
    return {m.id for m in store.list_matches(limit=500) if m.tournament_id == tournament}


def _done_ids(store: Store) -> set[int]:
    return {m.id for m in store.list_matches(limit=500) if m.state == "done"}


def test_status_says_when_the_broker_cannot_be_asked(store: Store) -> None:
    import redis

    from arena.app.actors import PLATFORM
    from worker import census

    nobody = redis.Redis.from_url("redis://127.0.0.1:9/0", socket_connect_timeout=1)
    found = status(
        store, PLATFORM, Probe(workers=dict, queues=lambda: census.queue_lengths(nobody))
    )
    assert not found["broker"]["reachable"] and found["workers"] == []
    assert "ConnectionError" in found["broker"]["error"]
    assert found["problems"][0].startswith("the broker cannot be asked")
    assert found["matches"]["queued"] == 0  # the store's part is still shown
