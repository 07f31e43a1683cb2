"""``arena replay``: a stored match move by move in the terminal, its cards in colour
(``docs/viewer.md``)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

from arena.commands import add_command, examples
from arena.commands.db import with_store
from arena.errors import CommandError
from arena.remote import remote
from worker.store import Store

#: A card in C2 notation, in event and action texts.
CARD = re.compile(r"(?<![A-Za-z0-9=])(JK=)?([A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])")
#: Rich styles of the suits (and the joker).
SUIT_STYLE = {"C": "green", "D": "blue", "H": "red", "S": "bold", "K": "magenta"}


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena replay``."""
    r = add_command(
        sub,
        "replay",
        help="a stored match move by move, cards in colour (its JSON: arena export)",
        examples=examples("arena replay 12", "arena replay 12 --seat 1", "arena replay 12 --step"),
    )
    r.add_argument("id", type=int, help="the match's id in the store")
    r.add_argument("--seat", type=int, default=None, help="only what this seat knew")
    r.add_argument("--step", action="store_true", help="wait for Enter between moves")
    r.set_defaults(func=cmd_replay)


def coloured(text: str) -> str:
    """``text`` as rich markup, its cards coloured by suit."""
    from rich.markup import escape

    out, last = [], 0
    for m in CARD.finditer(text):
        out.append(escape(text[last : m.start()]))
        token = m.group(0)
        style = SUIT_STYLE["K" if token.startswith("JK") else token[1]]
        out.append(f"[{style}]{escape(token)}[/{style}]")
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def cmd_replay(args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.app import matches, replay
    from arena.app.actors import local_actor

    console = Console(highlight=False)
    platform = remote()
    if platform is not None:
        with platform:
            record = platform.get(f"/matches/{args.id}/record")
            return _replay(
                console,
                args,
                record,
                lambda step: platform.get(f"/matches/{args.id}/steps/{step}", seat=args.seat),
            )

    def body(store: Store) -> int:
        stored = matches.stored(store, local_actor(store), args.id)
        return _replay(
            console, args, replay.export(stored), lambda step: replay.frame(stored, step, args.seat)
        )

    return with_store(body)


def _replay(
    console: Any,
    args: argparse.Namespace,
    record: dict[str, Any],
    frame: Callable[[int], dict[str, Any]],
) -> int:
    """Print the match whose record (``arena export``'s JSON) is ``record``, step by
    step, each step's frame from ``frame``."""
    seats, actions = record["seats"], record["actions"]
    if args.seat is not None and not 0 <= args.seat < len(seats):
        raise CommandError(f"match {args.id} has seats 0..{len(seats) - 1}")
    who = "every seat's cards" if args.seat is None else f"what seat {args.seat} knew"
    console.print(
        f"[bold]match {args.id}[/bold]: {record['game']}, seed {record['seed']}, "
        f"{len(actions)} actions; {who}"
    )
    for seat in seats:
        result = (
            ""
            if seat["rank"] is None
            else f": rank {seat['rank'] + 1}, score {seat['score']}, {seat['status']}"
        )
        console.print(f"  seat {seat['seat']} {seat['bot']}{result}")
    for step in range(len(actions) + 1):
        _print_step(console, frame(step), args.seat)
        if args.step and step < len(actions) and sys.stdin.isatty():
            input()
    return 0


def _print_step(console: Any, f: dict[str, Any], seat: int | None) -> None:
    """One step: its events, and at a decision the deciding seat's hand (in a seat's view:
    at its own decisions only), the top of the discard pile and the action taken."""
    for e in f["events"]:
        who = "referee" if e["seat"] is None else f"seat {e['seat']}"
        console.print(f"    [dim]{who}:[/dim] {coloured(e['text'])}")
    d = f["decision"]
    if d is None:
        if f["step"] == f["steps"]:
            console.print("[bold]the match is over[/bold]")
        return
    t = f["table"]
    if seat is None or d["seat"] == seat:
        for s in t["seats"]:
            if s["seat"] == d["seat"] and s["hand"] is not None:
                console.print(f"      seat {s['seat']} holds {coloured(' '.join(s['hand']))}")
        top = t["discard"][-1] if t["discard"] else "–"
        stock = "" if t["stock"] is None else f"stock {t['stock']}, "
        console.print(f"      [dim]{stock}discard pile top[/dim] {coloured(top)}")
    head = f"[bold]{f['step'] + 1:>4}.[/bold] seat {d['seat']}"
    timing = f"[dim]{d['think_ms']:g} ms{'' if d['source'] == 'bot' else ', ' + d['source']}[/dim]"
    if "action" in d:
        offered = f" [dim](of {len(d['legal'])})[/dim]" if seat is not None else ""
        console.print(f"{head}: {coloured(d['action'])}{offered} {timing}")
    else:
        console.print(f"{head} decides {timing}")
