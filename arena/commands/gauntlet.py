"""``arena gauntlet``: one bot against each of a list of bots, a tournament scheduled
and played as ``arena tournament create`` does (``docs/tournaments.md``)."""

from __future__ import annotations

import argparse
from typing import Any

from arena.commands import add_command, examples, game_argument
from arena.commands.tournament import create_command, schedule_arguments
from arena.errors import CommandError


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena gauntlet``."""
    g = add_command(
        sub,
        "gauntlet",
        help="one bot against each of a list of bots, N matches each (a tournament)",
        examples=examples(
            "arena gauntlet heur --against rnd,mini --game hollywood-gin --run",
            "arena gauntlet heur --against a,b,c --game rummy-500 --games 4 --duplicate",
        ),
    )
    g.add_argument("hero", metavar="BOT", help="the bot that plays every match")
    g.add_argument("--against", required=True, help="comma-separated opponents")
    game_argument(g)
    g.add_argument(
        "--games", type=int, default=10, metavar="N", help="matches per opponent (default 10)"
    )
    schedule_arguments(g)
    g.set_defaults(func=cmd_gauntlet)


def cmd_gauntlet(args: argparse.Namespace) -> int:
    opponents = [b.strip() for b in args.against.split(",") if b.strip()]
    if not opponents:
        raise CommandError("--against needs at least one bot, comma-separated")
    return create_command(args, [args.hero, *opponents], "gauntlet")
