"""``arena ladder start | stop | status``: a continuous ladder per game among the newest
version of every bot, driven by the scheduler (``docs/tournaments.md``)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from arena.app import ladders
from arena.app.actors import local_actor
from arena.commands import (
    add_command,
    examples,
    game_argument,
    json_argument,
    option_argument,
    print_table,
)
from arena.commands.db import with_store
from arena.commands.engine import game_options, table_size
from arena.errors import CommandError

if TYPE_CHECKING:
    from worker.store import Store

#: How often a ladder run in the foreground (no cluster) ticks and redraws (seconds).
FOREGROUND_TICK_S = 2.0


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    lad = add_command(
        sub,
        "ladder",
        help="a continuous ladder per game, driven by the scheduler",
        examples=examples(
            "arena ladder start --game hollywood-gin --seconds 60",
            "arena ladder status",
            "arena ladder stop hollywood-gin",
        ),
    )
    lsub = lad.add_subparsers(dest="ladder_command", required=True, metavar="ACTION")
    start = add_command(
        lsub,
        "start",
        help="run a ladder among the newest version of every bot of a game",
        examples=examples(
            "arena ladder start --game hollywood-gin --seconds 60",
            "ARENA_REDIS_URL=redis://host:6379/0 arena ladder start --game rummy-500",
        ),
    )
    game_argument(start)
    start.add_argument("--name", default=None, help="the ladder's name (default: the game's)")
    start.add_argument(
        "--in-flight", type=int, default=4, help="matches queued or running at once (default 4)"
    )
    start.add_argument(
        "--placement",
        type=int,
        default=6,
        help="games a new version plays first, against the whole pool (default 6)",
    )
    start.add_argument("--table-size", type=int, default=None, metavar="K", help="bots per match")
    option_argument(start)
    start.add_argument(
        "--clock",
        action="append",
        default=[],
        metavar="KEY=MS",
        help="clock rules, repeatable: decision_ms, bank_ms, strike_limit, join_ms",
    )
    start.add_argument(
        "--local-workers",
        type=int,
        default=None,
        metavar="N",
        help="run the ladder here, in the foreground until Ctrl-C, with N local workers "
        "(default: 1 when Redis is embedded; with ARENA_REDIS_URL the command returns and "
        "`arena scheduler` and the workers run the ladder)",
    )
    start.add_argument(
        "--concurrency", type=int, default=2, help="matches at once per local worker (default 2)"
    )
    start.add_argument(
        "--seconds", type=float, default=None, help="in the foreground: stop after this long"
    )
    start.set_defaults(func=cmd_start)
    stop = add_command(
        lsub,
        "stop",
        help="stop scheduling a ladder's matches",
        examples=examples("arena ladder stop hollywood-gin"),
    )
    stop.add_argument("name", help="the ladder's name (by default its game's name)")
    stop.set_defaults(func=cmd_stop)
    for action, member, text in (
        (
            "withdraw",
            False,
            "take your bot out of a ladder's pool (its finished matches stay rated)",
        ),
        ("join", True, "put your withdrawn bot back in a ladder's pool"),
    ):
        p = add_command(
            lsub,
            action,
            help=text,
            examples=examples(f"arena ladder {action} hollywood-gin mybot"),
        )
        p.add_argument("name", help="the ladder's name (by default its game's name)")
        p.add_argument("bot", help="the bot's name")
        p.set_defaults(func=cmd_membership, member=member)
    status = add_command(
        lsub,
        "status",
        help="every ladder: game, running or not, matches",
        examples=examples("arena ladder status", "arena ladder status --json"),
    )
    json_argument(status, "the ladders")
    status.set_defaults(func=cmd_status)


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    from arena.commands.engine import clock_rules
    from referee.engine import UnknownGameError
    from referee.games import get_game

    try:
        spec = get_game(args.game)
    except UnknownGameError as exc:
        raise CommandError(str(exc)) from None
    options = game_options(args.game, args.option)
    size = table_size(args.game, args.table_size or spec.default_seats)
    if args.in_flight < 1 or args.placement < 0:
        raise CommandError("--in-flight must be at least 1 and --placement at least 0")
    return {
        "options": options,
        "clock": clock_rules(args.clock),
        "in_flight": args.in_flight,
        "placement": args.placement,
        "table_size": size,
    }


def cmd_start(args: argparse.Namespace) -> int:
    from referee.settings import load

    settings = _settings(args)
    name = args.name or args.game
    workers = args.local_workers
    if workers is None:
        workers = 0 if load().redis_url else 1
    if workers == 0:

        def start(store: Store) -> int:
            ladder = ladders.start(store, local_actor(store), args.game, name, settings)
            print(
                f"ladder {ladder.name!r} ({ladder.game}) runs: `arena scheduler` queues its "
                "matches and the workers play them; see `arena leaderboard --game "
                f"{ladder.game}`"
            )
            return 0

        return with_store(start)
    return _foreground(args, name, settings, workers)


def _foreground(args: argparse.Namespace, name: str, settings: dict[str, Any], workers: int) -> int:
    """Run the ladder here: local workers, a tick every few seconds, the leaderboard
    redrawn, until Ctrl-C (or ``--seconds``)."""
    from rich.console import Console
    from rich.live import Live

    from arena.platform import platform
    from worker import ladder, tasks

    console = Console(stderr=True)
    with platform(workers=workers, concurrency=args.concurrency) as running:
        store = running.store
        started = ladders.start(store, local_actor(store), args.game, name, settings)
        console.print(
            f"ladder {started.name!r} ({started.game}) runs here until Ctrl-C "
            f"({workers} local worker{'s' if workers > 1 else ''})"
        )
        rng = random.Random()
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        try:
            with Live(console=console, auto_refresh=False) as live:
                while deadline is None or time.monotonic() < deadline:
                    ladder.tick(store, tasks.play_match.delay, rng)
                    tasks.sweep_now(store)
                    if console.is_terminal:
                        live.update(leaderboard_table(store, started.game), refresh=True)
                    time.sleep(FOREGROUND_TICK_S)
        except KeyboardInterrupt:
            pass
        finally:
            store.stop_ladder(started.name)
        ladder.tick(store, lambda _: None, rng)  # rate what finished; queue nothing more
        print_table(leaderboard_table(store, started.game))
        progress = store.ladder_progress(started.id)
        print(
            f"ladder {started.name!r} stopped: {progress['done']} matches played; "
            f"{progress['queued']} left queued (start it again to play on)"
        )
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    def stop(store: Store) -> int:
        ladders.stop(store, local_actor(store), args.name)
        print(f"ladder {args.name!r} stopped: no new matches (those queued still play)")
        return 0

    return with_store(stop)


def cmd_membership(args: argparse.Namespace) -> int:
    """Withdraw a bot from a ladder, or let it join again (its owner or an operator), here
    or on a remote platform."""
    from arena.remote import remote

    platform = remote()
    if platform is not None:
        with platform:
            path = f"/ladders/{quote(args.name, safe='')}/bots/{quote(args.bot, safe='')}"
            done = platform.call("POST" if args.member else "DELETE", path)
        return _print_membership(done)

    def body(store: Store) -> int:
        found = ladders.set_member(store, local_actor(store), args.name, args.bot, args.member)
        return _print_membership(dataclasses.asdict(found))

    return with_store(body)


def _print_membership(done: dict[str, Any]) -> int:
    where = f"ladder {done['ladder']!r}"
    if done["member"]:
        said = "is in" if not done["changed"] else "joined"
        print(f"{done['bot']} {said} {where}'s pool")
    else:
        said = "was withdrawn already from" if not done["changed"] else "withdrawn from"
        print(f"{done['bot']} {said} {where}: no new matches there (those queued still play)")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from arena.remote import remote

    platform = remote()
    if platform is not None:
        with platform:
            return _print_status(platform.get("/ladders"), json_out=args.json)
    return with_store(
        lambda store: _print_status(ladders.status(store, local_actor(store)), json_out=args.json)
    )


def _print_status(rows: list[dict[str, Any]], *, json_out: bool) -> int:
    if json_out:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no ladders yet: arena ladder start --game GAME")
    for lad in rows:
        p = lad["progress"]
        print(
            f"{lad['name']:<16} {lad['game']:<14} {'running' if lad['running'] else 'stopped':<8} "
            f"{p['done']} done, {p['queued'] + p['running']} in flight, "
            f"{p['failed']} failed; in flight at most {lad['in_flight_limit']}"
        )
    return 0


# -- the leaderboard -------------------------------------------------------------------------


def leaderboard_table(store: Store, game: str) -> Any:
    """The leaderboard of ``game`` as the ladder shows it while it runs."""
    from arena.app import reads
    from arena.app.actors import ANONYMOUS
    from arena.commands.leaderboard import ladder_table

    return ladder_table(game, reads.leaderboard(store, ANONYMOUS, game))
