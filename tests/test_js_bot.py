"""A bot in a second language: the Node.js bot in bots/js, built from proto/ alone,
plays a full match against a Python bot over loopback, and, submitted as a folder,
a tournament on the platform, sandboxed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.platform_support import PlatformEnv
from tests.referee_support import (
    EXAMPLES,
    ROOT,
    RefereeProcess,
    referee_fixture,
    start_bot,
    wait_all,
)

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

JS = ROOT / "bots" / "js"
RUNTIME = ROOT / "runtimes" / "node" / "node_modules"


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    assert found, "node (v18+) is needed for the JavaScript bot"
    if not (JS / "node_modules" / "@grpc" / "grpc-js").is_dir():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the JavaScript bot's packages"
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=JS,
            check=True,
            timeout=300,
            capture_output=True,
        )
    return found


@pytest.mark.parametrize("game", ["hollywood-gin", "gin-three"])
def test_js_bot_plays_a_python_bot(ref: RefereeProcess, node: str, game: str) -> None:
    seats = 2 if game == "hollywood-gin" else 3
    m = ref.create(game, seats, seed=31, options={"max_hands": 1})
    js = subprocess.Popen(
        [node, "bot.js"],
        cwd=JS,
        env={**os.environ, "ARENA_REFEREE": ref.address, "ARENA_TOKEN": m.tokens[0]},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    python_bots = [
        start_bot(EXAMPLES / "heuristic_bot.py", ref.address, tok) for tok in m.tokens[1:]
    ]
    results = wait_all([js, *python_bots])
    for code, out in results:
        assert code == 0, out
    assert results[0][1].startswith("seat 0: rank"), results[0][1]
    record = ref.record(m.match_id)
    assert all(s.status == "ok" for s in record.seats), record.seats
    assert any(a.seat == 0 and a.source == "bot" for a in record.actions)


def test_js_bot_submitted_as_a_folder_plays_a_tournament(platform_env: PlatformEnv) -> None:
    """Hosted, it serves its session with the platform's Node.js runtime (NODE_PATH,
    ARENA_PROTO); its own node_modules is not submitted."""
    assert (RUNTIME / "@grpc" / "grpc-js").is_dir(), "run make node-runtime first"
    env, game = platform_env, "hollywood-gin"
    ann = env.user("ann")  # a user's version: it qualifies first
    done = env.arena(
        "bot", "submit", str(JS), "--game", game, "--name", "js-bot", "--json", key=ann
    )
    assert done.returncode == 0, done.stderr
    stored = json.loads(done.stdout)
    assert stored["command"] == ["node", "bot.js"] and stored["qualification"] == "qualified"
    done = env.arena("bot", "submit", str(EXAMPLES / "heuristic_bot.py"), "--name", "house",
                     "--owner", "arena", "--game", game)  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = env.play_tournament(game, ["js-bot", "house"])
    assert results and all(seat.status == "ok" for r in results for seat in r.seats), results
