"""``arena bot check`` (docs/bots.md, "Checking a bot"): a bot's qualification run on
the author's machine, hosted as a worker hosts it (a real bot pool, sandboxed, a real
referee over gRPC), against the random bot at each seat count of its game. A bot that
plays legally qualifies; one that crashes on its first decision or never answers fails,
with the referee's status, the decision it failed on and its standard error; one that
does not compile is refused as a submission is. With ``--deal FILE`` it also plays each
chosen deal at each of the deal's seats, and fails when it fails on one; a deal file of
another game, or one the rules cannot reach, is refused in one line naming the file."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from tests.platform_support import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]


#: A Hollywood Gin deal of one hand: seat 0 holds the spades ace to ten.
SPADES_DEAL = """
game = "hollywood-gin"
seed = 7
[options]
max_hands = 1
[deal]
dealer = 0
hands = ["AS 2S 3S 4S 5S 6S 7S 8S 9S TS", []]
upcard = "KD"
"""


def check(path: Path, game: str | None, *extra: str) -> tuple[int, dict[str, Any] | None, str]:
    named = ["--game", game] if game is not None else []
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bot", "check", str(path), *named, *extra, "--json"],
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


def deal_file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_bot_also_plays_each_chosen_deal_at_each_of_its_seats(tmp_path: Path) -> None:
    spades = deal_file(tmp_path, "spades.toml", SPADES_DEAL)
    hearts = deal_file(
        tmp_path,
        "hearts.json",
        '{"game": "hollywood-gin", "options": {"max_hands": 1},'
        ' "deal": {"hands": [[], "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"]}}',
    )
    # the game is the deals' own: no --game
    code, report, err = check(EXAMPLES / "heuristic_bot.py", None, "--deal", str(spades),
                              "--deal", str(hearts))  # fmt: skip
    assert code == 0 and report is not None, err
    assert report["qualified"] and report["game"] == "hollywood-gin"
    assert [(m["seats"], m["status"]) for m in report["matches"]] == [(2, "ok")]
    assert [(m["deal"], m["seat"], m["seats"], m["status"]) for m in report["deals"]] == [
        (str(spades), 0, 2, "ok"),
        (str(spades), 1, 2, "ok"),
        (str(hearts), 0, 2, "ok"),
        (str(hearts), 1, 2, "ok"),
    ]
    assert [m["seed"] for m in report["deals"]][:2] == [7, 7]  # the file's seed
    seeds = [m["seed"] for m in report["deals"]][2:]
    assert seeds[0] == seeds[1]  # one drawn for the deal: every seat is dealt the same cards


def test_a_deal_of_another_game_or_one_the_rules_cannot_reach_is_refused_naming_the_file(
    tmp_path: Path,
) -> None:
    spades = deal_file(tmp_path, "spades.toml", SPADES_DEAL)
    code, report, err = check(EXAMPLES / "random_bot.py", "rummy-500", "--deal", str(spades))
    assert code == 2 and report is None
    assert err.strip().splitlines() == [
        f"arena bot check: {spades} is a deal of hollywood-gin, not of rummy-500 (--game)"
    ]
    twice = deal_file(tmp_path, "twice.toml", SPADES_DEAL.replace('"KD"', '"AS"'))
    code, report, err = check(EXAMPLES / "random_bot.py", None, "--deal", str(twice))
    assert code == 2 and report is None
    [line] = err.strip().splitlines()
    assert line.startswith(f"arena bot check: {twice}: ") and "AS is named twice" in line, line


def test_a_bot_that_crashes_on_a_chosen_deal_fails_the_check(tmp_path: Path) -> None:
    path = bot_file(
        tmp_path,
        """
        import sys
        from bots.sdk import Bot

        RUN = {"AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S"}

        class Spades(Bot):
            def decide(self, request):
                if RUN <= {str(c) for c in request.view.hand.hand}:
                    print("eight spades in a row", file=sys.stderr, flush=True)
                    raise RuntimeError("my bug with a run of spades")
                return 0
        """,
    )
    spades = deal_file(tmp_path, "spades.toml", SPADES_DEAL)
    code, report, err = check(path, "hollywood-gin", "--deal", str(spades))
    assert code == 1 and report is not None, err
    assert not report["qualified"]
    assert [(m["seats"], m["status"]) for m in report["matches"]] == [(2, "ok")]
    failed, passed = report["deals"]
    assert (failed["seat"], failed["status"]) == (0, "crashed"), failed
    assert "reported an error" in failed["reason"]
    hand = failed["decision"]["view"]["hollywoodGin"]["hand"]["hand"]
    assert {"AS", "2S", "3S"} <= set(hand), hand  # the view of the seat that holds the deal
    assert "my bug with a run of spades" in failed["stderr"]
    assert (passed["seat"], passed["status"], passed["ok"]) == (1, "ok", True)
