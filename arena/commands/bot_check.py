"""``arena bot check PATH --game GAME``: the qualification a bot must pass, run on this
machine before submitting it (docs/bots.md, "Checking a bot"). No database.

The bot is packed as ``arena bot submit`` packs it and checked as a submission is (its
manifest, entry point, files, limits), then qualified as the platform qualifies a new
version (:mod:`worker.qualify`): the same matches, the same report. With ``--deal FILE``
it also plays each chosen deal at each of the deal's seats, and must pass those too."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.app import bots as app_bots
from arena.app.errors import Invalid
from arena.app.packaging import package
from arena.commands import add_command, bot_actions, examples, game_argument, json_argument
from arena.commands.bot import print_report
from arena.commands.deal_option import check_deal, read_deal
from arena.errors import CommandError

if TYPE_CHECKING:
    from worker.qualify import ChosenDeal


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
            "arena bot check my_bot.py --deal deal.toml --deal other.json",
        ),
    )
    check.add_argument("path", type=Path, help="a Python bot file, or a folder with a manifest")
    game_argument(check, required=False)
    check.add_argument(
        "--deal",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="also play the chosen deal this TOML or JSON file names (docs/bots.md, 'Chosen "
        "deals') once with the bot at each of its seats, the random bot at the others; "
        "repeatable; the files' game is played (--game, if given, must agree)",
    )
    json_argument(check, "the qualification report")
    check.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """Qualify the bot at ``args.path``; exit 0 when it passes, 1 when it fails."""
    from referee.engine import UnknownGameError
    from referee.games import get_game
    from worker.qualify import qualify
    from worker.sandbox import SandboxUnavailable

    deals = [read_deal(path) for path in args.deal]
    if args.game is None and not deals:
        raise CommandError("name the game: --game GAME, or a --deal FILE of that game")
    game = args.game or deals[0]["game"]
    try:
        get_game(game)
    except UnknownGameError as exc:
        raise CommandError(str(exc)) from None
    chosen = [_chosen(path, deal, game, args) for path, deal in zip(args.deal, deals, strict=True)]
    bot = package(args.path)
    try:  # the checks of a submission, with their words
        app_bots.check_command(bot.command)
        runtime = app_bots.check_runtime(bot.runtime, bot.command)
        members = app_bots.check_archive(bot.archive)
        app_bots.check_entry_point(bot.command, app_bots.files_of(members))
    except Invalid as exc:
        raise CommandError(str(exc)) from None
    try:
        report = qualify(bot.archive, bot.command, game, runtime=runtime, deals=chosen)
    except SandboxUnavailable as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0 if report["qualified"] else 1


def _chosen(path: Path, deal: dict[str, Any], game: str, args: argparse.Namespace) -> ChosenDeal:
    """The deal file at ``path``, of ``game`` and dealt once with the options and seats it
    will be played with, as the qualification plays it."""
    from referee.games import get_game
    from worker.qualify import ChosenDeal, match_options

    if deal["game"] != game:
        given = "--game" if args.game is not None else f"the game of {args.deal[0]}"
        raise CommandError(f"{path} is a deal of {deal['game']}, not of {game} ({given})")
    seats = deal.get("seats", get_game(game).default_seats)
    options = match_options(game, deal.get("options"))
    check_deal(deal, options, seats, path)
    return ChosenDeal(str(path), deal["deal"], seats, options, deal.get("seed"))
