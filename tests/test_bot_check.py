"""``arena bot check`` (docs/bots.md, "Checking a bot"): a bot's qualification run on
the author's machine, hosted as a worker hosts it (a real bot pool, sandboxed, a real
referee over gRPC), against the random bot at each seat count of its game. A bot that
plays legally qualifies; one that crashes on its first decision or never answers fails,
with the referee's status, the decision it failed on and its standard error; one that
does not compile is refused as a submission is."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from tests.platform_support import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]


def check(path: Path, game: str) -> tuple[int, dict[str, Any] | None, str]:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bot", "check", str(path), "--game", game, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    report = json.loads(done.stdout) if done.stdout.strip() else None
    return done.returncode, report, done.stderr


def bot_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "bot.py"
    path.write_text(textwrap.dedent(body))
    return path


def test_a_legal_bot_qualifies_at_every_seat_count_of_its_game() -> None:
    code, report, err = check(EXAMPLES / "random_bot.py", "flip-flop")
    assert code == 0 and report is not None, err
    assert report["qualified"] and report["sandbox"] == "on"
    assert [(m["seats"], m["status"]) for m in report["matches"]] == [
        (3, "ok"),
        (4, "ok"),
        (5, "ok"),
    ]


def test_a_bot_that_crashes_on_its_first_decision_fails_with_why_where_and_its_stderr(
    tmp_path: Path,
) -> None:
    path = bot_file(
        tmp_path,
        """
        import sys
        from bots.sdk import Bot

        class Crash(Bot):
            def decide(self, request):
                print("thinking hard", file=sys.stderr, flush=True)
                raise RuntimeError("my bug on the first decision")
        """,
    )
    code, report, err = check(path, "hollywood-gin")
    assert code == 1 and report is not None, err
    assert not report["qualified"]
    [failed] = report["matches"]
    assert failed["status"] == "crashed" and "reported an error" in failed["reason"]
    decision = failed["decision"]
    assert decision["source"] == "crashed" and decision["legal_actions"], decision
    assert len(decision["view"]["hollywoodGin"]["hand"]["hand"]) in (10, 11)  # its own hand
    assert "my bug on the first decision" in failed["stderr"]


def test_a_bot_that_never_answers_fails_as_timed_out(tmp_path: Path) -> None:
    path = bot_file(
        tmp_path,
        """
        import time
        from bots.sdk import Bot

        class Silent(Bot):
            def decide(self, request):
                time.sleep(3600)
        """,
    )
    code, report, err = check(path, "hollywood-gin")
    assert code == 1 and report is not None, err
    [failed] = report["matches"]
    assert failed["status"] == "timeout" and "within its time" in failed["reason"]
    assert failed["decision"]["source"] == "timeout"


def test_a_bot_that_does_not_compile_is_refused_before_it_plays(tmp_path: Path) -> None:
    path = bot_file(tmp_path, "def decide(self, request)\n    return 0\n")
    code, report, err = check(path, "hollywood-gin")
    assert code != 0 and report is None
    assert "bot.py does not compile (line 1" in err, err


def test_the_javascript_starter_qualifies(tmp_path: Path) -> None:
    folder = tmp_path / "starter"
    made = subprocess.run(
        [sys.executable, "-m", "arena", "bot", "new", str(folder), "--game", "gin-three",
         "--lang", "javascript"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    code, report, err = check(folder, "gin-three")
    assert code == 0 and report is not None and report["qualified"], (err, report)
    assert [(m["seats"], m["status"]) for m in report["matches"]] == [(3, "ok")]
