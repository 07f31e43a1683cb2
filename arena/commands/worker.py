"""``arena worker`` (a Celery worker with its own referee process and bot pool) and
``arena scheduler`` (the periodic work: re-queueing matches whose worker vanished), as
``docs/operations.md`` describes."""

from __future__ import annotations

import argparse
import socket
import threading
from typing import Any

from arena.commands import add_command, examples, json_argument
from arena.commands.db import local_database, refuse_when_remote, store_errors
from arena.commands.metrics_option import metrics_argument, serve_metrics
from arena.errors import CommandError, Failed
from referee import settings
from referee.settings import arena_home


def register(sub: Any, bench_sub: Any) -> None:
    """Add this module's commands."""
    w = add_command(
        sub,
        "worker",
        help="run a worker: Celery tasks that play matches, a referee and a bot pool",
        examples=examples(
            "arena worker --concurrency 2",
            "ARENA_REDIS_URL=redis://host:6379/0 ARENA_DATABASE_URL=postgresql://host/arena "
            "arena worker",
            "ARENA_LOG_FORMAT=json arena worker --metrics 9101",
        ),
    )
    w.add_argument("--concurrency", type=int, default=2, help="matches played at once (default 2)")
    _loglevel_argument(w)
    metrics_argument(w)
    w.add_argument(
        "--node-name",
        metavar="NAME",
        default=None,
        help="the Celery node's name, for `celery inspect` (default celery@HOST; several "
        "workers on one host each need their own, e.g. worker1@%%h)",
    )
    w.add_argument(
        "--referee-host",
        metavar="ADDRESS",
        default="127.0.0.1",
        help="the address its referee's match service listens on, which the web app's live "
        "view dials (default 127.0.0.1: the web app on this host; give this host's own "
        "address when the web app runs elsewhere; its calls need the platform's secret)",
    )
    w.add_argument(
        "--remote",
        metavar="HOST:PORT",
        default=None,
        help="also take remote bots, which dial this address over TLS with their owner's "
        'API key (docs/bots.md, "Running your bot from home")',
    )
    w.add_argument(
        "--tls-cert",
        metavar="FILE",
        default=None,
        help="with --remote: the PEM certificate (chain) it serves (default ARENA_TLS_CERT)",
    )
    w.add_argument(
        "--tls-key",
        metavar="FILE",
        default=None,
        help="with --remote: the PEM private key (default ARENA_TLS_KEY)",
    )
    w.set_defaults(func=cmd_worker)
    bench = add_command(
        bench_sub,
        "sandbox",
        help="what the sandbox of hosted bots costs: bot start and per decision, on vs off",
        examples=examples("arena bench sandbox", "arena bench sandbox --repeats 7 --json"),
    )
    bench.add_argument("--repeats", type=int, default=5, help="rounds of each, alternating")
    bench.add_argument("--matches", type=int, default=20, help="matches per round (default 20)")
    json_argument(bench, "the figures")
    bench.set_defaults(func=cmd_bench_sandbox)
    admission = add_command(
        bench_sub,
        "admission",
        help="how long a genuine remote bot waits to be admitted, alone and during floods",
        examples=examples("arena bench admission", "arena bench admission --flood 300 --json"),
    )
    admission.add_argument(
        "--dials", type=int, default=15, help="timed admissions per condition (default 15)"
    )
    admission.add_argument(
        "--flood", type=int, default=300, help="streams of each flood (default 300)"
    )
    json_argument(admission, "the figures")
    admission.set_defaults(func=cmd_bench_admission)
    s = add_command(
        sub,
        "scheduler",
        help="run the periodic work (re-queue matches whose worker vanished, ladder ticks)",
        examples=examples("arena scheduler", "arena scheduler --loglevel INFO --metrics 9102"),
    )
    _loglevel_argument(s)
    metrics_argument(s)
    s.set_defaults(func=cmd_scheduler)


def _loglevel_argument(parser: Any) -> None:
    """``--loglevel``: the least level logged (docs/operations.md, "Logs")."""
    from worker.logs import LEVELS

    parser.add_argument(
        "--loglevel",
        type=str.upper,
        choices=LEVELS,
        default="WARNING",
        metavar="LEVEL",
        help="the least level logged: %(choices)s (default WARNING)",
    )


def _check_referee_host(host: str) -> None:
    """A clear error for a ``--referee-host`` this host cannot listen on (the referee
    process would only exit), before anything is started."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family) as probe:
            probe.bind((host, 0))
    except (OSError, UnicodeError) as exc:
        raise CommandError(
            f"--referee-host {host}: this host cannot listen there ({exc}); give one of "
            "its own addresses, or leave it out for 127.0.0.1"
        ) from None


def cmd_worker(args: argparse.Namespace) -> int:
    """Serve tasks until SIGTERM (finishing the matches in hand) or SIGINT."""
    from celery.signals import worker_shutdown, worker_shutting_down

    from arena.app.remote import admitter
    from worker import broker, host, logs
    from worker.app import QUEUE, REMOTE_QUEUE, configure
    from worker.sandbox import SandboxUnavailable
    from worker.store import Store

    if args.concurrency < 1:
        raise CommandError("--concurrency must be at least 1")
    _check_referee_host(args.referee_host)
    remote = _remote_args(args)
    form = logs.configure_logging(args.loglevel)
    logs.keep_celery_out()
    serve_metrics(args.metrics)
    with (
        store_errors(),
        local_database() as url,
        broker.redis_url() as redis_url,
        Store.open(url, max_size=args.concurrency + 2) as store,
    ):
        app = configure(redis_url)
        import worker.tasks  # noqa: F401 - registers the tasks on the app

        try:
            worker_host = host.start_host(
                store,
                redis_url,
                remote=remote,
                admit=admitter(store) if remote else None,
                referee_host=args.referee_host,
            )
        except SandboxUnavailable as exc:
            raise CommandError(str(exc)) from None
        host.install(worker_host)
        worker_shutting_down.connect(lambda **_: worker_host.stopping.set(), weak=False)
        # app.worker_main drops the worker's exit code: the worker reports it as it stops
        exit_codes: list[int | None] = []
        worker_shutdown.connect(lambda sender, **_: exit_codes.append(sender.exitcode), weak=False)
        reaper = threading.Thread(target=_reap, args=(worker_host,), daemon=True)
        reaper.start()
        try:
            app.worker_main(
                [
                    *(("--quiet",) if form == "json" else ()),  # no banner: JSON lines only
                    "worker",
                    "--pool",
                    "threads",
                    "--concurrency",
                    str(args.concurrency),
                    "--queues",
                    f"{QUEUE},{REMOTE_QUEUE}" if remote else QUEUE,
                    *(("--hostname", args.node_name) if args.node_name else ()),
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "--loglevel",
                    args.loglevel,
                ]
            )
        finally:
            host.install(None)
            worker_host.close()
    # for its supervisor (systemd, compose) to restart it
    if worker_host.fatal is not None:
        raise Failed(f"{worker_host.fatal}; see the log above")
    if any(exit_codes):  # Celery stopped on its own: an unrecoverable error, logged above
        raise Failed(
            f"the Celery worker stopped with an unrecoverable error (exit code "
            f"{next(c for c in exit_codes if c)}); "
            "see the log above"
        )
    return 0


def _remote_args(args: argparse.Namespace) -> list[str]:
    """What the worker's referee is started with to take remote bots: a TLS listener."""
    if args.remote is None:
        return []
    found = settings.load()
    cert, key = args.tls_cert or found.tls_cert, args.tls_key or found.tls_key
    if cert is None or key is None:
        raise CommandError(
            "--remote needs a certificate and its key: --tls-cert and --tls-key (or "
            "ARENA_TLS_CERT and ARENA_TLS_KEY); remote bots dial in over TLS only"
        )
    return ["--remote", args.remote, "--tls-cert", cert, "--tls-key", key]


def _reap(worker_host: Any) -> None:
    """Stop idle bot processes every half minute."""
    while not worker_host.stopping.wait(30.0):
        worker_host.pool.reap()


def cmd_scheduler(args: argparse.Namespace) -> int:
    """Run Celery beat with the platform's schedule until stopped."""
    from worker import broker, logs

    form = logs.configure_logging(args.loglevel)
    logs.keep_celery_out()
    serve_metrics(args.metrics)
    refuse_when_remote()  # the platform's broker is its own
    with store_errors(), broker.redis_url() as redis_url:
        from worker.app import configure

        app = configure(redis_url)
        import worker.tasks  # noqa: F401 - the schedule names the tasks

        folder = arena_home()
        folder.mkdir(parents=True, exist_ok=True)
        app.start(
            [
                *(("--quiet",) if form == "json" else ()),  # no banner: JSON lines only
                "beat",
                "--schedule",
                str(folder / "celerybeat-schedule"),
                "--loglevel",
                args.loglevel,
            ]
        )
    return 0


def cmd_bench_admission(args: argparse.Namespace) -> int:
    """Time a genuine remote bot's admission alone and during floods; print the figures."""
    import json

    from arena.bench.admission import bench_admission
    from worker import broker
    from worker.sandbox import SandboxUnavailable

    if args.dials < 1 or args.flood < 1:
        raise CommandError("--dials and --flood must be at least 1")
    try:
        with store_errors(), local_database() as url, broker.redis_url() as redis_url:
            figures = bench_admission(url, redis_url, dials=args.dials, flood=args.flood)
    except SandboxUnavailable as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(figures.as_dict(), indent=2))
        return 0
    alone = figures.median("alone")
    print(
        f"admission of a genuine remote bot (TCP, TLS, Serve to its session's headers): "
        f"medians of {figures.dials} dials"
    )
    for condition, label, refusals in (
        ("alone", "no one else dialling", {}),
        ("key_flood", f"{figures.flood} streams of made-up keys", figures.key_flood_refusals),
        (
            "socket_flood",
            f"{figures.flood} streams on a bot's socket",
            figures.socket_flood_refusals,
        ),
    ):
        times = getattr(figures, f"{condition}_ms")
        answered = ", ".join(f"{n:,} {code}" for code, n in sorted(refusals.items()))
        print(
            f"  {label:<40} {figures.median(condition):>7.1f} ms  (max {max(times):.1f} ms, "
            f"{figures.median(condition) / alone:.2f}x alone)"
            + (f"   flood answered: {answered}" if answered else "")
        )
    return 0


def cmd_bench_sandbox(args: argparse.Namespace) -> int:
    """Measure the sandbox against unconfined bots and print the figures."""
    import json

    from arena.bench.sandbox import GAME, run_bench
    from worker.sandbox import SandboxUnavailable

    if args.repeats < 1 or args.matches < 1:
        raise CommandError("--repeats and --matches must be at least 1")
    try:
        figures = run_bench(repeats=args.repeats, matches=args.matches)
    except SandboxUnavailable as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(figures.as_dict(), indent=2))
        return 0
    print(
        f"sandbox ({figures.sandbox}): medians of {figures.repeats} rounds, "
        f"{figures.matches} one-hand {GAME} matches each"
    )
    print(
        f"  bot start      on {figures.start_ms_on:>8.1f} ms   off {figures.start_ms_off:>8.1f} ms"
        f"   ratio {figures.start_ratio:.2f}"
    )
    print(
        f"  per decision   on {figures.decision_us_on:>8.1f} µs   off "
        f"{figures.decision_us_off:>8.1f} µs   ratio {figures.decision_ratio:.3f}"
        f"   (rounds: {', '.join(f'{r:.3f}' for r in figures.decision_ratios)})"
    )
    return 0
