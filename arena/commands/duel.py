"""``arena duel A B``: two bots play until a sequential probability ratio test accepts "A
is stronger than B by at least elo1" or "by at most elo0" (``docs/duels.md``). The
matches are those of a tournament of format ``duel``, queued a batch at a time and
played by the workers; the test is fed as results arrive and the matches still queued
are cancelled when it stops."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from arena.cli import CommandError
from arena.commands import (
    add_command,
    arena_command,
    examples,
    game_argument,
    json_argument,
    option_argument,
)
from arena.commands.engine import game_options

if TYPE_CHECKING:
    from arena.platform import Platform
    from worker.sprt import Sprt
    from worker.store import Store, TableResult

#: How often the duel reads its results when no notice comes (seconds).
POLL_S = 0.5


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    d = add_command(
        sub,
        "duel",
        help="is A stronger than B? play until an SPRT decides",
        examples=examples(
            "arena duel heur rnd --game hollywood-gin --elo0 0 --elo1 50",
            "arena duel mine@v2 mine@v1 --game hollywood-gin --duplicate --json",
        ),
    )
    d.add_argument("a", metavar="A", help="bot name (its latest version) or NAME@vN")
    d.add_argument("b", metavar="B", help="bot name (its latest version) or NAME@vN")
    game_argument(d)
    d.add_argument("--elo0", type=float, default=0.0, help="H0: A is at most this much stronger")
    d.add_argument("--elo1", type=float, default=20.0, help="H1: A is at least this much stronger")
    d.add_argument("--alpha", type=float, default=0.05, help="false 'stronger' rate (0.05)")
    d.add_argument("--beta", type=float, default=0.05, help="missed 'stronger' rate (0.05)")
    d.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal twice with the seats swapped; a pair is one outcome",
    )
    d.add_argument("--batch", type=int, default=8, help="matches queued at a time (default 8)")
    d.add_argument(
        "--max-games", type=int, default=20_000, help="stop undecided after this many games"
    )
    option_argument(d)
    d.add_argument(
        "--clock",
        action="append",
        default=[],
        metavar="KEY=MS",
        help="clock rules, repeatable: decision_ms, bank_ms, strike_limit, join_ms",
    )
    d.add_argument("--seed", type=int, default=None, help="seed of the deals (default random)")
    d.add_argument(
        "--local-workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes to start here (default: 1 with a private Redis, else 0)",
    )
    d.add_argument(
        "--concurrency", type=int, default=2, help="matches at once per local worker (default 2)"
    )
    json_argument(d, "the final state")
    d.set_defaults(func=cmd_duel)


def cmd_duel(args: argparse.Namespace) -> int:
    from arena.commands.engine import clock_rules
    from arena.platform import platform
    from referee import settings
    from referee.engine import UnknownGameError
    from referee.games import get_game
    from worker.sprt import Sprt

    try:
        spec = get_game(args.game)
    except UnknownGameError as exc:
        raise CommandError(str(exc)) from None
    if not spec.min_seats <= 2 <= spec.max_seats:
        raise CommandError(
            f"{args.game} is not played by two: a duel needs a two-player game "
            "(compare more bots with `arena tournament` or `arena gauntlet`)"
        )
    options = game_options(args.game, args.option)
    clock = clock_rules(args.clock)
    try:
        sprt = Sprt(args.elo0, args.elo1, args.alpha, args.beta, pentanomial=args.duplicate)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if args.batch < 1 or args.max_games < 1:
        raise CommandError("--batch and --max-games must be at least 1")
    workers = args.local_workers
    if workers is None:
        workers = 0 if settings.load().redis_url else 1
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(7), "big")
    with platform(workers=workers, concurrency=args.concurrency) as running:
        return _duel(running, args, sprt, options, clock, seed)


def _duel(
    running: Platform,
    args: argparse.Namespace,
    sprt: Sprt,
    options: dict[str, Any],
    clock: dict[str, int],
    seed: int,
) -> int:
    import random

    from arena.app.actors import local_actor
    from arena.app.tournaments import resolve_bots
    from worker import tasks
    from worker.sprt import game_score
    from worker.store import ScheduledMatch

    store = running.store
    actor = local_actor(store)
    a, b = resolve_bots(store, actor, args.game, [args.a, args.b])
    labels = store.labels([a, b])
    tournament_id = store.create_tournament(
        f"duel {labels[a]} vs {labels[b]}",
        args.game,
        [a, b],
        format="duel",
        options={"options": options, "clock": clock, "seed": seed, "sprt": sprt.as_dict()},
        duplicate=args.duplicate,
        created_by=actor.name,
    )
    print(
        f"duel (tournament {tournament_id}): {labels[a]} vs {labels[b]} in {args.game}; "
        f"H0: A ≤ {sprt.elo0:+g} Elo, H1: A ≥ {sprt.elo1:+g} Elo, alpha {sprt.alpha}, "
        f"beta {sprt.beta}" + (", duplicate pairs" if args.duplicate else ""),
        file=sys.stderr,
        flush=True,
    )
    rng = random.Random(seed)
    scheduled = 0
    fed: set[int] = set()
    pairs: dict[int, dict[int, float]] = {}
    last = ""
    while True:
        counts = store.tournament_progress(tournament_id)
        in_flight = counts["queued"] + counts["running"]
        room = min(args.batch - in_flight, args.max_games - scheduled)
        if sprt.status() == "continue" and room > 0:
            batch: list[ScheduledMatch] = []
            for _ in range(room // 2 * 2 if args.duplicate else room):
                k = scheduled + len(batch)
                if args.duplicate:
                    deal = k // 2
                    deal_seed = rng.getrandbits(63) if k % 2 == 0 else batch[-1].seed
                    seats = (a, b) if k % 2 == 0 else (b, a)
                    batch.append(ScheduledMatch(seats, deal_seed, deal, k % 2))
                else:
                    seats = (a, b) if k % 2 == 0 else (b, a)
                    batch.append(ScheduledMatch(seats, rng.getrandbits(63)))
            if batch:
                for match_id in store.schedule_matches(tournament_id, args.game, options, batch):
                    tasks.play_match.delay(match_id)
                store.mark_dispatched(tournament_id)  # lost tasks are sent again by the sweep
                scheduled += len(batch)
        for table in store.tournament_results(tournament_id, known=fed):
            fed.add(table.match_id)
            score = _score_of(a, table, game_score)
            if args.duplicate and table.duplicate_set is not None:
                pair = pairs.setdefault(table.duplicate_set, {})
                pair[table.match_id] = score
                if len(pair) == 2:
                    first, second = (pair[k] for k in sorted(pair))
                    sprt.add_pair(first, second)
            else:
                sprt.add_game(score)
        line = _line(sprt)
        if line != last:
            print(line, file=sys.stderr, flush=True)
            last = line
        if sprt.status() != "continue" or (scheduled >= args.max_games and in_flight == 0):
            break
        if running.workers and len(running.dead_workers()) == len(running.workers):
            raise CommandError(f"every local worker stopped; see {running.logs}")
        tasks.sweep_now(store)
        time.sleep(POLL_S)
    cancelled = sum(
        store.cancel_match(m.id)
        for m in store.list_matches(tournament_id=tournament_id, state="queued", limit=100_000)
    )
    store.set_tournament_state(tournament_id, "done")
    return _report(store, tournament_id, sprt, labels[a], labels[b], cancelled, args.json)


def _score_of(a: int, table: TableResult, game_score: Any) -> float:
    """A's score in a two-seat match (forfeits rank last)."""
    from worker.ratings import SeatResult, effective_ranks

    ranks = effective_ranks([SeatResult(s.version, s.rank, s.forfeit) for s in table.seats])
    mine = next(i for i, s in enumerate(table.seats) if s.version == a)
    return float(game_score(ranks[mine], ranks[1 - mine]))


def _line(sprt: Sprt) -> str:
    lower, upper = sprt.bounds()
    estimate = sprt.elo()
    elo = (
        ""
        if estimate is None
        else f", A {estimate.elo:+.0f} Elo [{estimate.low:+.0f}, {estimate.high:+.0f}]"
    )
    unit = "pairs" if sprt.pentanomial else "games"
    return (
        f"{sprt.games} games ({sprt.outcomes} {unit} {list(sprt.counts)}): "
        f"LLR {sprt.llr():+.2f} in [{lower:.2f}, {upper:.2f}]{elo}"
    )


def _report(
    store: Store,
    tournament_id: int,
    sprt: Sprt,
    a: str,
    b: str,
    cancelled: int,
    json_out: bool,
) -> int:
    status = sprt.status()
    verdict = {
        "H1": f"H1 accepted: {a} is stronger than {b} by at least {sprt.elo1:g} Elo",
        "H0": f"H0 accepted: {a} is not stronger than {b} by more than {sprt.elo0:g} Elo",
        "continue": "no verdict: the game limit came first (raise --max-games)",
    }[status]
    if json_out:
        print(
            json.dumps(
                {
                    "tournament": tournament_id,
                    "a": a,
                    "b": b,
                    "verdict": status,
                    "cancelled": cancelled,
                    **sprt.as_dict(),
                },
                allow_nan=False,
            )
        )
    else:
        print(_line(sprt))
        print(verdict)
        print(f"the games: {arena_command()} tournament standings {tournament_id}")
    return 0
