"""The ``arena`` command line. Each module of ``arena.commands`` adds its own
subcommands (and ``arena bench`` targets), so this file stays a dispatcher."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

# One BLAS thread: the rating fits are small matrices, and on a busy machine a pool of
# BLAS threads per process makes them ten times slower (docs/performance.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import arena.commands  # after the BLAS setting, before numpy is imported
from arena.app.errors import AppError
from arena.commands import EXAMPLES_HEADING, add_command, examples
from referee.engine import EngineError
from referee.settings import SettingsError

#: Exit codes (docs/cli.md): done; the thing checked failed; usage or bad input; a server
#: (Postgres, Redis, a referee) could not be reached.
OK, CHECK_FAILED, USAGE, UNREACHABLE = 0, 1, 2, 3


class CommandError(Exception):
    """A command failed for a reason the user can act on; printed as one line, without a
    traceback, and the command exits with :attr:`exit_code`."""

    exit_code = USAGE


class Failed(CommandError):
    """What the command ran did not all succeed (matches of a tournament failed, a worker
    had to stop): exit 1."""

    exit_code = CHECK_FAILED


class ServerUnavailable(CommandError):
    """A server the command needs (Postgres, Redis, a referee) does not answer."""

    exit_code = UNREACHABLE


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


def build_parser() -> argparse.ArgumentParser:
    """The parser with every command module's subcommands."""
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
    for info in sorted(pkgutil.iter_modules(arena.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"arena.commands.{info.name}")
        module.register(sub, bench_sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    parser = build_parser()
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
