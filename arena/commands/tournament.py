"""``arena tournament create | run | retry | watch``: round-robin tournaments played by
the workers (``docs/tournaments.md``); their standings and the list of tournaments are
``tournament_standings.py``'s."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from arena.app import tournaments
from arena.app.actors import Actor, local_actor
from arena.commands import (
    add_command,
    arena_command,
    examples,
    game_argument,
    json_argument,
    option_argument,
    tournament_actions,
)
from arena.commands.db import with_store
from arena.commands.engine import clock_rules, game_options
from arena.commands.tournament_standings import (
    WIDE_ENOUGH,
    print_report,
    report,
    rows_table,
    standings_of,
    standings_table,
)
from arena.errors import CommandError, Failed
from arena.remote import Platform as RemotePlatform
from arena.remote import remote

if TYPE_CHECKING:
    from arena.platform import Platform
    from worker.store import Store, Tournament

#: How often a running tournament's progress is read when no notice comes (seconds).
TICK_S = 1.0
#: Drain tasks sent when a tournament is run (``worker.tasks.PARALLEL``).
PARALLEL = 32
#: After this long with matches queued and none taken, say how to start a worker.
IDLE_HINT_S = 15.0


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena tournament create``, ``run``, ``retry`` and ``watch``, and ``arena bench
    tournament``."""
    tsub = tournament_actions(sub)
    c = add_command(
        tsub,
        "create",
        help="schedule a round robin (and play it with --run)",
        examples=examples(
            "arena tournament create --game hollywood-gin --bots rnd,heur,mini --games 4",
            "arena tournament create --game rummy-500 --bots a,b,c,d --duplicate --run",
            "arena tournament create --game gin-three --bots a,b@v2,c --option max_hands=2 --json",
        ),
    )
    game_argument(c)
    c.add_argument(
        "--bots",
        required=True,
        help="comma-separated bot names (their latest version for the game) or NAME@vN",
    )
    c.add_argument(
        "--games", type=int, default=2, metavar="N", help="matches per table (default 2)"
    )
    schedule_arguments(c)
    c.set_defaults(func=cmd_create)

    r = add_command(
        tsub,
        "run",
        help="play a tournament's remaining matches, showing progress",
        examples=examples(
            "arena tournament run 1",
            "arena tournament run 1 --local-workers 2 --concurrency 4",
            "arena tournament run 1 --quiet --json",
        ),
    )
    r.add_argument("id", type=int)
    _run_arguments(r)
    r.set_defaults(func=cmd_run)

    r = add_command(
        tsub,
        "retry",
        help="put a tournament's failed matches back in the queue (and play them with --run)",
        examples=examples("arena tournament retry 1", "arena tournament retry 1 --run"),
    )
    r.add_argument("id", type=int)
    r.add_argument("--run", action="store_true", help="play them now, then print the standings")
    _run_arguments(r)
    r.set_defaults(func=cmd_retry)

    c = add_command(
        tsub,
        "cancel",
        help="cancel a tournament: its queued matches are cancelled, those running finish",
        examples=examples("arena tournament cancel 1", "arena tournament cancel 1 --json"),
    )
    c.add_argument("id", type=int)
    json_argument(c, "the cancelled matches")
    c.set_defaults(func=cmd_cancel)

    w = add_command(
        tsub,
        "watch",
        help="follow a tournament live: progress and standings",
        examples=examples("arena tournament watch 1"),
    )
    w.add_argument("id", type=int)
    json_argument(w, "the final standings")
    w.set_defaults(func=cmd_watch)

    bench = add_command(
        bench_sub,
        "tournament",
        help="a round robin through the whole platform vs the same matches played alone",
        examples=examples(
            "arena bench tournament --matches 200",
            "arena bench tournament --workers 2 --concurrency 4 --json",
            "arena bench tournament --hosts --matches 400",
        ),
    )
    bench.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    bench.add_argument(
        "--concurrency", type=int, default=2, help="matches at once per worker (default 2)"
    )
    bench.add_argument(
        "--matches", type=int, default=200, help="matches in the round robin (default 200)"
    )
    bench.add_argument(
        "--repeats", type=int, default=3, help="alternating rounds of both phases (default 3)"
    )
    bench.add_argument(
        "--hosts",
        action="store_true",
        help="instead: the round robin over one worker host, then two, each a network "
        "namespace with its own address (needs root and ip); matches per second for each",
    )
    json_argument(bench, "one JSON object")
    bench.set_defaults(func=cmd_bench)


def _clock_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--clock",
        action="append",
        default=[],
        metavar="KEY=MS",
        help="clock rules, repeatable: decision_ms, bank_ms, strike_limit, join_ms "
        "(docs/protocol.md)",
    )


def schedule_arguments(p: argparse.ArgumentParser) -> None:
    """What a tournament and a gauntlet (``arena gauntlet``) are scheduled with, and how
    they are run."""
    p.add_argument(
        "--table-size",
        type=int,
        default=None,
        metavar="K",
        help="bots per match (default: the game's usual number, at most the bots entered)",
    )
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="deal each deal once per rotation of the seats, so luck cancels out",
    )
    _clock_argument(p)
    option_argument(p)
    p.add_argument("--name", default=None, help="the tournament's name")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default random)")
    p.add_argument("--run", action="store_true", help="play it now (as `tournament run`)")
    _run_arguments(p)


def _run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--local-workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes to start here (default: 1 when Redis is embedded, else 0: "
        "the cluster's `arena worker` processes play)",
    )
    p.add_argument(
        "--concurrency", type=int, default=2, help="matches at once per local worker (default 2)"
    )
    p.add_argument(
        "--parallel",
        type=int,
        default=PARALLEL,
        help=f"most matches played at once across the workers (default {PARALLEL})",
    )
    p.add_argument("--quiet", action="store_true", help="no progress display")
    json_argument(p, "the final standings (with --run: once played; else the new id)")


# -- create --------------------------------------------------------------------------------


def resolve_bots(
    store: Store, game: str, names: list[str], actor: Actor | None = None
) -> list[int]:
    """Bot version ids for ``NAME`` or ``NAME@vN`` (arena.app.tournaments.resolve_bots),
    as who this command acts as unless ``actor`` is given."""
    return tournaments.resolve_bots(store, actor or local_actor(store), game, names)


def create(
    store: Store,
    *,
    game: str,
    bots: list[str],
    games: int,
    table_size: int | None,
    duplicate: bool,
    options: dict[str, Any],
    clock: dict[str, int],
    name: str | None,
    seed: int | None,
    format: tournaments.Format = "round-robin",
    actor: Actor | None = None,
) -> tuple[int, int]:
    """Schedule a tournament (arena.app.tournaments.create) as who this command acts as
    unless ``actor`` is given; returns (tournament id, matches queued)."""
    made = tournaments.create(
        store,
        actor or local_actor(store),
        game=game,
        bots=bots,
        games=games,
        table_size=table_size,
        duplicate=duplicate,
        options=options,
        clock=clock,
        name=name,
        seed=seed,
        format=format,
    )
    return made.tournament, made.matches


def cmd_create(args: argparse.Namespace) -> int:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(bots) < 2:
        raise CommandError("--bots needs at least two bots, comma-separated")
    return create_command(args, bots, "round-robin")


def create_command(args: argparse.Namespace, bots: list[str], format: tournaments.Format) -> int:
    """Schedule a tournament of ``format`` between ``bots`` as the arguments of ``tournament
    create`` or ``gauntlet`` say, here or on a remote platform, and play it with ``--run``."""
    options = game_options(args.game, args.option)
    clock = clock_rules(args.clock)
    platform = remote()
    if platform is not None:
        with platform:
            return _create_remote(platform, args, bots, format, options, clock)

    def made(store: Store) -> int:
        tournament_id, count = create(
            store,
            game=args.game,
            bots=bots,
            games=args.games,
            table_size=args.table_size,
            duplicate=args.duplicate,
            options=options,
            clock=clock,
            name=args.name,
            seed=args.seed,
            format=format,
        )
        if args.json and not args.run:
            print(json.dumps({"tournament": tournament_id, "matches": count, "game": args.game}))
        else:
            print(
                f"tournament {tournament_id}: {count} {args.game} matches queued",
                file=sys.stderr if args.json else sys.stdout,
                flush=True,
            )
        return tournament_id

    if not args.run:
        tournament_id = with_store(made)
        if not args.json:
            print(f"play it with: arena tournament run {tournament_id}")
        return 0
    return _with_platform(
        args, lambda p: run(p, made(p.store), args.quiet, args.parallel, json_out=args.json)
    )


def _create_remote(
    platform: RemotePlatform,
    args: argparse.Namespace,
    bots: list[str],
    format: tournaments.Format,
    options: dict[str, Any],
    clock: dict[str, int],
) -> int:
    """Create the tournament on a remote platform, whose workers play it; with ``--run``,
    wait for its last match and print its standings."""
    made = platform.post(
        "/tournaments",
        {
            "game": args.game,
            "bots": bots,
            "games": args.games,
            "format": format,
            "duplicate": args.duplicate,
            "table_size": args.table_size,
            "options": options,
            "clock": clock,
            "name": args.name,
            "seed": args.seed,
        },
    )
    tournament_id, count = made["tournament"], made["matches"]
    if args.json and not args.run:
        print(json.dumps(made))
        return 0
    print(
        f"tournament {tournament_id}: {count} {args.game} matches queued",
        file=sys.stderr if args.json else sys.stdout,
        flush=True,
    )
    if not args.run:
        print(
            "the platform's workers play it; see it with: arena tournament standings "
            f"{tournament_id}"
        )
        return 0
    data = platform.get(f"/tournaments/{tournament_id}")
    while data["progress"]["queued"] + data["progress"]["running"] > 0:
        time.sleep(TICK_S)
        data = platform.get(f"/tournaments/{tournament_id}")
    print_report(data, json_out=args.json)
    return _failed_exit(data["progress"], tournament_id)


def _failed_exit(progress: dict[str, int], tournament_id: int) -> int:
    if progress["failed"]:
        raise Failed(
            f"{progress['failed']} of tournament {tournament_id}'s matches failed; put them back "
            f"with: arena tournament retry {tournament_id}"
        )
    return 0


# -- run and watch -------------------------------------------------------------------------


def _with_platform(args: argparse.Namespace, body: Callable[[Platform], int]) -> int:
    from arena.platform import platform
    from referee import settings

    workers = args.local_workers
    if workers is None:
        workers = 0 if settings.load().redis_url else 1
    if workers < 0 or args.concurrency < 1 or args.parallel < 1:
        raise CommandError(
            "--local-workers must be 0 or more, --concurrency and --parallel at least 1"
        )
    with platform(workers=workers, concurrency=args.concurrency) as running:
        return body(running)


def cmd_run(args: argparse.Namespace) -> int:
    def checked(platform: Platform) -> int:
        tournaments.may_run(platform.store, local_actor(platform.store), args.id)
        return run(platform, args.id, args.quiet, args.parallel, json_out=args.json)

    return _with_platform(args, checked)


def run(
    platform: Platform,
    tournament_id: int,
    quiet: bool = False,
    parallel: int = PARALLEL,
    *,
    json_out: bool = False,
) -> int:
    """Enqueue the tournament's work and follow it to the end; print the standings."""
    from worker import tasks

    store = platform.store
    tournament = store.tournament(tournament_id)
    tasks.sweep_now(store)  # matches of workers that vanished
    progress = store.tournament_progress(tournament_id)
    tasks.start_drains(store, tournament_id, progress["queued"], parallel)
    try:
        follow(platform, tournament, quiet, sweep=True)
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C or SIGTERM: say how to go on
        counts = store.tournament_progress(tournament_id)
        left = counts["queued"] + counts["running"]
        print(
            f"stopped with {left} match{'es' if left != 1 else ''} left; resume with: "
            f"{arena_command()} tournament run {tournament_id} (finished matches are kept, "
            "a match cut off is played again from its start)",
            file=sys.stderr,
        )
        raise
    report(store, tournament_id, json_out=json_out)
    failed = store.list_matches(tournament_id=tournament_id, state="failed", limit=100_000)
    if failed:
        first = min(failed, key=lambda m: m.id)
        raise Failed(
            f"{len(failed)} match{'es' if len(failed) != 1 else ''} of tournament "
            f"{tournament_id} failed (match {first.id}: {first.error}); put them back with: "
            f"arena tournament retry {tournament_id} --run"
        )
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    """Cancel the tournament's queued matches (operators), here or on a remote platform."""
    platform = remote()
    if platform is not None:
        with platform:
            return _print_cancelled(platform.post(f"/tournaments/{args.id}/cancel"), args.json)

    def body(store: Store) -> int:
        cancelled = tournaments.cancel(store, local_actor(store), args.id)
        return _print_cancelled({"tournament": args.id, "cancelled": cancelled}, args.json)

    return with_store(body)


def _print_cancelled(done: dict[str, Any], json_out: bool) -> int:
    if json_out:
        print(json.dumps(done))
        return 0
    count = len(done["cancelled"])
    print(
        f"tournament {done['tournament']} cancelled: {count} queued match"
        f"{'es' if count != 1 else ''} cancelled (those running finish)"
    )
    return 0


def cmd_retry(args: argparse.Namespace) -> int:
    """Queue the failed matches again (a second call finds none), then run if asked."""

    def retry(store: Store) -> int:
        again = tournaments.retry(store, local_actor(store), args.id)
        if args.json and not args.run:
            print(json.dumps({"tournament": args.id, "queued_again": again}))
            return 0
        shown = ", ".join(map(str, again[:10])) + (", …" if len(again) > 10 else "")
        print(
            f"tournament {args.id}: {len(again)} failed match"
            f"{'es' if len(again) != 1 else ''} queued again" + (f" ({shown})" if again else ""),
            file=sys.stderr if args.json else sys.stdout,
        )
        return 0

    with_store(retry)
    if not args.run:
        return 0
    return cmd_run(args)


def cmd_watch(args: argparse.Namespace) -> int:
    from arena.platform import platform

    remote_platform = remote()
    if remote_platform is not None:
        with remote_platform:
            return _watch_remote(remote_platform, args.id, json_out=args.json)
    with platform() as running:
        follow(running, running.store.tournament(args.id), quiet=False, sweep=False)
        return report(running.store, args.id, json_out=args.json)


def _watch_remote(platform: RemotePlatform, tournament_id: int, *, json_out: bool) -> int:
    """Follow a tournament on a remote platform (its progress and standings, read every
    :data:`TICK_S`) until its last match ends; then print its standings."""
    import shutil

    from rich.console import Console, Group
    from rich.live import Live

    data = platform.get(f"/tournaments/{tournament_id}")
    began, ended_at_start = time.monotonic(), data["progress"]["done"]
    narrow = shutil.get_terminal_size().columns < WIDE_ENOUGH
    with Live(console=Console(stderr=True), refresh_per_second=2, transient=True) as live:
        while data["progress"]["queued"] + data["progress"]["running"] > 0:
            counts = data["progress"]
            rate = (counts["done"] - ended_at_start) / max(time.monotonic() - began, 1e-9)
            total = sum(counts.values()) - counts["cancelled"]
            live.update(
                Group(_progress_line(counts, total, rate), rows_table(data, compact=narrow))
            )
            time.sleep(TICK_S)
            data = platform.get(f"/tournaments/{tournament_id}")
    return print_report(data, json_out=json_out)


def follow(platform: Platform, tournament: Tournament, quiet: bool, *, sweep: bool) -> None:
    """Show progress (done, running, failed, rate, ETA) and the standings as results
    arrive, until no match is queued or running. With ``sweep`` also re-queue matches
    whose worker vanished (the scheduler's work, for a platform without one)."""
    import redis
    from rich.console import Console, Group
    from rich.live import Live

    from worker import notices, tasks

    store = platform.store
    wake = threading.Event()
    stop = threading.Event()
    client = redis.Redis.from_url(platform.redis_url)
    pubsub = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call,unused-ignore]  # untyped before redis 8.2
    pubsub.subscribe(notices.tournament_channel(tournament.id))

    def listen() -> None:
        while not stop.is_set():
            try:
                if pubsub.get_message(timeout=0.5) is not None:
                    wake.set()
            except redis.RedisError:
                time.sleep(0.5)

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    console = Console(stderr=True)
    started = time.monotonic()
    first = store.tournament_progress(tournament.id)
    done_at_start = first["done"] + first["failed"]
    last_change, last_done = time.monotonic(), -1
    hinted = False
    try:
        with Live(
            console=console,
            refresh_per_second=4,
            transient=False,
            redirect_stdout=False,
            auto_refresh=not quiet and console.is_terminal,
        ) as live:
            while True:
                counts = store.tournament_progress(tournament.id)
                total = sum(counts.values()) - counts["cancelled"]
                ended = counts["done"] + counts["failed"]
                if ended != last_done:
                    last_done, last_change = ended, time.monotonic()
                elapsed = time.monotonic() - started
                rate = (ended - done_at_start) / elapsed if elapsed > 0 else 0.0
                line = _progress_line(counts, total, rate)
                if not quiet and console.is_terminal:
                    table = standings_of(store, tournament.id)
                    narrow = console.width < WIDE_ENOUGH
                    live.update(Group(line, standings_table(table, compact=narrow)))
                if counts["queued"] == 0 and counts["running"] == 0:
                    break
                if sweep:
                    tasks.sweep_now(store)
                idle = time.monotonic() - last_change
                if not hinted and counts["running"] == 0 and idle > IDLE_HINT_S:
                    hinted = True
                    console.print(
                        f"no match has been taken for {IDLE_HINT_S:.0f} s: is a worker running? "
                        "Start one with `arena worker` (same ARENA_REDIS_URL and "
                        "ARENA_DATABASE_URL), or run with --local-workers 1"
                    )
                if platform.workers and len(platform.dead_workers()) == len(platform.workers):
                    raise CommandError(
                        f"every local worker stopped (exit codes {platform.dead_workers()}); "
                        f"see {platform.logs}"
                    )
                wake.wait(TICK_S)
                wake.clear()
    finally:
        stop.set()
        listener.join(2)
        pubsub.close()
        client.close()
    if quiet or not console.is_terminal:
        console.print(_progress_line(counts, total, rate))


def _progress_line(counts: dict[str, int], total: int, rate: float) -> Any:
    from rich.text import Text

    ended = counts["done"] + counts["failed"]
    left = counts["queued"] + counts["running"]
    eta = f"{left / rate:.0f} s" if rate > 0 and left else "–"
    width = 30
    filled = int(width * ended / total) if total else width
    bar = "█" * filled + "░" * (width - filled)
    return Text(
        f"{bar} {ended}/{total} done {counts['done']} · running {counts['running']} · "
        f"failed {counts['failed']} · {rate:.1f} matches/s · ETA {eta}"
    )


def cmd_bench(args: argparse.Namespace) -> int:
    """Run ``arena bench tournament`` and print its figures."""
    from arena.bench.tournament import bench_tournament

    if min(args.workers, args.concurrency, args.matches, args.repeats) < 1:
        raise CommandError("--workers, --concurrency, --matches and --repeats must be at least 1")
    if args.hosts:
        return _bench_hosts(args)
    try:
        figures = bench_tournament(
            workers=args.workers,
            matches=args.matches,
            concurrency=args.concurrency,
            repeats=args.repeats,
        ).as_dict()
    except RuntimeError as exc:  # the platform under the bench stopped or stalled
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(figures))
        return 0
    width = max(len(k) for k in figures)
    print(
        f"arena bench tournament --workers {args.workers} --concurrency {args.concurrency} "
        f"--matches {args.matches} --repeats {args.repeats} (medians)"
    )
    for key, value in figures.items():
        print(f"  {key:<{width}}  {value}")
    return 0


def _bench_hosts(args: argparse.Namespace) -> int:
    """``arena bench tournament --hosts``: one worker host, then two."""
    from arena.bench import hosts, scaleout

    reason = hosts.unavailable()
    if reason is not None:
        raise CommandError(f"--hosts cannot make hosts here: {reason}")
    try:
        figures = scaleout.run(matches=args.matches, concurrency=args.concurrency)
    except (RuntimeError, hosts.HostsUnavailable) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(figures))
        return 0
    print(
        f"arena bench tournament --hosts --concurrency {args.concurrency} --matches {args.matches}"
    )
    for key in ("hosts_1", "hosts_2"):
        phase = figures[key]
        played = ", ".join(f"{h} {n}" for h, n in phase["matches_by_host"].items())
        print(
            f"  {phase['worker_hosts']} worker host(s): {phase['matches_per_s']} matches/s"
            f" ({played})"
        )
    print(f"  two hosts over one: {figures['two_over_one']}")
    return 0
