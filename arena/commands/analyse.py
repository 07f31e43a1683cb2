"""``arena analyse``: where a seat of a stored match lost, decision by decision, as the
reference bot sees it from that seat's knowledge (``arena.app.analysis``)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.commands import add_command, examples, json_argument, print_table
from arena.commands.db import with_store
from worker.store import Store


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena analyse``."""
    a = add_command(
        sub,
        "analyse",
        help="where a seat of a finished match lost: the reference bot weighs each decision",
        description="Go through every decision of one seat of a finished match and print, "
        "for each, what the reference bot (bots/examples/search_bot.py) would have played, "
        "the estimated value of the action played and of the best one, and flag the "
        "decisions that lost the most. Made from that seat's view only; computed once and "
        "kept in the store.",
        examples=examples("arena analyse 12 --seat 0", "arena analyse 12 --seat 1 --json"),
    )
    a.add_argument("id", type=int, metavar="MATCH", help="the match's id in the store")
    a.add_argument("--seat", type=int, required=True, help="the seat to analyse (0 first)")
    a.add_argument(
        "--budget-ms",
        type=int,
        default=None,
        metavar="MS",
        help="the reference bot's time per decision (default 200; an analysis already "
        "kept is shown as it was made)",
    )
    json_argument(a, "the analysis (docs/bots.md, 'Where did my bot lose?')")
    a.set_defaults(func=cmd_analyse)


def cmd_analyse(args: argparse.Namespace) -> int:
    from arena.app import analysis
    from arena.app.actors import local_actor
    from arena.remote import remote

    budget = analysis.DEFAULT_BUDGET_MS if args.budget_ms is None else args.budget_ms

    def show(made: dict[str, Any]) -> int:
        if args.json:
            print(json.dumps(made, indent=1))
        else:
            print_table(table(made))
        return 0

    platform = remote()
    if platform is not None:
        with platform:  # the platform's reference bot weighs every decision: minutes, maybe
            path = f"/matches/{args.id}/seats/{args.seat}/analysis"
            return show(platform.call("POST", path, json={"budget_ms": budget}, timeout=None))

    def body(store: Store) -> int:
        return show(analysis.analyse(store, local_actor(store), args.id, args.seat, budget))

    return with_store(body)


def table(made: dict[str, Any]) -> Any:
    """The analysis as a table: a row per decision, the worst flagged."""
    from rich.table import Table

    out = Table(
        title=f"match {made['match']}, seat {made['seat']} ({made['bot']}): "
        f"{made['lost']:.1f} points lost to the reference bot's choices "
        f"({made['budget_ms']} ms a decision)"
    )
    for column in ("step", "played", "value", "reference bot", "value", "loss", ""):
        out.add_column(column, justify="right" if column in ("step", "value", "loss") else "left")
    for d in made["decisions"]:
        if d["forced"]:
            out.add_row(str(d["step"]), d["played"], "", "(forced)", "", "", "")
            continue
        out.add_row(
            str(d["step"]),
            d["played"],
            f"{d['played_value']:+.1f}",
            "same" if d["best"] == d["played"] else d["best"],
            f"{d['best_value']:+.1f}",
            f"{d['loss']:.1f}",
            "◀ lost most" if d["flagged"] else "",
        )
    return out
