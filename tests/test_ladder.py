"""A ladder on the real platform, driven by the scheduler: it keeps its matches in flight,
rates them (Plackett–Luce μ, σ), a new version plays its placement matches first, and the
leaderboard shows rating, interval, games, provisional marks and when each bot played."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from tests.platform_support import EXAMPLES, PlatformEnv

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]


def test_ladder_runs_rates_and_places_a_new_version_first(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    env.env["ARENA_LADDER_TICK_S"] = "0.5"
    for name, file in (("rnd", "random_bot.py"), ("mini", "minimal_bot.py")):
        env.submit(EXAMPLES / file, name, "hollywood-gin")
    env.submit(EXAMPLES / "heuristic_bot.py", "heur", "hollywood-gin")
    started = env.arena(
        "ladder", "start", "--game", "hollywood-gin", "--in-flight", "2", "--placement", "3",
        "--option", "max_hands=1", "--local-workers", "0",
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    env.start_worker()
    env.start_scheduler()
    (ladder,) = env.store.ladders(game="hollywood-gin")
    env.wait_for(lambda: env.store.ladder_progress(ladder.id)["done"] >= 12, 120, "12 matches")
    # A new version of rnd arrives while the ladder is stopped and idle, so every match
    # queued afterwards is planned by a tick that has seen it: no timing decides which
    # (a tick running while a version is stored may or may not see it).
    stopped = env.arena("ladder", "stop", "hollywood-gin")
    assert stopped.returncode == 0, stopped.stderr
    env.wait_for(
        lambda: (p := env.store.ladder_progress(ladder.id))["queued"] + p["running"] == 0,
        60,
        "the matches queued before the stop",
    )
    since = max(m.id for m in env.store.list_matches(limit=1))
    newer = tmp_path / "random_bot.py"
    shutil.copy(EXAMPLES / "random_bot.py", newer)
    newer.write_text(newer.read_text() + "\n# version 2\n")
    v2 = env.submit(newer, "rnd", "hollywood-gin")
    restarted = env.arena(
        "ladder", "start", "--game", "hollywood-gin", "--in-flight", "2", "--placement", "3",
        "--option", "max_hands=1", "--local-workers", "0",
    )  # fmt: skip
    assert restarted.returncode == 0, restarted.stderr
    env.wait_for(
        lambda: len([m for m in env.store.list_matches(limit=500) if m.id > since]) >= 6,
        120,
        "six matches after the new version",
    )
    after = sorted(
        (m for m in env.store.list_matches(limit=500) if m.id > since), key=lambda m: m.id
    )
    # once the ladder has seen the new version, its placement matches are the next it queues
    assert all(v2 in m.seats for m in after[:3]), [m.seats for m in after]
    stopped = env.arena("ladder", "stop", "hollywood-gin")
    assert stopped.returncode == 0, stopped.stderr
    env.wait_for(
        lambda: (p := env.store.ladder_progress(ladder.id))["queued"] + p["running"] == 0,
        60,
        "the ladder's last matches",
    )
    time.sleep(1.5)  # one more tick rates them
    board = json.loads(env.arena("leaderboard", "--game", "hollywood-gin", "--json").stdout)
    names = [row["bot"] for row in board]
    assert set(names) == {"rnd@v2", "mini@v1", "heur@v1"}  # the newest version of each bot
    for row in board:
        assert row["ladder_games"] > 0 and row["last_played"] is not None
        assert row["low"] < row["rating"] < row["high"]
        assert isinstance(row["provisional"], bool)
    assert names[0] == "heur@v1"  # the heuristic bot leads
    text = env.arena("leaderboard", "--game", "hollywood-gin")
    assert "heur@v1" in text.stdout and "95%" in text.stdout
    status = env.arena("ladder", "status")
    assert "stopped" in status.stdout
