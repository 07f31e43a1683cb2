"""``arena`` used remotely (docs/api.md, "Remote use"): a bot author with only a key and
the platform's address — no database, no broker — submits a bot, creates a tournament
that the platform's workers play, and reads the standings, through a real ``arena web``
process; every answer is the one the same user gets on the platform's own machine, and
refusals exit as they do there. Real Postgres, Redis, worker, referee and bot
processes."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.platform_support import EXAMPLES, ROOT, PlatformEnv
from worker import broker, db

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
RANDOM = str(EXAMPLES / "random_bot.py")


def _start_web(platform_env: PlatformEnv) -> tuple[subprocess.Popen[str], str]:
    """An ``arena web`` process over the test's platform, and its address (from the first
    line of its standard error, which it goes on writing to)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--port", "0"],
        env=platform_env.env,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+", line)
    if found is None:
        process.terminate()
        process.wait(20)
        raise AssertionError(line)
    return process, found.group(0)


@pytest.fixture
def web(platform_env: PlatformEnv) -> Iterator[str]:
    """``arena web`` over the test's platform: its address."""
    process, address = _start_web(platform_env)
    try:
        yield address
    finally:
        process.terminate()
        process.wait(20)


class Arena:
    """``arena`` as one user, on the platform's machine (its database's address and the
    user's key) or remotely (the platform's address and the key, nothing else)."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.env, self.cwd = env, cwd

    def __call__(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", *argv],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=240,
            cwd=self.cwd,
        )

    def ok(self, *argv: str) -> str:
        done = self(*argv)
        assert done.returncode == 0, done.stderr
        return done.stdout


def _both(platform_env: PlatformEnv, web: str, key: str, tmp_path: Path) -> tuple[Arena, Arena]:
    local = {**platform_env.env, "ARENA_API_KEY": key}
    remote = {
        k: v
        for k, v in platform_env.env.items()
        if k not in (db.DATABASE_URL_ENV, broker.REDIS_URL_ENV, broker.REDIS_PREFIX_ENV)
    }
    remote.update(
        ARENA_PLATFORM=web,
        ARENA_API_KEY=key,
        ARENA_HOME=str(tmp_path / "nothing-here"),  # no embedded server could start unseen
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    return Arena(local, ROOT), Arena(remote, ROOT)  # one folder: the hints name it alike


def test_a_bot_authors_journey_remotely_answers_as_on_the_platform(
    platform_env: PlatformEnv, web: str, tmp_path: Path
) -> None:
    env = platform_env
    ann = json.loads(env.arena("user", "create", "ann", "--json").stdout)["key"]
    house = env.arena("bot", "submit", str(EXAMPLES / "minimal_bot.py"), "--name", "house",
                      "--owner", "arena", "--game", GAME)  # fmt: skip
    assert house.returncode == 0, house.stderr
    local, remote = _both(env, web, ann, tmp_path)

    # submit: a new version, qualified by the platform's worker, then the same content is
    # that version, both ways alike
    env.start_worker()
    stored = remote.ok("bot", "submit", RANDOM, "--name", "anns", "--game", GAME, "--wait")
    assert stored.startswith("stored anns@v1 (hollywood-gin)"), stored
    assert "2 seats: ok" in stored and stored.endswith("anns@v1: qualified: it plays\n")
    again = remote.ok("bot", "submit", RANDOM, "--name", "anns", "--game", GAME)
    assert "already holds this content" in again and "qualified" in again
    assert local.ok("bot", "submit", RANDOM, "--name", "anns", "--game", GAME) == again
    anns = env.store.bot_by_name("anns")
    assert anns is not None and anns.owner == "ann"

    # a tournament of her bot and a house bot, played by the platform's worker
    create = ("tournament", "create", "--game", GAME, "--bots", "anns,house", "--games", "2")
    made = json.loads(remote.ok(*create, "--option", "max_hands=1", "--json"))
    tournament = made["tournament"]
    assert env.store.tournament(tournament).created_by == "ann"
    env.wait_for(
        lambda: env.store.tournament_progress(tournament)["done"] == made["matches"],
        180,
        "the platform's worker to play the tournament",
    )

    # every read answers alike, text and JSON
    for argv in (
        ("tournament", "standings", str(tournament)),
        ("tournament", "standings", str(tournament), "--json"),
        ("tournament", "list", "--json"),
        ("bot", "list"),
        ("bot", "list", "--json"),
        ("bot", "show", "anns"),
        ("bot", "show", "house", "--json"),
    ):
        assert remote.ok(*argv) == local.ok(*argv), argv
    first = env.store.list_matches(tournament_id=tournament, state="done")[-1].id
    for argv in (
        ("match", "show", str(first)),
        ("match", "show", str(first), "--json"),
        ("export", str(first)),
        ("replay", str(first)),
        ("replay", str(first), "--seat", "1"),
        ("leaderboard", "--game", GAME),
        ("leaderboard", "--game", GAME, "--json"),
        ("tournament", "watch", str(tournament)),
    ):
        assert remote.ok(*argv) == local.ok(*argv), argv
    # where ann's seat lost: analysed by the platform once, the same both ways after
    played = env.store.match(first)
    assert played is not None
    mine = played.seats.index(env.store.bot_versions(anns.id)[-1].version.id)
    analysed = ("analyse", str(first), "--seat", str(mine), "--budget-ms", "5")
    weighed = json.loads(remote.ok(*analysed, "--json"))
    assert weighed["match"] == first and weighed["seat"] == mine and weighed["decisions"]
    assert json.loads(local.ok(*analysed, "--json")) == weighed
    assert remote.ok(*analysed) == local.ok(*analysed)
    env.store.start_ladder(GAME, GAME, {"in_flight": 2})
    for argv in (("ladder", "status"), ("ladder", "status", "--json")):
        assert remote.ok(*argv) == local.ok(*argv), argv
    assert "running" in remote.ok("ladder", "status")
    far, near = tmp_path / "far.record", tmp_path / "near.record"
    remote.ok("match", "show", str(first), "--record", str(far))
    local.ok("match", "show", str(first), "--record", str(near))
    assert far.read_bytes() == near.read_bytes() == env.store.record(first)
    # a duel made remotely is played to its verdict by the platform: the command only reads
    heuristic = str(EXAMPLES / "heuristic_bot.py")
    remote.ok("bot", "submit", heuristic, "--name", "annh", "--game", GAME, "--wait")
    duel = ("duel", "annh", "anns", "--game", GAME, "--elo0", "0", "--elo1", "50",
            "--option", "max_hands=1", "--json")  # fmt: skip
    there, here = json.loads(remote.ok(*duel)), json.loads(local.ok(*duel))
    assert set(there) == set(here) and there["verdict"] == here["verdict"] == "H1", (there, here)
    assert there["a"] == here["a"] == "annh@v1" and there["llr"] >= there["upper"]
    made_far = env.store.tournament(there["tournament"])
    assert made_far.created_by == "ann" and made_far.state == "done"
    assert made_far.options["result"]["games"] == there["games"]
    assert env.store.tournament_progress(there["tournament"])["queued"] == 0
    gauntlet = json.loads(
        remote.ok("gauntlet", "anns", "--against", "house", "--game", GAME, "--json")
    )
    assert env.store.tournament(gauntlet["tournament"]).format == "gauntlet"
    standings = json.loads(remote.ok("tournament", "standings", str(tournament), "--json"))
    assert standings["progress"]["done"] == made["matches"]
    assert sum(line["matches"] for line in standings["standings"]) == 2 * made["matches"]

    # refusals exit alike, with the same line
    for argv in (
        ("bot", "submit", RANDOM, "--name", "house", "--game", GAME),
        ("bot", "retire", "house"),
        ("tournament", "create", "--game", GAME, "--bots", "anns,nobody"),
        ("duel", "anns", "house", "--game", GAME, "--elo0", "9", "--elo1", "1"),
        ("duel", "anns", "nobody", "--game", GAME),
        ("bot", "show", "nobody"),
    ):
        far, near = remote(*argv), local(*argv)
        assert far.returncode == near.returncode == 2, (argv, far.stderr, near.stderr)
        assert far.stderr == near.stderr, argv
    assert [v.version.label for v in env.store.bot_versions(env.store.bot_by_name("house").id)] == [  # type: ignore[union-attr]
        "house@v1"
    ]


def test_remote_use_refuses_a_bad_key_and_says_when_the_platform_is_away(
    platform_env: PlatformEnv, web: str, tmp_path: Path
) -> None:
    _, remote = _both(platform_env, web, "0123456789ab." + "x" * 43, tmp_path)
    refused = remote("bot", "submit", RANDOM, "--name", "x", "--game", GAME)
    assert refused.returncode == 2
    assert "the bearer key is no key of this platform" in refused.stderr
    assert platform_env.store.bot_by_name("x") is None
    away = Arena({**remote.env, "ARENA_PLATFORM": "http://127.0.0.1:9"}, tmp_path)
    gone = away("bot", "list")
    assert gone.returncode == 3 and "does not answer" in gone.stderr, gone.stderr


def test_arena_login_checks_the_key_and_keeps_it_for_the_user_commands(
    platform_env: PlatformEnv, web: str, tmp_path: Path
) -> None:
    ann = json.loads(platform_env.arena("user", "create", "ann", "--json").stdout)["key"]
    _, remote = _both(platform_env, web, ann, tmp_path)
    bare = {k: v for k, v in remote.env.items() if k not in ("ARENA_PLATFORM", "ARENA_API_KEY")}
    arena = Arena(bare, tmp_path)
    wrong = arena("login", web, "--key", "0123456789ab." + "x" * 43)
    assert wrong.returncode == 2 and "no key of this platform" in wrong.stderr
    kept = Path(bare["XDG_CONFIG_HOME"]) / "rummy-arena" / "platform.toml"
    assert not kept.exists()
    said = arena.ok("login", web, "--key", ann)
    assert f"logged in to {web} as owner ann" in said
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    stored = arena.ok("bot", "submit", RANDOM, "--name", "anns", "--game", GAME)
    assert stored.startswith("stored anns@v1")
    bot = platform_env.store.bot_by_name("anns")
    assert bot is not None and bot.owner == "ann"
    assert os.environ.get("ARENA_PLATFORM") is None  # the test run itself stays local


def _masked(text: str) -> str:
    """``text`` with API keys, their prefixes and dates masked: the parts two runs of the
    same command differ in."""
    text = re.sub(r"[0-9a-f]{12}\.[\w-]{43}", "KEY", text)
    text = re.sub(r"\b[0-9a-f]{12}\b", "PREFIX", text)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "DATE", text)


def test_users_and_their_keys_are_managed_remotely_as_on_the_platform(
    platform_env: PlatformEnv, web: str, tmp_path: Path
) -> None:
    """docs/api.md, "API keys": the same commands, the same answers, through the API."""
    made = platform_env.arena("user", "create", "ops", "--operator", "--json")
    ops = json.loads(made.stdout)["key"]
    ops_local, ops_remote = _both(platform_env, web, ops, tmp_path)
    # an operator makes users from afar as on the platform's machine
    here = ops_local.ok("user", "create", "ann")
    there = ops_remote.ok("user", "create", "bob")
    assert _masked(here).replace("ann", "bob") == _masked(there), (here, there)
    bob = re.search(r"[0-9a-f]{12}\.[\w-]{43}", there)
    assert bob is not None
    assert _masked(ops_local.ok("user", "list")) == _masked(ops_remote.ok("user", "list"))
    # bob makes, lists and revokes his own keys from afar: none is made of anyone else
    _, remote = _both(platform_env, web, bob.group(0), tmp_path)
    second = remote.ok("user", "key", "new")
    assert second.startswith("made a key of bob"), second
    listed = remote.ok("user", "key", "list")
    assert listed.count("bob") == 2, listed
    assert _masked(listed) == _masked(
        Arena({**ops_local.env}, ROOT).ok("user", "key", "list", "--user", "bob")
    )
    prefix = bob.group(0).split(".", 1)[0]
    said = remote.ok("user", "key", "revoke", prefix)
    assert said.startswith(f"revoked key {prefix} of bob"), said
    # the revoked key is refused, and the refusal names a command that works from afar
    refused = remote("user", "key", "list")
    assert refused.returncode == 2 and "was revoked" in refused.stderr, refused.stderr
    # ann's keys are hers: bob may not revoke them
    anns = platform_env.store.keys("ann")
    key = re.search(r"[0-9a-f]{12}\.[\w-]{43}", second)
    assert key is not None
    _, bob_again = _both(platform_env, web, key.group(0), tmp_path)
    theirs = bob_again("user", "key", "revoke", anns[0].prefix)
    assert theirs.returncode == 2 and "may not" in theirs.stderr, theirs.stderr
    assert not (tmp_path / "nothing-here").exists()  # no store was made on this machine


def test_a_platform_with_no_worker_says_so_to_its_operator_and_to_a_user_who_waits(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    """``arena web`` with no worker running warns at start, and a remote ``arena bot
    submit --wait`` says at once that nothing will qualify it until a worker runs
    (``GET /api/v1/playing``), where it used to wait in silence."""
    process, address = _start_web(platform_env)
    waiting = None
    try:
        assert process.stderr is not None
        assert "no worker of the platform answers" in process.stderr.readline()
        key = platform_env.user("ann")
        _, remote = _both(platform_env, address, key, tmp_path)
        waiting = subprocess.Popen(
            [
                *(sys.executable, "-m", "arena", "bot", "submit", RANDOM),
                *("--name", "annbot", "--game", GAME, "--wait"),
            ],
            env=remote.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert waiting.stderr is not None
        said = waiting.stderr.readline()
        assert said.startswith("annbot@v1: no worker of the platform answers"), said
        assert "its operator starts `arena worker`" in said
        assert waiting.poll() is None  # and it goes on waiting
    finally:
        for running in (waiting, process):
            if running is not None:
                running.terminate()
                running.wait(20)
