"""``arena db migrate`` and ``arena bench store`` (docs/storage.md, docs/performance.md),
and how every command opens the store: :func:`with_store`, :func:`store_errors`, and
:func:`local_database`, which every command that opens this machine's store goes
through, so that none opens one when a platform is set (docs/cli.md, "Local and
remote")."""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.commands import add_command, examples, json_argument, print_table
from arena.errors import CommandError, ServerUnavailable
from referee import settings
from worker import broker, db
from worker.ratings import NoFiniteFit
from worker.store import Store, StoreError


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena db migrate`` and ``arena bench store``."""
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


def refuse_when_remote() -> None:
    """:class:`CommandError` when a platform is set (``ARENA_PLATFORM``, or ``arena
    login``): the command about to open this machine's store has no remote form, and
    must not open (or start) a store here unasked."""
    from arena.remote import config_path, login_settings

    login = login_settings()
    if login is None:
        return
    if settings.load().platform is not None:
        how, undo = f"by {settings.PLATFORM}", f"unset {settings.PLATFORM}"
    else:
        how, undo = f"by `arena login`, in {config_path()}", f"remove {config_path()}"
    raise CommandError(
        f"works on this machine's store only, and a platform is set ({login.platform}, "
        f"{how}); it has no remote form: run it on the platform's host, or {undo} to use "
        "this machine's store"
    )


@contextmanager
def local_database(url: str | None = None) -> Iterator[str]:
    """This machine's database (:func:`worker.db.database_url`: ``url``, the configured
    one, else an embedded server), refused when a platform is set
    (:func:`refuse_when_remote`)."""
    refuse_when_remote()
    with db.database_url(url) as found:
        yield found


def with_store(body: Callable[[Store], int], **kwargs: Any) -> int:
    """Run ``body`` on a store opened on the configured database; store failures as a
    CommandError."""
    with store_errors(redis=False), local_database() as url, Store.open(url, **kwargs) as store:
        return body(store)


def run_migrate(args: argparse.Namespace) -> int:
    with store_errors(redis=False), local_database() as url, db.connect(url) as conn:
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


def run_bench_store(args: argparse.Namespace) -> int:
    from arena.bench.store import bench_store

    with store_errors(redis=False), local_database() as url:
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
    print_table(table)
    console.print(f"records: {report.record_codec}")
    return 0
