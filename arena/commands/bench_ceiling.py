"""``arena bench ceiling``: what the reference bot's search scores against the heuristic
bot when it sees every card, the bound of what inferring the hidden cards better can
gain (``docs/performance.md``, "The reference bot")."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.commands import add_command, examples, json_argument, print_table
from arena.errors import CommandError


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena bench ceiling``."""
    b = add_command(
        bench_sub,
        "ceiling",
        help="the reference bot's search seeing every card, against the heuristic bot",
        examples=examples(
            "arena bench ceiling --game gin-three --deals 100",
            "arena bench ceiling --game hollywood-gin --knowing hands",
            "arena bench ceiling --game hollywood-gin --knowing view --hands-at discard",
        ),
    )
    from referee.games import game_names

    b.add_argument("--game", required=True, choices=game_names(), help="the game: %(choices)s")
    b.add_argument(
        "--seats", type=int, default=None, help="seats at the table (default: the game's fewest)"
    )
    b.add_argument(
        "--deals",
        type=int,
        default=100,
        metavar="N",
        help="deals, each played with the seeing seat in every seat (default 100)",
    )
    b.add_argument("--seed", type=int, default=1, help="the first deal's seed (default 1)")
    b.add_argument(
        "--knowing",
        choices=("everything", "hands", "view"),
        default="everything",
        help="what the search is given: every card (default); the hands, not the stock's "
        "order (the Gin games and Flip Flop); or the seat's view, sampled as the reference "
        "bot samples",
    )
    b.add_argument(
        "--hands-at",
        default="",
        metavar="KINDS",
        help="with --knowing view, the Gin decisions at which the search knows the hands "
        "all the same, a comma-separated list of draw, discard (no knock legal) and knock "
        "(a knock legal): which decisions knowing the opponent's hand pays at",
    )
    b.add_argument(
        "--reveal",
        type=int,
        default=0,
        metavar="N",
        help="Hollywood Gin, with --knowing view: show the search N more of the opponent's "
        "cards at each decision (at random among those it cannot see), to measure what "
        "knowing part of that hand is worth",
    )
    json_argument(b, "one JSON object")
    b.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.bench import ceiling
    from referee.games import get_game

    spec = get_game(args.game)
    seats = spec.min_seats if args.seats is None else args.seats
    if not spec.min_seats <= seats <= spec.max_seats:
        raise CommandError(
            f"{args.game} is played by {spec.min_seats} to {spec.max_seats} seats, not {seats}"
        )
    if args.deals < 1:
        raise CommandError("--deals must be at least 1")
    if args.knowing == "hands" and args.game not in ceiling.HANDS_GAMES:
        raise CommandError(
            f"--knowing hands shuffles the stock, which holds every card not in a hand: it is "
            f"for {', '.join(ceiling.HANDS_GAMES)}, not {args.game}; leave it out to see "
            f"every card"
        )
    hands_at = tuple(k for k in args.hands_at.split(",") if k)
    if hands_at and args.knowing != "view":
        raise CommandError(
            "--hands-at gives the hands at some decisions of a search that "
            "knows the view at the others: add --knowing view"
        )
    unknown = sorted(set(hands_at) - set(ceiling.DECISIONS))
    if unknown:
        raise CommandError(
            f"--hands-at takes {', '.join(ceiling.DECISIONS)}, not {', '.join(unknown)}"
        )
    if hands_at and args.game not in ceiling.GIN_GAMES:
        raise CommandError(
            f"--hands-at names Gin decisions: it is for {' and '.join(ceiling.GIN_GAMES)}, "
            f"not {args.game}"
        )
    if args.reveal and (args.knowing != "view" or args.game != "hollywood-gin"):
        raise CommandError(
            "--reveal shows a Hollywood Gin opponent's cards to a search that knows its view: "
            "use it with --game hollywood-gin --knowing view"
        )
    if not 0 <= args.reveal <= 10:
        raise CommandError(f"--reveal is a number of cards from 0 to 10, not {args.reveal}")
    figures = ceiling.run(
        args.game, seats, args.deals, args.seed, args.knowing, hands_at, args.reveal
    )
    if args.json:
        print(json.dumps(figures))
        return 0
    from rich.table import Table

    title = f"arena bench ceiling: {args.game}, {seats} seats, {args.deals} deals"
    knowing = args.knowing + (f", the hands at {args.hands_at}" if hands_at else "")
    knowing += f" and {args.reveal} of the opponent's cards" if args.reveal else ""
    table = Table(title=f"{title}, knowing {knowing}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("games", str(figures["games"]))
    table.add_row(
        "score against the heuristic", f"{figures['score']:.1%} ± {figures['stderr']:.1%}"
    )
    elo = figures["elo"]
    table.add_row("Elo", "every game won or lost" if elo is None else f"{elo:+.0f}")
    table.add_row("sets scored the same in every seat", str(figures["sets_same_in_every_seat"]))
    if figures["placed_right"] is not None:
        table.add_row(
            "opponent's hidden cards its samples place right", f"{figures['placed_right']:.1%}"
        )
    for role, score in figures["by_role"].items():
        table.add_row(f"score as {role}", f"{score:.1%}")
    table.add_row("time", f"{figures['seconds']:.1f} s")
    print_table(table)
    return 0
