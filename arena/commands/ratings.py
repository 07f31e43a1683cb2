"""``arena ratings show | recompute``: a game's Elo table, the batch standings of a game,
tournament or ladder, and the Elo table rebuilt from stored results (docs/storage.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.commands import add_command, examples, game_argument, json_argument, print_table
from arena.commands.db import with_store
from arena.errors import CommandError
from worker.store import Store


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena ratings`` and its actions."""
    ratings = add_command(
        sub,
        "ratings",
        help="Elo tables and batch standings",
        examples=examples(
            "arena ratings show --game hollywood-gin", "arena ratings recompute --game rummy-500"
        ),
    )
    r_sub = ratings.add_subparsers(dest="ratings_command", required=True, metavar="ACTION")
    show = add_command(
        r_sub,
        "show",
        help="print the Elo table of a game, or the batch standings of a tournament or ladder",
        examples=examples(
            "arena ratings show --game hollywood-gin",
            "arena ratings show --tournament 3 --batch",
            "arena ratings show --game rummy-500 --duplicate --json",
        ),
    )
    game_argument(show, required=False)
    show.add_argument("--tournament", type=int, help="batch standings of a tournament")
    show.add_argument("--ladder", type=int, help="batch standings of a ladder")
    show.add_argument(
        "--batch", action="store_true", help="Bradley–Terry standings with 95%% intervals"
    )
    show.add_argument(
        "--prior", type=float, default=1.0, help="virtual draws vs 1500 per bot (batch; default 1)"
    )
    show.add_argument("--duplicate", action="store_true", help="results over duplicate sets")
    json_argument(show, "the table")
    show.set_defaults(func=run_show)
    recompute = add_command(
        r_sub,
        "recompute",
        help="rebuild a game's Elo table from stored results, in completion order",
        examples=examples(
            "arena ratings recompute --game hollywood-gin",
            "arena ratings recompute --game hollywood-gin --k 16 --json",
        ),
    )
    game_argument(recompute)
    recompute.add_argument(
        "--k", type=float, default=None, help="Elo K (default ARENA_ELO_K or 24)"
    )
    json_argument(recompute, "the figures")
    recompute.set_defaults(func=run_recompute)


def run_show(args: argparse.Namespace) -> int:
    if not (args.game or args.tournament or args.ladder):
        raise CommandError("give --game, --tournament or --ladder")

    def body(store: Store) -> int:
        if args.tournament is not None:
            store.tournament(args.tournament)  # StoreError "no tournament N" when unknown
        if args.ladder is not None and all(lad.id != args.ladder for lad in store.ladders()):
            raise CommandError(f"no ladder {args.ladder} (see `arena ladder status`)")
        scope = {"game": args.game, "tournament_id": args.tournament, "ladder_id": args.ladder}
        console = Console()
        if args.duplicate:
            rows = store.duplicate_standings(**scope)
            labels = store.labels([int(r.player) for r in rows])  # type: ignore[call-overload]
            data = [
                {
                    "bot": labels.get(r.player, str(r.player)),  # type: ignore[call-overload]
                    "sets": r.sets,
                    "set_points": r.set_points,
                    "mean_score": r.mean_score,
                }
                for r in rows
            ]
        elif args.batch or not args.game:
            standings = store.standings(**scope, prior_draws=args.prior)
            labels = store.labels([int(s.player) for s in standings])  # type: ignore[call-overload]
            data = [
                {
                    "bot": labels.get(s.player, str(s.player)),  # type: ignore[call-overload]
                    "rating": round(s.rating, 1),
                    "low": round(s.low, 1),
                    "high": round(s.high, 1),
                    "games": s.games,
                    "p_stronger_than_next": None
                    if s.p_stronger_than_next is None
                    else round(s.p_stronger_than_next, 3),
                }
                for s in standings
            ]
        else:
            data = [
                {"bot": r.label, "elo": round(r.rating, 1), "games": r.games}
                for r in store.ratings(args.game)
            ]
        if args.json:
            print(json.dumps(data))
            return 0
        if not data:
            console.print("no rated results yet: play a tournament or a ladder first")
            return 0
        table = Table()
        for column in data[0]:
            table.add_column(column, justify="left" if column == "bot" else "right")
        for row in data:
            table.add_row(*("" if v is None else str(v) for v in row.values()))
        print_table(table)
        return 0

    return with_store(body)


def run_recompute(args: argparse.Namespace) -> int:
    def body(store: Store) -> int:
        from arena.app import ratings
        from arena.app.actors import local_actor

        stats = ratings.recompute(store, local_actor(store), args.game, k=args.k)
        k = store.elo_k if args.k is None else args.k
        if args.json:
            print(
                json.dumps(
                    {
                        "game": args.game,
                        "matches": stats.matches,
                        "bots": stats.players,
                        "k": k,
                        "seconds": round(stats.seconds, 3),
                    }
                )
            )
            return 0
        print(
            f"recomputed Elo of {args.game}: {stats.matches} matches, {stats.players} bots, "
            f"K={k:g}, {stats.seconds:.2f} s"
        )
        return 0

    return with_store(body)
