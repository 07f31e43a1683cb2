"""``arena status``: what runs on the platform, for its operators (``docs/operations.md``,
"What runs"). The status itself is :mod:`arena.app.status`'; this module asks for it (on
this machine's store and broker, or through a platform's API) and prints it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.commands import add_command, examples, json_argument, plain_table, print_table
from arena.errors import CommandError
from arena.remote import remote


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena status``."""
    s = add_command(
        sub,
        "status",
        help="what runs: workers and their hosts, queues, the last hour's matches, ladders, "
        "failing bots, referees and sandboxes (operators)",
        examples=examples("arena status", "arena status --json", "arena status --timeout 3"),
    )
    s.add_argument(
        "--timeout",
        type=float,
        default=1.0,
        metavar="S",
        help="how long to wait for the workers' answers (default 1 s)",
    )
    json_argument(s, "the status")
    s.set_defaults(func=cmd_status)


def cmd_status(args: argparse.Namespace) -> int:
    from arena.app import status
    from arena.app.actors import local_actor
    from arena.commands.db import local_database, store_errors
    from worker import broker
    from worker.store import Store

    if args.timeout <= 0:
        raise CommandError("--timeout must be a positive number of seconds")
    platform = remote()
    if platform is not None:
        with platform:
            found = platform.get("/status")
    else:
        with (
            store_errors(),
            local_database() as url,
            Store.open(url, max_size=2) as store,
            broker.redis_url() as redis_url,
        ):
            probe = status.broker_probe(redis_url, args.timeout)
            found = status.status(store, local_actor(store), probe)
    return print_status(found, json_out=args.json)


def print_status(found: dict[str, Any], *, json_out: bool) -> int:
    """Print :func:`arena.app.status.status`'s answer."""
    if json_out:
        print(json.dumps(found, indent=2))
        return 0
    m = found["matches"]
    queues = found["broker"]["queues"]
    print(
        f"matches: {m['running']} running, {m['queued']} queued "
        f"({m['waiting_to_retry']} waiting to retry); last hour: {m['done_last_hour']} done, "
        f"{m['failed_last_hour']} failed"
    )
    if queues is not None:
        print("queues: " + ", ".join(f"{q} {n}" for q, n in queues.items()))
    rows = []
    for w in found["workers"]:
        if "error" in w:
            rows.append((w["node"], "", "", w["error"], "", ""))
            continue
        rows.append(
            (
                w["node"],
                f"{w['host']} pid {w['pid']}" + (" (stopping)" if w["stopping"] else ""),
                ", ".join(map(str, w["running"])) or "-",
                w["referee"]["health"],
                w["sandbox"]["describe"],
                str(w["bots_running"]) + (" + remote" if w["remote"] else ""),
            )
        )
    for u in found["unanswered"]:
        rows.append((u["worker"], "NOT ANSWERING", ", ".join(map(str, u["running"])), "", "", ""))
    if rows:
        print_table(plain_table(("worker", "host", "running", "referee", "sandbox", "bots"), rows))
    else:
        print("workers: none answered")
    if found["ladders"]:
        print_table(
            plain_table(
                ("ladder", "game", "running", "last tick", "in flight"),
                [
                    (
                        lad["name"],
                        lad["game"],
                        "yes" if lad["active"] else "stopped",
                        lad["last_tick"] or "never",
                        str(lad["in_flight"]),
                    )
                    for lad in found["ladders"]
                ],
            )
        )
    for f in found["failed_qualification"]:
        print(f"failed qualification: {f['bot']} v{f['version']} ({f['owner']}): {f['reason']}")
    print(f"remote bots connected: {found['remote_bots_connected']}")
    if found["problems"]:
        print("problems:")
        for line in found["problems"]:
            print(f"  - {line}")
    else:
        print("no problems")
    return 0
