"""The platform's logs (docs/operations.md, "Logs"): a worker started with
``ARENA_LOG_FORMAT=json`` writes only JSON objects, one a line, and its lines about a
match carry that match's id (and the seat, for a line about one seat); what a worker said
about a match is kept with it, and the match's page shows it to the operators and, for a
line about a seat, to that seat's bot's owner; a failed match's page says why it failed
and links to what the worker said. Real Postgres, Redis, worker, referee and bots; the
rule of who reads which line is checked on the store with its own methods."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from arena.app import matches
from arena.app.actors import ANONYMOUS, Actor, ActorKind
from arena.site import create_site
from tests.platform_support import EXAMPLES, PlatformEnv
from worker import tasks
from worker.app import configure
from worker.logs import KEPT_LINES
from worker.store import Store
from worker.store.matches import WORKER_LOGS_KEPT

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
SAID = "What the worker said about this match"


def _ghost(tmp_path: Path) -> Path:
    """A bot whose program is missing: its seat forfeits, and the worker says why."""
    folder = tmp_path / "ghost"
    folder.mkdir()
    (folder / "arena-bot.toml").write_text('command = ["no-such-program-of-rummy-arena"]\n')
    (folder / "README").write_text("a bot whose program is missing\n")
    return folder


def _play(env: PlatformEnv, *made: int) -> None:
    """Send the matches ``made`` to the workers."""
    configure(env.env["ARENA_REDIS_URL"], env.env["ARENA_REDIS_PREFIX"])
    for match_id in made:
        tasks.play_match.delay(match_id)


def _page(env: PlatformEnv, match_id: int, key: str | None) -> str:
    """The match's page, as the holder of ``key`` signed in (anyone without one: None)."""
    with TestClient(create_site(env.store)) as web:
        if key is not None:
            assert web.post("/signin", data={"key": key}).status_code == 200
        page = web.get(f"/matches/{match_id}")
        assert page.status_code == 200, page.text
        return page.text


def test_a_worker_with_json_logs_writes_json_lines_and_those_about_a_match_carry_its_id(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    env.env["ARENA_LOG_FORMAT"] = "json"
    ann, bob = env.user("ann"), env.user("bob")
    operator = json.loads(env.arena("user", "create", "ops", "--operator", "--json").stdout)
    env.arena("bot", "submit", str(_ghost(tmp_path)), "--name", "ghost", "--game", GAME, key=ann)
    ghost_bot = env.store.bot_by_name("ghost")
    assert ghost_bot is not None and ghost_bot.owner == "ann"
    ghost = env.store.bot_versions(ghost_bot.id)[-1].version.id
    house = env.submit(EXAMPLES / "random_bot.py", "house", GAME)
    # seated directly (its qualification failed): the ghost first, then second
    first = env.store.create_match(GAME, [ghost, house], options={"max_hands": 1})
    second = env.store.create_match(GAME, [house, ghost], options={"max_hands": 1})
    ghost_seat = {first.id: 0, second.id: 1}
    env.start_worker(2, "--loglevel", "INFO")
    _play(env, first.id, second.id)

    def done() -> bool:
        return all((m := env.store.match(i)) is not None and m.state == "done" for i in ghost_seat)

    env.wait_for(done, 120, "both matches to be played")
    env.wait_for(lambda: len(env.store.worker_logs(second.id)) == 1, 30, "the second's log")
    lines = [line for line in env.worker_log().splitlines() if line.strip()]
    assert lines, "the worker logged nothing at INFO"
    records: list[dict[str, Any]] = []
    for line in lines:
        record = json.loads(line)  # every line is one JSON object
        assert isinstance(record, dict), line
        assert {"time", "level", "logger", "message"} <= record.keys(), line
        records.append(record)
    about = [r for r in records if "match_id" in r]
    assert {r["match_id"] for r in about} == set(ghost_seat), about
    for match_id, seat in ghost_seat.items():
        why = [r for r in about if r["match_id"] == match_id and "could not start" in r["message"]]
        assert why, (match_id, about)
        assert all(r["level"] == "WARNING" and r["seat"] == seat for r in why), why
    started = [r for r in records if r["message"].startswith("started bot house@v1")]
    assert started and started[0]["match_id"] in ghost_seat  # started for a match

    # kept with the match: its page shows it to the ghost's owner and the operators only
    (play,) = env.store.worker_logs(first.id)
    assert play.attempt == 1 and any("could not start" in li["message"] for li in play.lines)
    for key in (ann, operator["key"]):
        page = _page(env, first.id, key)
        assert SAID in page and "no-such-program-of-rummy-arena" in page and "(seat 0)" in page
    for key in (bob, None):
        assert SAID not in _page(env, first.id, key)


def test_a_failed_matchs_page_says_why_and_shows_what_the_worker_said(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    operator = json.loads(env.arena("user", "create", "ops", "--operator", "--json").stdout)
    a = env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    b = env.submit(EXAMPLES / "minimal_bot.py", "minimal", GAME)
    # an option its game does not have: the referee refuses to create it, every attempt
    broken = env.store.create_match(
        GAME, [a, b], options={"max_hands": 1, "no_such_option": 1}, max_attempts=1
    )
    env.start_worker()
    _play(env, broken.id)

    def failed() -> bool:
        match = env.store.match(broken.id)
        return match is not None and match.state == "failed"

    env.wait_for(failed, 120, "the match to fail")
    env.wait_for(lambda: env.store.worker_logs(broken.id), 30, "what the worker said")
    (play,) = env.store.worker_logs(broken.id)
    (line,) = [li for li in play.lines if "could not be played" in li["message"]]
    assert line["level"] == "ERROR" and line["seat"] is None
    assert "no_such_option" in line["message"]
    # in the text form, the line names its match
    assert f"[match {broken.id}] match {broken.id} could not be played" in env.worker_log()

    anyone = _page(env, broken.id, None)  # its live page, as it never finished
    assert 'id="match-error"' in anyone and "It failed: " in anyone
    assert SAID not in anyone and "#worker-log" not in anyone
    shown = _page(env, broken.id, operator["key"])
    assert 'href="#worker-log"' in shown and 'id="worker-log"' in shown and SAID in shown
    assert "could not be played" in shown and "Attempt 1" in shown


def _line(seat: int | None, message: str) -> dict[str, Any]:
    return {
        "time": "2026-01-01T00:00:00.000+00:00",
        "level": "WARNING",
        "logger": "worker.host",
        "message": message,
        "seat": seat,
    }


def test_who_reads_what_the_worker_said_and_how_much_is_kept(store: Store) -> None:
    for user in ("ann", "bob", "cy"):
        store.create_user(user)
    store.create_user("ops", operator=True)
    manifest = {"game": GAME, "command": ["python", "bot.py"]}
    versions = [
        store.add_bot_version(
            store.add_bot(f"{owner}s", owner=owner), owner.encode(), manifest, owner
        )
        for owner in ("ann", "bob")
    ]
    match = store.create_match(GAME, [v.id for v in versions])
    for attempt in range(1, WORKER_LOGS_KEPT + 3):
        lines = [_line(0, f"ann's seat {attempt}"), _line(1, f"bob's seat {attempt}")]
        store.keep_worker_log(match.id, attempt, "host/1", [*lines, _line(None, "the platform")])
    kept = store.worker_logs(match.id)
    assert [p.attempt for p in kept] == list(range(3, WORKER_LOGS_KEPT + 3))  # the newest
    assert KEPT_LINES >= 3

    def read(actor: Actor) -> list[str]:
        plays = matches.worker_log(store, actor, match.id)
        return [line["message"] for play in plays for line in play["lines"]]

    operator = read(Actor(ActorKind.OPERATOR, "ops"))
    assert len(operator) == 3 * WORKER_LOGS_KEPT and "the platform" in operator
    assert read(Actor(ActorKind.OWNER, "ann")) == [
        f"ann's seat {a}" for a in range(3, WORKER_LOGS_KEPT + 3)
    ]
    assert all(m.startswith("bob's seat") for m in read(Actor(ActorKind.OWNER, "bob")))
    assert read(Actor(ActorKind.OWNER, "cy")) == []  # no bot of hers sits there
    assert read(ANONYMOUS) == []
