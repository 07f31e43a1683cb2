"""One command module's commands alone, ``python -m arena.commands.MODULE``, as ``arena``
runs them but without importing the other modules: a referee or a bot that a test or a
benchmark starts is ready in a third of the time."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from arena.errors import CommandError


def register(sub: Any, bench_sub: Any) -> None:
    """Nothing: this module adds no command."""


def run_alone(register: Callable[[Any, Any], None], argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` with the commands (and ``bench`` targets) ``register`` adds, run the
    one asked for and return its exit code; a CommandError is one line on stderr."""
    parser = argparse.ArgumentParser(prog="arena")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    register(sub, bench.add_subparsers(dest="target", required=True, metavar="TARGET"))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CommandError as exc:
        print(f"{args.prog}: {exc}", file=sys.stderr)
        return exc.exit_code
