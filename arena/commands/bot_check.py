"""``arena bot check PATH --game GAME``: the qualification a bot must pass, run on this
machine before submitting it (docs/bots.md, "Checking a bot"). No database.

The bot is packed as ``arena bot submit`` packs it and checked as a submission is (its
manifest, entry point, files, limits), then qualified as the platform qualifies a new
version (:mod:`worker.qualify`): the same matches, the same report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from arena.app import bots as app_bots
from arena.app.errors import Invalid
from arena.cli import CommandError
from arena.commands import add_command, bot_actions, examples, game_argument, json_argument
from arena.commands.bot import package, print_report


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena bot check``."""
    check = add_command(
        bot_actions(sub),
        "check",
        help="run a bot's qualification here before submitting it: one match at each seat "
        "count, against the random bot, hosted as a worker hosts it",
        examples=examples(
            "arena bot check mybot/ --game hollywood-gin",
            "arena bot check my_bot.py --game rummy-500 --json",
        ),
    )
    check.add_argument("path", type=Path, help="a Python bot file, or a folder with a manifest")
    game_argument(check)
    json_argument(check, "the qualification report")
    check.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """Qualify the bot at ``args.path``; exit 0 when it passes, 1 when it fails."""
    from referee.engine import UnknownGameError
    from referee.games import get_game
    from worker.qualify import qualify
    from worker.sandbox import SandboxUnavailable

    try:
        get_game(args.game)
    except UnknownGameError as exc:
        raise CommandError(str(exc)) from None
    bot = package(args.path)
    try:  # the checks of a submission, with their words
        app_bots.check_command(bot.command)
        runtime = app_bots.check_runtime(bot.runtime, bot.command)
        app_bots.check_entry_point(bot.command, app_bots.check_archive(bot.archive))
    except Invalid as exc:
        raise CommandError(str(exc)) from None
    try:
        report = qualify(bot.archive, bot.command, args.game, runtime=runtime)
    except SandboxUnavailable as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0 if report["qualified"] else 1
