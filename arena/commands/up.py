"""``arena up``: a whole small platform on this machine in one command (docs/operations.md,
"A platform in one command"): the web app with the API, a worker with its referee and
sandboxed bot pool, and the scheduler, on the configured Postgres and Redis or the
embedded ones, each an ordinary process of its role; Ctrl-C (or SIGTERM) stops them
all, and one that stops on its own stops the rest."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arena.commands import add_command, examples
from arena.errors import CommandError, Failed
from referee import settings

#: How long the web app has to say where it listens (seconds).
WEB_START_S = 60.0
#: How long the web app and the scheduler have to stop when the platform does.
STOP_S = 10.0
_OPENING = re.compile(r"open (http://\S+/) \(Ctrl-C stops\)")


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena up``."""
    p = add_command(
        sub,
        "up",
        help="run a whole platform here: web app and API, a worker, the scheduler",
        examples=examples(
            "arena up",
            "arena up --host 0.0.0.0 --port 8000 --concurrency 4",
            "arena user create ann     # in another terminal: ann's key, for `arena login`",
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="the web app's address (default 127.0.0.1)")
    p.add_argument(
        "--port", type=int, default=8000, help="the web app's port (default 8000; 0: any free one)"
    )
    p.add_argument(
        "--concurrency", type=int, default=2, help="matches the worker plays at once (default 2)"
    )
    p.set_defaults(func=cmd_up)


def cmd_up(args: argparse.Namespace) -> int:
    """Start every role, say where each is, and wait for Ctrl-C or a role that stops."""
    from arena.platform import platform
    from worker import broker, db
    from worker.children import child_env, stop_group

    if args.concurrency < 1:
        raise CommandError("--concurrency must be at least 1")
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port} is no port: give 1 to 65535, or 0 for any")
    # Ctrl-C ends the wait below even when this process was started with SIGINT ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with platform(workers=1, concurrency=args.concurrency) as running:
        env = child_env(
            {
                **os.environ,
                db.DATABASE_URL_ENV: running.database_url,
                broker.REDIS_URL_ENV: running.redis_url,
            }
        )
        roles: dict[str, subprocess.Popen[bytes]] = {}

        def start(role: str, *argv: str) -> Path:
            log = running.logs / f"{role}.log"
            with open(log, "wb") as out:
                roles[role] = subprocess.Popen(
                    [sys.executable, "-m", "arena", role, *argv],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    process_group=0,
                )
            return log

        try:
            web_log = start("web", "--host", args.host, "--port", str(args.port))
            address = _web_address(web_log, roles["web"])
            start("scheduler")
            home = running.logs.parent
            where = f"embedded under {home}" if running.embedded else "configured"
            confined = "sandboxed" if settings.load().sandbox == "on" else "UNCONFINED"
            print(f"arena up: a platform on this machine, Postgres and Redis {where}")
            print(f"  web app and API  {address}  (the API at {address}api/v1)")
            print(f"  worker           {args.concurrency} matches at once, its bots {confined}")
            print("  scheduler        re-queues what a vanished worker held, runs the ladders")
            print(f"  logs             {running.logs}/ (web.log, worker-0.log, scheduler.log)")
            print(
                "Ctrl-C stops them all. A user's key: `arena user create NAME` here; they run "
                f"`arena login {address} --key KEY`.",
                flush=True,
            )
            while True:
                stopped = {role: p.returncode for role, p in roles.items() if p.poll() is not None}
                if running.dead_workers():
                    stopped["worker"] = running.dead_workers()[0]
                if stopped:
                    role, code = next(iter(stopped.items()))
                    raise Failed(
                        f"the {role} stopped on its own (exit code {code}): see "
                        f"{running.logs}/{role if role != 'worker' else 'worker-0'}.log; "
                        "the rest were stopped"
                    )
                time.sleep(1.0)
        except KeyboardInterrupt:
            print("arena up: stopping every role", file=sys.stderr)
        finally:
            for process in roles.values():
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
            for process in roles.values():
                stop_group(process, STOP_S)
    return 0


def _web_address(log: Path, process: subprocess.Popen[bytes]) -> str:
    """Where the web app listens, as it says in its log once it does."""
    deadline = time.monotonic() + WEB_START_S
    while time.monotonic() < deadline:
        found = _OPENING.search(log.read_text(errors="replace"))
        if found is not None:
            return found.group(1)
        if process.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(nothing)"]
            raise Failed(f"the web app did not start: {tail[0]} (see {log})")
        time.sleep(0.1)
    raise Failed(f"the web app did not say where it listens within {WEB_START_S:.0f} s: see {log}")
