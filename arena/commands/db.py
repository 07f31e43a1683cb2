"""Store commands: ``arena db migrate``, ``arena ratings show|recompute`` and
``arena bench store`` (docs/storage.md, docs/performance.md)."""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.cli import CommandError, ServerUnavailable
from arena.commands import add_command, examples, game_argument, json_argument
from referee import settings
from worker import broker, db
from worker.ratings import NoFiniteFit
from worker.store import Store, StoreError


def register(sub: Any, bench_sub: Any) -> None:
    database = add_command(
        sub,
        "db",
        help="the Postgres store: migrations",
        examples=examples("arena db migrate"),
    )
    db_sub = database.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    migrate = add_command(
        db_sub,
        "migrate",
        help="apply pending schema migrations, in order",
        examples=examples(
            "arena db migrate",
            "ARENA_DATABASE_URL=postgresql://arena@db.example/arena arena db migrate --json",
        ),
    )
    json_argument(migrate, "the migrations applied and the schema version")
    migrate.set_defaults(func=run_migrate)

    ratings = add_command(
        sub,
        "ratings",
        help="Elo tables and batch standings",
        examples=examples(
            "arena ratings show --game hollywood-gin", "arena ratings recompute --game rummy-500"
        ),
    )
    r_sub = ratings.add_subparsers(dest="ratings_command", required=True, metavar="ACTION")
    show = add_command(
        r_sub,
        "show",
        help="print the Elo table of a game, or the batch standings of a tournament or ladder",
        examples=examples(
            "arena ratings show --game hollywood-gin",
            "arena ratings show --tournament 3 --batch",
            "arena ratings show --game rummy-500 --duplicate --json",
        ),
    )
    game_argument(show, required=False)
    show.add_argument("--tournament", type=int, help="batch standings of a tournament")
    show.add_argument("--ladder", type=int, help="batch standings of a ladder")
    show.add_argument(
        "--batch", action="store_true", help="Bradley–Terry standings with 95%% intervals"
    )
    show.add_argument(
        "--prior", type=float, default=1.0, help="virtual draws vs 1500 per bot (batch; default 1)"
    )
    show.add_argument("--duplicate", action="store_true", help="results over duplicate sets")
    json_argument(show, "the table")
    show.set_defaults(func=run_show)
    recompute = add_command(
        r_sub,
        "recompute",
        help="rebuild a game's Elo table from stored results, in completion order",
        examples=examples(
            "arena ratings recompute --game hollywood-gin",
            "arena ratings recompute --game hollywood-gin --k 16 --json",
        ),
    )
    game_argument(recompute)
    recompute.add_argument(
        "--k", type=float, default=None, help="Elo K (default ARENA_ELO_K or 24)"
    )
    json_argument(recompute, "the figures")
    recompute.set_defaults(func=run_recompute)

    bench = add_command(
        bench_sub,
        "store",
        help="store throughput, record size, fetch latency",
        examples=examples("arena bench store", "arena bench store --matches 500 --json"),
    )
    bench.add_argument("--matches", type=int, default=2000, help="matches to finish (default 2000)")
    bench.add_argument(
        "--recompute", type=int, default=0, metavar="N", help="also time an Elo recompute of N"
    )
    bench.add_argument(
        "--workers", type=int, default=4, help="concurrent finishing threads (default 4)"
    )
    json_argument(bench, "one JSON object")
    bench.set_defaults(func=run_bench_store)


def check_home() -> None:
    """CommandError unless ``ARENA_HOME`` is a folder this process can write (or make):
    the embedded Postgres and Redis, and the referee's secret, live there."""
    home = settings.load().home
    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=home):
            pass
    except OSError as exc:
        raise CommandError(
            f"ARENA_HOME {home} is not a folder this user can write ({exc.strerror}): point "
            f"{settings.HOME} at one, or set {settings.DATABASE_URL} and {settings.REDIS_URL} "
            "to use servers of your own"
        ) from None


@contextmanager
def store_errors(*, redis: bool = True) -> Iterator[None]:
    """Store (and broker) failures as one line, no traceback: a server that does not answer
    as :class:`ServerUnavailable` (exit 3), the rest as a CommandError (exit 2). Checks
    first that ``ARENA_HOME`` is usable when an embedded Postgres (or, with ``redis``, an
    embedded Redis) would live there."""
    found = settings.load()
    if found.database_url is None or (redis and found.redis_url is None):
        check_home()
    try:
        yield
    except (db.StoreUnavailable, broker.BrokerUnavailable) as exc:
        raise ServerUnavailable(str(exc)) from exc
    except (db.MigrationError, StoreError, NoFiniteFit) as exc:
        raise CommandError(str(exc)) from exc


def with_store(body: Callable[[Store], int], **kwargs: Any) -> int:
    """Run ``body`` on a store opened on the configured database; store failures as a
    CommandError."""
    with store_errors(redis=False), db.database_url() as url, Store.open(url, **kwargs) as store:
        return body(store)


def run_migrate(args: argparse.Namespace) -> int:
    with store_errors(redis=False), db.database_url() as url, db.connect(url) as conn:
        applied = db.migrate(conn)
        known = db.applied_migrations(conn)
    if args.json:
        print(
            json.dumps(
                {
                    "applied": [m.name for m in applied],
                    "schema": max(known),
                    "migrations": len(known),
                    "database": db.redact_url(url),
                }
            )
        )
        return 0
    for migration in applied:
        print(f"applied {migration.name}")
    print(f"schema at {max(known):04d} ({len(known)} migrations) on {db.redact_url(url)}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    if not (args.game or args.tournament or args.ladder):
        raise CommandError("give --game, --tournament or --ladder")

    def body(store: Store) -> int:
        if args.tournament is not None:
            store.tournament(args.tournament)  # StoreError "no tournament N" when unknown
        if args.ladder is not None and all(lad.id != args.ladder for lad in store.ladders()):
            raise CommandError(f"no ladder {args.ladder} (see `arena ladder status`)")
        scope = {"game": args.game, "tournament_id": args.tournament, "ladder_id": args.ladder}
        console = Console()
        if args.duplicate:
            rows = store.duplicate_standings(**scope)
            labels = store.labels([int(r.player) for r in rows])  # type: ignore[call-overload]
            data = [
                {
                    "bot": labels.get(r.player, str(r.player)),  # type: ignore[call-overload]
                    "sets": r.sets,
                    "set_points": r.set_points,
                    "mean_score": r.mean_score,
                }
                for r in rows
            ]
        elif args.batch or not args.game:
            standings = store.standings(**scope, prior_draws=args.prior)
            labels = store.labels([int(s.player) for s in standings])  # type: ignore[call-overload]
            data = [
                {
                    "bot": labels.get(s.player, str(s.player)),  # type: ignore[call-overload]
                    "rating": round(s.rating, 1),
                    "low": round(s.low, 1),
                    "high": round(s.high, 1),
                    "games": s.games,
                    "p_stronger_than_next": None
                    if s.p_stronger_than_next is None
                    else round(s.p_stronger_than_next, 3),
                }
                for s in standings
            ]
        else:
            data = [
                {"bot": r.label, "elo": round(r.rating, 1), "games": r.games}
                for r in store.ratings(args.game)
            ]
        if args.json:
            print(json.dumps(data))
            return 0
        if not data:
            console.print("no rated results yet: play a tournament or a ladder first")
            return 0
        table = Table()
        for column in data[0]:
            table.add_column(column, justify="left" if column == "bot" else "right")
        for row in data:
            table.add_row(*("" if v is None else str(v) for v in row.values()))
        console.print(table)
        return 0

    return with_store(body)


def run_recompute(args: argparse.Namespace) -> int:
    def body(store: Store) -> int:
        stats = store.recompute_ratings(args.game, k=args.k)
        k = store.elo_k if args.k is None else args.k
        if args.json:
            print(
                json.dumps(
                    {
                        "game": args.game,
                        "matches": stats.matches,
                        "bots": stats.players,
                        "k": k,
                        "seconds": round(stats.seconds, 3),
                    }
                )
            )
            return 0
        print(
            f"recomputed Elo of {args.game}: {stats.matches} matches, {stats.players} bots, "
            f"K={k:g}, {stats.seconds:.2f} s"
        )
        return 0

    return with_store(body)


def run_bench_store(args: argparse.Namespace) -> int:
    from arena.bench.store import bench_store

    with store_errors(redis=False), db.database_url() as url:
        report = bench_store(
            url, matches=args.matches, recompute=args.recompute, workers=args.workers
        )
    if args.json:
        print(json.dumps(report.as_dict()))
        return 0
    console = Console()
    table = Table(
        title=f"arena bench store --matches {args.matches} --workers {args.workers}"
        f" --recompute {args.recompute}"
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row(
        "finished matches/s, 1 worker (claim + finish: record, results, Elo)",
        f"{report.finished_per_s_one_worker:,.0f}",
    )
    table.add_row(
        f"finished matches/s, {report.workers} concurrent workers",
        f"{report.finished_per_s:,.0f}",
    )
    table.add_row(
        "record bytes of a one-hand match, gin_greedy seats (mean / max)",
        f"{report.record_bytes_mean:,.0f} / {report.record_bytes_max:,}"
        f" ({report.actions_mean:.0f} actions)",
    )
    table.add_row(
        "record bytes of a one-hand match, random legal actions (mean)",
        f"{report.random_play_record_bytes_mean:,.0f}"
        f" ({report.random_play_actions_mean:.0f} actions)",
    )
    table.add_row(
        "record fetch by id p50 / p99 (ms)",
        f"{report.fetch_p50_ms:.2f} / {report.fetch_p99_ms:.2f}",
    )
    if report.recompute_matches:
        table.add_row(
            "Elo recompute (matches, seconds)",
            f"{report.recompute_matches:,} + {report.matches:,} in {report.recompute_s:.1f} s",
        )
        table.add_row("recompute matches/s", f"{report.recompute_matches_per_s:,.0f}")
    console.print(table)
    console.print(f"records: {report.record_codec}")
    return 0
