"""The conventions of the `arena` command line (docs/cli.md): help with examples on every
command, `--version`, games listed, `--json` on every reporting command, exit codes 0, 1,
2 and 3, and every error one line on stderr without a traceback."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli import build_parser, main
from referee import settings
from referee.engine import Result
from referee.games import game_names, get_game
from referee.record import MatchRecord, SeatEntry, options_dict
from referee.wire import encode_record
from rummyarena.v1 import match_pb2
from tests.referee_support import EXAMPLES, RefereeProcess, referee_fixture
from worker.store import Store

pytest_plugins = ["tests.store_fixtures"]

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "cli.md"
#: Every command that reports something, as docs/cli.md lists them: each takes --json.
REPORTING = (
    "arena play",
    "arena verify",
    "arena bot run",
    "arena bot check",
    "arena bot submit",
    "arena bot list",
    "arena bot show",
    "arena user create",
    "arena user list",
    "arena user key new",
    "arena user key list",
    "arena match create",
    "arena match get",
    "arena match show",
    "arena db migrate",
    "arena ratings show",
    "arena ratings recompute",
    "arena tournament create",
    "arena gauntlet",
    "arena tournament run",
    "arena tournament retry",
    "arena tournament cancel",
    "arena tournament watch",
    "arena tournament standings",
    "arena tournament list",
    "arena leaderboard",
    "arena duel",
    "arena ladder status",
    "arena status",
    "arena match log",
    "arena analyse",
    "arena bench engine",
    "arena bench codec",
    "arena bench referee",
    "arena bench ceiling",
    "arena bench sample",
    "arena bench admission",
    "arena bench sandbox",
    "arena bench scale",
    "arena bench store",
    "arena bench tournament",
    "arena bench web",
)
CLOSED_POSTGRES = "postgresql://postgres@127.0.0.1:1/x"
CLOSED_REDIS = "redis://127.0.0.1:1/0"


def commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every parser of the tree under `arena`, by its full name."""

    def walk(name: str, parser: argparse.ArgumentParser) -> Iterator[tuple[str, Any]]:
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child, sub in action.choices.items():
                    yield from walk(f"{name} {child}", sub)

    yield from walk("arena", build_parser())


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    return {s for action in parser._actions for s in action.option_strings}


def arena(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`arena ARGV` in its own process (what a user sees: stderr whole, tracebacks too)."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *argv],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_line_error(done: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    """The command exited with ``code`` and said why in one line naming ``words``."""
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def referee() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


# -- help, version, choices, --json -----------------------------------------------------------


def test_every_command_has_help_with_one_to_three_examples() -> None:
    seen = 0
    for name, parser in commands():
        assert parser.formatter_class is argparse.RawDescriptionHelpFormatter, name
        epilog = parser.epilog or ""
        assert epilog.startswith("examples:\n"), f"{name} --help shows no examples"
        lines = epilog.split("\n\n")[0].splitlines()[1:]
        assert 1 <= len(lines) <= 3, name
        assert all(re.match(r"  (\S+=\S+ )*arena ", line) for line in lines), (name, lines)
        assert "examples:" in parser.format_help(), name
        seen += 1
    assert seen >= 40


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"arena {importlib.metadata.version('rummy-arena')}"


def test_every_game_argument_lists_the_games() -> None:
    for name, parser in commands():
        for action in parser._actions:
            if "--game" in action.option_strings:
                assert list(action.choices or ()) == game_names(), name
                assert ", ".join(game_names()) in " ".join(parser.format_help().split()), name
            if "--option" in action.option_strings:
                assert "docs/rules/" in (action.help or ""), name


def test_every_reporting_command_has_json_and_the_docs_list_them() -> None:
    parsers = dict(commands())
    text = DOCS.read_text()
    for name in REPORTING:
        assert "--json" in option_strings(parsers[name]), f"{name} has no --json"
        short = name.removeprefix("arena ")
        assert f"`{name}`" in text or f"`{short}`" in text, f"docs/cli.md does not list {name}"
    unlisted = {
        name
        for name, parser in parsers.items()
        if "--json" in option_strings(parser) and name not in REPORTING
    }
    assert not unlisted, unlisted


def test_docs_list_every_setting_and_no_other() -> None:
    text = DOCS.read_text()
    known = {v.name for v in settings.VARIABLES}
    named = set(re.findall(r"\bARENA_[A-Z_]+\b", text))
    assert known <= named, known - named
    assert named <= known, named - known


# -- exit codes -------------------------------------------------------------------------------


def test_exit_1_when_the_record_does_not_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = "hollywood-gin"
    record = MatchRecord(
        game=game,
        options=options_dict(get_game(game).options()),
        seed=3,
        seats=(SeatEntry("a", "ok"), SeatEntry("b", "ok")),
        actions=(),  # no action played, yet a result: it cannot re-run to it
        result=Result((0, 1), (25, 0), {"hands": 1}),
    )
    path = tmp_path / "match.record"
    path.write_bytes(encode_record(record))
    assert main(["verify", str(path)]) == 1
    assert "DIVERGES" in capsys.readouterr().out
    assert main(["verify", str(path), "--json"]) == 1
    assert '"ok": false' in capsys.readouterr().out


def test_exit_2_on_bad_input_one_line_naming_it() -> None:
    one_line_error(
        arena("play", "a.py", "b.py", "--option", "max_hands=0"),
        2,
        "--option",
        "'max_hands'",
        "between 1 and 100000",
        "docs/rules/hollywood-gin.md",
    )
    one_line_error(
        arena("match", "create", "--game", "hollywood-gin", "--option", "knock_limt=3"),
        2,
        "unknown option 'knock_limt'",
        "knock_limit",
    )
    one_line_error(arena("ratings", "show", "--game", "x"), 2, "unknown game 'x'", "hollywood-gin")
    one_line_error(arena("match", "get"), 2, "arena match get:", "match_id", "--help")
    one_line_error(arena("tournament", "run", "1", ARENA_LEASE_S="soon"), 2, "ARENA_LEASE_S")
    one_line_error(arena("demo", "--games", "0"), 2, "arena demo: --games must be at least 1")
    one_line_error(arena("web", "--port", "70000"), 2, "arena web: --port", "65535")
    one_line_error(
        arena("worker", "--referee-host", "192.0.2.1"),
        2,
        "arena worker: --referee-host 192.0.2.1: this host cannot listen there",
        "127.0.0.1",
    )


def test_exit_3_when_postgres_or_redis_does_not_answer() -> None:
    one_line_error(
        arena("bot", "list", ARENA_DATABASE_URL=CLOSED_POSTGRES),
        3,
        "arena bot list:",
        "cannot reach Postgres at postgresql://postgres@127.0.0.1:1/x",
    )
    one_line_error(
        arena(
            "tournament",
            "run",
            "1",
            ARENA_DATABASE_URL=CLOSED_POSTGRES,
            ARENA_REDIS_URL=CLOSED_REDIS,
        ),
        3,
        "cannot reach Redis at redis://127.0.0.1:1/0",
    )
    closed = {"ARENA_DATABASE_URL": CLOSED_POSTGRES, "ARENA_REDIS_URL": CLOSED_REDIS}
    for argv in (["replay", "1"], ["export", "1"], ["web", "--port", "0"], ["demo"]):
        done = arena(*argv, **closed)
        one_line_error(done, 3, f"arena {argv[0]}: cannot reach ")


def test_exit_3_when_no_referee_answers() -> None:
    one_line_error(
        arena(
            "bot",
            "run",
            str(EXAMPLES / "random_bot.py"),
            "--referee",
            "127.0.0.1:1",
            "--token",
            "x",
        ),
        3,
        "no referee answers at 127.0.0.1:1",
        "arena referee --port",
    )
    one_line_error(
        arena("match", "get", "m1", "--referee", "127.0.0.1:1", ARENA_REFEREE_SECRET="s"),
        3,
        "no referee answers at 127.0.0.1:1",
    )


def test_bot_run_and_match_share_one_default_referee() -> None:
    """Without --referee or ARENA_REFEREE both go to settings.DEFAULT_REFEREE (nothing
    listens there during the tests: each referee they start takes a free port)."""
    plain = {"ARENA_REFEREE": ""}
    for done in (
        arena("bot", "run", str(EXAMPLES / "random_bot.py"), "--token", "x", **plain),
        arena("match", "get", "m1", ARENA_REFEREE_SECRET="s", **plain),
    ):
        one_line_error(done, 3, f"no referee answers at {settings.DEFAULT_REFEREE}")


# -- what a user runs into ----------------------------------------------------------------------


def test_a_port_in_use_says_so_in_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one_line_error(
            arena("referee", "--port", str(port), ARENA_REFEREE_SECRET="s"),
            2,
            f"port {port} on 127.0.0.1 is in use",
            "--port",
        )
        one_line_error(
            arena("web", "--port", str(port)), 2, f"arena web: port {port} on 127.0.0.1 is in use"
        )


def test_an_arena_home_that_cannot_be_written_says_what_to_do(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    home = str(blocker / "home")  # under a file: no folder can be made there
    env = {"ARENA_HOME": home, "ARENA_DATABASE_URL": "", "ARENA_REDIS_URL": ""}
    one_line_error(arena("db", "migrate", **env), 2, f"ARENA_HOME {home}", "can write")
    one_line_error(
        arena("match", "create", "--game", "hollywood-gin", **env, ARENA_REFEREE_SECRET=""),
        2,
        "ARENA_HOME",
    )
    one_line_error(arena("web", "--port", "0", **env), 2, f"arena web: ARENA_HOME {home}")


def test_exit_3_when_the_referee_of_a_session_goes_away() -> None:
    """As in the one-match mode: the SDK tries to reconnect for 10 s, then gives up."""
    own = RefereeProcess()
    try:
        session = own.matches.OpenSession(
            match_pb2.OpenSessionRequest(name="lost"), timeout=10, metadata=own.metadata
        )
        bot = subprocess.Popen(
            [sys.executable, "-m", "arena", "bot", "run", str(EXAMPLES / "random_bot.py")],
            env={**os.environ, "ARENA_REFEREE": own.address, "ARENA_SESSION_KEY": session.key},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            time.sleep(3)  # the bot has started and its session is on
            assert bot.poll() is None, bot.communicate()
            own.proc.kill()  # the referee goes away; the bot tries to reconnect for 10 s
            lost = time.monotonic()
            _out, err = bot.communicate(timeout=30)
        finally:
            bot.kill()
    finally:
        own.close()
    assert bot.returncode == 3, err
    assert time.monotonic() - lost < 20
    assert "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"arena bot run: no referee answers at {own.address}"), last
    assert "reconnecting failed for 10 s" in last and "arena referee --port" in last, last


def test_a_wrong_seat_token_says_where_tokens_come_from(referee: RefereeProcess) -> None:
    done = arena(
        "bot", "run", str(EXAMPLES / "random_bot.py"), "--referee", referee.address, "--token", "x"
    )
    one_line_error(done, 2, "knows no such seat token", "arena match create")


def test_a_wrong_platform_secret_says_what_to_do(referee: RefereeProcess) -> None:
    done = arena("match", "get", "m1", "--referee", referee.address, ARENA_REFEREE_SECRET="bad")
    one_line_error(done, 2, "refused the platform's credential", "ARENA_REFEREE_SECRET")


def test_bot_run_says_it_waits_and_what_happened_to_its_seat(
    referee: RefereeProcess, tmp_path: Path
) -> None:
    import json

    secret = {"ARENA_REFEREE_SECRET": referee.secret}
    created = arena(
        "match",
        "create",
        "--referee",
        referee.address,
        "--game",
        "hollywood-gin",
        "--option",
        "max_hands=1",
        "--seed",
        "1",  # a deal long enough for seat 0 to strike out (some end after two strikes)
        "--json",
        **secret,
    )
    tokens = json.loads(created.stdout)["tokens"]
    illegal = tmp_path / "illegal_bot.py"
    illegal.write_text(
        "from bots.sdk import Bot\n\n\nclass Illegal(Bot):\n"
        "    def decide(self, request):\n        return 'no such action'\n"
    )
    first = subprocess.Popen(
        [sys.executable, "-m", "arena", "bot", "run", str(illegal)],
        env={**os.environ, "ARENA_REFEREE": referee.address, "ARENA_TOKEN": tokens[0]},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(3)  # seat 0 joins first, and waits
        second = arena(
            "bot",
            "run",
            str(EXAMPLES / "heuristic_bot.py"),
            "--referee",
            referee.address,
            "--token",
            tokens[1],
        )
        out, err = first.communicate(timeout=60)
    finally:
        first.kill()
    assert first.returncode == 0 and second.returncode == 0, (err, second.stderr)
    assert "waiting for the other seats" in err.splitlines()[0]
    assert "referee: invalid: cannot read action 'no such action'" in err
    assert re.fullmatch(
        r"seat 0: 2nd of 2, score -?\d+ \(scores .*\); status invalid; the referee played for "
        r"it \d+ times; its last notice: .*forfeits.*\n",
        out,
    ), out
    assert re.fullmatch(r"seat 1: 1st of 2, score \d+ \(scores .*\); status ok\n", second.stdout)


def test_ratings_show_names_what_it_does_not_know(
    store: Store,
    store_db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", store_db_url)
    assert main(["ratings", "show", "--tournament", "7"]) == 2
    assert capsys.readouterr().err == "arena ratings show: no tournament 7\n"
    assert main(["ratings", "show", "--ladder", "7"]) == 2
    assert "no ladder 7" in capsys.readouterr().err
    assert main(["ratings", "show", "--game", "hollywood-gin"]) == 0
    assert "no rated results yet" in capsys.readouterr().out
    assert main(["ratings", "recompute", "--game", "hollywood-gin", "--json"]) == 0
    assert '"matches": 0' in capsys.readouterr().out
    assert main(["db", "migrate", "--json"]) == 0
    assert '"applied": []' in capsys.readouterr().out


def test_replay_and_export_name_a_missing_match(
    store: Store,
    store_db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", store_db_url)
    for command in ("replay", "export"):
        assert main([command, "424242"]) == 2
        assert capsys.readouterr().err == f"arena {command}: there is no match 424242\n"


def test_the_command_table_says_what_each_module_adds() -> None:
    """``arena.cli.COMMANDS`` and ``BENCH``, from which ``arena --help`` is made without
    loading a command's module, name every command and bench target that each module of
    ``arena.commands`` adds, with its help line."""
    import importlib
    import pkgutil

    import arena.commands
    from arena.cli import BENCH, COMMANDS

    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    targets: dict[str, tuple[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(arena.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"arena.commands.{info.name}")
        sub = argparse.ArgumentParser().add_subparsers()
        bench_sub = argparse.ArgumentParser().add_subparsers()
        module.register(sub, bench_sub)
        for action in sub._choices_actions:
            line, modules = found.get(action.dest, (str(action.help), ()))
            found[action.dest] = (line, (*modules, info.name))
        for action in bench_sub._choices_actions:
            targets[action.dest] = (str(action.help), info.name)
    assert found == COMMANDS
    assert targets == BENCH


def test_arena_help_loads_no_command_module() -> None:
    """``arena --help`` (and a command's own parse) loads only what it names."""
    script = (
        "import sys\n"
        "from arena.cli import build_parser\n"
        "build_parser(['--help'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('arena.commands.')))\n"
        "print('psycopg' in sys.modules)\n"
        "build_parser(['bot', 'list'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('arena.commands.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    first, store, then = done.stdout.splitlines()
    assert first == "[]" and store == "False", done.stdout  # nor the store's driver
    assert {"arena.commands.bot", "arena.commands.bot_check", "arena.commands.bot_run"} <= set(
        eval(then)
    )
    assert "arena.commands.worker" not in then and "arena.commands.web" not in then
