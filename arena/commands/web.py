"""``arena web`` (the web viewer), ``arena replay`` (a stored match move by move in the
terminal), ``arena export`` (a match's record as JSON) and ``arena bench web``
(``docs/viewer.md``)."""

from __future__ import annotations

import argparse
import errno
import json
import re
import socket
import sys
from typing import TYPE_CHECKING, Any

from arena.cli import CommandError
from arena.commands import add_command, examples, json_argument
from arena.commands.db import store_errors, with_store
from worker.store import Store

if TYPE_CHECKING:
    from arena.app.replay import StoredMatch

#: A card in C2 notation, in event and action texts.
CARD = re.compile(r"(?<![A-Za-z0-9=])(JK=)?([A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])")
#: Rich styles of the suits (and the joker).
SUIT_STYLE = {"C": "green", "D": "blue", "H": "red", "S": "bold", "K": "magenta"}


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    w = add_command(
        sub,
        "web",
        help="the web viewer: leaderboards, tournaments, bots, replays, live matches",
        examples=examples(
            "arena web",
            "arena web --host 0.0.0.0 --port 8080",
            "ARENA_DATABASE_URL=postgresql://arena@db.example/arena arena web --port 0",
        ),
    )
    w.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    w.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port)")
    w.set_defaults(func=cmd_web)

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

    e = add_command(
        sub,
        "export",
        help="a stored match's record as JSON, the form of docs/viewer.md",
        examples=examples("arena export 12 > match-12.json", "arena export 12 | jq .seed"),
    )
    e.add_argument("id", type=int, help="the match's id in the store")
    e.add_argument("--format", choices=["json"], default="json", help="the form (default json)")
    e.set_defaults(func=cmd_export)

    b = add_command(
        bench_sub,
        "web",
        help="server time of the replay and the leaderboard, on a scratch database",
        examples=examples("arena bench web", "arena bench web --requests 20 --json"),
    )
    b.add_argument("--requests", type=int, default=30, help="timed requests per page (default 30)")
    b.add_argument("--bots", type=int, default=1000, help="bots on the leaderboard (default 1000)")
    json_argument(b, "the figures")
    b.set_defaults(func=cmd_bench)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (0: any free port), bound here so that a port
    in use is one line, not a server's traceback."""
    if not 0 <= port <= 65535:
        raise CommandError(f"--port must be between 0 and 65535, not {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CommandError(
                f"port {port} on {host} is in use: stop what listens there, or pass another "
                "--port (0: any free port)"
            ) from None
        raise CommandError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None


def cmd_web(args: argparse.Namespace) -> int:
    import uvicorn

    from arena import serving
    from arena.site import create_site
    from worker import broker, db

    listener = listen(args.host, args.port)
    with (
        listener,
        store_errors(),
        db.database_url() as url,
        broker.redis_url() as redis_url,
        Store.open(url) as store,
    ):
        port = listener.getsockname()[1]
        # serving.config: an address too long to read answers 414, not a reset connection
        site = create_site(store, redis_url=redis_url)
        config = serving.config(site, host=args.host, port=port, log_level="warning")
        print(f"arena web: open http://{args.host}:{port}/ (Ctrl-C stops)", file=sys.stderr)
        uvicorn.Server(config).run(sockets=[listener])
    return 0


def _load(store: Store, match_id: int) -> StoredMatch:
    from arena.app.replay import Unavailable, load

    try:
        return load(store, match_id)
    except Unavailable as exc:
        raise CommandError(str(exc)) from None


def cmd_export(args: argparse.Namespace) -> int:
    from arena.app.replay import export

    def body(store: Store) -> int:
        print(json.dumps(export(_load(store, args.id)), indent=1))
        return 0

    return with_store(body)


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

    from arena.app.replay import Unavailable, frame

    console = Console(highlight=False)

    def body(store: Store) -> int:
        stored = _load(store, args.id)
        record = stored.record
        if args.seat is not None and not 0 <= args.seat < len(record.seats):
            raise CommandError(f"match {args.id} has seats 0..{len(record.seats) - 1}")
        who = "every seat's cards" if args.seat is None else f"what seat {args.seat} knew"
        console.print(
            f"[bold]match {args.id}[/bold]: {record.game}, seed {record.seed}, "
            f"{len(record.actions)} actions; {who}"
        )
        for i, label in enumerate(stored.labels):
            r = next((x for x in stored.results if x.seat == i), None)
            result = "" if r is None else f": rank {r.rank + 1}, score {r.score}, {r.status}"
            console.print(f"  seat {i} {label}{result}")
        try:
            for step in range(len(record.actions) + 1):
                _print_step(console, frame(stored, step, args.seat), args.seat)
                if args.step and step < len(record.actions) and sys.stdin.isatty():
                    input()
        except Unavailable as exc:
            raise CommandError(str(exc)) from None
        return 0

    return with_store(body)


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


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.bench.web import run

    if args.requests < 1 or args.bots < 1:
        raise CommandError("--requests and --bots must be at least 1")
    with store_errors(redis=False):
        figures = run(requests=args.requests, bots=args.bots)
    if args.json:
        print(json.dumps(figures))
        return 0
    for name, value in figures.items():
        print(f"{name}: {value}")
    return 0
