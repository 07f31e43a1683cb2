"""``arena leaderboard``: every rated bot version of a game, by the ladder's rating when
the game has a ladder, else by online Elo (``docs/tournaments.md``)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.commands import add_command, examples, game_argument, json_argument, print_table
from arena.commands.db import with_store
from arena.remote import remote


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena leaderboard``."""
    lb = add_command(
        sub,
        "leaderboard",
        help="every rated bot version of a game, by Elo",
        examples=examples(
            "arena leaderboard --game hollywood-gin", "arena leaderboard --game rummy-500 --json"
        ),
    )
    game_argument(lb)
    json_argument(lb, "the table (place counts from 1)")
    lb.set_defaults(func=cmd_leaderboard)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.app import reads
    from arena.app.actors import local_actor

    platform = remote()
    if platform is not None:
        with platform:
            lines = platform.get(f"/leaderboard/{args.game}")
        return print_leaderboard(args.game, lines, json_out=args.json)
    return with_store(
        lambda store: print_leaderboard(
            args.game, reads.leaderboard(store, local_actor(store), args.game), json_out=args.json
        )
    )


def print_leaderboard(game: str, lines: list[dict[str, Any]], *, json_out: bool) -> int:
    """Print a leaderboard as :func:`arena.app.reads.leaderboard` gives it: the ladder's
    pool with its ratings, or the online Elo of every rated version."""
    from rich.table import Table

    if json_out:
        print(json.dumps(lines, indent=2))
        return 0
    if not lines:
        print(f"no rated bot in {game} yet: play a tournament first")
        return 0
    if "ladder" in lines[0]:
        print_table(ladder_table(game, lines))
        print(
            "rating: the ladder's Plackett–Luce rating on the Elo scale, with its 95% "
            "interval; provisional while uncertain. Elo: online Elo over every rated match"
        )
        return 0
    table = Table(title=f"{game}: online Elo")
    for column in ("#", "bot", "Elo", "matches"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for line in lines:
        table.add_row(str(line["place"]), line["bot"], f"{line['elo']:.0f}", str(line["games"]))
    print_table(table)
    return 0


def ladder_table(game: str, lines: list[dict[str, Any]]) -> Any:
    """A ladder's leaderboard (:func:`arena.app.reads.leaderboard`) as a rich table: the
    ladder's rating with its interval and provisional mark, games and last played, beside
    the online Elo."""
    from rich.table import Table

    name = lines[0]["ladder"] if lines else None
    table = Table(title=f"{game}: ladder {name!r}" if name else game)
    for column in ("#", "bot", "rating", "95%", "games", "last played", "Elo"):
        table.add_column(column, justify="left" if column in ("bot", "last played") else "right")
    for line in lines:
        if line["rating"] is None:
            rating, interval = "–", "unrated"
        else:
            mark = " (provisional)" if line["provisional"] else ""
            rating = f"{line['rating']:.0f}{mark}"
            interval = f"[{line['low']:.0f}, {line['high']:.0f}]"
        last = line["last_played"]
        table.add_row(
            str(line["place"]),
            line["bot"],
            rating,
            interval,
            str(line["ladder_games"]),
            last[:19].replace("T", " ") if last else "never",
            "–" if line["elo"] is None else f"{line['elo']:.0f}",
        )
    return table
