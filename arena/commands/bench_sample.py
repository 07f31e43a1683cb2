"""``arena bench sample``: a sample of what a seat cannot see and a random playout from
the middle of a hand, against a fresh deal played out (``docs/performance.md``,
"Sampling for search")."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.commands import add_command, examples, json_argument, print_table
from arena.errors import CommandError


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena bench sample``."""
    b = add_command(
        bench_sub,
        "sample",
        help="a sample of what a seat cannot see, and a random playout from mid-hand",
        examples=examples("arena bench sample", "arena bench sample --game rummy-500 --json"),
    )
    from referee.games import game_names

    b.add_argument(
        "--game",
        action="append",
        default=None,
        choices=game_names(),
        metavar="GAME",
        help="the game: %(choices)s (repeatable; default all four)",
    )
    b.add_argument(
        "--positions", type=int, default=200, metavar="N", help="mid-hand positions (default 200)"
    )
    b.add_argument("--repeats", type=int, default=20, help="timed calls per position (default 20)")
    json_argument(b, "one JSON object per game")
    b.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.bench import sample

    if args.positions < 1 or args.repeats < 1:
        raise CommandError("--positions and --repeats must be at least 1")
    games = args.game or list(sample.ONE_HAND)
    figures = [sample.run(g, args.positions, args.repeats) for g in games]
    if args.json:
        print(json.dumps(figures))
        return 0
    from rich.table import Table

    table = Table(title=f"arena bench sample (medians over {args.positions} positions)")
    for column in (
        "game",
        "sample",
        "sample + playout",
        "actions",
        "fresh deal + playout",
        "ratio",
    ):
        table.add_column(column, justify="left" if column == "game" else "right")
    for f in figures:
        table.add_row(
            f["game"],
            f"{f['sample_us']:.0f} µs",
            f"{f['sample_and_playout_us']:.0f} µs",
            f"{f['playout_actions']:.0f}",
            f"{f['deal_and_playout_us']:.0f} µs",
            f"{f['ratio_to_a_fresh_hand']:.2f}",
        )
    print_table(table)
    return 0
