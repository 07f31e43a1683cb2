"""``arena referee`` (serve), ``arena verify`` (re-run a record), ``arena bot run``
(play a bot file: one match, or every match of a bot session) and ``arena bench
referee``."""

from __future__ import annotations

import argparse
import asyncio
import errno
import importlib.util
import inspect
import json
import logging
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.cli import CommandError, ServerUnavailable
from arena.commands import add_command, bot_actions, examples, game_argument, json_argument, place
from referee import settings


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    p = add_command(
        sub,
        "referee",
        help="run the gRPC referee service",
        examples=examples("arena referee --port 50051", "arena referee --port 0 --grace 60"),
    )
    p.add_argument("--port", type=int, default=50051, help="port to listen on (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument(
        "--grace",
        type=float,
        default=30.0,
        metavar="S",
        help="on SIGTERM/SIGINT, seconds running matches have to finish before they are "
        "aborted (default 30)",
    )
    p.add_argument(
        "--keep-mb",
        type=float,
        default=64.0,
        help="memory for finished matches not yet released by the platform (default 64)",
    )
    p.add_argument(
        "--keep-minutes",
        type=float,
        default=60.0,
        help="how long a finished, unreleased match is kept (default 60)",
    )
    p.add_argument(
        "--max-waiting",
        type=int,
        default=1000,
        help="matches that may wait for their seats at once (default 1000)",
    )
    p.set_defaults(func=cmd_referee)

    v = add_command(
        sub,
        "verify",
        help="re-run the engine on a match record and check it (exit 1 when it diverges)",
        examples=examples("arena verify match.record", "arena verify match.record --json"),
    )
    v.add_argument("record", type=Path, help="a record file (the protobuf MatchRecord bytes)")
    json_argument(v, "the verdict")
    v.set_defaults(func=cmd_verify)

    r = add_command(
        bot_actions(sub),
        "run",
        help="play the bot defined in FILE: one match (--token), or every match of a bot "
        "session until it is closed (--session-key)",
        examples=examples(
            "arena bot run bots/examples/heuristic_bot.py --referee 127.0.0.1:50051 --token T",
            "arena bot run my_bot.py --referee 127.0.0.1:50051 --token T --json",
            "arena bot run my_bot.py --referee 127.0.0.1:50051 --session-key KEY",
        ),
    )
    r.add_argument("file", type=Path, help="a Python file defining a Bot subclass")
    r.add_argument(
        "--referee",
        default=None,
        help=f"HOST:PORT (default ARENA_REFEREE, else {settings.DEFAULT_REFEREE})",
    )
    r.add_argument("--token", default=None, help="the seat token (default ARENA_TOKEN)")
    r.add_argument(
        "--session-key",
        default=None,
        help="the key of a bot session (default ARENA_SESSION_KEY): play every match it is "
        "seated in, until the session is closed or the process is stopped",
    )
    json_argument(r, "the match's result")
    r.set_defaults(func=cmd_bot_run)

    bench = add_command(
        bench_sub,
        "referee",
        help="decisions per second through the referee vs bare gRPC ping-pong",
        examples=examples(
            "arena bench referee --matches 16",
            "arena bench referee --soak 200 --json",
        ),
    )
    bench.add_argument("--matches", type=int, default=16, help="concurrent matches")
    bench.add_argument("--seconds", type=float, default=5.0, help="seconds per phase and run")
    game_argument(bench, required=False, default="hollywood-gin")
    bench.add_argument("--processes", type=int, default=2, help="bot processes")
    bench.add_argument(
        "--repeats", type=int, default=3, help="runs of each phase, alternating (default 3)"
    )
    json_argument(bench, "the figures")
    bench.add_argument(
        "--soak",
        type=int,
        default=0,
        metavar="N",
        help="instead: the referee's memory over N sequential short matches (N >= 100)",
    )
    bench.add_argument(
        "--warm-up",
        type=int,
        default=None,
        metavar="W",
        help="with --soak: matches played before measuring (default N/5)",
    )
    bench.add_argument(
        "--no-release",
        action="store_true",
        help="with --soak: never release finished matches (the keep limits hold them)",
    )
    bench.set_defaults(func=cmd_bench)


def port_free(host: str, port: int) -> bool:
    """Whether ``host:port`` can be listened on (port 0 always can)."""
    if port == 0:
        return True
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return False
            raise
    return True


def cmd_referee(args: argparse.Namespace) -> int:
    """Serve until SIGTERM or SIGINT, then stop gracefully (docs/protocol.md)."""
    from referee.auth import SecretError
    from referee.service import serve

    if args.grace < 0 or args.keep_mb < 0 or args.keep_minutes < 0 or args.max_waiting < 1:
        raise CommandError(
            "--grace, --keep-mb and --keep-minutes must be 0 or more, --max-waiting at least 1"
        )
    in_use = (
        f"port {args.port} on {args.host} is in use: stop what listens there, or pass another "
        "--port (0: any free port)"
    )
    try:
        if not port_free(args.host, args.port):
            raise CommandError(in_use)
    except OSError as exc:
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {exc.strerror}") from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

    def ready(port: int) -> None:
        print(f"referee listening on {args.host}:{port}", flush=True)

    try:
        asyncio.run(
            serve(
                args.port,
                args.host,
                grace_s=args.grace,
                ready=ready,
                keep_bytes=int(args.keep_mb * 1024 * 1024),
                keep_s=args.keep_minutes * 60,
                max_waiting=args.max_waiting,
            )
        )
    except SecretError as exc:
        raise CommandError(str(exc)) from None
    except RuntimeError as exc:  # grpc: "Failed to bind", when the port was taken meanwhile
        if "bind" not in str(exc):
            raise
        raise CommandError(in_use) from None
    except OSError as exc:
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
    return 0


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


def load_bot(path: Path) -> Any:
    """The bot a file defines: ``bot`` (an instance), ``make_bot()``, or its one Bot subclass."""
    return bot_factory(path)()


def bot_factory(path: Path) -> Callable[[], Any]:
    """How to make the bot a file defines, once per match: a ``bot`` instance (the same
    one every match: it keeps what it learns), ``make_bot`` (called every match), or its
    one Bot subclass (a new instance every match)."""
    from bots.sdk import Bot

    if not path.is_file():
        raise CommandError(f"no bot file {path}")
    spec = importlib.util.spec_from_file_location(f"arena_bot_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise CommandError(f"cannot load {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    instance = getattr(module, "bot", None)
    if isinstance(instance, Bot):

        def reused() -> Any:
            return instance

        return reused
    if callable(getattr(module, "make_bot", None)):
        factory: Callable[[], Any] = module.make_bot
        return factory
    classes = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, Bot) and obj.__module__ == module.__name__
    ]
    if len(classes) != 1:
        raise CommandError(
            f"{path} must define one Bot subclass, a `bot` instance or `make_bot()`; "
            f"found {len(classes)} Bot subclasses"
        )
    cls: Callable[[], Any] = classes[0]
    return cls


def cmd_bot_run(args: argparse.Namespace) -> int:
    """Play one match and print what happened to the seat, or serve a session until it is
    closed or the process is stopped."""
    from bots.sdk import run
    from bots.sdk.client import BotSessionError

    found = settings.load()
    args.referee = args.referee or found.referee or settings.DEFAULT_REFEREE
    args.token = args.token or found.token
    args.session_key = args.session_key or found.session_key
    if bool(args.token) == bool(args.session_key):
        raise CommandError(
            "give either --token (one match) or --session-key (every match of a session), "
            f"{'not both' if args.token else 'one of them'} (or ARENA_TOKEN or ARENA_SESSION_KEY)"
        )
    if args.session_key:
        return _serve_session(args)
    bot = load_bot(args.file)
    notices: list[dict[str, str]] = []
    heard = bot.on_notice

    def on_notice(kind: str, message: str, played: str) -> None:
        notices.append({"kind": kind, "message": message, "played": played})
        print(
            f"referee: {kind}: {message}" + (f" (it played {played})" if played else ""),
            file=sys.stderr,
            flush=True,
        )
        heard(kind, message, played)

    def joined() -> None:
        print(
            f"joined a match at {args.referee}; waiting for the other seats",
            file=sys.stderr,
            flush=True,
        )

    bot.on_notice = on_notice
    try:
        over = run(bot, args.referee, args.token, joined=joined)
    except BotSessionError as exc:
        raise session_error(args.referee, exc) from None
    if args.json:
        print(
            json.dumps(
                {
                    "seat": over.seat,
                    "aborted": over.aborted or None,
                    "ranks": list(over.ranks),
                    "scores": list(over.scores),
                    "statuses": list(over.statuses),
                    "notices": notices,
                }
            )
        )
        return 0
    print(seat_outcome(over, notices))
    return 0


def seat_outcome(over: Any, notices: list[dict[str, str]]) -> str:
    """One line on what happened to the seat: its place and score, and, when the referee
    played for it or it forfeited, its status and the referee's last word on why."""
    if over.aborted:
        return f"seat {over.seat}: the match was aborted ({over.aborted}): no result"
    status = over.statuses[over.seat]
    line = (
        f"seat {over.seat}: {place(over.ranks[over.seat])} of {len(over.ranks)}, "
        f"score {over.scores[over.seat]} (scores {list(over.scores)}); status {status}"
    )
    if status != "ok" or notices:
        times = "once" if len(notices) == 1 else f"{len(notices)} times"
        why = f"; its last notice: {notices[-1]['message']}" if notices else ""
        line += f"; the referee played for it {times}{why}"
    return line


def session_error(address: str, exc: Exception) -> CommandError:
    """A failed bot stream as one line: exit 3 when no referee answers at ``address`` (at
    once, or after the SDK's rejoin or reconnect window)."""
    import grpc

    from bots.sdk.client import RefereeUnreachable

    cause = exc.__cause__
    code = cause.code() if isinstance(cause, grpc.aio.AioRpcError) else None
    if isinstance(exc, RefereeUnreachable) or code == grpc.StatusCode.UNAVAILABLE:
        lost = f" ({exc})" if isinstance(exc, RefereeUnreachable) else ""
        return ServerUnavailable(
            f"no referee answers at {address}{lost}: start one with `arena referee --port "
            "PORT`, or pass the --referee HOST:PORT of a running one"
        )
    if code == grpc.StatusCode.PERMISSION_DENIED:
        return CommandError(
            f"the referee at {address} knows no such seat token: take one from `arena match "
            "create` on that referee (each token opens one seat of one match)"
        )
    return CommandError(str(exc))


def _serve_session(args: argparse.Namespace) -> int:
    """Play every match of the session until the referee ends it, or SIGTERM/SIGINT."""
    from bots.sdk import serve
    from bots.sdk.client import BotSessionError

    make_bot = bot_factory(args.file)

    async def session() -> str:
        task = asyncio.ensure_future(serve(make_bot, args.referee, args.session_key))
        loop = asyncio.get_running_loop()
        stopped_by: list[str] = []

        def stop(sig: signal.Signals) -> None:
            stopped_by.append(sig.name)
            task.cancel()

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop, sig)
        try:
            await task
        except asyncio.CancelledError:
            if not stopped_by:
                raise
            return f"stopped by {stopped_by[0]}"
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
        return "the referee ended the session"

    try:
        print(f"session: {asyncio.run(session())}", flush=True)
    except BotSessionError as exc:
        raise session_error(args.referee, exc) from None
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the referee benchmark and print its figures."""
    from arena.bench.referee import run_bench

    if args.soak:
        return _soak(args)
    if args.repeats < 1 or args.matches < 1 or args.processes < 1 or args.seconds <= 0:
        raise CommandError("--matches, --processes and --repeats must be at least 1, --seconds > 0")
    figures = run_bench(args.matches, args.seconds, args.game, args.processes, args.repeats)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"referee: {figures['matches']} concurrent {figures['game']} matches, "
        f"{figures['bot_processes']} bot processes, "
        f"median of {figures['repeats']} runs of {figures['seconds']:.1f} s per phase"
    )
    print(f"  decisions/s          {figures['decisions_per_s']:>10.0f}")
    print(f"  matches ended and replaced in the windows {figures['matches_ended']:.0f} (median)")
    print(
        f"  referee per decision p50 {figures['referee_us_p50']:.0f} µs, "
        f"p99 {figures['referee_us_p99']:.0f} µs"
    )
    print(
        f"  bare grpc.aio ping-pong over {figures['streams']} streams "
        f"{figures['pingpong_per_s']:>10.0f} round trips/s"
    )
    print(
        f"  ratio                {figures['ratio']:>10.2f}"
        f"   (runs: {figures['ratio_min']:.2f}–{figures['ratio_max']:.2f})"
    )
    cpu = [figures[k] for k in ("referee_cpu_us", "bots_cpu_us")]
    echo = [figures[k] for k in ("echo_server_cpu_us", "echo_clients_cpu_us")]
    if None not in cpu and None not in echo:
        print(
            f"  CPU per round trip   referee {cpu[0]:.0f} µs + bots {cpu[1]:.0f} µs; "
            f"echo server {echo[0]:.0f} µs + clients {echo[1]:.0f} µs"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """These commands alone (``python -m arena.commands.referee``), as ``arena`` runs them."""
    parser = argparse.ArgumentParser(prog="arena")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    register(sub, bench.add_subparsers(dest="target", required=True, metavar="TARGET"))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CommandError as exc:
        print(f"{args.prog}: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())


def _soak(args: argparse.Namespace) -> int:
    from arena.bench.soak import run_soak

    warm = args.soak // 5 if args.warm_up is None else args.warm_up
    if args.soak < 100 or warm < 0:
        raise CommandError("--soak needs at least 100 matches, --warm-up at least 0")
    figures = run_soak(args.soak, warm, release=not args.no_release)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    kib = 1024
    print(
        f"referee soak: {figures['matches']} sequential one-hand Hollywood Gin matches "
        f"after {figures['warm_up_matches']}, "
        f"{'each released' if figures['released'] else 'none released'}, "
        f"{figures['seconds']:.0f} s"
    )
    print(
        f"  RSS after {figures['warm_up_matches']} warm-up matches "
        f"{figures['rss_after_warm_up'] / kib / kib:.1f} MiB, at the end "
        f"{figures['rss_at_end'] / kib / kib:.1f} MiB"
    )
    print(f"  growth per finished match   {figures['growth_per_match'] / kib:>8.2f} KiB")
    print(f"  record per match (mean)     {figures['record_bytes_mean'] / kib:>8.2f} KiB")
    print(
        f"  one running full-length match ({figures['running_match_actions']} actions) "
        f"held at most {figures['running_match_bytes'] / kib:.0f} KiB"
    )
    print("  in process, growth per match by file (tracemalloc):")
    for name, size in figures["in_process_growth_by_file"].items():
        print(f"    {size:>9.0f} B  {name}")
    return 0
