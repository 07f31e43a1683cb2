"""``arena verify``: re-run the engine on a match record and check that it comes to the
record's result; given a match's id, also check that its revealed seed and salt open the
commitment published when it was made (docs/protocol.md, "Checking a deal"), on this
machine's store or through a platform's API."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.app.errors import AppError
from arena.commands import add_command, examples, json_argument
from arena.commands.standalone import run_alone
from arena.errors import CommandError

if TYPE_CHECKING:
    from arena.app.deals import Check, Deal
    from referee.record import MatchRecord, Verdict


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena verify``."""
    v = add_command(
        sub,
        "verify",
        help="re-run the engine on a match record and check it; for a stored match also "
        "check its seed against its commitment (exit 1 when either fails)",
        examples=examples("arena verify match.record", "arena verify 12", "arena verify 12 --json"),
    )
    v.add_argument(
        "target",
        metavar="FILE|MATCH",
        help="a record file (the protobuf MatchRecord bytes), or the id of a finished match "
        "of the store or platform (a number that names no file)",
    )
    json_argument(v, "the verdict")
    v.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0 when every check holds, 1 when one fails."""
    path = Path(args.target)
    if args.target.isdecimal() and not path.exists():
        return verify_match(int(args.target), args.json)
    return verify_file(path, args.json)


def verify_file(path: Path, as_json: bool) -> int:
    """Exit 0 when the record re-runs to its result, 1 when it diverges."""
    from referee.record import verify
    from referee.wire import CodecError, decode_record

    try:
        record = decode_record(path.read_bytes())
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc
    except CodecError as exc:
        raise CommandError(f"{path}: {exc}") from exc
    verdict = verify(record)
    if as_json:
        print(
            json.dumps(
                {
                    "record": str(path),
                    "game": record.game,
                    "match_id": record.match_id,
                    "seed": record.seed,
                    **_verdict_json(verdict),
                }
            )
        )
        return 0 if verdict.ok else 1
    where = f"{record.game} match {record.match_id or '?'} (seed {record.seed})"
    if verdict.ok:
        print(f"{path}: {where}: {verdict.message}")
        return 0
    print(f"{path}: {where}: DIVERGES: {verdict.message}")
    _print_divergence(verdict)
    return 1


def _verdict_json(verdict: Verdict) -> dict[str, Any]:
    return {
        "ok": verdict.ok,
        "message": verdict.message,
        "index": verdict.index,
        "expected": verdict.expected or None,
        "got": verdict.got or None,
    }


def _print_divergence(verdict: Verdict) -> None:
    if verdict.index is not None:
        print(f"  at action {verdict.index}: expected {verdict.expected}; got {verdict.got}")


def verify_match(match_id: int, as_json: bool) -> int:
    """Check match ``match_id``'s revealed seed and salt against its commitment and re-run
    its record: here on the store, or on the platform ``arena login`` names (the checks
    run on this machine either way, on what the platform publishes)."""
    from arena.app import deals, matches
    from arena.app.actors import local_actor
    from arena.commands.db import with_store
    from arena.remote import remote
    from referee.wire import CodecError, decode_record
    from worker.store import Store

    def fetched(deal: Deal, data: bytes) -> MatchRecord:
        try:
            return decode_record(data)
        except CodecError as exc:
            raise CommandError(f"match {deal.match}'s record does not decode: {exc}") from exc

    def revealed(deal: Deal) -> Deal:
        if deal.why_sealed is not None:
            raise CommandError(f"{deal.why_sealed}; run `arena verify {deal.match}` again then")
        return deal

    try:
        platform = remote()
        if platform is not None:
            with platform:
                shown = platform.get(f"/matches/{match_id}")
                try:
                    deal = revealed(deals.Deal.from_json(shown))
                except (KeyError, TypeError, ValueError) as exc:
                    raise CommandError(
                        f"{platform.url} publishes no seed commitment of match {match_id} "
                        f"({exc.__class__.__name__}: {exc}): is it an older Rummy Arena?"
                    ) from None
                data = platform.raw(f"/matches/{match_id}/record.bin")
            return _report(deals.check(deal, fetched(deal, data)), as_json)

        def body(store: Store) -> int:
            actor = local_actor(store)
            deal = revealed(deals.opened(store, actor, match_id))
            data = matches.record_bytes(store, actor, match_id)
            return _report(deals.check(deal, fetched(deal, data)), as_json)

        return with_store(body)
    except AppError as exc:  # unknown match, refused key: one line, exit 2
        raise CommandError(str(exc)) from exc


def _report(check: Check, as_json: bool) -> int:
    """Print both checks of a match; 0 when both hold, 1 when either fails."""
    deal, engine = check.deal, check.engine
    if as_json:
        first = engine.message if check.commitment_ok else check.commitment_message
        print(
            json.dumps(
                {
                    "match": deal.match,
                    **deal.as_json(),
                    "ok": check.ok,
                    "message": first,
                    "commitment_check": {
                        "ok": check.commitment_ok,
                        "message": check.commitment_message,
                        "computed": check.computed.hex(),
                        "record_seed": check.record_seed,
                    },
                    "engine": _verdict_json(engine),
                }
            )
        )
        return 0 if check.ok else 1
    where = f"match {deal.match} (seed {deal.seed})"
    mark = "holds" if check.commitment_ok else "FAILS"
    print(f"{where}: commitment {mark}: {check.commitment_message}")
    print(f"{where}: record {'re-runs' if engine.ok else 'DIVERGES'}: {engine.message}")
    _print_divergence(engine)
    return 0 if check.ok else 1


def main(argv: list[str] | None = None) -> int:
    """``arena verify`` alone (``python -m arena.commands.verify``), as ``arena`` runs it."""
    return run_alone(register, argv)


if __name__ == "__main__":
    sys.exit(main())
