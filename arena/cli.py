"""The ``arena`` command line. Each module of ``arena.commands`` adds its own
subcommands (and ``arena bench`` targets), so this file stays a dispatcher."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

# One BLAS thread: the rating fits are small matrices, and on a busy machine a pool of
# BLAS threads per process makes them ten times slower (docs/performance.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import arena.commands  # after the BLAS setting, before numpy is imported
from referee.engine import EngineError


class CommandError(Exception):
    """A command failed for a reason the user can act on; printed without a traceback."""


def build_parser() -> argparse.ArgumentParser:
    """The parser with every command module's subcommands."""
    parser = argparse.ArgumentParser(
        prog="arena", description="Rummy Arena: referee, tournaments and replays for rummy bots."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="target", required=True, metavar="TARGET")
    for info in sorted(pkgutil.iter_modules(arena.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"arena.commands.{info.name}")
        module.register(sub, bench_sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except (CommandError, EngineError) as exc:
        print(f"arena {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`arena … | head`): stop quietly
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - no flush error at exit
        return 141
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
