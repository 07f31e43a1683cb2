"""``arena demo``: the whole platform in one command. It starts what is not configured
(the embedded Postgres and Redis, a local worker with its referee and bot pool), registers
the example bots as house bots (the platform's user owns them: docs/api.md), plays a small
round robin in each of the four games with a progress display, prints each game's
standings and how to look at a match, and stops everything it started."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.commands import add_command, arena_command, examples
from arena.errors import CommandError

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"
#: The example bots entered in every game: (name prefix, file).
BOTS = (
    ("random", "random_bot.py"),
    ("minimal", "minimal_bot.py"),
    ("heuristic", "heuristic_bot.py"),
    ("search", "search_bot.py"),
)
#: Each game's demo: options that keep a match short, and matches per table.
GAMES: tuple[tuple[str, dict[str, Any], int], ...] = (
    ("hollywood-gin", {"max_hands": 3}, 2),
    ("gin-three", {"max_hands": 3}, 3),
    ("rummy-500", {"max_hands": 2}, 3),
    ("flip-flop", {"max_rounds": 3}, 3),
)


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    p = add_command(
        sub,
        "demo",
        help="register the example bots and play a small tournament in each of the four games",
        description="Register the example bots and play a small round robin in each of the "
        "four games, with the embedded Postgres and Redis under ARENA_HOME (or the configured "
        "ones) and a local worker; print each game's standings and how to look at a match.",
        examples=examples(
            "arena demo",
            "arena demo --games 1 --quiet",
            "ARENA_HOME=/tmp/arena-demo arena demo --seed 7",
        ),
    )
    p.add_argument(
        "--games",
        type=int,
        default=None,
        metavar="N",
        help="matches per table (default: 2 in Hollywood Gin, 3 in the others)",
    )
    p.add_argument("--seed", type=int, default=2026, help="seed of the deals (default 2026)")
    p.add_argument(
        "--concurrency", type=int, default=2, help="matches at once in the local worker (default 2)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.set_defaults(func=cmd_demo)


def register_examples(store: Any, game: str, actor: Any) -> list[str]:
    """Store the example bots for ``game`` (as ``NAME-GAME``) as house bots, owned by the
    platform's user, which anyone may play against (``actor`` must be an operator);
    returns their names."""
    from arena.app import bots
    from arena.app.packaging import ARCHIVE_FORMAT, package
    from worker.store import PLATFORM_USER

    names = []
    for prefix, file in BOTS:
        name = f"{prefix}-{game}"
        bot = package(EXAMPLES / file)
        bots.submit(
            store,
            actor,
            name=name,
            game=game,
            archive=bot.archive,
            command=bot.command,
            archive_format=ARCHIVE_FORMAT,
            owner=PLATFORM_USER,
        )
        names.append(name)
    return names


def cmd_demo(args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.app.actors import local_actor
    from arena.commands.tournament import create, follow
    from arena.commands.tournament_standings import report
    from arena.platform import platform

    if args.games is not None and args.games < 1:
        raise CommandError("--games must be at least 1")
    if args.concurrency < 1:
        raise CommandError("--concurrency must be at least 1")
    console = Console(stderr=True)
    with platform(workers=1, concurrency=args.concurrency) as running:
        store = running.store
        where = "embedded" if running.embedded else "configured"
        console.print(
            f"[bold]Rummy Arena demo[/bold]: Postgres and Redis {where}, one local worker "
            "(its referee and bot pool); the example bots "
            + ", ".join(prefix for prefix, _ in BOTS[:-1])
            + f" and {BOTS[-1][0]}"
        )
        played = []
        actor = local_actor(store)
        for game, options, games in GAMES:
            names = register_examples(store, game, actor)
            tournament_id, count = create(
                store,
                game=game,
                bots=names,
                games=args.games or games,
                table_size=None,
                duplicate=False,
                options=options,
                clock={},
                name=f"demo: {game}",
                seed=args.seed,
                actor=actor,
            )
            console.print(f"\n[bold]{game}[/bold]: tournament {tournament_id}, {count} matches")
            from worker import tasks

            tasks.start_drains(store, tournament_id, count, 2 * args.concurrency)
            follow(running, store.tournament(tournament_id), args.quiet, sweep=True)
            report(store, tournament_id, json_out=False)
            played.append(tournament_id)
        shown = store.list_matches(tournament_id=played[0], state="done", limit=1)
    match = str(shown[-1].id) if shown else "ID"
    print()
    arena = arena_command()
    hints = [
        (f"{arena} tournament standings {played[0]}", "a tournament's standings"),
        (f"{arena} leaderboard --game hollywood-gin", "every rated bot of a game"),
        (f"{arena} match show {match}", "one match: bots, results, events"),
        (f"{arena} replay {match}", "one match move by move, cards in colour"),
    ]
    width = max(len(line) for line, _ in hints) + 2
    print("Look again at any time (the embedded database keeps them under ARENA_HOME):")
    for line, what in hints:
        print(f"  {line:<{width}}# {what}")
    print(f"Or in a browser: run `{arena} web`, then open")
    print(f"  http://127.0.0.1:8000/tournaments/{played[0]}  (standings, cross-table, replays)")
    return 0
