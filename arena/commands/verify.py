"""``arena verify``: re-run the engine on a match record and check that it comes to the
record's result (docs/protocol.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.cli import CommandError
from arena.commands import add_command, examples, json_argument
from arena.commands.standalone import run_alone


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena verify``."""
    v = add_command(
        sub,
        "verify",
        help="re-run the engine on a match record and check it (exit 1 when it diverges)",
        examples=examples("arena verify match.record", "arena verify match.record --json"),
    )
    v.add_argument("record", type=Path, help="a record file (the protobuf MatchRecord bytes)")
    json_argument(v, "the verdict")
    v.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0 when the record re-runs to its result, 1 when it diverges."""
    from referee.record import verify
    from referee.wire import CodecError, decode_record

    try:
        record = decode_record(args.record.read_bytes())
    except OSError as exc:
        raise CommandError(f"cannot read {args.record}: {exc}") from exc
    except CodecError as exc:
        raise CommandError(f"{args.record}: {exc}") from exc
    verdict = verify(record)
    if args.json:
        print(
            json.dumps(
                {
                    "record": str(args.record),
                    "game": record.game,
                    "match_id": record.match_id,
                    "seed": record.seed,
                    "ok": verdict.ok,
                    "message": verdict.message,
                    "index": verdict.index,
                    "expected": verdict.expected or None,
                    "got": verdict.got or None,
                }
            )
        )
        return 0 if verdict.ok else 1
    where = f"{record.game} match {record.match_id or '?'} (seed {record.seed})"
    if verdict.ok:
        print(f"{args.record}: {where}: {verdict.message}")
        return 0
    print(f"{args.record}: {where}: DIVERGES: {verdict.message}")
    if verdict.index is not None:
        print(f"  at action {verdict.index}: expected {verdict.expected}; got {verdict.got}")
    return 1


def main(argv: list[str] | None = None) -> int:
    """``arena verify`` alone (``python -m arena.commands.verify``), as ``arena`` runs it."""
    return run_alone(register, argv)


if __name__ == "__main__":
    sys.exit(main())
