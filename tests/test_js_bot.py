"""A bot in a second language: the Node.js bot in bots/js, built from proto/ alone,
plays a full match against a Python bot over loopback."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.referee_support import (
    EXAMPLES,
    ROOT,
    RefereeProcess,
    referee_fixture,
    start_bot,
    wait_all,
)

JS = ROOT / "bots" / "js"


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
