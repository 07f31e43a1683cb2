"""``arena export``: a stored match's record as JSON, the form of ``docs/viewer.md``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.commands import add_command, examples
from arena.commands.db import with_store
from arena.remote import remote
from worker.store import Store


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena export``."""
    e = add_command(
        sub,
        "export",
        help="a stored match's record as JSON, the form of docs/viewer.md",
        examples=examples("arena export 12 > match-12.json", "arena export 12 | jq .seed"),
    )
    e.add_argument("id", type=int, help="the match's id in the store")
    e.add_argument("--format", choices=["json"], default="json", help="the form (default json)")
    e.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from arena.app import matches
    from arena.app.actors import local_actor

    platform = remote()
    if platform is not None:
        with platform:
            print(json.dumps(platform.get(f"/matches/{args.id}/record"), indent=1))
        return 0

    def body(store: Store) -> int:
        print(json.dumps(matches.export(store, local_actor(store), args.id), indent=1))
        return 0

    return with_store(body)
