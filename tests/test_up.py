"""``arena up`` (docs/operations.md, "A platform in one command"): on a machine with no
Postgres or Redis configured, one command serves a platform on which a second user, from
another home folder and through the API alone, logs in, submits bots that qualify and
plays a tournament; Ctrl-C stops every process it started. Real embedded Postgres and
Redis, web app, worker, referee, scheduler and sandboxed bot processes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from tests.platform_support import EXAMPLES, ROOT
from worker import broker, db

GAME = "hollywood-gin"


def _arena(env: dict[str, str], *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return done.stdout


def test_arena_up_serves_a_platform_a_second_user_plays_on_and_ctrl_c_stops_it_all(
    tmp_path: Path,
) -> None:
    unset = (db.DATABASE_URL_ENV, broker.REDIS_URL_ENV, broker.REDIS_PREFIX_ENV)
    here = {k: v for k, v in os.environ.items() if k not in unset}
    here["ARENA_HOME"] = str(tmp_path / "host")  # the embedded servers live here
    up = subprocess.Popen(
        [sys.executable, "-m", "arena", "up", "--port", "0"],
        env=here,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    started: set[int] = set()
    try:
        assert up.stdout is not None
        said = []
        while not said or not said[-1].startswith("Ctrl-C stops them all"):
            line = up.stdout.readline()
            assert line, "".join(said) + (up.stderr.read() if up.stderr else "")
            said.append(line)
        text = "".join(said)
        assert "Postgres and Redis embedded under" in text, text
        assert "its bots sandboxed" in text, text
        found = re.search(r"web app and API  (http://127\.0\.0\.1:\d+/)", text)
        assert found is not None, text
        address = found.group(1)
        started = {p.pid for p in psutil.Process(up.pid).children(recursive=True)}
        roles = {" ".join(psutil.Process(pid).cmdline()[2:4]) for pid in started}
        assert {"arena web", "arena worker", "arena scheduler"} <= roles, roles

        # the operator, on this machine, makes a user; the user, elsewhere, has the key only
        key = json.loads(_arena(here, "user", "create", "bob", "--json"))["key"]
        away = {k: v for k, v in here.items() if k != "ARENA_HOME"}
        away.update(
            ARENA_HOME=str(tmp_path / "bob"),
            HOME=str(tmp_path / "bob"),
            XDG_CONFIG_HOME=str(tmp_path / "bob" / "config"),
        )
        assert "logged in to" in _arena(away, "login", address, "--key", key)
        for name, source in (("bobr", "random_bot.py"), ("bobm", "minimal_bot.py")):
            stored = _arena(away, "bot", "submit", str(EXAMPLES / source), "--name", name,
                            "--game", GAME, "--wait")  # fmt: skip
            assert stored.endswith(f"{name}@v1: qualified: it plays\n"), stored
        create = ("tournament", "create", "--game", GAME, "--bots", "bobr,bobm", "--games", "2")
        made = json.loads(_arena(away, *create, "--option", "max_hands=1", "--json"))
        deadline = time.monotonic() + 240
        while True:
            standings = json.loads(
                _arena(away, "tournament", "standings", str(made["tournament"]), "--json")
            )
            if standings["progress"]["done"] == made["matches"]:
                break
            assert time.monotonic() < deadline, standings
            time.sleep(1.0)
        assert sum(line["matches"] for line in standings["standings"]) == 2 * made["matches"]
        assert not (tmp_path / "bob" / "postgres").exists()  # nothing was started for bob
    finally:
        started |= {p.pid for p in psutil.Process(up.pid).children(recursive=True)}
        up.send_signal(signal.SIGINT)  # Ctrl-C
        try:
            code = up.wait(120)
        finally:
            if up.poll() is None:
                up.kill()
    assert code == 0, up.stderr.read() if up.stderr else code
    left = [pid for pid in started if psutil.pid_exists(pid) and _alive(pid)]
    assert left == [], [psutil.Process(pid).cmdline() for pid in left]


def _alive(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False
