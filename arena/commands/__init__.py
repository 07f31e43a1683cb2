"""Subcommands of ``arena``: each module defines ``register(subparsers, bench_subparsers)``
and sets ``func`` on its parsers; the function returns the exit code. Every parser is made
with :func:`add_command`, so its ``--help`` ends with example lines (docs/cli.md)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

#: The heading of the example lines at the end of every ``--help``.
EXAMPLES_HEADING = "examples:"
#: Where each game's options (``--option KEY=VALUE``) are listed.
OPTIONS_DOCS = "docs/rules/GAME.md and docs/games/"


def arena_command() -> str:
    """How to run ``arena`` from where the user is, as a hint prints it: ``arena`` when
    that name on the PATH is this installation, else the path of this installation's
    script (``.venv/bin/arena`` after ``make``), else ``python -m arena``."""
    import os
    import shutil
    import sys
    from pathlib import Path

    script = Path(sys.executable).with_name("arena")
    found = shutil.which("arena")
    if found is not None and script.exists() and os.path.samefile(found, script):
        return "arena"
    if script.exists():
        relative = os.path.relpath(script)
        return relative if not relative.startswith("..") else str(script)
    return f"{sys.executable} -m arena"


def examples(*lines: str) -> str:
    """The epilog of a ``--help``: one to three example command lines."""
    assert 1 <= len(lines) <= 3, "a command's help shows one to three examples"
    return "\n".join([EXAMPLES_HEADING, *(f"  {line}" for line in lines)])


def add_command(sub: Any, name: str, *, help: str, examples: str, **kwargs: Any) -> Any:
    """A subcommand whose ``--help`` describes it and ends with ``examples``; its errors
    are printed after its full name (``arena match get: …``)."""
    parser = sub.add_parser(
        name,
        help=help,
        description=textwrap.fill(kwargs.pop("description", help[:1].upper() + help[1:] + ".")),
        epilog=examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )
    parser.set_defaults(prog=parser.prog)
    return parser


def game_argument(parser: Any, *, required: bool = True, default: str | None = None) -> None:
    """``--game``, one of the registered games (listed by ``--help``)."""
    from referee.games import game_names

    def game(text: str) -> str:
        if text not in game_names():
            raise argparse.ArgumentTypeError(
                f"unknown game {text!r}; games: {', '.join(game_names())}"
            )
        return text

    parser.add_argument(
        "--game",
        type=game,
        choices=game_names(),
        required=required,
        default=default,
        metavar="GAME",
        help="the game: %(choices)s" + (f" (default {default})" if default else ""),
    )


def option_argument(parser: Any) -> None:
    """``--option KEY=VALUE``, repeatable: a game option."""
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a game option, repeatable; each game's options are listed in {OPTIONS_DOCS}",
    )


def json_argument(parser: Any, what: str = "the result") -> None:
    """``--json``: print the report as JSON on stdout instead of text."""
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def place(rank: int) -> str:
    """A finishing place for people, from a rank that counts from 0 (as in JSON and the
    protocol): "1st", "2nd", "3rd", "4th"."""
    n = rank + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def wide_console() -> Any:
    """A console for text and tables on stdout: the terminal's width, or 160 columns when
    the output goes to a file or a pipe (rich's 80 would fold the tables)."""
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 160)


def print_table(table: Any) -> None:
    """Print a rich table on stdout, as every command prints its tables: at the terminal's
    width (wrapping cells where it must), or, to a file or a pipe, which have no width, at
    the table's own, so that no row is folded or cut."""
    from rich.console import Console

    Console(width=None if sys.stdout.isatty() else sys.maxsize).print(table)


def plain_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> Any:
    """A rich table of plain columns for listings that scripts and tests read: no box
    and no padding at its edges, so a line is its cells two spaces apart, and each cell's
    text as given (a name is never read as markup)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False)
    for column in header:
        table.add_column(column)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def bot_actions(sub: Any) -> Any:
    """The ACTION subparsers of ``arena bot``: running a bot (``bot_run``) and registering
    one (``bot``) live apart but share the one command."""
    return _actions(
        sub,
        "bot",
        help="bot tools: run, submit, list, show, retire",
        examples=examples(
            "arena bot run bots/examples/heuristic_bot.py --referee 127.0.0.1:50051 --token T",
            "arena bot submit bots/examples/heuristic_bot.py --game hollywood-gin",
            "arena bot list",
        ),
    )


def tournament_actions(sub: Any) -> Any:
    """The ACTION subparsers of ``arena tournament``: scheduling and playing tournaments
    (``tournament``) and reading their standings (``tournament_standings``) live apart
    but share the one command."""
    return _actions(
        sub,
        "tournament",
        help="round-robin tournaments between registered bots",
        examples=examples(
            "arena tournament create --game hollywood-gin --bots rnd,heur,mini --games 4 --run",
            "arena tournament standings 1",
            "arena tournament list",
        ),
    )


def _actions(sub: Any, name: str, *, help: str, examples: str) -> Any:
    """The ACTION subparsers of the command ``name``, made by whichever command module
    asks first."""
    parser = sub.choices.get(name)
    if parser is None:
        parser = add_command(sub, name, help=help, examples=examples)
        actions = parser.add_subparsers(dest=f"{name}_command", required=True, metavar="ACTION")
        parser.set_defaults(**{f"{name}_actions": actions})
    return parser.get_default(f"{name}_actions")
