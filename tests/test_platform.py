"""The platform end to end (docs/architecture.md, decisions 6, 8, 10 and 12): real Postgres, real
Redis, real ``arena worker`` processes (Celery, each with its referee process and bot
pool), real bot processes serving many matches through their sessions."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import psycopg
import redis

from arena.commands import arena_command
from tests.platform_support import EXAMPLES, PLATFORM_BOTS, PlatformEnv, alive, descendants
from tests.store_fixtures import finished_match
from worker import tasks
from worker.app import configure

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

FAST = ["--option", "max_hands=1"]


def _counted_once(env: PlatformEnv, tournament_id: int) -> None:
    """Every done match has one record, one history row per rated seat, and each bot's
    games in the ratings table equal its seats in done matches: nothing counted twice."""
    with psycopg.connect(env.store.url) as conn:
        doubles = conn.execute(
            "SELECT m.id FROM matches m LEFT JOIN match_records r ON r.match_id = m.id"
            " WHERE m.tournament_id = %s AND m.state = 'done' AND r.match_id IS NULL",
            (tournament_id,),
        ).fetchall()
        assert doubles == []
        history = conn.execute(
            "SELECT match_id, bot_version_id, count(*) FROM match_seats"
            " WHERE rating_after IS NOT NULL GROUP BY match_id, bot_version_id"
            " HAVING count(*) > 1"
        ).fetchall()
        assert history == []
        games = dict(conn.execute("SELECT bot_version_id, games FROM ratings").fetchall())
        seats = dict(
            conn.execute(
                "SELECT s.bot_version_id, count(DISTINCT s.match_id) FROM match_seats s"
                " JOIN matches m ON m.id = s.match_id WHERE m.state = 'done'"
                " GROUP BY s.bot_version_id"
            ).fetchall()
        )
        assert games == seats


def test_three_bot_round_robin_end_to_end(platform_env: PlatformEnv) -> None:
    env = platform_env
    for name, file in (("random", "random_bot.py"), ("minimal", "minimal_bot.py")):
        env.submit(EXAMPLES / file, name, "hollywood-gin")
    env.submit(EXAMPLES / "heuristic_bot.py", "heuristic", "hollywood-gin")
    worker = env.start_worker()
    done = env.arena(
        "tournament",
        "create",
        "--game",
        "hollywood-gin",
        "--bots",
        "random,minimal,heuristic",
        "--games",
        "2",
        *FAST,
        "--run",
        "--quiet",
    )
    assert done.returncode == 0, done.stderr + env.worker_log()
    tournament_id = int(done.stdout.split()[1].rstrip(":"))
    progress = env.store.tournament_progress(tournament_id)
    assert progress["done"] == 6 and progress["failed"] == 0, progress
    _counted_once(env, tournament_id)
    with psycopg.connect(env.store.url) as conn:  # each record says how long its match took
        durations = [d for (d,) in conn.execute("SELECT duration_ms FROM match_records")]
    assert len(durations) == 6 and all(d is not None and 0 < d < 60_000 for d in durations)
    standings = json.loads(
        env.arena("tournament", "standings", str(tournament_id), "--json").stdout
    )
    lines = {line["bot"]: line for line in standings["standings"]}
    assert set(lines) == {"random@v1", "minimal@v1", "heuristic@v1"}
    assert all(line["matches"] == 4 for line in lines.values())
    assert sum(line["wins"] + line["draws"] for line in lines.values()) >= 6
    assert all(line["elo"] is not None for line in lines.values())
    assert all(
        line["batch_low"] < line["batch_rating"] < line["batch_high"] for line in lines.values()
    )
    assert all(isinstance(line["settled"], bool) for line in lines.values())
    assert standings["standings"][-1]["p_stronger_than_next"] is None
    cross = standings["cross_table"]
    assert cross["random@v1"]["heuristic@v1"]["games"] == 2
    board = json.loads(env.arena("leaderboard", "--game", "hollywood-gin", "--json").stdout)
    assert {row["bot"] for row in board} == set(lines)
    assert all(row["games"] == 4 for row in board)
    # one match, looked at afterwards: its bots, results and events, and its record verifies
    some = env.store.list_matches(tournament_id=tournament_id, limit=1)[0]
    shown = env.arena("match", "show", str(some.id), "--record", str(env.home / "m.record"))
    assert shown.returncode == 0, shown.stderr
    assert ": 1st, score" in shown.stdout and "upcard" in shown.stdout
    verified = env.arena("verify", str(env.home / "m.record"))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # the pool started one process per bot version, not one per match, and keeps them
    bots = [p for p in descendants(worker.pid) if b"bot\0run" in _cmdline(p)]
    assert len(bots) == 3, env.worker_log()


def _cmdline(pid: int) -> bytes:
    """A bot's own command line (its sandbox's wrappers, bwrap and the rest, are not it:
    they hold the bot's command among their arguments)."""
    try:
        argv = psutil.Process(pid).cmdline()
    except psutil.Error:
        return b""
    if not argv or "python" not in Path(argv[0]).name:
        return b""
    return b"\0".join(part.encode() for part in argv)


def test_rummy_500_four_players_duplicate_deals(platform_env: PlatformEnv) -> None:
    env = platform_env
    names = []
    for i, file in enumerate(
        ("random_bot.py", "minimal_bot.py", "heuristic_bot.py", "random_bot.py")
    ):
        name = f"bot{i}"
        env.submit(EXAMPLES / file, name, "rummy-500")
        names.append(name)
    env.start_worker()
    done = env.arena(
        "tournament",
        "create",
        "--game",
        "rummy-500",
        "--bots",
        ",".join(names),
        "--games",
        "4",
        "--duplicate",
        "--option",
        "max_hands=1",
        "--run",
        "--quiet",
    )
    assert done.returncode == 0, done.stderr + env.worker_log()
    tournament_id = int(done.stdout.split()[1].rstrip(":"))
    matches = env.store.list_matches(tournament_id=tournament_id)
    assert len(matches) == 4 and all(m.state == "done" for m in matches)
    assert len({m.duplicate_set for m in matches}) == 1
    assert len({m.seed for m in matches}) == 1
    assert sorted(m.rotation or 0 for m in matches) == [0, 1, 2, 3]
    for seat in range(4):  # every bot sat in every seat of the deal
        assert len({m.seats[seat] for m in matches}) == 4
    standings = json.loads(
        env.arena("tournament", "standings", str(tournament_id), "--json").stdout
    )
    assert standings["duplicate"] is True
    assert len(standings["duplicate_sets"]) == 4
    assert all(d["sets"] == 1 for d in standings["duplicate_sets"])
    assert "duplicate deals" in env.arena("tournament", "standings", str(tournament_id)).stdout
    _counted_once(env, tournament_id)


def test_same_task_delivered_twice_plays_once(platform_env: PlatformEnv) -> None:
    env = platform_env
    a = env.submit(EXAMPLES / "random_bot.py", "a", "hollywood-gin")
    b = env.submit(EXAMPLES / "minimal_bot.py", "b", "hollywood-gin")
    match = env.store.create_match("hollywood-gin", [a, b], options={"max_hands": 1})
    configure(env.env["ARENA_REDIS_URL"], env.env["ARENA_REDIS_PREFIX"])
    tasks.play_match.delay(match.id)
    tasks.play_match.delay(match.id)  # the broker delivered it twice at once
    env.start_worker()
    env.wait_for(
        lambda: (m := env.store.match(match.id)) is not None and m.state == "done", 60, "done"
    )
    tasks.play_match.delay(match.id)  # and once more after it was done
    queue = redis.Redis.from_url(env.env["ARENA_REDIS_URL"])
    env.wait_for(
        lambda: queue.llen(env.env["ARENA_REDIS_PREFIX"] + "arena") == 0, 30, "the queue to empty"
    )
    queue.close()
    time.sleep(2.0)  # the late delivery has run by now
    final = env.store.match(match.id)
    assert final is not None and final.state == "done" and final.attempts == 1
    with psycopg.connect(env.store.url) as conn:
        rows = conn.execute("SELECT games FROM ratings ORDER BY bot_version_id").fetchall()
        assert rows == [(1,), (1,)]
        assert conn.execute(
            "SELECT count(*) FROM match_seats WHERE rating_after IS NOT NULL"
        ).fetchone() == (2,)


def test_bot_that_crashes_in_every_match_forfeits_and_tournament_completes(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.submit(PLATFORM_BOTS / "crash_bot.py", "crash", "hollywood-gin")
    env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    env.start_worker()
    done = env.arena(
        "tournament", "create", "--game", "hollywood-gin", "--bots", "crash,random",
        "--games", "3", *FAST, "--run", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + env.worker_log()
    tournament_id = int(done.stdout.split()[1].rstrip(":"))
    results = env.store.tournament_results(tournament_id)
    assert len(results) == 3
    crash = env.store.bot_by_name("crash")
    assert crash is not None
    for table in results:
        for seat in table.seats:
            if seat.version == env.store.bot_versions(crash.id)[0].version.id:
                assert seat.forfeit and seat.status in ("crashed", "disconnected")
            else:
                assert seat.rank == 0 and not seat.forfeit
    _counted_once(env, tournament_id)
    # the faults are shown: in the standings' table, and on the bot's own page
    standings = env.arena("tournament", "standings", str(tournament_id))
    header = next(line for line in standings.stdout.splitlines() if "faults" in line)
    row = next(line for line in standings.stdout.splitlines() if "crash@v1" in line)
    names = [n.strip() for n in header.replace("┃", "│").split("│")]
    cells = [c.strip() for c in row.split("│")]
    assert cells[names.index("faults")] == "3", standings.stdout
    shown = env.arena("bot", "show", "crash")
    recent = shown.stdout.split("recent matches:")[1]
    assert "forfeited" in recent and "1st" not in recent, shown.stdout


def test_worker_killed_mid_match_is_replayed_and_counted_once(platform_env: PlatformEnv) -> None:
    env = platform_env
    slow = env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", "hollywood-gin")
    rnd = env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    match = env.store.create_match("hollywood-gin", [slow, rnd], options={"max_hands": 3})
    first = env.start_worker()
    configure(env.env["ARENA_REDIS_URL"], env.env["ARENA_REDIS_PREFIX"])
    tasks.play_match.delay(match.id)
    env.wait_for(
        lambda: (m := env.store.match(match.id)) is not None and m.state != "queued",
        60,
        "the match to start",
    )
    started = env.store.match(match.id)
    assert started is not None and started.state == "running", started
    children = descendants(first.pid)
    assert children, "the worker runs a referee and bot processes"
    time.sleep(1.0)  # in the middle of the match
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    env.wait_for(lambda: not any(alive(p) for p in children), 20, "the worker's children to stop")
    held = env.store.match(match.id)
    assert held is not None and held.state == "running"  # its lease has not expired yet
    env.start_worker()
    env.start_scheduler()  # re-queues the match once its lease has expired
    env.wait_for(
        lambda: (m := env.store.match(match.id)) is not None and m.state == "done",
        90,
        "the match to be played again",
    )
    final = env.store.match(match.id)
    assert final is not None and final.attempts == 2
    # the next worker's pool removed the folder the killed one could not
    for left in ("arena-bots", "arena-stage"):  # its pool's and its sandboxes' folders
        assert not list(Path(tempfile.gettempdir()).glob(f"{left}-{first.pid}-*"))
    with psycopg.connect(env.store.url) as conn:
        assert conn.execute("SELECT count(*) FROM match_records").fetchone() == (1,)
        assert conn.execute(
            "SELECT count(*) FROM match_seats WHERE rating_after IS NOT NULL"
        ).fetchone() == (2,)
        assert conn.execute("SELECT sum(games) FROM ratings").fetchone() == (2,)


def test_bot_process_killed_mid_match_is_replaced_by_the_pool(platform_env: PlatformEnv) -> None:
    env = platform_env
    env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", "hollywood-gin")
    env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    worker = env.start_worker(concurrency=1)
    created = env.arena(
        "tournament", "create", "--game", "hollywood-gin", "--bots", "slow,random",
        "--games", "2", "--option", "max_hands=3",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    tournament_id = int(created.stdout.split()[1].rstrip(":"))
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(tournament_id), "--quiet"],
        env=env.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def slow_process() -> list[int]:
        return [p for p in descendants(worker.pid) if b"slow_bot.py" in _cmdline(p)]

    env.wait_for(
        lambda: (
            env.store.tournament_progress(tournament_id)["running"] == 1
            and len(slow_process()) == 1
        ),
        60,
        "the first match to run",
    )
    time.sleep(1.0)
    (killed,) = slow_process()
    os.kill(killed, signal.SIGKILL)
    _out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err + env.worker_log()
    results = env.store.tournament_results(tournament_id)
    assert len(results) == 2
    slow_bot = env.store.bot_by_name("slow")
    assert slow_bot is not None
    slow_version = env.store.bot_versions(slow_bot.id)[0].version.id
    statuses = sorted(
        next(s.status for s in table.seats if s.version == slow_version) for table in results
    )
    # the killed process lost its match; the next one was played by a new process
    assert statuses[0] in ("crashed", "disconnected") and statuses[1] == "ok", statuses
    (replacement,) = slow_process()
    assert replacement != killed
    _counted_once(env, tournament_id)


def test_tournament_stopped_and_resumed_finishes_without_replaying(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", "hollywood-gin")
    env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    env.submit(EXAMPLES / "minimal_bot.py", "minimal", "hollywood-gin")
    created = env.arena(
        "tournament", "create", "--game", "hollywood-gin", "--bots", "slow,random,minimal",
        "--games", "2", *FAST,
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    tournament_id = int(created.stdout.split()[1].rstrip(":"))
    command = [
        sys.executable, "-m", "arena", "tournament", "run", str(tournament_id),
        "--local-workers", "1", "--concurrency", "1", "--quiet",
    ]  # fmt: skip
    first = subprocess.Popen(command, env=env.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    env.wait_for(
        lambda: env.store.tournament_progress(tournament_id)["done"] >= 2, 90, "two matches"
    )
    seen = descendants(first.pid)
    first.send_signal(signal.SIGINT)  # Ctrl-C: the command stops its worker and ends
    _, said = first.communicate(timeout=60)
    assert f"resume with: {arena_command()} tournament run {tournament_id}" in said.decode()
    env.wait_for(lambda: not any(alive(p) for p in seen), 30, "the first run's processes to end")
    stopped = env.store.tournament_progress(tournament_id)
    assert stopped["done"] < 6, "stopped before the end"
    done_before = {m.id: m.finished_at for m in env.store.list_matches(state="done")}
    second = env.arena(*command[3:], timeout=240)
    assert second.returncode == 0, second.stderr + env.worker_log()
    progress = env.store.tournament_progress(tournament_id)
    assert progress["done"] == 6 and progress["failed"] == 0, progress
    for m in env.store.list_matches(state="done"):
        if m.id in done_before:
            assert m.finished_at == done_before[m.id] and m.attempts == 1  # not replayed
    _counted_once(env, tournament_id)


def test_embedded_demo_leaves_no_process_behind(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ARENA_DATABASE_URL", "ARENA_REDIS_URL", "ARENA_REDIS_PREFIX")
    }
    env["ARENA_HOME"] = str(tmp_path / "home")
    demo = subprocess.Popen(
        [sys.executable, "-m", "arena", "demo", "--games", "1", "--quiet"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: set[int] = set()
    while demo.poll() is None:
        seen |= descendants(demo.pid)
        time.sleep(0.2)
    out, err = demo.communicate()
    assert demo.returncode == 0, err
    for game in ("hollywood-gin", "gin-three", "rummy-500", "flip-flop"):
        assert f"{game}" in out
    assert len(seen) >= 4, "the demo ran Postgres, Redis, a worker, a referee and bots"
    deadline = time.monotonic() + 15
    while any(alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in seen if alive(p)]
    assert left == [], f"processes left behind: {[_cmdline(p) for p in left]}"
    # its hints are commands that run as printed, from where the demo ran
    (hint,) = [line for line in out.splitlines() if "match show" in line and "#" in line]
    shown = subprocess.run(
        shlex.split(hint.split("#")[0]), env=env, capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, (hint, shown.stderr)
    assert "seat" in shown.stdout


def test_match_of_an_unfinished_duplicate_deal_is_held_back(platform_env: PlatformEnv) -> None:
    env = platform_env
    for name in ("a", "b"):
        env.submit(EXAMPLES / "random_bot.py", name, "hollywood-gin")
    created = env.arena(
        "tournament", "create", "--game", "hollywood-gin", "--bots", "a,b", "--games", "2",
        "--duplicate",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    first = env.store.claim_match("test")
    assert first is not None and first.duplicate_set is not None
    assert env.store.finish_match(first.id, "test", finished_match("hollywood-gin", [0, 1], [9, 0]))
    shown = env.arena("match", "show", str(first.id))
    assert shown.returncode == 0, shown.stderr
    # its result is held back too: it tells how the deal the other match is playing went
    assert "held back" in shown.stdout and ": 1st, score" not in shown.stdout
    refused = env.arena("match", "show", str(first.id), "--record", str(env.home / "r"))
    assert refused.returncode == 2 and "held back" in refused.stderr
    assert not (env.home / "r").exists()
