"""``arena bench scale``: the platform's costs as finished matches pile up, to a million
(``docs/performance.md``, "A million matches")."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.commands import add_command, examples, json_argument, print_table
from arena.commands.db import store_errors
from arena.errors import CommandError


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena bench scale``."""
    b = add_command(
        bench_sub,
        "scale",
        help="finish, ladder tick, pages and storage at 10k, 100k and 1M finished matches",
        examples=examples("arena bench scale", "arena bench scale --matches 100000 --json"),
    )
    b.add_argument(
        "--matches",
        type=int,
        default=1_000_000,
        metavar="N",
        help="finished matches at the last stage (default 1000000; stages at 10k and 100k "
        "below it)",
    )
    b.add_argument(
        "--repeats", type=int, default=20, help="timed calls of each figure per stage (default 20)"
    )
    json_argument(b, "one JSON object")
    b.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.bench import scale

    if args.matches < 100 or args.repeats < 1:
        raise CommandError("--matches must be at least 100 and --repeats at least 1")
    with store_errors(redis=False):
        figures = scale.run(matches=args.matches, repeats=args.repeats)
    if args.json:
        print(json.dumps(figures))
        return 0
    print_table(table(figures))
    for line in scale.misses(figures):
        print(f"missed: {line}")
    return 0


def table(figures: dict[str, Any]) -> Any:
    """The figures as a table: a row per figure, a column per stage, and the growth."""
    from rich.table import Table

    from arena.bench import scale

    stages = figures["stages"]
    out = Table(title=f"arena bench scale ({figures['repeats']} calls of each figure)")
    out.add_column("figure")
    for stage in stages:
        out.add_column(f"{stage['matches']:,} matches", justify="right")
    out.add_column("last / first", justify="right")
    for name in scale.timed_figures(stages[-1]):
        cells = [f"{s[name]['p50_ms']:.2f} ms" for s in stages]
        out.add_row(f"{name} p50", *cells, f"{figures['growth'][name]:.2f}×")
    for name in ("db_bytes_per_match", "gin_hand_bytes", "gin_record_bytes", "load_s"):
        unit = " s" if name == "load_s" else " B"
        out.add_row(name, *(f"{s[name]:,}{unit}" for s in stages), "")
    return out
