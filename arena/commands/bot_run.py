"""``arena bot run``: play a bot file, one match (a seat token) or every match of a bot
session (docs/bots.md); the other ``arena bot`` actions are ``bot.py``'s."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import inspect
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.commands import (
    add_command,
    bot_actions,
    examples,
    game_argument,
    json_argument,
    place,
)
from arena.commands.standalone import run_alone
from arena.errors import CommandError, ServerUnavailable
from referee import settings


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena bot run``."""
    r = add_command(
        bot_actions(sub),
        "run",
        help="play the bot defined in FILE: one match (--token), every match of a bot "
        "session until it is closed (--session-key), or, from your machine, every match the "
        "platform seats your bot in (--platform, with ARENA_API_KEY)",
        examples=examples(
            "arena bot run bots/examples/heuristic_bot.py --referee 127.0.0.1:50051 --token T",
            "arena bot run my_bot.py --referee 127.0.0.1:50051 --session-key KEY",
            "ARENA_API_KEY=KEY arena bot run my_bot.py --platform arena.example.org:50443 "
            "--game hollywood-gin",
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
    r.add_argument(
        "--platform",
        metavar="HOST:PORT",
        default=None,
        help="the platform's address for remote bots: serve there, over TLS, with your API "
        "key (ARENA_API_KEY) until stopped; needs --game",
    )
    r.add_argument(
        "--name",
        default=None,
        help="with --platform: the bot's name on the platform, one of yours (default: FILE's "
        "name without .py)",
    )
    game_argument(r, required=False)
    r.add_argument(
        "--tls",
        action="store_true",
        default=None,
        help="dial the referee over TLS, trusting the system's certificate authorities "
        "(default ARENA_TLS)",
    )
    r.add_argument(
        "--tls-ca",
        metavar="FILE",
        default=None,
        help="over TLS, trust only this PEM CA certificate (a self-signed platform; "
        "default ARENA_TLS_CA); implies --tls",
    )
    json_argument(r, "the match's result")
    r.set_defaults(func=cmd_bot_run)


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
    args.tls_ca = args.tls_ca or found.tls_ca
    args.tls = bool(args.tls or found.tls or args.tls_ca)
    if args.tls_ca and not Path(args.tls_ca).is_file():
        raise CommandError(f"no TLS CA certificate file {args.tls_ca}")
    if args.platform:
        return _serve_remote(args, found.api_key or "")
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
        over = run(bot, args.referee, args.token, joined=joined, tls=args.tls, ca=args.tls_ca)
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

    from bots.sdk.client import RefereeUnreachable, TlsMismatch

    if isinstance(exc, TlsMismatch):
        return CommandError(str(exc))
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


def _serve_remote(args: argparse.Namespace, api_key: str) -> int:
    """Serve as a remote bot at the platform's address until stopped; a refusal exits 2
    with the platform's message."""
    from bots.sdk.client import BotSessionError, RefereeUnreachable

    if args.token or args.session_key:
        raise CommandError(
            "--platform serves with your API key: give no --token or --session-key "
            "(nor ARENA_TOKEN or ARENA_SESSION_KEY)"
        )
    if not api_key:
        raise CommandError(
            "--platform needs your API key in ARENA_API_KEY (make one with `arena user key "
            "new` on the platform)"
        )
    if not args.game:
        raise CommandError("--platform needs --game, the game your bot plays there")
    name = args.name or args.file.stem
    make_bot = bot_factory(args.file)
    remote = {"api_key": api_key, "bot": name, "game": args.game}
    try:
        print(f"session: {asyncio.run(_until_stopped(make_bot, args, remote))}", flush=True)
    except RefereeUnreachable as exc:
        raise ServerUnavailable(
            f"no platform answers at {args.platform} ({exc}): check the --platform HOST:PORT "
            "its operator gives for remote bots"
        ) from None
    except BotSessionError as exc:
        raise CommandError(str(exc)) from None
    return 0


async def _until_stopped(
    make_bot: Callable[[], Any], args: argparse.Namespace, remote: dict[str, str]
) -> str:
    """Serve (a session key, or ``remote``: an API key, a bot's name and game) until the
    referee ends the session or SIGTERM/SIGINT; how it ended."""
    from bots.sdk import serve

    if remote:
        work = serve(make_bot, args.platform, tls=True, ca=args.tls_ca, **remote)
    else:
        work = serve(make_bot, args.referee, args.session_key, tls=args.tls, ca=args.tls_ca)
    task = asyncio.ensure_future(work)
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


def _serve_session(args: argparse.Namespace) -> int:
    """Play every match of the session until the referee ends it, or SIGTERM/SIGINT."""
    from bots.sdk.client import BotSessionError

    make_bot = bot_factory(args.file)
    try:
        print(f"session: {asyncio.run(_until_stopped(make_bot, args, {}))}", flush=True)
    except BotSessionError as exc:
        raise session_error(args.referee, exc) from None
    return 0


def main(argv: list[str] | None = None) -> int:
    """``arena bot run`` alone (``python -m arena.commands.bot_run``), as ``arena`` runs it."""
    return run_alone(register, argv)


if __name__ == "__main__":
    sys.exit(main())
