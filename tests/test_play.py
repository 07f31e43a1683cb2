"""``arena play``: matches between bot files with a referee and bot processes it starts
and stops itself; the results table as JSON, and its one-line refusals."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from arena.commands.play import labels, schedule

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"

CRASH_BOT = """
from bots.sdk import Bot, Request


class CrashBot(Bot):
    def decide(self, request: Request) -> int:
        raise RuntimeError("deliberate failure in decide")
"""


def arena_play(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``arena play`` in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "arena", "play", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def processes_with(text: str) -> list[int]:
    """The processes whose command line contains ``text``."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        if text in " ".join(process.info["cmdline"] or ()):
            found.append(process.info["pid"])
    return found


def copy_examples(tmp_path: Path) -> tuple[Path, Path]:
    """The random and heuristic example bots, copied under a path unique to the test."""
    random_bot = tmp_path / "random_bot.py"
    heuristic_bot = tmp_path / "heuristic_bot.py"
    shutil.copy(EXAMPLES / "random_bot.py", random_bot)
    shutil.copy(EXAMPLES / "heuristic_bot.py", heuristic_bot)
    return random_bot, heuristic_bot


def test_play_two_bots_json_and_no_process_left(tmp_path: Path) -> None:
    random_bot, heuristic_bot = copy_examples(tmp_path)
    done = arena_play(
        str(random_bot),
        str(heuristic_bot),
        "--game",
        "hollywood-gin",
        "--games",
        "2",
        "--seed",
        "1",
        "--option",
        "max_hands=1",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    assert "seed 1" in done.stderr
    out = json.loads(done.stdout)
    assert out["seed"] == 1 and out["options"] == {"max_hands": 1}
    matches = out["matches"]
    assert len(matches) == 2
    # two bots at a two-seat game: who sits first alternates
    assert [m["seats"] for m in matches] == [
        ["random_bot", "heuristic_bot"],
        ["heuristic_bot", "random_bot"],
    ]
    assert [m["seed"] for m in matches] == [1, 2]
    for m in matches:
        assert m["status"] == "completed"
        assert sorted(m["ranks"]) in ([0, 1], [0, 0])
        assert len(m["scores"]) == 2 and m["statuses"] == ["ok", "ok"]
        assert len(m["bot_pids"]) == 2
    stats = {s["bot"]: s for s in out["bots"]}
    heuristic = stats["heuristic_bot"]
    assert heuristic["matches"] == 2 and heuristic["faults"] == 0
    assert 0 <= heuristic["wins"] <= 2
    assert heuristic["average_rank"] is not None and heuristic["average_score"] is not None
    assert stats["random_bot"]["wins"] + heuristic["wins"] >= 2
    # every bot process was stopped, and the referee ran in the command's own process
    assert processes_with(str(tmp_path)) == []
    pids = [pid for m in matches for pid in m["bot_pids"]] + [out["referee_pid"]]
    assert not [pid for pid in pids if psutil.pid_exists(pid)]


def test_play_bot_that_crashes_every_match_forfeits_and_shows_faults(tmp_path: Path) -> None:
    crash_bot = tmp_path / "crash_bot.py"
    crash_bot.write_text(CRASH_BOT)
    random_bot, _ = copy_examples(tmp_path)
    done = arena_play(
        str(crash_bot),
        str(random_bot),
        "--games",
        "2",
        "--seed",
        "5",
        "--option",
        "max_hands=1",
        "--decision-ms",
        "200",
        "--bank-ms",
        "200",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [m["status"] for m in out["matches"]] == ["completed", "completed"]
    stats = {s["bot"]: s for s in out["bots"]}
    assert stats["crash_bot"]["faults"] == 2
    assert stats["random_bot"]["faults"] == 0
    for m in out["matches"]:
        seat = m["seats"].index("crash_bot")
        assert m["statuses"][seat] == "crashed" and m["forfeited"][seat]
    assert processes_with(str(tmp_path)) == []


def test_play_table_lists_every_bot(tmp_path: Path) -> None:
    random_bot, heuristic_bot = copy_examples(tmp_path)
    done = arena_play(
        str(random_bot), str(heuristic_bot), "--games", "1", "--option", "max_hands=1"
    )
    assert done.returncode == 0, done.stderr
    assert "random_bot" in done.stdout and "heuristic_bot" in done.stdout
    assert "faults" in done.stdout
    assert "repeat with --seed" in done.stderr


def test_play_missing_bot_file_is_one_line_exit_2(tmp_path: Path) -> None:
    random_bot, _ = copy_examples(tmp_path)
    missing = tmp_path / "nowhere.py"
    done = arena_play(str(random_bot), str(missing), "--games", "1")
    assert done.returncode == 2
    assert done.stderr.strip() == f"arena play: no bot file {missing}"


def test_play_bot_file_that_does_not_load_is_one_line_exit_2(tmp_path: Path) -> None:
    random_bot, _ = copy_examples(tmp_path)
    broken = tmp_path / "broken_bot.py"
    broken.write_text("raise ImportError('no such helper')\n")
    done = arena_play(str(random_bot), str(broken), "--games", "1")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"arena play: cannot load bot {broken}: ImportError: no such helper"
    ]


def test_play_wrong_number_of_bots_for_gin_three_exits_2(tmp_path: Path) -> None:
    random_bot, heuristic_bot = copy_examples(tmp_path)
    done = arena_play(str(random_bot), str(heuristic_bot), "--game", "gin-three")
    assert done.returncode == 2
    assert done.stderr.strip() == "arena play: gin-three is played by 3 bots; 2 bot files given"


def test_play_sigint_stops_every_process(tmp_path: Path) -> None:
    hang_bot = tmp_path / "hang_bot.py"
    shutil.copy(ROOT / "tests" / "bots" / "hang_bot.py", hang_bot)
    random_bot, _ = copy_examples(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", str(hang_bot), str(random_bot), "--games", "4"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, "ARENA_HANG_AFTER": "0"},
    )
    try:
        deadline = time.monotonic() + 30
        while len(processes_with(str(hang_bot))) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # the command and at least one bot process are up
        assert len(processes_with(str(hang_bot))) >= 2
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert processes_with(str(tmp_path)) == []


def test_schedule_rotates_seats_and_duplicate_repeats_each_seed() -> None:
    plain = schedule(3, 4, 10, duplicate=False)
    assert [p.seats for p in plain] == [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 1, 2)]
    assert [p.seed for p in plain] == [10, 11, 12, 13]
    dup = schedule(2, 3, 7, duplicate=True)  # rounded up to whole rotations
    assert [(p.seed, p.seats) for p in dup] == [(7, (0, 1)), (7, (1, 0)), (8, (0, 1)), (8, (1, 0))]


def test_labels_number_files_that_share_a_stem() -> None:
    assert labels([Path("a/bot.py"), Path("b/bot.py"), Path("x.py")]) == ["bot#1", "bot#2", "x"]


GIN_DEAL = """
game = "hollywood-gin"
[options]
max_hands = 1
[deal]
dealer = 0
# seat 1, the non-dealer, holds a run of ten spades: it has gin at its first draw (G7)
hands = [[], "AS 2S 3S 4S 5S 6S 7S 8S 9S TS"]
upcard = "KD"
"""


def test_g7_play_from_a_chosen_deal_deals_it_in_every_match(tmp_path: Path) -> None:
    _, heuristic_bot = copy_examples(tmp_path)
    deal = tmp_path / "gin.toml"
    deal.write_text(GIN_DEAL)
    done = arena_play(
        str(heuristic_bot), str(heuristic_bot), "--deal", str(deal), "--games", "2", "--json"
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["game"] == "hollywood-gin" and out["options"] == {"max_hands": 1}
    # whoever sits in seat 1 holds the ten spades and wins by gin, 25 + the deadwood (G9)
    for match in out["matches"]:
        assert match["status"] == "completed"
        assert match["ranks"] == [1, 0] and match["scores"][1] > 25


def test_play_a_deal_the_rules_cannot_reach_is_one_line_exit_2(tmp_path: Path) -> None:
    random_bot, heuristic_bot = copy_examples(tmp_path)
    deal = tmp_path / "bad.toml"
    deal.write_text(GIN_DEAL.replace('"KD"', '"AS"'))
    done = arena_play(str(random_bot), str(heuristic_bot), "--deal", str(deal))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"arena play: {deal}: AS is named twice"]
    assert processes_with(str(tmp_path)) == []
