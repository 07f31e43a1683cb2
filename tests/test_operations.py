"""What docs/operations.md tells operators to do, done: a backup with ``pg_dump`` restored
into an empty database gives identical standings, ratings, replays, users and keys; a
rolling upgrade (a new worker started, the old one stopped with SIGTERM in mid-tournament)
loses no match and plays none twice. Real Postgres, Redis, Celery workers, referees and
sandboxed bots."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psycopg

from tests.platform_support import EXAMPLES, PLATFORM_BOTS, ROOT, PlatformEnv
from tests.store_fixtures import create_database, drop_database
from worker import db

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"


def _client(name: str, server_major: int) -> str:
    """The ``pg_dump`` or ``pg_restore`` to use: the PATH's when it is of the server's
    major version or newer (as docs/operations.md asks), else the embedded extra's."""
    import pgserver  # the embedded extra, which make test installs

    candidates = [shutil.which(name), str(Path(pgserver.__file__).parent / "pginstall/bin" / name)]
    for program in filter(None, candidates):
        shown = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
        if int(shown.split()[-1].split(".")[0]) >= server_major:
            return program
    raise AssertionError(f"no {name} of PostgreSQL {server_major} or newer: {candidates}")


def _shown(env: PlatformEnv, *argv: str, key: str | None = None) -> str:
    done = env.arena(*argv, key=key)
    assert done.returncode == 0, f"arena {' '.join(argv)}: {done.stderr}"
    return done.stdout


def test_a_backup_restores_to_identical_standings_replays_and_keys(
    platform_env: PlatformEnv, pg_admin_url: str, tmp_path: Path
) -> None:
    env = platform_env
    ann = env.user("ann")
    mine = _shown(
        env, "bot", "submit", str(EXAMPLES / "random_bot.py"), "--name", "anns",
        "--game", GAME, "--json", key=ann,
    )  # fmt: skip
    assert json.loads(mine)["qualification"] == "qualified"
    env.submit(EXAMPLES / "heuristic_bot.py", "heur", GAME)
    env.submit(EXAMPLES / "minimal_bot.py", "mini", GAME)
    results = env.play_tournament(GAME, ["anns", "heur", "mini"], games=2)
    assert len(results) == 6
    tournament = env.store.list_tournaments(limit=1)[0].id
    matches = sorted(m.id for m in env.store.list_matches(limit=100))

    def snapshot() -> dict[str, str]:
        out = {
            "standings": _shown(env, "tournament", "standings", str(tournament), "--json"),
            "leaderboard": _shown(env, "leaderboard", "--game", GAME, "--json"),
            "ratings": _shown(env, "ratings", "show", "--game", GAME, "--json"),
            "users": _shown(env, "user", "list", "--json"),
            "keys": _shown(env, "user", "key", "list", "--user", "ann", "--json"),
            "anns bot": _shown(env, "bot", "show", "anns", "--json"),
        }
        out.update({f"replay {m}": _shown(env, "export", str(m)) for m in matches})
        return out

    before = snapshot()
    for worker in env.workers:  # the platform is stopped for the restore
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(60) == 0
    url = env.env[db.DATABASE_URL_ENV]
    with psycopg.connect(url) as conn:
        major = int(conn.info.server_version) // 10000
    dump = tmp_path / "arena.dump"
    # the commands of docs/operations.md, "Backup and restore"
    backup = [_client("pg_dump", major), "--format=custom", "--file", str(dump), url]
    subprocess.run(backup, check=True, capture_output=True, text=True)
    name, restored = create_database(pg_admin_url)
    try:
        restore = [_client("pg_restore", major), "--no-owner", "--dbname", restored, str(dump)]
        subprocess.run(restore, check=True, capture_output=True, text=True)
        env.env[db.DATABASE_URL_ENV] = restored
        migrated = json.loads(_shown(env, "db", "migrate", "--json"))
        assert migrated["applied"] == []  # the restored schema is the current one
        after = snapshot()
        assert after == before
        # and the restored platform goes on: ann's key works, the operator plays a match
        assert json.loads(_shown(env, "user", "key", "list", "--json", key=ann))[0]["user"] == "ann"
        more = ["--bots", "anns,heur", "--games", "1", "--option", "max_hands=1", "--run"]
        _shown(env, "tournament", "create", "--game", GAME, *more, "--local-workers", "1")
        with psycopg.connect(restored) as conn:
            counts = conn.execute("SELECT state, count(*) FROM matches GROUP BY 1").fetchall()
        assert counts == [("done", len(matches) + 1)]
    finally:
        env.env[db.DATABASE_URL_ENV] = url
        drop_database(pg_admin_url, name)


def test_a_rolling_upgrade_loses_no_match_and_plays_none_twice(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", GAME)
    env.submit(EXAMPLES / "random_bot.py", "rnd", GAME)
    created = env.arena(
        "tournament", "create", "--game", GAME, "--bots", "slow,rnd", "--games", "8",
        "--option", "max_hands=1", "--json",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    tournament = json.loads(created.stdout)["tournament"]
    old = env.start_worker(2, "--node-name", "old@%h")
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(tournament), "--quiet",
         "--local-workers", "0"],
        env=env.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        env.wait_for(
            lambda: any(m.state == "running" for m in env.store.list_matches(limit=100)),
            120,
            "the old worker to play",
        )
        # docs/operations.md, "Upgrading": migrate, start the new workers, stop the old
        assert env.arena("db", "migrate").returncode == 0
        env.start_worker(2, "--node-name", "new@%h")
        old.send_signal(signal.SIGTERM)
        assert old.wait(120) == 0  # it finished the matches in hand, then stopped
        assert run.wait(240) == 0, run.stderr.read() if run.stderr else ""
    finally:
        if run.poll() is None:
            run.kill()
    played = env.store.list_matches(limit=100)
    assert len(played) == 8 and {m.state for m in played} == {"done"}
    assert [m.attempts for m in played] == [1] * 8  # none was given up and played again
    assert sum(r.games for r in env.store.ratings(GAME)) == 2 * 8  # each rated once
