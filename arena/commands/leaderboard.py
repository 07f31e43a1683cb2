"""``arena leaderboard``: every rated bot version of a game, by the ladder's rating when
the game has a ladder, else by online Elo (``docs/tournaments.md``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from arena.commands import add_command, examples, game_argument, json_argument, print_table
from arena.commands.db import with_store

if TYPE_CHECKING:
    from worker.store import Store


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
    def body(store: Store) -> int:
        from arena.app.reads import ladder_rows
        from arena.commands.ladder import leaderboard_table
        from worker import skill

        rows = store.ratings(args.game)
        ladder, pool = ladder_rows(store, args.game)
        if args.json:
            out: list[dict[str, Any]] = []
            if ladder is not None:
                for i, p in enumerate(pool):
                    line: dict[str, Any] = {
                        "place": i + 1,
                        "bot": p.label,
                        "bot_version_id": p.version,
                        "ladder": ladder.name,
                        "ladder_games": p.games,
                        "last_played": p.last_played_at.isoformat() if p.last_played_at else None,
                        "elo": None if p.elo is None else round(p.elo, 1),
                        "rating": None,
                    }
                    if p.mu is not None and p.sigma is not None:
                        value, low, high = skill.display(p.mu, p.sigma)
                        line.update(
                            rating=round(value, 1),
                            low=round(low, 1),
                            high=round(high, 1),
                            mu=round(p.mu, 3),
                            sigma=round(p.sigma, 3),
                            provisional=skill.provisional(p.sigma),
                        )
                    out.append(line)
            else:
                out = [
                    {
                        "place": i + 1,
                        "bot": r.label,
                        "bot_version_id": r.bot_version_id,
                        "elo": round(r.rating, 1),
                        "games": r.games,
                    }
                    for i, r in enumerate(rows)
                ]
            print(json.dumps(out, indent=2))
            return 0
        from rich.table import Table

        if ladder is not None:
            print_table(leaderboard_table(store, args.game))
            print(
                "rating: the ladder's Plackett–Luce rating on the Elo scale, with its 95% "
                "interval; provisional while uncertain. Elo: online Elo over every rated match"
            )
            return 0
        if not rows:
            print(f"no rated bot in {args.game} yet: play a tournament first")
            return 0
        table = Table(title=f"{args.game}: online Elo")
        for column in ("#", "bot", "Elo", "matches"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        for i, r in enumerate(rows):
            table.add_row(str(i + 1), r.label, f"{r.rating:.0f}", str(r.games))
        print_table(table)
        return 0

    return with_store(body)
