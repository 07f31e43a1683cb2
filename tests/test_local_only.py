"""With a platform set (docs/cli.md, "Local and remote"), no command opens or starts a
store on this machine: each goes through the platform's API, or refuses in one line
that it works on this machine's store only, or needs no store at all. Every command of
``arena --help`` is run so, in a home of its own with no database configured (where
opening this machine's store would start an embedded Postgres in that home), and the
home is looked at afterwards."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.cli import build_parser
from referee import settings
from worker import broker, db

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bots" / "examples" / "random_bot.py"
#: A platform that does not answer: a command that calls it fails saying so.
PLATFORM = "http://127.0.0.1:9"
#: How long a command may run before it is stopped (a server, a benchmark): what it
#: opened by then is what is looked at.
RUN_S = 15
#: A value for each positional argument and required option, by its name.
VALUES = {
    "game": "hollywood-gin",
    "id": "1",
    "match_id": "1",
    "seat": "0",
    "name": "anns",
    "bot": "anns",
    "a": "anns",
    "b": "bobs",
    "hero": "anns",
    "against": "bobs",
    "bots": "anns,bobs",
    "prefix": "0123456789ab",
    "target": "1",
    "url": PLATFORM,
    "action": "check",
    "path": str(BOT),
    "file": str(BOT),
}


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """Every command's argv, with a value for each argument it requires."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if subs:
        for name, child in subs[0].choices.items():
            yield from _commands(child, (*path, name))
        return
    argv = list(path)
    for action in parser._actions:
        if action.option_strings and not action.required:
            continue
        if action.dest == "help":
            continue
        value = VALUES.get(action.dest, "x")
        argv += [action.option_strings[0], value] if action.option_strings else [value]
    yield argv


COMMANDS = list(_commands(build_parser()))


def _run(argv: list[str], home: Path) -> tuple[int | None, str]:
    """``arena ARGV`` in ``home`` with the platform set; its exit code (None: stopped
    after :data:`RUN_S`) and standard error."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in (db.DATABASE_URL_ENV, broker.REDIS_URL_ENV, settings.API_KEY)
    }
    env.update(
        {
            settings.PLATFORM: PLATFORM,
            settings.API_KEY: "0123456789ab." + "x" * 43,
            "ARENA_HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "HOME": str(home),
        }
    )
    if argv[0] == "bot" and argv[1] == "new":
        argv = [*argv[:2], str(home / "newbot"), *argv[3:]]
    if argv == ["referee"]:
        argv = ["referee", "--port", "0"]  # not the default port, which others may use
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", *argv],
        env=env,
        cwd=home,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, err = process.communicate(timeout=RUN_S)
        return process.returncode, err
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        _, err = process.communicate()
        return None, err


def test_every_command_has_a_command_to_test() -> None:
    assert len(COMMANDS) > 40
    assert ["worker"] in COMMANDS and ["user", "key", "new"] in COMMANDS


def test_with_a_platform_set_no_command_opens_a_store_here(tmp_path: Path) -> None:
    homes = {" ".join(argv): tmp_path / f"home-{i}" for i, argv in enumerate(COMMANDS)}
    for home in homes.values():
        home.mkdir()
    with ThreadPoolExecutor(4) as pool:
        done = dict(zip(homes, pool.map(_run, COMMANDS, homes.values()), strict=True))
    opened = {
        command: sorted(p.name for p in homes[command].iterdir() if p.name in ("postgres", "redis"))
        for command in homes
    }
    assert {c: o for c, o in opened.items() if o} == {}, "a store was opened on this machine"
    for command, (code, err) in done.items():
        assert "Traceback" not in err, (command, err)
        if "works on this machine's store only" in err:  # refused in one line, saying why
            assert code == 2 or code == 1, (command, code, err)
            assert err.count("\n") == 1, (command, err)
            assert PLATFORM in err and settings.PLATFORM in err, (command, err)


@pytest.mark.parametrize(
    "argv",
    [["worker"], ["web"], ["scheduler"], ["db", "migrate"], ["tournament", "run", "1"]],
)
def test_the_local_only_commands_refuse_naming_the_platform(
    argv: list[str], tmp_path: Path
) -> None:
    code, err = _run(argv, tmp_path)
    assert code not in (0, None), err
    assert "works on this machine's store only" in err, err
    assert f"a platform is set ({PLATFORM}, by {settings.PLATFORM})" in err, err
    assert not (tmp_path / "postgres").exists()
