"""Qualification (docs/bots.md, "Qualification"): a user's new version plays short
matches against the random bot at each seat count of its game before it plays anyone;
only a qualified (or an operator's exempt) version is seated in tournaments, gauntlets,
duels and ladders; a version that fails keeps the referee's reason, the decision it
failed on and the tail of its standard error, shown to its owner (the log to its owner
and the operators only). Real Postgres, Redis, Celery worker, referee and sandboxed bot
processes."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.app.packaging import build_archive
from arena.site import create_site
from tests.platform_support import EXAMPLES, PlatformEnv
from worker import broker
from worker.store import Store

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
RANDOM = str(EXAMPLES / "random_bot.py")
#: A bot that fails on its first decision, saying why on its standard error.
CRASHER = """
import sys
from bots.sdk import Bot, Request, run


class Crasher(Bot):
    def decide(self, request: Request) -> int:
        print("about to divide by zero", file=sys.stderr)
        return 1 // 0


if __name__ == "__main__":
    run(Crasher())
"""


def _as(env: PlatformEnv, key: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return env.arena(*argv, key=key)


def _version(store: Store, name: str, version: int = -1) -> Any:
    bot = store.bot_by_name(name)
    assert bot is not None
    return store.bot_versions(bot.id)[version].version


def test_a_users_new_version_qualifies_before_it_plays(platform_env: PlatformEnv) -> None:
    env = platform_env
    ann = env.user("ann")
    done = _as(env, ann, "bot", "submit", RANDOM, "--name", "anns", "--game", GAME)
    assert done.returncode == 0, done.stderr
    assert "2 seats: ok" in done.stdout and "anns@v1: qualified: it plays" in done.stdout
    assert done.stdout.count("stored anns@v1") == 1, done.stdout  # said once, then qualified
    version = _version(env.store, "anns")
    assert version.qualification == "qualified" and version.playable
    report = env.store.qualification_report(version.id)
    assert report is not None and report["qualified"] and report["game"] == GAME
    assert [m["seats"] for m in report["matches"]] == [2]  # Hollywood Gin: two players
    shown = json.loads(_as(env, ann, "bot", "show", "anns", "--json").stdout)
    assert shown["versions"][0]["qualification"] == "qualified"
    assert "qualified" in _as(env, ann, "bot", "show", "anns").stdout
    # an operator's version is exempt: they vouch for their own code
    house = env.arena(
        "bot", "submit", RANDOM, "--name", "house", "--owner", "arena", "--game", GAME, "--json"
    )
    assert json.loads(house.stdout)["qualification"] == "exempt"
    made = _as(env, ann, "tournament", "create", "--game", GAME, "--bots", "anns,house")
    assert made.returncode == 0, made.stderr


def test_a_version_that_crashes_on_its_first_decision_fails_and_its_owner_is_told_why(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    ann, bob = env.user("ann"), env.user("bob")
    _as(env, ann, "bot", "submit", RANDOM, "--name", "anns", "--game", GAME)  # v1 qualifies
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    done = _as(env, ann, "bot", "submit", str(crasher), "--name", "anns", "--game", GAME)
    assert done.returncode == 1, done.stdout + done.stderr  # stored, and failed
    assert "anns@v2: failed its qualification" in done.stdout
    assert "2 seats: crashed" in done.stdout
    assert "about to divide by zero" in done.stdout and "ZeroDivisionError" in done.stdout
    v2 = _version(env.store, "anns")
    assert v2.version == 2 and v2.qualification == "failed" and not v2.playable
    report = env.store.qualification_report(v2.id)
    assert report is not None and not report["qualified"]
    (failed,) = report["matches"]
    assert failed["status"] == "crashed" and "error instead of an answer" in failed["reason"]
    decision = failed["decision"]
    assert decision["source"] != "bot" and decision["legal_actions"]  # what it was given
    assert decision["view"]  # and its view then
    assert "ZeroDivisionError" in failed["stderr"]

    # it plays nothing: named, it is refused with the reason; by name, v1 plays instead
    env.arena("bot", "submit", RANDOM, "--name", "house", "--owner", "arena", "--game", GAME)
    refused = _as(env, ann, "tournament", "create", "--game", GAME, "--bots", "anns@v2,house")
    assert refused.returncode == 2 and "anns@v2 failed its qualification" in refused.stderr
    made = _as(env, ann, "tournament", "create", "--game", GAME, "--bots", "anns,house", "--json")
    assert made.returncode == 0, made.stderr
    entries = env.store.tournament(json.loads(made.stdout)["tournament"]).entries
    assert _version(env.store, "anns", 0).id in entries and v2.id not in entries
    duel = _as(env, ann, "duel", "anns@v2", "house", "--game", GAME, "--elo0", "0", "--elo1", "50")
    assert duel.returncode == 2 and "failed its qualification" in duel.stderr
    # the ladder's pool takes the newest version that may play
    ladder = env.store.start_ladder(GAME, GAME, {})
    pool = {line.label for line in env.store.ladder_standings(ladder)}
    assert pool == {"anns@v1", "house@v1"}

    # its owner sees why, with what it wrote; others (and the public web page) see that it
    # failed and why, not what it wrote
    mine = _as(env, ann, "bot", "show", "anns")
    assert "v2 failed its qualification" in mine.stdout and "ZeroDivisionError" in mine.stdout
    theirs = _as(env, bob, "bot", "show", "anns", "--json")
    (_, shown_v2) = json.loads(theirs.stdout)["versions"]
    assert shown_v2["qualification"] == "failed"
    assert shown_v2["qualification_report"]["matches"][0]["status"] == "crashed"
    assert "stderr" not in shown_v2["qualification_report"]["matches"][0]
    assert "ZeroDivisionError" not in theirs.stdout
    with TestClient(create_site(env.store)) as site:  # the pages are public
        page = site.get("/bots/anns").text
        assert "anns@v2 failed its qualification" in page and "crashed" in page
        assert "error instead of an answer" in page and "ZeroDivisionError" not in page
        site.post("/signin", data={"key": ann})  # signed in, its owner sees what it wrote
        assert "ZeroDivisionError" in site.get("/bots/anns").text


def _submission(path: Path) -> dict[str, Any]:
    """An API submission of the bot file ``path``, as ``arena bot submit`` sends it."""
    archive = build_archive([(path.name, path, path.stat().st_size)])
    return {
        "game": GAME,
        "command": ["python", "-m", "arena", "bot", "run", path.name],
        "archive": base64.b64encode(archive).decode(),
    }


def test_the_workers_qualify_a_version_submitted_through_the_api(
    platform_env: PlatformEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = platform_env
    monkeypatch.setenv(broker.REDIS_PREFIX_ENV, env.env[broker.REDIS_PREFIX_ENV])
    ann = env.user("ann")
    auth = {"authorization": f"Bearer {ann}"}
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    tournament = {"game": GAME, "bots": ["anns", "crash"]}
    # a web with no broker stores the version qualifying, and it plays nothing yet
    with TestClient(create_site(env.store)) as api:
        sent = api.post("/api/v1/bots/anns/versions", json=_submission(Path(RANDOM)), headers=auth)
        assert sent.status_code == 201 and sent.json()["qualification"] == "qualifying"
    # a web with the broker sends the qualification to the workers at once
    with TestClient(create_site(env.store, redis_url=env.env[broker.REDIS_URL_ENV])) as api:
        sent = api.post("/api/v1/bots/crash/versions", json=_submission(crasher), headers=auth)
        assert sent.status_code == 201 and sent.json()["qualification"] == "qualifying"
        early = api.post("/api/v1/tournaments", json=tournament, headers=auth)
        assert early.status_code == 400 and "anns@v1 has not qualified yet" in early.text
        env.start_worker()
        env.wait_for(
            lambda: _version(env.store, "crash").qualification == "failed",
            180,
            "a worker to run the qualification the web sent",
        )
        shown = api.get("/api/v1/bots/crash", headers=auth).json()["versions"][0]
        assert "ZeroDivisionError" in shown["qualification_report"]["matches"][0]["stderr"]
        # the one never sent is sent by the scheduler's sweep
        env.start_scheduler()
        env.wait_for(
            lambda: _version(env.store, "anns").qualification == "qualified",
            180,
            "the sweep to send the qualification the web could not",
        )
        refused = api.post("/api/v1/tournaments", json=tournament, headers=auth)
        assert refused.status_code == 400 and "crash@v1 failed its qualification" in refused.text


def test_a_qualification_is_sent_again_only_when_no_task_works_on_it(store: Store) -> None:
    bot_id = store.add_bot("late", "ann")
    archive = build_archive([("random_bot.py", Path(RANDOM), Path(RANDOM).stat().st_size)])
    command = ["python", "-m", "arena", "bot", "run", "random_bot.py"]
    manifest = {"game": GAME, "command": command}
    version = store.add_bot_version(bot_id, archive, manifest, "ann", "qualifying")
    exempt = store.add_bot_version(bot_id, archive + b"\0" * 512, manifest, "ann")
    assert exempt.qualification == "exempt" and not version.playable
    # never sent (the web had no broker): the next sweep sends it, and then not again
    assert store.qualifications_to_send(600) == [version.id]
    assert store.qualifications_to_send(600) == []
    # sent a while ago and not decided (its task was lost): sent again
    assert store.qualifications_to_send(0) == [version.id]
    # decided: never again, and deciding twice changes nothing
    assert store.finish_qualification(version.id, {"qualified": True, "matches": []})
    assert not store.finish_qualification(version.id, {"qualified": False, "matches": []})
    assert store.bot_version(version.id).qualification == "qualified"
    assert store.qualifications_to_send(0) == []
