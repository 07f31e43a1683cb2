"""The ``arena`` command line. Each module of ``arena.commands`` adds its own
subcommands (and ``arena bench`` targets), so this file stays a dispatcher: its table
(:data:`COMMANDS`, :data:`BENCH`) names each command's modules and help line, and a
command's modules are loaded only when it runs. A new command goes in the table too
(``tests/test_cli_conventions.py`` checks the table against the modules). The errors
the commands raise are in :mod:`arena.errors`."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

# One BLAS thread: the rating fits are small matrices, and on a busy machine a pool of
# BLAS threads per process makes them ten times slower (docs/performance.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from arena.app.errors import AppError
from arena.commands import EXAMPLES_HEADING, add_command, examples
from arena.errors import (  # noqa: F401 - the commands' errors, printed here
    CHECK_FAILED,
    OK,
    UNREACHABLE,
    USAGE,
    CommandError,
    Failed,
    ServerUnavailable,
)
from referee.engine import EngineError
from referee.settings import SettingsError


def version() -> str:
    """The installed package's version."""
    try:
        return importlib.metadata.version("rummy-arena")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


class ArenaParser(argparse.ArgumentParser):
    """A parser whose usage errors are one line, as every other error (docs/cli.md); its
    subcommands' parsers are of the same class."""

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: MESSAGE`` and where the usage is, and exit 2."""
        self.exit(USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


#: Every command: its help line, and the modules of ``arena.commands`` that add it (its
#: module first), in the order ``arena --help`` lists them. A command's modules are
#: loaded only when it runs, or its ``--help`` is asked for; the test of the command line
#: checks that this table says what the modules add.
COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "analyse": (
        "where a seat of a finished match lost: the reference bot weighs each decision",
        ("analyse",),
    ),
    "bot": ("bot tools: run, submit, list, show, retire", ("bot", "bot_check", "bot_run")),
    "db": ("the Postgres store: migrations", ("db",)),
    "demo": (
        "register the example bots and play a small tournament in each of the four games",
        ("demo",),
    ),
    "duel": ("is A stronger than B? play until an SPRT decides", ("duel",)),
    "sheet": (
        "play one seeded Hollywood Gin match in this process and print its sheet",
        ("engine",),
    ),
    "golden": (
        "golden match records (tests/golden): regenerate them, or check them (exit 1 when "
        "one differs)",
        ("engine",),
    ),
    "export": ("a stored match's record as JSON, the form of docs/viewer.md", ("export",)),
    "gauntlet": (
        "one bot against each of a list of bots, N matches each (a tournament)",
        ("gauntlet",),
    ),
    "ladder": ("a continuous ladder per game, driven by the scheduler", ("ladder",)),
    "leaderboard": ("every rated bot version of a game, by Elo", ("leaderboard",)),
    "login": ("use a remote platform: check an API key there and keep both", ("login",)),
    "match": ("create a match on a referee, or fetch one", ("match",)),
    "play": ("play matches between bot files on this machine and print a results table", ("play",)),
    "ratings": ("Elo tables and batch standings", ("ratings",)),
    "referee": ("run the gRPC referee service", ("referee",)),
    "replay": (
        "a stored match move by move, cards in colour (its JSON: arena export)",
        ("replay",),
    ),
    "status": (
        "what runs: workers and their hosts, queues, the last hour's matches, ladders, "
        "failing bots, referees and sandboxes (operators)",
        ("status",),
    ),
    "tournament": (
        "round-robin tournaments between registered bots",
        ("tournament", "tournament_standings"),
    ),
    "up": ("run a whole platform here: web app and API, a worker, the scheduler", ("up",)),
    "user": ("users and their API keys", ("user",)),
    "verify": (
        "re-run the engine on a match record and check it; for a stored match also check "
        "its seed against its commitment (exit 1 when either fails)",
        ("verify",),
    ),
    "web": ("the web viewer: leaderboards, tournaments, bots, replays, live matches", ("web",)),
    "worker": (
        "run a worker: Celery tasks that play matches, a referee and a bot pool",
        ("worker",),
    ),
    "scheduler": (
        "run the periodic work (re-queue matches whose worker vanished, ladder ticks)",
        ("worker",),
    ),
}
#: Every ``arena bench`` target, likewise.
BENCH: dict[str, tuple[str, str]] = {
    "ceiling": (
        "the reference bot's search seeing every card, against the heuristic bot",
        "bench_ceiling",
    ),
    "sample": (
        "a sample of what a seat cannot see, and a random playout from mid-hand",
        "bench_sample",
    ),
    "scale": (
        "finish, ladder tick, pages and storage at 10k, 100k and 1M finished matches",
        "bench_scale",
    ),
    "store": ("store throughput, record size, fetch latency", "db"),
    "engine": ("random legal play: hands/s and decisions/s (vs a reference)", "engine"),
    "codec": ("the view and its decision message per decision, every game, in process", "engine"),
    "referee": ("decisions per second through the referee vs bare gRPC ping-pong", "referee"),
    "tournament": (
        "a round robin through the whole platform vs the same matches played alone",
        "tournament",
    ),
    "web": ("server time of the replay and the leaderboard, on a scratch database", "web"),
    "sandbox": (
        "what the sandbox of hosted bots costs: bot start and per decision, on vs off",
        "worker",
    ),
    "admission": (
        "how long a genuine remote bot waits to be admitted, alone and during floods",
        "worker",
    ),
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser: with ``argv``, only the modules of the command it names are loaded
    (every other command is listed by its name and help alone, which is all ``arena
    --help`` needs); without, every command's (the whole tree)."""
    parser = ArenaParser(
        prog="arena",
        description="Rummy Arena: referee, tournaments and replays for rummy bots.",
        epilog=f"{EXAMPLES_HEADING}\n  arena demo\n  arena play BOT.py BOT.py --games 10\n"
        "  arena COMMAND --help\n\nConventions, exit codes and settings: docs/cli.md",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"arena {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = add_command(
        sub,
        "bench",
        help="benchmarks that print figures",
        examples=examples("arena bench engine --game hollywood-gin", "arena bench TARGET --help"),
    )
    bench_sub = bench.add_subparsers(dest="target", required=True, metavar="TARGET")
    named = _named(argv)
    if named is None:
        wanted = {m for _, modules in COMMANDS.values() for m in modules}
        wanted |= {m for _, m in BENCH.values()}
    elif named[0] == "bench":
        wanted = {BENCH[named[1]][1]} if named[1] in BENCH else set()
    else:
        wanted = set(COMMANDS[named[0]][1]) if named[0] in COMMANDS else set()
    for name, (_, modules) in COMMANDS.items():  # in the table's order: a stable --help
        for module in modules:
            if module in wanted:
                wanted.discard(module)
                importlib.import_module(f"arena.commands.{module}").register(sub, bench_sub)
        if name not in sub.choices:
            sub.add_parser(name, help=COMMANDS[name][0])  # listed; loaded when it runs
    for module in sorted(wanted):  # a bench target's module that adds no command
        importlib.import_module(f"arena.commands.{module}").register(sub, bench_sub)
    for target, (help_line, _) in BENCH.items():
        if target not in bench_sub.choices:
            bench_sub.add_parser(target, help=help_line)
    return parser


def _named(argv: Sequence[str] | None) -> tuple[str, str] | None:
    """The command (and bench target) ``argv`` names, or None for the whole tree."""
    if argv is None:
        return None
    words = [a for a in argv if not a.startswith("-")]
    if not words:
        return ("", "")
    return (words[0], words[1] if len(words) > 1 else "")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a usage error, printed by argparse
        return exc.code if isinstance(exc.code, int) else USAGE
    prog = getattr(args, "prog", f"arena {args.command}")  # the subcommand's full name
    try:
        code = args.func(args)
    except CommandError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return exc.exit_code
    except (EngineError, SettingsError, AppError) as exc:  # a bad game, option, ARENA_*
        # value, or a request the application layer refused (a key, a permission)
        print(f"{prog}: {exc}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`arena … | head`): stop quietly
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - no flush error at exit
        return 141
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
