"""Deals anyone can check (docs/protocol.md, "Checking a deal"): a match's seed commitment
is published from the moment it is made, on its page, in the API and in ``arena match
show``; its seed and salt only once it has ended and every match of its duplicate set with
it (never while a match dealt from that seed is to be played); ``arena verify MATCH``
recomputes the commitment and re-runs the record, here and through a platform's API, and
fails when the stored seed or salt was changed. Real Postgres; the remote platform is the
site served over HTTP by uvicorn in this process."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.testclient import TestClient

from arena import serving
from arena.app.deals import COMMITMENT, Sealed
from arena.bench.web import add_bots, store_played_match
from arena.cli import main
from arena.site import create_site
from tests.store_fixtures import finished_match
from worker.store import Store, seed_commitment

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"
API = "/api/v1"
OPTIONS = {"max_hands": 1}
#: A seed whose digits appear nowhere else on a page or in an answer by chance.
SEED = 8402950915240417541


@pytest.fixture
def site(store: Store) -> Iterator[TestClient]:
    with TestClient(create_site(store)) as client:
        yield client


class Arena:
    """``arena`` run in this process: on the test's store (``local``) or on the site
    served over HTTP (``remote``, no database address at all)."""

    def __init__(
        self,
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
        db_url: str,
        home: Path,
    ) -> None:
        self.capsys, self.monkeypatch, self.db_url, self.home = capsys, monkeypatch, db_url, home
        self.platform: str | None = None
        monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))  # no login file
        monkeypatch.delenv("ARENA_API_KEY", raising=False)

    def run(self, *argv: str, remote: bool = False) -> tuple[int, str, str]:
        """Exit code, stdout and stderr of ``arena ARGV``."""
        if remote:
            assert self.platform is not None, "start the platform first"
            self.monkeypatch.delenv("ARENA_DATABASE_URL", raising=False)
            self.monkeypatch.setenv("ARENA_PLATFORM", self.platform)
            self.monkeypatch.setenv("ARENA_HOME", str(self.home / "nothing-here"))
        else:
            self.monkeypatch.delenv("ARENA_PLATFORM", raising=False)
            self.monkeypatch.setenv("ARENA_DATABASE_URL", self.db_url)
            self.monkeypatch.setenv("ARENA_HOME", str(self.home / "home"))
        self.capsys.readouterr()
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err

    def both(self, *argv: str) -> tuple[int, str, str]:
        """``arena ARGV`` here and remotely: the same exit code and output both ways."""
        here, there = self.run(*argv), self.run(*argv, remote=True)
        assert here == there, (here, there)
        return here


@pytest.fixture
def arena(
    store: Store,
    store_db_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Iterator[Arena]:
    """``arena`` on the test's store, and the store's site served on a free port for its
    remote use (stopped at the end)."""
    runner = Arena(capsys, monkeypatch, store_db_url, tmp_path)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = serving.config(create_site(store), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the site did not start"
        time.sleep(0.02)
    runner.platform = f"http://127.0.0.1:{port}"
    try:
        yield runner
    finally:
        server.should_exit = True
        thread.join(10)
        listener.close()


def shown_nothing_secret(text: str, store: Store, match_id: int) -> None:
    """``text`` (a page, an answer, an output) holds the match's commitment and neither
    its seed nor its salt."""
    match = store.match(match_id)
    assert match is not None
    assert match.seed_commitment.hex() in text
    assert str(match.seed) not in text and match.seed_salt.hex() not in text


def test_the_commitment_is_shown_while_a_match_runs_and_its_seed_and_salt_are_not(
    store: Store, site: TestClient, arena: Arena
) -> None:
    versions = add_bots(store, GAME, 2, prefix="d")
    running = store_played_match(store, GAME, versions, seed=SEED, options=OPTIONS, finish=False)
    match = store.match(running)
    assert match is not None and match.state == "running"
    assert match.seed_commitment == seed_commitment(SEED, match.seed_salt)

    shown = site.get(f"{API}/matches/{running}").json()
    assert shown["seed_commitment"] == match.seed_commitment.hex()
    assert shown["commitment"] == COMMITMENT == "sha256(seed as 8 bytes big-endian || seed_salt)"
    assert shown["seed"] is None and shown["seed_salt"] is None
    assert shown["sealed"]["reason"] == Sealed.UNFINISHED.value
    assert "is running" in shown["sealed"]["message"]
    shown_nothing_secret(json.dumps(shown), store, running)
    page = site.get(f"/matches/{running}")  # a running match's page is its live view
    assert page.url.path == f"/matches/{running}/live"
    assert "Seed commitment" in page.text and "not shown yet" in page.text
    shown_nothing_secret(page.text, store, running)
    code, out, _ = arena.both("match", "show", str(running), "--json")
    assert code == 0 and json.loads(out) == shown
    code, out, _ = arena.both("match", "show", str(running))
    assert code == 0 and "seed commitment:" in out and "is running" in out
    shown_nothing_secret(out, store, running)
    # nor does its record, which holds the seed, come out while it runs
    code, _, err = arena.both("export", str(running))
    assert code == 2 and "only a finished match" in err
    code, out, err = arena.both("verify", str(running))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "is running" in err and f"run `arena verify {running}` again" in err


def test_a_finished_duplicate_match_whose_partner_is_queued_reveals_nothing_until_the_set_ends(
    store: Store, site: TestClient, arena: Arena
) -> None:
    versions = add_bots(store, GAME, 2, prefix="d")
    tournament = store.create_tournament("dup", GAME, versions, duplicate=True)
    deal = {"tournament_id": tournament, "duplicate_set": 0}
    played = store_played_match(
        store, GAME, versions, seed=SEED, options=OPTIONS, rotation=0, **deal
    )
    partner = store.create_match(
        GAME, versions[::-1], options=OPTIONS, seed=SEED, rotation=1, **deal
    ).id

    shown = site.get(f"{API}/matches/{played}").json()
    assert shown["state"] == "done" and shown["held"] is True
    assert shown["seed"] is None and shown["seed_salt"] is None
    assert shown["sealed"]["reason"] == Sealed.SET_PLAYING.value
    shown_nothing_secret(json.dumps(shown), store, played)
    page = site.get(f"/matches/{played}")
    assert page.status_code == 403 and "This match is held back" in page.text
    assert "Seed commitment" in page.text
    shown_nothing_secret(page.text, store, played)
    for path in ("record", "record.bin", "steps/0"):
        assert site.get(f"{API}/matches/{played}/{path}").status_code == 409
    code, out, _ = arena.both("match", "show", str(played))
    assert code == 0 and "duplicate set" in out
    shown_nothing_secret(out, store, played)
    code, out, err = arena.both("verify", str(played))
    assert code == 2 and out == "" and "duplicate set that are still queued or running" in err

    # the partner is played: the set has ended, and both matches' seed and salt are shown
    assert store.claim_match("test", match_id=partner) is not None
    assert store.finish_match(partner, "test", finished_match(GAME, [1, 0], [0, 9], seed=SEED))
    match = store.match(played)
    assert match is not None
    shown = site.get(f"{API}/matches/{played}").json()
    assert shown["sealed"] is None and shown["held"] is False
    assert shown["seed"] == SEED and shown["seed_salt"] == match.seed_salt.hex()
    page = site.get(f"/matches/{played}").text
    assert str(SEED) in page and match.seed_salt.hex() in page
    assert match.seed_commitment.hex() in page
    code, out, _ = arena.both("verify", str(played))
    assert code == 0, out
    assert f"match {played} (seed {SEED}): commitment holds" in out
    assert f"match {played} (seed {SEED}): record re-runs" in out
    code, out, _ = arena.both("verify", str(played), "--json")
    verdict = json.loads(out)
    assert code == 0 and verdict["ok"] is True
    assert verdict["commitment_check"]["ok"] and verdict["engine"]["ok"]
    assert verdict["commitment_check"]["computed"] == match.seed_commitment.hex()


@pytest.mark.parametrize("column", ["seed_salt", "seed"])
def test_a_changed_seed_or_salt_fails_verify_with_the_commitment_not_matching(
    store: Store, arena: Arena, column: str
) -> None:
    versions = add_bots(store, GAME, 2, prefix="d")
    played = store_played_match(store, GAME, versions, seed=SEED, options=OPTIONS)
    assert arena.both("verify", str(played))[0] == 0
    change = "seed_salt = sha256(seed_salt)" if column == "seed_salt" else "seed = seed + 1"
    with store.pool.connection() as conn:
        conn.execute(f"UPDATE matches SET {change} WHERE id = %s", (played,))
    code, out, _ = arena.both("verify", str(played))
    assert code == 1
    assert "commitment FAILS: the seed and salt do not match the commitment" in out
    assert "record re-runs" in out  # the engine's check is reported too, and holds
    code, out, _ = arena.both("verify", str(played), "--json")
    verdict = json.loads(out)
    assert code == 1 and verdict["ok"] is False and verdict["engine"]["ok"] is True
    assert verdict["commitment_check"]["ok"] is False


def test_verify_takes_a_record_file_still_and_refuses_an_unknown_match(
    store: Store, arena: Arena, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    versions = add_bots(store, GAME, 2, prefix="d")
    played = store_played_match(store, GAME, versions, seed=SEED, options=OPTIONS)
    monkeypatch.chdir(tmp_path)
    (tmp_path / str(played)).write_bytes(store.record(played))  # a file named like an id
    code, out, _ = arena.run("verify", str(played))
    assert code == 0 and out.startswith(f"{played}: {GAME} match {played} (seed {SEED})")
    code, out, err = arena.both("verify", "99999")
    assert code == 2 and out == "" and "no match 99999" in err and len(err.splitlines()) == 1
