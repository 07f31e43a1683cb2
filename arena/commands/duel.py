"""``arena duel A B``: two bots play until a sequential probability ratio test accepts "A
is stronger than B by at least elo1" or "by at most elo0" (``docs/duels.md``). The duel
is made through the application layer (here, or through the API on a remote platform)
and played to its verdict by the platform (:mod:`worker.duel`): this command follows it,
printing a line each time its test moves, then the verdict."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from arena.commands import (
    add_command,
    arena_command,
    examples,
    game_argument,
    json_argument,
    option_argument,
)
from arena.commands.engine import game_options
from arena.errors import CommandError
from arena.remote import remote

if TYPE_CHECKING:
    from arena.platform import Platform

#: How often the duel reads its results when no notice comes (seconds).
POLL_S = 0.5


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    d = add_command(
        sub,
        "duel",
        help="is A stronger than B? play until an SPRT decides",
        examples=examples(
            "arena duel heur rnd --game hollywood-gin --elo0 0 --elo1 50",
            "arena duel mine@v2 mine@v1 --game hollywood-gin --duplicate --json",
            "arena duel mine heur --game flip-flop --seats 4 --duplicate",
        ),
    )
    d.add_argument("a", metavar="A", help="bot name (its latest version) or NAME@vN")
    d.add_argument("b", metavar="B", help="bot name (its latest version) or NAME@vN")
    game_argument(d)
    d.add_argument("--elo0", type=float, default=0.0, help="H0: A is at most this much stronger")
    d.add_argument("--elo1", type=float, default=20.0, help="H1: A is at least this much stronger")
    d.add_argument("--alpha", type=float, default=0.05, help="false 'stronger' rate (0.05)")
    d.add_argument("--beta", type=float, default=0.05, help="missed 'stronger' rate (0.05)")
    d.add_argument(
        "--seats",
        type=int,
        default=None,
        help="the table: A in one seat, B in the others (default: 2 where the game is "
        "played by two, else its smallest table); A's score is its mean against B's seats",
    )
    d.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal once with A in each seat (twice with the seats swapped, at "
        "two); the set is one outcome",
    )
    d.add_argument("--batch", type=int, default=8, help="matches queued at a time (default 8)")
    d.add_argument(
        "--max-games", type=int, default=20_000, help="stop undecided after this many games"
    )
    option_argument(d)
    d.add_argument(
        "--clock",
        action="append",
        default=[],
        metavar="KEY=MS",
        help="clock rules, repeatable: decision_ms, bank_ms, strike_limit, join_ms",
    )
    d.add_argument("--seed", type=int, default=None, help="seed of the deals (default random)")
    d.add_argument(
        "--local-workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes to start here (default: 1 with a private Redis, else 0)",
    )
    d.add_argument(
        "--concurrency", type=int, default=2, help="matches at once per local worker (default 2)"
    )
    json_argument(d, "the final state")
    d.set_defaults(func=cmd_duel)


def cmd_duel(args: argparse.Namespace) -> int:
    from arena.commands.engine import clock_rules
    from referee import settings

    asked = {
        "a": args.a,
        "b": args.b,
        "game": args.game,
        "elo0": args.elo0,
        "elo1": args.elo1,
        "alpha": args.alpha,
        "beta": args.beta,
        "duplicate": args.duplicate,
        "batch": args.batch,
        "max_games": args.max_games,
        "options": game_options(args.game, args.option),
        "clock": clock_rules(args.clock),
        "seed": args.seed,
        "seats": args.seats,
    }
    platform = remote()
    if platform is not None:
        with platform:
            made = platform.post("/duels", asked)
            return _follow(made, lambda: platform.get(f"/duels/{made['tournament']}"), args.json)
    from arena.platform import platform as local_platform

    workers = args.local_workers
    if workers is None:
        workers = 0 if settings.load().redis_url else 1
    if workers < 0 or args.concurrency < 1:
        raise CommandError("--local-workers must be 0 or more, --concurrency at least 1")
    with local_platform(workers=workers, concurrency=args.concurrency) as running:
        return _duel_here(running, asked, args.json)


def _duel_here(running: Platform, asked: dict[str, Any], json_out: bool) -> int:
    """Make the duel on this machine's platform and follow it; this command also does the
    scheduler's work meanwhile (the sweep, which takes the duel's steps)."""
    from arena.app import duels
    from arena.app.actors import local_actor
    from worker import tasks

    store = running.store
    actor = local_actor(store)
    made = duels.create(
        store, actor, dispatch=lambda t, n: tasks.start_drains(store, t, n), **asked
    )

    def read() -> dict[str, Any]:
        if running.workers and len(running.dead_workers()) == len(running.workers):
            raise CommandError(f"every local worker stopped; see {running.logs}")
        tasks.sweep_now(store)
        return duels.status(store, actor, made.tournament)

    return _follow(asdict(made), read, json_out)


def _follow(made: dict[str, Any], read: Callable[[], dict[str, Any]], json_out: bool) -> int:
    """Say what the duel tests, print a line each time its test moves, and its verdict
    when the platform has stopped it. Stopped early (Ctrl-C), say where it goes on."""
    tournament = made["tournament"]
    state = read()
    print(_header(state), file=sys.stderr, flush=True)
    last = ""
    try:
        while state["state"] not in ("done", "cancelled"):
            line = _line(state)
            if line != last:
                print(line, file=sys.stderr, flush=True)
                last = line
            time.sleep(POLL_S)
            state = read()
    except (KeyboardInterrupt, SystemExit):
        print(
            f"stopped following duel {tournament}; the platform plays it on whenever its "
            f"workers run: {arena_command()} tournament standings {tournament} shows it, "
            f"{arena_command()} tournament cancel {tournament} stops it",
            file=sys.stderr,
        )
        raise
    return _report(state, json_out)


def _header(state: dict[str, Any]) -> str:
    return (
        f"duel (tournament {state['tournament']}): {state['a']} vs {state['b']} in "
        f"{state['game']}; H0: A ≤ {state['elo0']:+g} Elo, H1: A ≥ {state['elo1']:+g} Elo, "
        f"alpha {state['alpha']}, beta {state['beta']}"
        + (f", {state['seats']} seats" if state.get("seats", 2) != 2 else "")
        + (", duplicate sets" if state["pentanomial"] else "")
    )


def _line(test: dict[str, Any]) -> str:
    """One line of a test's state (:meth:`Sprt.as_dict`)."""
    elo = test["elo"]
    shown = ""
    if elo is not None:
        low = "-inf" if elo["low"] is None else f"{elo['low']:+.0f}"
        high = "+inf" if elo["high"] is None else f"{elo['high']:+.0f}"
        mid = elo["elo"]
        centre = ("+inf" if elo["score"] > 0.5 else "-inf") if mid is None else f"{mid:+.0f}"
        shown = f", A {centre} Elo [{low}, {high}]"
    sets = "pairs" if test.get("opponents", 1) == 1 else "sets"
    unit = sets if test["pentanomial"] else "games"
    return (
        f"{test['games']} games ({sum(test['counts'])} {unit} {list(test['counts'])}): "
        f"LLR {test['llr']:+.2f} in [{test['lower']:.2f}, {test['upper']:.2f}]{shown}"
    )


def _report(state: dict[str, Any], json_out: bool) -> int:
    """The duel's verdict and its test when it decided (when the game limit came first,
    or the duel was cancelled: its test as it stands)."""
    result = state["result"] or {**state, "verdict": "continue", "cancelled": 0}
    a, b = state["a"], state["b"]
    verdict = {
        "H1": f"H1 accepted: {a} is stronger than {b} by at least {result['elo1']:g} Elo",
        "H0": f"H0 accepted: {a} is not stronger than {b} by more than {result['elo0']:g} Elo",
        "continue": "no verdict: the game limit came first (raise --max-games)"
        if state["state"] == "done"
        else "no verdict: the duel was cancelled",
    }[result["verdict"]]
    if json_out:
        fields = {k: result[k] for k in _TEST_FIELDS if k in result}
        print(
            json.dumps(
                {
                    "tournament": state["tournament"],
                    "a": a,
                    "b": b,
                    "verdict": result["verdict"],
                    "cancelled": result.get("cancelled", 0),
                    **fields,
                },
                allow_nan=False,
            )
        )
    else:
        print(_line(result))
        print(verdict)
        print(f"the games: {arena_command()} tournament standings {state['tournament']}")
    return 0


#: The test's fields a duel's JSON report carries (:meth:`Sprt.as_dict`).
_TEST_FIELDS = (
    "elo0", "elo1", "alpha", "beta", "pentanomial", "counts", "pending", "opponents", "games",
    "llr", "lower", "upper", "status", "elo",
)  # fmt: skip
