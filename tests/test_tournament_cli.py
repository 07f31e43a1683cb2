"""``arena tournament`` and ``arena leaderboard`` as users call them: mistakes are one line
and exit 2, nothing is stored for them, and a watcher follows a tournament run elsewhere."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.platform_support import EXAMPLES, ROOT, PlatformEnv

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]


def _register(env: PlatformEnv) -> None:
    env.submit(EXAMPLES / "random_bot.py", "rnd", "hollywood-gin")
    env.submit(EXAMPLES / "minimal_bot.py", "mini", "hollywood-gin")
    env.submit(EXAMPLES / "random_bot.py", "r500", "rummy-500")


def test_mistakes_are_one_line_exit_2_and_store_nothing(platform_env: PlatformEnv) -> None:
    env = platform_env
    _register(env)
    base = ["tournament", "create", "--game", "hollywood-gin"]
    cases = {
        "no bot named 'nobody'": [*base, "--bots", "rnd,nobody"],
        "has no version for hollywood-gin": [*base, "--bots", "rnd,r500"],
        "has no version v7": [*base, "--bots", "rnd,mini@v7"],
        "at least two bots": [*base, "--bots", "rnd"],
        "entered twice": [*base, "--bots", "rnd,rnd"],
        "KEY one of decision_ms": [*base, "--bots", "rnd,mini", "--clock", "speed=3"],
        "not a whole number": [*base, "--bots", "rnd,mini", "--clock", "bank_ms=lots"],
        "played by 2–2 players": [*base, "--bots", "rnd,mini", "--table-size", "3"],
        "unknown game": ["tournament", "create", "--game", "chess", "--bots", "rnd,mini"],
        "no tournament 99": ["tournament", "standings", "99"],
    }
    for expected, args in cases.items():
        done = env.arena(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (args, done.stderr)
    assert env.store.list_tournaments() == []
    assert env.store.list_matches() == []
    listing = env.arena("tournament", "list")
    assert listing.returncode == 0 and "no tournaments yet" in listing.stdout
    board = env.arena("leaderboard", "--game", "hollywood-gin")
    assert board.returncode == 0 and "no rated bot" in board.stdout


def test_watch_follows_a_tournament_run_elsewhere(platform_env: PlatformEnv) -> None:
    env = platform_env
    _register(env)
    created = env.arena(
        "tournament", "create", "--game", "hollywood-gin", "--bots", "rnd,mini", "--games",
        "4", "--option", "max_hands=1", "--name", "watched",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    tournament_id = created.stdout.split()[1].rstrip(":")
    watch = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "watch", tournament_id],
        env=env.env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    env.start_worker()
    run = env.arena("tournament", "run", tournament_id, "--local-workers", "0", "--quiet")
    assert run.returncode == 0, run.stderr + env.worker_log()
    out, err = watch.communicate(timeout=60)
    assert watch.returncode == 0, err
    assert "watched" in out and "rnd@v1" in out and "mini@v1" in out
    assert "4 done, 0 failed" in out
    listing = json.loads(env.arena("tournament", "list", "--json").stdout)
    assert listing[0]["state"] == "done" and listing[0]["progress"]["done"] == 4
    text = env.arena("tournament", "list").stdout.splitlines()
    header = next(i for i, line in enumerate(text) if "game" in line and "name" in line)
    assert all(word in text[header] for word in ("id", "state", "bots", "done", "failed"))
    assert any("watched" in line and "4/4" in line for line in text[header + 1 :]), text


def test_gauntlet_plays_one_bot_against_each_of_a_list(platform_env: PlatformEnv) -> None:
    env = platform_env
    _register(env)
    env.submit(EXAMPLES / "heuristic_bot.py", "heur", "hollywood-gin")
    env.start_worker()
    done = env.arena(
        "gauntlet", "heur", "--against", "rnd,mini", "--game", "hollywood-gin", "--games", "2",
        "--option", "max_hands=1", "--run", "--local-workers", "0", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + env.worker_log()
    tournament_id = int(done.stdout.split()[1].rstrip(":"))
    heur = env.store.bot_by_name("heur")
    assert heur is not None
    hero = env.store.bot_versions(heur.id)[0].version.id
    matches = env.store.list_matches(tournament_id=tournament_id)
    assert len(matches) == 4 and all(hero in m.seats for m in matches)
    assert all(m.state == "done" for m in matches)
    standings = json.loads(
        env.arena("tournament", "standings", str(tournament_id), "--json").stdout
    )
    assert standings["format"] == "gauntlet"
    lines = {line["bot"]: line for line in standings["standings"]}
    assert lines["heur@v1"]["matches"] == 4 and lines["rnd@v1"]["matches"] == 2
    assert standings["cross_table"]["rnd@v1"]["mini@v1"]["games"] == 0


def test_bench_tournament_runs_and_reports_its_figures(platform_env: PlatformEnv) -> None:
    done = platform_env.arena(
        "bench", "tournament", "--matches", "6", "--repeats", "1", "--json", timeout=300
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["matches"] == 6 and len(figures["ratios"]) == 1
    assert figures["alone_matches_per_s"] > 0 and figures["platform_matches_per_s"] > 0
    assert figures["platform_cpu_ms_per_match"] > 0 and figures["latency_samples"] >= 10
    assert figures["bot_processes"] == 2  # one per bot version, not one per match
