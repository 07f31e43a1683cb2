"""``arena play``: matches between bot files on this machine, with a referee in this
process and one ``arena bot run --session-key`` process per bot file that plays every match
it is seated in (started again if it dies), then a results table. No database.

Seats rotate from match to match (seat order is part of a game's luck); with
``--duplicate`` each seed is dealt once per rotation, so every bot plays every seat of
every deal."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import secrets
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.commands import (
    add_command,
    examples,
    game_argument,
    json_argument,
    option_argument,
    print_table,
)
from arena.commands.deal_option import check_deal, read_deal
from arena.commands.engine import game_options
from arena.errors import CommandError
from referee import settings

if TYPE_CHECKING:
    from referee.clock import ClockRules
    from referee.matches import Referee

#: How long a stopped process has to exit after SIGTERM before it is killed.
TERM_S = 3.0
#: How long a match waits for its bots to join (their processes start meanwhile).
JOIN_MS = 15_000


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    p = add_command(
        sub,
        "play",
        help="play matches between bot files on this machine and print a results table",
        examples=examples(
            "arena play bots/examples/random_bot.py bots/examples/heuristic_bot.py --games 10",
            "arena play a.py b.py c.py --game gin-three --duplicate --seed 7",
            "arena play a.py b.py --deal my-deal.toml --games 4",
        ),
    )
    p.add_argument(
        "bots", nargs="+", type=Path, metavar="BOT_FILE", help="bot files, in seat order"
    )
    game_argument(p, required=False, default="hollywood-gin")
    p.add_argument("--games", type=int, default=10, metavar="N", help="matches (default 10)")
    p.add_argument(
        "--seed", type=int, default=None, help="seed of the first match (default random)"
    )
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="play each seed once per rotation of the seats (N is rounded up to a multiple "
        "of the seat count)",
    )
    option_argument(p)
    p.add_argument(
        "--deal",
        type=Path,
        default=None,
        metavar="FILE",
        help="play every match from the deal this TOML or JSON file names (docs/bots.md, "
        "'Chosen deals'): its game, seats and options; what it leaves out is dealt from "
        "each match's seed",
    )
    p.add_argument("--concurrency", type=int, default=2, help="matches at once (default 2)")
    p.add_argument("--decision-ms", type=int, default=None, help="per-decision limit")
    p.add_argument("--bank-ms", type=int, default=None, help="time bank per seat")
    json_argument(p, "the results and matches")
    p.set_defaults(func=cmd_play)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match to play: its number, seed, and the bot (index into the bot list) per seat."""

    number: int
    seed: int
    seats: tuple[int, ...]


@dataclass(slots=True)
class Played:
    """One match as played: the referee's result and the bot processes that played it."""

    pairing: Pairing
    match_id: str = ""
    status: str = ""  # completed or aborted
    reason: str = ""
    ranks: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    statuses: tuple[str, ...] = ()
    forfeited: tuple[bool, ...] = ()
    pids: list[int] = field(default_factory=list)


def schedule(bots: int, games: int, seed: int, duplicate: bool) -> list[Pairing]:
    """The matches to play: seats rotate by one each match; the seed advances each match,
    or with ``duplicate`` once every ``bots`` matches (one deal per full rotation)."""
    if duplicate:
        games = -(-games // bots) * bots
    out = []
    for k in range(games):
        shift = k % bots
        order = tuple((i + shift) % bots for i in range(bots))
        out.append(Pairing(k, seed + (k // bots if duplicate else k), order))
    return out


def labels(paths: Sequence[Path]) -> list[str]:
    """A name per bot file: its stem, numbered when two files share one."""
    stems = [p.stem for p in paths]
    out = []
    for i, stem in enumerate(stems):
        if stems.count(stem) > 1:
            out.append(f"{stem}#{stems[: i + 1].count(stem)}")
        else:
            out.append(stem)
    return out


def check_bot(path: Path) -> None:
    """Load the bot file as ``arena bot run`` would; CommandError with one line if it fails."""
    from arena.commands.bot_run import load_bot

    try:
        load_bot(path)
    except CommandError:
        raise
    except BaseException as exc:  # the file's own code failed: SystemExit included
        raise CommandError(f"cannot load bot {path}: {type(exc).__name__}: {exc}") from None


def cmd_play(args: argparse.Namespace) -> int:
    """Play the matches; print the table (or JSON); exit 0 once every match has ended."""
    from referee.clock import ClockRules
    from referee.games import get_game

    deal = read_deal(args.deal) if args.deal is not None else None
    if deal is not None:
        args.game = deal["game"]  # the file's game is played
    spec = get_game(args.game)
    options = game_options(args.game, args.option)  # named before any process starts
    if deal is not None:
        options = {**deal.get("options", {}), **options}
    n = len(args.bots)
    if not spec.min_seats <= n <= spec.max_seats:
        seats = (
            str(spec.min_seats)
            if spec.min_seats == spec.max_seats
            else f"{spec.min_seats} to {spec.max_seats}"
        )
        raise CommandError(f"{args.game} is played by {seats} bots; {n} bot files given")
    if deal is not None and deal.get("seats", n) != n:
        raise CommandError(
            f"the deal {args.deal} is for {deal['seats']} seats; {n} bot files given"
        )
    if args.games < 1 or args.concurrency < 1:
        raise CommandError("--games and --concurrency must be at least 1")
    for path in args.bots:
        check_bot(path)
    defaults = ClockRules()
    try:
        clock = ClockRules(
            decision_ms=defaults.decision_ms if args.decision_ms is None else args.decision_ms,
            bank_ms=defaults.bank_ms if args.bank_ms is None else args.bank_ms,
            join_ms=JOIN_MS,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    if not 0 <= seed < 1 << 63:
        raise CommandError(f"--seed must be in 0..2**63-1, not {seed}")
    pairings = schedule(n, args.games, seed, args.duplicate)
    if deal is not None:
        check_deal(deal, options, n, args.deal)
        if "seed" in deal:  # the file's seed deals what it leaves out, every match alike
            pairings = [dataclasses.replace(p, seed=deal["seed"]) for p in pairings]
    names = labels(args.bots)
    print(
        f"arena play: {len(pairings)} {args.game} matches, seed {seed} (repeat with --seed {seed})",
        file=sys.stderr,
        flush=True,
    )
    try:
        played = asyncio.run(
            _play_all(
                args.game,
                options,
                clock,
                args.bots,
                names,
                pairings,
                args.concurrency,
                None if deal is None else deal["deal"],
            )
        )
    except asyncio.CancelledError:  # SIGTERM: every process has been stopped
        print("arena play: stopped", file=sys.stderr)
        return 143
    except ExceptionGroup as group:  # a match could not be played: the rest were stopped
        first = group.exceptions[0]
        raise CommandError(f"a match failed: {type(first).__name__}: {first}") from first
    stats = summarise(names, args.bots, played)
    if args.json:
        print(
            json.dumps(
                {
                    "game": args.game,
                    "options": options,
                    "seed": seed,
                    "duplicate": args.duplicate,
                    "referee_pid": os.getpid(),
                    "bots": stats,
                    "matches": [_match_json(p, names) for p in played],
                },
                indent=2,
            )
        )
    else:
        _print_table(args.game, stats, played)
    return 0


def summarise(
    names: list[str], paths: Sequence[Path], played: list[Played]
) -> list[dict[str, Any]]:
    """Per bot: matches, wins (rank 0), average rank and score over completed matches,
    faults (matches its seat ended with a status other than ok) and aborted matches."""
    out = []
    for b, name in enumerate(names):
        ranks: list[int] = []
        scores: list[int] = []
        matches = faults = aborted = 0
        for p in played:
            for seat, bot in enumerate(p.pairing.seats):
                if bot != b:
                    continue
                matches += 1
                if p.status != "completed":
                    aborted += 1
                    continue
                ranks.append(p.ranks[seat])
                scores.append(p.scores[seat])
                faults += p.statuses[seat] != "ok"
        out.append(
            {
                "bot": name,
                "file": str(paths[b]),
                "matches": matches,
                "wins": sum(1 for r in ranks if r == 0),
                "average_rank": sum(ranks) / len(ranks) if ranks else None,
                "average_score": sum(scores) / len(scores) if scores else None,
                "faults": faults,
                "aborted": aborted,
            }
        )
    return out


def _match_json(p: Played, names: list[str]) -> dict[str, Any]:
    return {
        "match": p.pairing.number,
        "match_id": p.match_id,
        "seed": p.pairing.seed,
        "seats": [names[b] for b in p.pairing.seats],
        "status": p.status,
        "reason": p.reason,
        "ranks": list(p.ranks),
        "scores": list(p.scores),
        "statuses": list(p.statuses),
        "forfeited": list(p.forfeited),
        "bot_pids": p.pids,
    }


def _print_table(game: str, stats: list[dict[str, Any]], played: list[Played]) -> None:
    from rich.console import Console
    from rich.table import Table

    def number(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    table = Table(title=f"{game}: {len(played)} matches")
    for column in ("bot", "matches", "wins", "avg place", "avg score", "faults"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for s in stats:
        table.add_row(
            s["bot"],
            str(s["matches"]),
            str(s["wins"]),
            number(None if s["average_rank"] is None else s["average_rank"] + 1),
            number(s["average_score"]),
            str(s["faults"]),
        )
    print_table(table)
    console = Console()
    aborted = [p for p in played if p.status != "completed"]
    if aborted:
        console.print(f"{len(aborted)} matches aborted (no result): {aborted[0].reason}")


class _SessionBots:
    """One ``arena bot run --session-key`` process per bot file, serving every match its
    bot is seated in; one that has died is started again for its next match."""

    def __init__(self, referee: Referee, port: int, paths: Sequence[Path], names: list[str]):
        self.referee, self.port, self.paths, self.names = referee, port, paths, names
        self.running: dict[int, tuple[asyncio.subprocess.Process, str]] = {}
        self.started: list[asyncio.subprocess.Process] = []
        self.lock = asyncio.Lock()

    async def session(self, bot: int) -> tuple[str, int]:
        """The session id and process id serving ``bot``."""
        async with self.lock:
            entry = self.running.get(bot)
            if entry is not None and entry[0].returncode is None:
                return entry[1], entry[0].pid
            if entry is not None:
                self.referee.close_session(entry[1])
            session = self.referee.open_session(self.names[bot])
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "arena",
                "bot",
                "run",
                str(self.paths[bot]),
                "--referee",
                f"127.0.0.1:{self.port}",
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                env={**os.environ, settings.SESSION_KEY: session.key},
                start_new_session=True,  # Ctrl-C reaches this process, which stops them
            )
            self.running[bot] = (proc, session.id)
            self.started.append(proc)
            return session.id, proc.pid

    async def stop(self) -> None:
        """Close every session and stop every process."""
        for _, session_id in self.running.values():
            self.referee.close_session(session_id)
        await asyncio.gather(*(_stop(p) for p in self.started), return_exceptions=True)


async def _play_all(
    game: str,
    options: dict[str, Any],
    clock: ClockRules,
    paths: Sequence[Path],
    names: list[str],
    pairings: list[Pairing],
    concurrency: int,
    deal: dict[str, Any] | None = None,
) -> list[Played]:
    """Start a referee and the bots, play every pairing (``concurrency`` at once), and
    stop the referee and every bot process whatever happens, Ctrl-C and SIGTERM
    included."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from referee.service import start_server

    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    loop.add_signal_handler(signal.SIGTERM, main.cancel)
    server, referee, port = await start_server(0, "127.0.0.1", secret=secrets.token_urlsafe(24))
    bots = _SessionBots(referee, port, paths, names)
    limit = asyncio.Semaphore(concurrency)
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )

    async def one(pairing: Pairing, bar: Any) -> Played:
        async with limit:
            served = [await bots.session(b) for b in pairing.seats]
            match = referee.create(
                game,
                options,
                pairing.seed,
                [names[b] for b in pairing.seats],
                clock,
                seat_sessions=[session for session, _ in served],
                deal=deal,
            )
            played = Played(pairing, match.id, pids=[pid for _, pid in served])
            await match.done.wait()
            record = match.record
            assert record is not None  # the match has finished
            played.status, played.reason = record.status, record.reason
            played.statuses = tuple(s.status for s in record.seats)
            played.forfeited = tuple(s.forfeited for s in record.seats)
            if record.result is not None:
                played.ranks, played.scores = record.result.ranks, record.result.scores
            referee.release(match.id)
            progress.advance(bar)
            return played

    try:
        with progress:
            bar = progress.add_task(f"{game} matches", total=len(pairings))
            async with asyncio.TaskGroup() as group:  # one failing stops the others
                tasks = [group.create_task(one(p, bar)) for p in pairings]
            return [task.result() for task in tasks]
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
        await asyncio.shield(_shutdown(bots, referee, server))


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Stop a bot process: SIGTERM, then SIGKILL if it lingers."""
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), TERM_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


async def _shutdown(bots: _SessionBots, referee: Referee, server: Any) -> None:
    await bots.stop()
    await referee.close()
    await server.stop(0)
