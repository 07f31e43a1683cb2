"""Users, API keys and who may do what (docs/api.md; docs/architecture.md, decision 14):
keys kept only as hashes and shown once, refused when wrong or revoked; every cell of
the rule the command line applies, each with the actor it allows doing it and one it
refuses getting a clear error and changing nothing; who the command line acts as; a
retired bot scheduled no more."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from arena.app import actors
from arena.app.actors import (
    ANONYMOUS,
    PLATFORM,
    Action,
    Actor,
    ActorKind,
    allowed,
    local_actor,
    local_user_name,
)
from arena.app.errors import Forbidden, Unauthorized
from arena.cli import main
from arena.commands.demo import register_examples
from worker import db, ladder
from worker.store import PLATFORM_USER, KeyProblem, KeyRefused, Store

pytest_plugins = ["tests.store_fixtures"]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
GAME = "hollywood-gin"
RANDOM_BOT = str(EXAMPLES / "random_bot.py")
MINIMAL_BOT = str(EXAMPLES / "minimal_bot.py")


@pytest.fixture
def users(
    store: Store, store_db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Store:
    """An emptied store (users and keys too, but the platform's user) that ``arena``
    reaches through ARENA_DATABASE_URL, with no key set: the operator's."""
    with store.pool.connection() as conn:
        conn.execute("DELETE FROM users WHERE name <> %s", (PLATFORM_USER,))
    monkeypatch.setenv("ARENA_DATABASE_URL", store_db_url)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ARENA_API_KEY", raising=False)
    return store


class Cli:
    """``arena`` run in this process as someone: the operator (no key) or a key's user."""

    def __init__(self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
        self.capsys = capsys
        self.monkeypatch = monkeypatch

    def run(self, *argv: str, key: str | None = None) -> tuple[int, str, str]:
        """Exit code, stdout and stderr of ``arena ARGV`` with ``key`` (None: no key)."""
        if key is None:
            self.monkeypatch.delenv("ARENA_API_KEY", raising=False)
        else:
            self.monkeypatch.setenv("ARENA_API_KEY", key)
        self.capsys.readouterr()
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err

    def ok(self, *argv: str, key: str | None = None) -> str:
        code, out, err = self.run(*argv, key=key)
        assert code == 0, err
        return out

    def json(self, *argv: str, key: str | None = None) -> Any:
        return json.loads(self.ok(*argv, "--json", key=key))

    def refused(self, *argv: str, key: str | None = None, words: tuple[str, ...] = ()) -> str:
        """The command exits 2 with one line on stderr, naming ``words``, and prints no
        report."""
        code, out, err = self.run(*argv, key=key)
        assert code == 2, (code, out, err)
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
        for word in words:
            assert word in err, err
        return err

    def user(self, name: str, *flags: str) -> str:
        """Make the user ``name`` as the operator; their key."""
        return str(self.json("user", "create", name, *flags)["key"])


@pytest.fixture
def cli(users: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    return Cli(capsys, monkeypatch)


def versions_of(store: Store, name: str) -> list[str]:
    bot = store.bot_by_name(name)
    return [] if bot is None else [v.version.label for v in store.bot_versions(bot.id)]


def key_rows(store: Store) -> list[tuple[object, ...]]:
    with store.pool.connection() as conn:
        return list(conn.execute("SELECT * FROM api_keys").fetchall())


# -- keys ------------------------------------------------------------------------------------


def test_a_key_is_shown_once_and_stored_only_as_the_sha256_of_its_secret(
    users: Store, cli: Cli
) -> None:
    code, out, _ = cli.run("user", "create", "ann")
    assert code == 0
    key = next(line.strip() for line in out.splitlines() if line.startswith("  "))
    prefix, _, secret = key.partition(".")
    assert out.count(key) == 1 and out.count(secret) == 1 and "shown this once" in out
    rows = key_rows(users)
    assert len(rows) == 1
    stored = " ".join(map(str, rows[0]))
    assert secret not in stored and key not in stored and prefix in stored
    assert hashlib.sha256(secret.encode()).hexdigest() in rows[0]
    assert "$scrypt$" not in stored  # a new key costs no slow hash to check
    listed = cli.ok("user", "key", "list", "--user", "ann")
    assert prefix in listed and secret not in listed


def test_keys_are_listed_by_prefix_with_their_last_use(users: Store, cli: Cli) -> None:
    key = cli.user("ann")
    prefix = key.partition(".")[0]
    (before,) = cli.json("user", "key", "list", "--user", "ann")
    assert before["prefix"] == prefix and before["last_used_at"] is None
    assert before["revoked_at"] is None and "key" not in before
    cli.ok("user", "key", "list", key=key)  # ann's key used: its last use recorded
    (after,) = cli.json("user", "key", "list", "--user", "ann")
    assert after["last_used_at"] is not None
    table = cli.ok("user", "key", "list", "--user", "ann").splitlines()
    assert table[0].split() == ["prefix", "user", "created", "last", "used", "revoked"]
    assert table[1].startswith(f"{prefix}  ann  ")


def test_a_revoked_key_is_refused_with_a_clear_error(users: Store, cli: Cli) -> None:
    key = cli.user("ann")
    prefix = key.partition(".")[0]
    assert cli.ok("user", "key", "revoke", prefix, key=key).startswith(f"revoked key {prefix}")
    err = cli.refused(
        "bot",
        "submit",
        RANDOM_BOT,
        "--game",
        GAME,
        key=key,
        words=("ARENA_API_KEY", prefix, "of ann", "was revoked", "ask an operator"),
    )
    assert err.startswith("arena bot submit: ")
    assert users.bot_by_name("random_bot") is None
    (listed,) = cli.json("user", "key", "list", "--user", "ann")
    assert listed["revoked_at"] is not None and listed["last_used_at"] is not None
    assert "revoked already" in cli.ok("user", "key", "revoke", prefix)


def test_a_wrong_unknown_or_malformed_key_is_refused(users: Store, cli: Cli) -> None:
    key = cli.user("ann")
    prefix, _, secret = key.partition(".")
    wrong = f"{prefix}.{'A' * len(secret)}"
    unknown = f"{'0' * 12}.{secret}"
    for bad in (wrong, unknown):
        cli.refused(
            "bot", "retire", "x", key=bad, words=("no key of this platform", "ask an operator")
        )
    cli.refused("bot", "retire", "x", key="hunter2", words=("not an API key", "PREFIX.SECRET"))
    with pytest.raises(KeyRefused) as refused:
        users.check_key(wrong)
    assert refused.value.problem is KeyProblem.UNKNOWN and refused.value.key is None
    (listed,) = cli.json("user", "key", "list", "--user", "ann")
    assert listed["last_used_at"] is None  # a wrong secret is no use of the key


# -- the rule, cell by cell ------------------------------------------------------------------


def test_the_docs_table_is_the_rule_in_the_code() -> None:
    assert actors.markdown_table() in (ROOT / "docs" / "api.md").read_text()


ANN = Actor(ActorKind.OWNER, "ann")
OPS = Actor(ActorKind.OPERATOR, "ops")
#: Each action: may anyone / ann on her own / ann on bob's / ann on a house bot / an
#: operator on bob's do it (the platform may do what an operator may).
CELLS = {
    Action.READ: (True, True, True, True, True),
    Action.SUBMIT: (False, True, False, False, True),
    Action.RETIRE: (False, True, False, False, True),
    Action.ENTER: (False, True, False, True, True),
    Action.LADDER: (False, True, False, False, True),
    Action.CANCEL: (False, False, False, False, True),
    Action.LOGS: (False, True, False, False, True),
    Action.ANALYSE: (False, True, False, False, True),
    Action.SEED: (False, False, False, False, True),
    Action.OPERATE: (False, False, False, False, True),
    Action.USERS: (False, False, False, False, True),
    Action.KEYS: (False, True, False, False, True),
    Action.STATUS: (False, False, False, False, True),
}


@pytest.mark.parametrize("action", list(Action), ids=lambda a: a.value)
def test_every_cell_of_the_rule(action: Action) -> None:
    anyone, own, others, house, operator = CELLS[action]
    assert allowed(ANONYMOUS, action, "bob") is anyone
    assert allowed(ANN, action, "ann") is own
    assert allowed(ANN, action, "bob") is others
    assert allowed(ANN, action, PLATFORM_USER) is house
    assert allowed(OPS, action, "bob") is operator
    assert allowed(PLATFORM, action, "bob") is operator
    if not others:
        with pytest.raises(Forbidden, match=r"^user ann may not do it: "):
            actors.require(ANN, action, whose="bob", what="do it")
    if not anyone:
        with pytest.raises(Unauthorized, match="needs an API key: without one you may only read"):
            actors.require(ANONYMOUS, action, whose="bob", what="do it")


def test_an_owner_submits_versions_of_their_own_bots_only(users: Store, cli: Cli) -> None:
    ann, bob = cli.user("ann"), cli.user("bob")
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "bobs", key=bob)
    cli.refused(
        "bot",
        "submit",
        MINIMAL_BOT,
        "--game",
        GAME,
        "--name",
        "bobs",
        key=ann,
        words=("user ann may not submit a version of bot 'bobs', which belongs to bob",),
    )
    assert versions_of(users, "bobs") == ["bobs@v1"]
    # ann's own: a new name becomes hers, and takes her next version
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "anns", key=ann)
    cli.ok("bot", "submit", MINIMAL_BOT, "--game", GAME, "--name", "anns", key=ann)
    anns = users.bot_by_name("anns")
    assert anns is not None and anns.owner == "ann"
    assert versions_of(users, "anns") == ["anns@v1", "anns@v2"]
    assert {v.version.submitted_by for v in users.bot_versions(anns.id)} == {"ann"}
    # an operator submits a version of anyone's bot; it stays theirs
    cli.ok("bot", "submit", MINIMAL_BOT, "--game", GAME, "--name", "bobs")
    bobs = users.bot_by_name("bobs")
    assert bobs is not None and bobs.owner == "bob"
    assert [v.version.submitted_by for v in users.bot_versions(bobs.id)] == [
        "bob",
        local_user_name(),
    ]


def test_owner_flag_is_for_operators(users: Store, cli: Cli) -> None:
    ann = cli.user("ann")
    cli.user("bob")
    cli.refused(
        "bot",
        "submit",
        RANDOM_BOT,
        "--game",
        GAME,
        "--owner",
        "bob",
        key=ann,
        words=("user ann may not register bot 'random_bot' for bob",),
    )
    assert users.bot_by_name("random_bot") is None
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--owner", "ann", key=ann)  # herself
    cli.ok("bot", "submit", MINIMAL_BOT, "--game", GAME, "--owner", "bob")
    minimal = users.bot_by_name("minimal_bot")
    assert minimal is not None and minimal.owner == "bob"
    cli.refused(
        *("bot", "submit", MINIMAL_BOT, "--game", GAME, "--name", "x", "--owner", "nobody"),
        words=("no user named 'nobody'", "arena user create nobody"),
    )
    assert users.bot_by_name("x") is None and users.user("nobody") is None


def test_only_an_operator_makes_and_lists_users(users: Store, cli: Cli) -> None:
    ann = cli.user("ann")
    for argv in (("user", "create", "eve"), ("user", "create", "eve", "--operator")):
        cli.refused(*argv, key=ann, words=("user ann may not make user 'eve'", "operator"))
    assert users.user("eve") is None and len(key_rows(users)) == 1
    cli.refused("user", "list", key=ann, words=("user ann may not list the users",))
    ops = cli.user("ops", "--operator")
    cli.ok("user", "create", "eve", key=ops)  # a new operator's key makes users too
    listed = {u["name"]: u for u in cli.json("user", "list", key=ops)}
    assert set(listed) == {"ann", "eve", "ops", PLATFORM_USER}
    assert listed["ops"]["operator"] is True and listed["ann"]["operator"] is False
    assert listed["ann"]["keys"] == 1 and listed[PLATFORM_USER]["keys"] == 0
    cli.refused("user", "create", "ann", words=("there is a user named 'ann' already",))
    cli.refused("user", "create", "a b", words=("user name 'a b' is not allowed",))


def test_keys_are_their_users_own_and_any_for_an_operator(users: Store, cli: Cli) -> None:
    ann, bob = cli.user("ann"), cli.user("bob")
    bob_prefix = bob.partition(".")[0]
    cli.refused("user", "key", "new", "--user", "bob", key=ann, words=("make a key of bob",))
    cli.refused("user", "key", "list", "--user", "bob", key=ann, words=("the keys of bob",))
    cli.refused(
        "user", "key", "revoke", bob_prefix, key=ann, words=(f"revoke key {bob_prefix} of bob",)
    )
    assert len(users.keys("bob")) == 1 and users.keys("bob")[0].revoked_at is None
    cli.ok("user", "key", "list", key=bob)  # bob's key still works
    second = cli.json("user", "key", "new", key=ann)
    assert second["user"] == "ann"
    assert [k["prefix"] for k in cli.json("user", "key", "list", key=ann)] == [
        ann.partition(".")[0],
        second["prefix"],
    ]
    cli.ok("user", "key", "revoke", bob_prefix)  # the operator revokes anyone's
    cli.refused("user", "key", "list", key=bob, words=("was revoked",))
    cli.refused("user", "key", "new", "--user", PLATFORM_USER, words=("holds no key", "house bots"))
    cli.refused("user", "key", "revoke", "000000000000", words=("no API key with prefix",))


def test_the_house_bots_are_registered_by_an_operator_and_owned_by_the_platform(
    users: Store, cli: Cli
) -> None:
    ann = cli.user("ann")
    with pytest.raises(Forbidden, match="user ann may not register bot 'random-flip-flop' for"):
        register_examples(users, "flip-flop", Actor(ActorKind.OWNER, "ann"))
    assert users.bot_by_name("random-flip-flop") is None
    names = register_examples(users, "flip-flop", local_actor(users))
    assert {b.owner for b in map(users.bot_by_name, names) if b} == {PLATFORM_USER}
    shown = cli.json("bot", "show", names[0], key=ann)
    assert shown["house"] is True


def test_tournaments_take_an_owners_own_bots_and_the_house_bots(users: Store, cli: Cli) -> None:
    ann, bob = cli.user("ann"), cli.user("bob")
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "anns", key=ann)
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "bobs", key=bob)
    cli.ok("bot", "submit", MINIMAL_BOT, "--game", GAME, "--name", "house", "--owner", "arena")
    create = ("tournament", "create", "--game", GAME, "--games", "1")
    cli.refused(
        *create,
        "--bots",
        "anns,bobs",
        key=ann,
        words=("user ann may not enter bot 'bobs', which belongs to bob", "house bots"),
    )
    cli.refused("gauntlet", "anns", "--against", "bobs", "--game", GAME, key=ann, words=("'bobs'",))
    duel = ("duel", "anns", "bobs", "--game", GAME, "--local-workers", "0")
    cli.refused(*duel, key=ann, words=("user ann may not enter bot 'bobs'",))
    seeded = ("--bots", "anns,house", "--seed", "5")
    cli.refused(*create, *seeded, key=ann, words=("user ann may not choose the seed",))
    assert users.list_tournaments() == []
    cli.ok(*create, *seeded)  # an operator chooses it
    made = cli.json(*create, "--bots", "anns,house", key=ann)
    assert made["matches"] >= 1
    shown = cli.json("tournament", "standings", str(made["tournament"]), key=ann)
    assert shown["settings"]["seed"] is None  # kept from everyone while it runs
    cli.ok(*create, "--bots", "anns,bobs,house")  # an operator enters anyone's


# -- who the command line acts as ------------------------------------------------------------


def test_with_the_databases_credentials_and_no_key_a_command_acts_as_the_operator(
    users: Store, cli: Cli
) -> None:
    assert local_actor(users) == Actor(ActorKind.OPERATOR, local_user_name())
    cli.ok("user", "create", "ann")  # what only an operator may
    assert not (Path(os.environ["ARENA_HOME"]) / actors.KEY_FILE).exists()
    assert users.user(local_user_name()) is None  # acting needs no user row


def test_the_embedded_platform_makes_its_operator_on_first_need(
    users: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ARENA_DATABASE_URL, the local account becomes an operator with a key kept
    under ARENA_HOME (0600), used again next time, and made anew when the database no
    longer knows it."""
    monkeypatch.delenv("ARENA_DATABASE_URL")
    path = Path(os.environ["ARENA_HOME"]) / actors.KEY_FILE
    first = local_actor(users)
    assert first == Actor(ActorKind.OPERATOR, local_user_name())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = path.read_text().strip()
    user = users.user(local_user_name())
    assert user is not None and user.operator
    assert local_actor(users) == first and path.read_text().strip() == kept
    assert len(users.keys(local_user_name())) == 1
    (key,) = users.keys(local_user_name())
    assert key.last_used_at is not None
    users.revoke_key(key.prefix)
    assert local_actor(users) == first
    assert path.read_text().strip() != kept and len(users.keys(local_user_name())) == 2


def test_the_embedded_platform_acts_with_no_set_up(tmp_path: Path) -> None:
    """A real embedded Postgres under a fresh ARENA_HOME: `arena bot submit` works as the
    README shows it, the local account its owner."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(tmp_path / "home")

    def arena(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", *argv],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    done = arena("bot", "submit", RANDOM_BOT, "--game", GAME)
    assert done.returncode == 0, done.stderr
    shown = arena("bot", "show", "random_bot", "--json")
    assert json.loads(shown.stdout)["owner"] == local_user_name()
    key = tmp_path / "home" / actors.KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


# -- retiring --------------------------------------------------------------------------------


def test_a_bot_is_retired_by_its_owner_or_an_operator(users: Store, cli: Cli) -> None:
    ann, bob = cli.user("ann"), cli.user("bob")
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "anns", key=ann)
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "bobs", key=bob)
    cli.refused(
        "bot", "retire", "bobs", key=ann, words=("user ann may not retire bot 'bobs'", "owner")
    )
    bobs = users.bot_by_name("bobs")
    assert bobs is not None and bobs.retired_at is None
    assert cli.ok("bot", "retire", "anns", key=ann).startswith("retired anns: ")
    cli.ok("bot", "retire", "bobs")  # an operator
    assert all(b and b.retired_at for b in map(users.bot_by_name, ("anns", "bobs")))
    assert "retired already" in cli.ok("bot", "retire", "anns", key=ann)
    cli.refused("bot", "retire", "nobody", words=("no bot named 'nobody'",))


def test_a_retired_bot_is_scheduled_no_more(users: Store, cli: Cli) -> None:
    for name in ("one", "two", "three"):
        cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", name)
    cli.ok("bot", "retire", "three")
    three = users.bot_by_name("three")
    assert three is not None
    retired = users.bot_versions(three.id)[0].version.id
    # the ladder's pool leaves it out, so its tick never seats it
    users.start_ladder(GAME, "ladder", {"options": {"max_hands": 1}, "in_flight": 6})
    (started,) = users.ladders()
    assert [s.label for s in users.ladder_standings(started)] == ["one@v1", "two@v1"]
    queued = ladder.tick(users, lambda _id: None, random.Random(3))[started.id]
    assert queued
    with users.pool.connection() as conn:
        seated = {
            int(v)
            for (v,) in conn.execute(
                "SELECT bot_version_id FROM match_seats WHERE match_id = ANY(%s)", (queued,)
            ).fetchall()
        }
    assert retired not in seated and len(seated) == 2
    # tournaments refuse it, whoever asks
    cli.refused(
        *("tournament", "create", "--game", GAME, "--bots", "one,three"),
        words=("bot three is retired", "a new version (arena bot submit) brings it back"),
    )
    # a new version brings it back
    cli.ok("bot", "submit", MINIMAL_BOT, "--game", GAME, "--name", "three")
    back = users.bot_by_name("three")
    assert back is not None and back.retired_at is None
    assert "three@v2" in [s.label for s in users.ladder_standings(started)]


# -- the migration ---------------------------------------------------------------------------


def test_0006_makes_owners_users_and_the_demos_bots_house_bots(
    empty_db_url: str, tmp_path: Path
) -> None:
    before = tmp_path / "migrations"
    before.mkdir()
    for path in sorted(db.MIGRATIONS_DIR.glob("*.sql")):
        if path.name < "0006":
            shutil.copy(path, before / path.name)
    manifest = '{"game": "%s", "command": ["python", "-m", "arena", "bot", "run", "%s"]}'
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        db.migrate(conn, before)
        for name, owner, file in (
            ("random-hollywood-gin", "alice", "random_bot.py"),  # the demo's
            ("minimal-flip-flop", "alice", "minimal_bot.py"),  # the demo's
            ("heuristic-rummy-500", "bob", "my_own.py"),  # a demo name, another bot
            ("mine", "alice", "random_bot.py"),  # not a demo name
        ):
            (bot_id,) = conn.execute(
                "INSERT INTO bots (name, owner) VALUES (%s, %s) RETURNING id", (name, owner)
            ).fetchone() or (None,)
            conn.execute(
                "INSERT INTO bot_versions (bot_id, version, content_hash, archive, manifest,"
                " game, submitted_by) VALUES (%s, 1, %s, 'x', %s, %s, %s)",
                (bot_id, f"{bot_id:064x}", manifest % (GAME, file), GAME, owner),
            )
        db.migrate(conn)
        owners: dict[str, str] = dict(conn.execute("SELECT name, owner FROM bots").fetchall())
        known = {name for (name,) in conn.execute("SELECT name FROM users").fetchall()}
    assert owners == {
        "random-hollywood-gin": PLATFORM_USER,
        "minimal-flip-flop": PLATFORM_USER,
        "heuristic-rummy-500": "bob",
        "mine": "alice",
    }
    assert known == {PLATFORM_USER, "alice", "bob"}


def test_running_the_platforms_work_and_cancelling_are_an_operators(users: Store, cli: Cli) -> None:
    """The command line's cells of "operate" and "cancel": an owner's key is refused
    ladders started or stopped, tournaments run, retried or cancelled and the ratings
    recomputed, and nothing changes; the operator does them."""
    ann = cli.user("ann")
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "anns", key=ann)
    cli.ok(
        "bot", "submit", MINIMAL_BOT, "--game", GAME, "--name", "house", "--owner", PLATFORM_USER
    )
    made = cli.json("tournament", "create", "--game", GAME, "--bots", "anns,house", key=ann)
    tournament = str(made["tournament"])
    operator = "running the platform's work is for an operator"
    for argv, words in (
        (
            ("tournament", "run", tournament, "--local-workers", "0"),
            (f"run tournament {tournament}", operator),
        ),
        (
            ("tournament", "retry", tournament),
            (f"put tournament {tournament}'s failed matches back",),
        ),
        (
            ("tournament", "cancel", tournament),
            (f"cancel tournament {tournament}", "for an operator"),
        ),
        (("ladder", "start", "--game", GAME, "--local-workers", "0"), ("start ladder", operator)),
        (("ladder", "stop", GAME), ("stop ladder",)),
        (("ratings", "recompute", "--game", GAME), (f"recompute the ratings of {GAME}",)),
    ):
        cli.refused(*argv, key=ann, words=("user ann may not", *words))
    assert users.ladders() == [] and users.tournament(int(tournament)).state == "running"
    assert users.tournament_progress(int(tournament))["queued"] == made["matches"]
    cli.ok("ladder", "start", "--game", GAME, "--local-workers", "0")
    assert [lad.name for lad in users.ladders(active=True)] == [GAME]
    cli.ok("ladder", "stop", GAME)
    cli.ok("ratings", "recompute", "--game", GAME)
    done = cli.json("tournament", "cancel", tournament)
    assert len(done["cancelled"]) == made["matches"]
    assert users.tournament(int(tournament)).state == "cancelled"


def test_an_owner_withdraws_their_bot_from_a_ladder_and_brings_it_back(
    users: Store, cli: Cli
) -> None:
    """The command line's cell of "ladder": the owner withdraws and rejoins; another
    user's key is refused and nothing changes."""
    ann, bob = cli.user("ann"), cli.user("bob")
    cli.ok("bot", "submit", RANDOM_BOT, "--game", GAME, "--name", "anns", key=ann)
    ladder = users.start_ladder(GAME, GAME, {})

    def pool() -> set[str]:
        return {row.label for row in users.ladder_standings(ladder)}

    assert pool() == {"anns@v1"}
    cli.refused(
        "ladder",
        "withdraw",
        GAME,
        "anns",
        key=bob,
        words=("user bob may not withdraw bot 'anns' of ann",),
    )
    assert pool() == {"anns@v1"}
    assert "withdrawn from ladder" in cli.ok("ladder", "withdraw", GAME, "anns", key=ann)
    assert pool() == set()
    assert "was withdrawn already" in cli.ok("ladder", "withdraw", GAME, "anns", key=ann)
    cli.refused("ladder", "join", GAME, "anns", key=bob, words=("enter bot 'anns' of ann",))
    assert "joined ladder" in cli.ok("ladder", "join", GAME, "anns", key=ann)
    assert pool() == {"anns@v1"}
    cli.refused("ladder", "join", "nowhere", "anns", key=ann, words=("no ladder named 'nowhere'",))
