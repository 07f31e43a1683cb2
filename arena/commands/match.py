"""``arena match create`` (get seat tokens from a running referee), ``arena match get``
(a match's state and result, and its record written to a file for ``arena verify``) and
``arena match show`` (a stored match of the platform: its seats, results and what
happened)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import grpc

from arena.commands import (
    add_command,
    examples,
    game_argument,
    json_argument,
    option_argument,
    place,
)
from arena.commands.engine import game_options
from arena.errors import CommandError, ServerUnavailable
from referee import settings

#: The referee ``arena match`` talks to when neither --referee nor ARENA_REFEREE names one.
DEFAULT_REFEREE = settings.DEFAULT_REFEREE


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    m = add_command(
        sub,
        "match",
        help="create a match on a referee, or fetch one",
        examples=examples(
            "arena match create --game hollywood-gin",
            "arena match get MATCH_ID --record match.record",
            "arena match show 7",
        ),
    )
    msub = m.add_subparsers(dest="match_command", required=True, metavar="ACTION")
    referee_help = f"HOST:PORT of the referee (default ARENA_REFEREE, else {DEFAULT_REFEREE})"

    c = add_command(
        msub,
        "create",
        help="create a match and print one token per seat",
        examples=examples(
            "arena match create --game hollywood-gin",
            "arena match create --game rummy-500 --seats 3 --option max_hands=2 --json",
        ),
    )
    c.add_argument("--referee", default=None, help=referee_help)
    game_argument(c)
    c.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    c.add_argument("--seats", type=int, default=None, help="number of seats (default: the game's)")
    option_argument(c)
    c.add_argument("--decision-ms", type=int, default=None, help="per-decision limit")
    c.add_argument("--bank-ms", type=int, default=None, help="time bank per seat")
    json_argument(c, "the match id, seed and seat tokens")
    c.set_defaults(func=cmd_create)

    g = add_command(
        msub,
        "get",
        help="a match's state and result; --record FILE saves its record",
        examples=examples(
            "arena match get MATCH_ID",
            "arena match get MATCH_ID --record match.record",
            "arena match get MATCH_ID --json",
        ),
    )
    g.add_argument("match_id")
    g.add_argument("--referee", default=None, help=referee_help)
    g.add_argument("--record", type=Path, default=None, help="write the record bytes here")
    json_argument(g, "the state and result")
    g.set_defaults(func=cmd_get)

    s = add_command(
        msub,
        "show",
        help="a stored match: bots, results, status, its public events and its seed's "
        "commitment (the seed once revealed)",
        examples=examples("arena match show 7", "arena match show 7 --record match.record"),
    )
    s.add_argument("id", type=int, help="the match's id in the store")
    s.add_argument("--record", type=Path, default=None, help="write the record bytes here")
    json_argument(s, "the match")
    s.set_defaults(func=cmd_show)
    lg = add_command(
        msub,
        "log",
        help="what a seat's bot wrote during a match (its owner's and the operators')",
        examples=examples("arena match log 7 --seat 0", "arena match log 7 --seat 1 --json"),
    )
    lg.add_argument("id", type=int, help="the match's id in the store")
    lg.add_argument("--seat", type=int, required=True, help="the seat (0 is the first)")
    json_argument(lg, "the log")
    lg.set_defaults(func=cmd_log)


def seat_label(seat: int, name: str) -> str:
    """``seat N``, followed by the seat's name when it says more than that."""
    return f"seat {seat}" if not name or name == f"seat {seat}" else f"seat {seat} ({name})"


def referee_address(given: str | None) -> str:
    """--referee, else ARENA_REFEREE, else the local default."""
    return given or settings.load().referee or DEFAULT_REFEREE


def _stub(address: str) -> tuple[Any, Any, tuple[tuple[str, str], ...]]:
    """A channel to the referee, its match service, and the metadata every call carries
    (the platform's credential, referee.auth)."""
    from referee.auth import SecretError, call_metadata, platform_secret
    from rummyarena.v1 import match_pb2_grpc

    try:
        metadata = call_metadata(platform_secret())
    except SecretError as exc:
        raise CommandError(str(exc)) from None
    channel = grpc.insecure_channel(address)
    return channel, match_pb2_grpc.MatchesStub(channel), metadata  # type: ignore[no-untyped-call]


def rpc_error(address: str, exc: grpc.RpcError) -> CommandError:
    """A referee's error status as one line: exit 3 when no referee answers."""
    code = exc.code() if hasattr(exc, "code") else None
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return CommandError(
            f"the referee at {address} refused the platform's credential: give this command "
            "the referee's secret (the same ARENA_REFEREE_SECRET, or the same ARENA_HOME)"
        )
    if code == grpc.StatusCode.UNAVAILABLE:
        return ServerUnavailable(
            f"no referee answers at {address}: start one with `arena referee --port PORT` "
            "or pass --referee HOST:PORT"
        )
    detail = exc.details() if hasattr(exc, "details") else str(exc)
    return CommandError(f"the referee at {address} refused: {detail}")


def cmd_create(args: argparse.Namespace) -> int:
    from referee.games import get_game
    from referee.wire import clock_to_proto, options_to_proto
    from rummyarena.v1 import match_pb2

    spec = get_game(args.game)
    options = game_options(args.game, args.option)  # named here rather than on the wire
    address = referee_address(args.referee)
    seats = spec.default_seats if args.seats is None else args.seats
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(8), "big")
    request = match_pb2.CreateMatchRequest(
        game=args.game, seed=seed, seat_names=[f"seat {i}" for i in range(seats)]
    )
    options_to_proto(options, request.options)
    if args.decision_ms is not None or args.bank_ms is not None:
        from referee.clock import ClockRules

        defaults = ClockRules()
        rules = ClockRules(
            decision_ms=defaults.decision_ms if args.decision_ms is None else args.decision_ms,
            bank_ms=defaults.bank_ms if args.bank_ms is None else args.bank_ms,
        )
        request.clock.CopyFrom(clock_to_proto(rules))
    channel, stub, metadata = _stub(address)
    try:
        reply = stub.CreateMatch(request, timeout=10, metadata=metadata)
    except grpc.RpcError as exc:
        raise rpc_error(address, exc) from None
    finally:
        channel.close()
    if args.json:
        print(json.dumps({"match_id": reply.match_id, "seed": seed, "tokens": list(reply.tokens)}))
        return 0
    print(f"match {reply.match_id} ({args.game}, seed {seed})")
    for seat, token in enumerate(reply.tokens):
        print(f"seat {seat}: {token}")
    print(f"play a seat: arena bot run BOT.py --referee {address} --token TOKEN")
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    from rummyarena.v1 import common_pb2, match_pb2

    address = referee_address(args.referee)
    channel, stub, metadata = _stub(address)
    try:
        reply = stub.GetMatch(
            match_pb2.GetMatchRequest(match_id=args.match_id), timeout=10, metadata=metadata
        )
    except grpc.RpcError as exc:
        raise rpc_error(address, exc) from None
    finally:
        channel.close()
    state = match_pb2.MatchState.Name(reply.state).removeprefix("MATCH_STATE_").lower()
    aborted = reply.HasField("result") and reply.result.status == common_pb2.MATCH_STATUS_ABORTED
    seats = [
        {
            "seat": seat.seat,
            "name": seat.name,
            "rank": seat.rank,
            "score": seat.score,
            "status": common_pb2.SeatStatus.Name(seat.status).removeprefix("SEAT_STATUS_").lower(),
            "forfeited": seat.forfeited,
        }
        for seat in (reply.result.seats if reply.HasField("result") and not aborted else ())
    ]
    if args.record is not None:
        if not reply.HasField("record"):
            raise CommandError(f"match {args.match_id} has no record yet (state: {state})")
        args.record.write_bytes(reply.record.SerializeToString())
    if args.json:
        out = {
            "match_id": reply.match_id,
            "state": state,
            "aborted": reply.result.reason if aborted else None,
            "seats": seats,
            "record": None if args.record is None else str(args.record),
        }
        print(json.dumps(out))
        return 0
    print(f"match {reply.match_id}: {state}")
    if aborted:
        print(f"aborted: {reply.result.reason} (no result; play the match again)")
    for seat in seats:
        print(
            f"{seat_label(seat['seat'], seat['name'])}: {place(seat['rank'])}, "
            f"score {seat['score']}, {seat['status']}"
            + (", forfeited" if seat["forfeited"] else "")
        )
    if args.record is not None:
        print(f"record written to {args.record}; check it with `arena verify {args.record}`")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """A stored match, with its public events replayed from its record."""
    from arena.app import matches
    from arena.app.actors import local_actor
    from arena.commands.db import with_store
    from arena.remote import remote
    from worker.store import Store

    platform = remote()
    if platform is not None:
        with platform:
            shown = platform.get(f"/matches/{args.id}")
            if args.record is not None and shown["state"] == "done":
                args.record.write_bytes(platform.raw(f"/matches/{args.id}/record.bin"))
        return _print_match(shown, args)

    def body(store: Store) -> int:
        actor = local_actor(store)
        shown = matches.show(store, actor, args.id)
        if args.record is not None and shown["state"] == "done":
            args.record.write_bytes(matches.record_bytes(store, actor, args.id))
        return _print_match(shown, args)

    return with_store(body)


def cmd_log(args: argparse.Namespace) -> int:
    """What a seat's bot wrote during a match, here or on a remote platform."""
    from arena.app import matches
    from arena.app.actors import local_actor
    from arena.commands.db import with_store
    from arena.remote import remote

    platform = remote()
    if platform is not None:
        with platform:
            return _print_log(platform.get(f"/matches/{args.id}/seats/{args.seat}/log"), args)
    return with_store(
        lambda store: _print_log(matches.log(store, local_actor(store), args.id, args.seat), args)
    )


def _print_log(out: dict[str, Any], args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps(out, indent=2))
    elif out["log"] is None:
        print(f"{out['bot']} wrote nothing during match {out['match']} (seat {out['seat']})")
    else:
        sys.stdout.write(out["log"] if out["log"].endswith("\n") else out["log"] + "\n")
    return 0


def _print_match(out: dict[str, Any], args: argparse.Namespace) -> int:
    """Print a match as :func:`arena.app.matches.show` gives it."""
    if out["held"] and args.record is not None:
        raise CommandError(
            f"match {out['match']}'s record is held back until every match of its duplicate "
            "deal has finished (it shows the deal the others are still playing)"
        )
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"match {out['match']}: {out['game']}, {out['state']}"
        + (f" (tournament {out['tournament']})" if out["tournament"] else "")
        + (f"; {out['error']}" if out["error"] else "")
    )
    print(f"  seed commitment: {out['commitment']} = {out['seed_commitment']}")
    if out["sealed"] is not None:
        print(f"  seed and salt: not shown yet: {out['sealed']['message']}")
    else:
        print(
            f"  seed {out['seed']}, salt {out['seed_salt']} "
            f"(check them with `arena verify {out['match']}`)"
        )
    for seat in out["seats"]:
        result = (
            f": {place(seat['rank'])}, score {seat['score']}, {seat['status']}"
            + (
                f" (stopped by the sandbox's {seat['stopped_by']} limit)"
                if seat.get("stopped_by")
                else ""
            )
            + (", forfeited" if seat["forfeit"] else "")
            if "rank" in seat
            else ""
        )
        print(f"  seat {seat['seat']} {seat['bot']}{result}")
    for event in out["events"]:
        who = "referee" if event["seat"] is None else f"seat {event['seat']}"
        print(f"  {who}: {event['text']}")
    if args.record is not None:
        print(f"record written to {args.record}; check it with `arena verify {args.record}`")
    return 0
