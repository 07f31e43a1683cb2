"""``arena web`` (the web viewer) and ``arena bench web`` (``docs/viewer.md``)."""

from __future__ import annotations

import argparse
import errno
import json
import logging
import signal
import socket
import sys
import threading
from typing import Any

from arena.commands import add_command, examples, json_argument
from arena.commands.db import local_database, store_errors
from arena.commands.metrics_option import metrics_argument, serve_metrics
from arena.errors import CommandError
from worker.store import Store


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena web`` and ``arena bench web``."""
    w = add_command(
        sub,
        "web",
        help="the web viewer: leaderboards, tournaments, bots, replays, live matches",
        examples=examples(
            "arena web",
            "arena web --host 0.0.0.0 --port 8080 --metrics 9100",
            "ARENA_DATABASE_URL=postgresql://arena@db.example/arena arena web --port 0",
        ),
    )
    w.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    w.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port)")
    metrics_argument(w)
    w.set_defaults(func=cmd_web)

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


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(0)


def cmd_web(args: argparse.Namespace) -> int:
    import uvicorn

    from arena import serving
    from arena.site import create_site
    from worker import broker, logs

    form = logs.configure_logging("WARNING")
    listener = listen(args.host, args.port)
    serve_metrics(args.metrics)
    # uvicorn stops gracefully on SIGTERM, then raises the signal again with the handler
    # it found: that one must end the command through its `with` blocks, which stop the
    # embedded Postgres and Redis, not kill the process before they run.
    signal.signal(signal.SIGTERM, _exit)
    with (
        listener,
        store_errors(),
        local_database() as url,
        broker.redis_url() as redis_url,
        Store.open(url) as store,
    ):
        port = listener.getsockname()[1]
        # serving.config: an address too long to read answers 414, not a reset connection
        site = create_site(store, redis_url=redis_url)
        # log_config=None: uvicorn's loggers go to the root logger's handler (JSON or text)
        config = serving.config(
            site, host=args.host, port=port, log_level="warning", log_config=None
        )
        opening = f"open http://{args.host}:{port}/ (Ctrl-C stops)"
        if form == "json":
            logging.getLogger("arena.web").info("%s", opening)
        else:
            print(f"arena web: {opening}", file=sys.stderr)
        threading.Thread(target=_say_if_nothing_plays, args=(redis_url,), daemon=True).start()
        uvicorn.Server(config).run(sockets=[listener])
    return 0


def _say_if_nothing_plays(redis_url: str) -> None:
    """Warn, once, when no worker answers: the pages and the API work, but nothing a
    user submits or creates is qualified or played until one runs."""
    from arena.app import status

    playing = status.playing(status.broker_probe(redis_url))
    if playing.workers == 0:
        logging.getLogger("arena.web").warning("%s", playing.said)


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
