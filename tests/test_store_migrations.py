"""Schema migrations, the ``arena`` store commands, and the embedded server."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import psycopg
import pytest

from worker import db

pytest_plugins = ["tests.store_fixtures"]

ROOT = Path(__file__).resolve().parents[1]


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
    return {r[0] for r in rows}


def test_migrations_apply_in_order_and_record_checksums(empty_db_url: str) -> None:
    with psycopg.connect(empty_db_url) as conn:
        applied = db.migrate(conn)
        assert [m.name for m in applied] == [m.name for m in db.load_migrations()]
        recorded = db.applied_migrations(conn)
        assert db.migrate(conn) == []  # a second run has nothing to do
    for path in sorted(db.MIGRATIONS_DIR.glob("*.sql")):
        version = int(path.name[:4])
        assert recorded[version] == (path.name, hashlib.sha256(path.read_bytes()).hexdigest())
    assert {"bots", "bot_versions", "matches", "match_seats", "match_records", "ratings"} <= (
        tables(empty_db_url)
    )


def test_a_changed_applied_migration_is_refused(empty_db_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    shutil.copytree(db.MIGRATIONS_DIR, folder)
    with psycopg.connect(empty_db_url) as conn:
        db.migrate(conn, folder)
        first = sorted(folder.glob("*.sql"))[0]
        first.write_text(first.read_text() + "\nCREATE TABLE sneaky (id int);\n")
        with pytest.raises(db.MigrationError, match=f"{first.name} was changed after it was"):
            db.migrate(conn, folder)
    assert "sneaky" not in tables(empty_db_url)


def test_a_failing_migration_leaves_the_schema_as_it_was(empty_db_url: str, tmp_path: Path) -> None:
    (tmp_path / "0001_first.sql").write_text("CREATE TABLE first_table (id int);")
    (tmp_path / "0002_broken.sql").write_text(
        "CREATE TABLE second_table (id int);\nALTER TABLE first_table ADD COLUMN x int;\n"
        "INSERT INTO no_such_table VALUES (1);"
    )
    with psycopg.connect(empty_db_url) as conn:
        with pytest.raises(db.MigrationError, match=r"0002_broken\.sql failed and was rolled back"):
            db.migrate(conn, tmp_path)
        assert sorted(db.applied_migrations(conn)) == [1]
        columns = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'first_table'"
        ).fetchall()
        assert columns == [("id",)]
    assert tables(empty_db_url) == {"schema_migrations", "first_table"}
    (tmp_path / "0002_broken.sql").write_text("CREATE TABLE second_table (id int);")
    with psycopg.connect(empty_db_url) as conn:
        assert [m.version for m in db.migrate(conn, tmp_path)] == [2]


def test_a_newer_schema_is_taken_and_a_missing_migration_refused(
    empty_db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "0001_first.sql").write_text("CREATE TABLE first_table (id int);")
    (tmp_path / "0002_second.sql").write_text("CREATE TABLE second_table (id int);")
    (tmp_path / "0003_third.sql").write_text("CREATE TABLE third_table (id int);")
    with psycopg.connect(empty_db_url) as conn:
        db.migrate(conn, tmp_path)
        # the release before, in a rolling upgrade: its files end at 0002; it runs, and says so
        (tmp_path / "0003_third.sql").unlink()
        with caplog.at_level("WARNING", logger="worker.db"):
            assert db.migrate(conn, tmp_path) == []
        assert "newer than this arena's (it also has 0003_third.sql)" in caplog.text
        # but a file missing below the newest one is a broken install
        (tmp_path / "0003_third.sql").write_text("CREATE TABLE third_table (id int);")
        (tmp_path / "0002_second.sql").unlink()
        with pytest.raises(db.MigrationError, match=r"0002_second\.sql which this version"):
            db.migrate(conn, tmp_path)


def arena(*args: str, url: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ARENA_DATABASE_URL=url)
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_migrate_recompute_show_and_bench(empty_db_url: str) -> None:
    done = arena("db", "migrate", url=empty_db_url)
    assert done.returncode == 0, done.stderr
    assert "applied 0001_initial.sql" in done.stdout
    script = textwrap.dedent(
        """
        import sys
        from tests.store_fixtures import finished_match
        from worker.store import Store
        with Store.open(sys.argv[1]) as store:
            ids = []
            for name in ("ann", "bob"):
                bot = store.add_bot(name, name)
                manifest = {"game": "hollywood-gin", "command": ["bot"]}
                ids.append(store.add_bot_version(bot, name.encode(), manifest, name).id)
            for winner in (0, 0, 1):
                m = store.create_match("hollywood-gin", ids)
                store.claim_match("w")
                ranks = [0 if s == winner else 1 for s in (0, 1)]
                store.finish_match(m.id, "w", finished_match("hollywood-gin", ranks, [0, 0]))
        """
    )
    subprocess.run([sys.executable, "-c", script, empty_db_url], cwd=ROOT, check=True)
    shown = arena("ratings", "show", "--game", "hollywood-gin", "--json", url=empty_db_url)
    assert shown.returncode == 0, shown.stderr
    online = json.loads(shown.stdout)
    assert [r["bot"] for r in online] == ["ann@v1", "bob@v1"]
    redone = arena("ratings", "recompute", "--game", "hollywood-gin", url=empty_db_url)
    assert redone.returncode == 0 and "3 matches, 2 bots" in redone.stdout
    again = arena("ratings", "show", "--game", "hollywood-gin", "--json", url=empty_db_url)
    assert json.loads(again.stdout) == online
    batch = arena(
        "ratings", "show", "--game", "hollywood-gin", "--batch", "--json", url=empty_db_url
    )
    standings = json.loads(batch.stdout)
    assert standings[0]["bot"] == "ann@v1" and standings[0]["low"] < standings[0]["rating"]
    bench = arena(
        "bench", "store", "--matches", "20", "--recompute", "500", "--json", url=empty_db_url
    )
    assert bench.returncode == 0, bench.stderr
    figures = json.loads(bench.stdout)
    assert figures["recompute_matches"] == 500 and figures["finished_per_s"] > 0
    assert 0 < figures["record_bytes_mean"] < figures["random_play_record_bytes_mean"]


def test_cli_reports_an_unreachable_server_clearly() -> None:
    done = arena("db", "migrate", url="postgresql://arena:hunter2@127.0.0.1:9/arena")
    assert done.returncode == 3  # a server could not be reached (docs/cli.md)
    assert "cannot reach Postgres at postgresql://arena:***@127.0.0.1:9/arena" in done.stderr
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr


def test_d10_embedded_server_starts_migrates_stores_and_stops(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from worker import db
        from tests.store_fixtures import finished_match
        from worker.store import open_store
        with open_store() as store:
            print(store.url, flush=True)
            bot = store.add_bot("solo", "me")
            manifest = {"game": "hollywood-gin", "command": ["bot"]}
            v = store.add_bot_version(bot, b"code", manifest, "me").id
            m = store.create_match("hollywood-gin", [v, v])
            store.claim_match("w")
            finished = finished_match("hollywood-gin", [0, 1], [5, 0])
            assert store.finish_match(m.id, "w", finished)
            assert store.record(m.id) == finished.record
        print("ok")
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "ARENA_DATABASE_URL"}
    env["ARENA_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "ok"
    assert (tmp_path / "home" / "postgres" / "PG_VERSION").exists()
    leftovers = []
    for proc in psutil.process_iter(attrs=["cmdline", "status"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if str(tmp_path) in cmdline and proc.info["status"] != psutil.STATUS_ZOMBIE:
            leftovers.append(cmdline)
    assert leftovers == []
    assert not (tmp_path / "home" / "postgres" / "postmaster.pid").exists()
