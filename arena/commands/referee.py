"""``arena referee`` (serve the gRPC referee service) and ``arena bench referee``."""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import socket
import sys
from pathlib import Path
from typing import Any

from arena.commands import add_command, examples, game_argument, json_argument
from arena.commands.metrics_option import metrics_argument, serve_metrics
from arena.commands.standalone import run_alone
from arena.errors import CommandError
from referee import settings


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena referee`` and ``arena bench referee``."""
    p = add_command(
        sub,
        "referee",
        help="run the gRPC referee service",
        examples=examples(
            "arena referee --port 50051",
            "arena referee --port 0 --grace 60",
            "arena referee --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem",
        ),
    )
    p.add_argument("--port", type=int, default=50051, help="port to listen on (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument(
        "--unix",
        metavar="PATH",
        default=None,
        help="also listen on a Unix socket file for hosted bots (sandboxed bots reach their "
        "referee there): session keys are then taken there only, not on the TCP port",
    )
    p.add_argument(
        "--tcp-sessions",
        action="store_true",
        help="with --unix, take session keys on the TCP port too (hosted bots that run "
        "unconfined, ARENA_SANDBOX=off, reach it there)",
    )
    p.add_argument(
        "--tls-cert",
        metavar="FILE",
        default=None,
        help="serve TLS on the TCP port with this PEM certificate (chain), with --tls-key "
        "(default ARENA_TLS_CERT; the Unix socket stays plain)",
    )
    p.add_argument(
        "--tls-key",
        metavar="FILE",
        default=None,
        help="the PEM private key of --tls-cert (default ARENA_TLS_KEY)",
    )
    p.add_argument(
        "--remote",
        metavar="HOST:PORT",
        default=None,
        help="also listen for remote bots (an API key, admitted by the platform) on HOST:PORT "
        "(port 0: any free port) with TLS; needs --tls-cert and --tls-key, which then serve "
        "this port only",
    )
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
    metrics_argument(p)
    p.set_defaults(func=cmd_referee)
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
    from referee.service import TlsError, serve, tls_identity

    tls = None
    found = settings.load()
    cert, key = args.tls_cert or found.tls_cert, args.tls_key or found.tls_key
    if bool(cert) != bool(key):
        given, missing = (
            ("--tls-cert", "--tls-key (or ARENA_TLS_KEY)")
            if cert
            else ("--tls-key", "--tls-cert (or ARENA_TLS_CERT)")
        )
        raise CommandError(f"{given} needs {missing} too: TLS takes a certificate and its key")
    if cert and key:
        try:
            tls = tls_identity(Path(cert), Path(key))
        except TlsError as exc:
            raise CommandError(str(exc)) from None
    remote = None
    if args.remote is not None:
        remote_host, _, remote_port = args.remote.rpartition(":")
        if not remote_host or not remote_port.isdigit() or int(remote_port) > 65535:
            raise CommandError(
                f"--remote takes HOST:PORT (port 0: any free port), not {args.remote!r}"
            )
        if tls is None:
            raise CommandError(
                "--remote needs --tls-cert and --tls-key (or ARENA_TLS_CERT and ARENA_TLS_KEY): "
                "remote bots dial in over TLS"
            )
        remote, tls = (remote_host.strip("[]"), int(remote_port), tls), None
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
        if remote is not None and not port_free(remote[0], remote[1]):
            raise CommandError(
                f"port {remote[1]} on {remote[0]} is in use: stop what listens there, or pass "
                "another --remote HOST:PORT (port 0: any free port)"
            )
    except OSError as exc:
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {exc.strerror}") from None
    from worker.logs import configure_logging

    configure_logging("INFO")
    serve_metrics(args.metrics)

    def ready(port: int) -> None:
        print(f"referee listening on {args.host}:{port}", flush=True)
        if tls is not None:
            print(f"TLS on {args.host}:{port} with the certificate {cert}", flush=True)

    def remote_ready(port: int) -> None:
        assert remote is not None
        print(
            f"remote bots: TLS with the certificate {cert}, listening on {remote[0]}:{port}",
            flush=True,
        )

    try:
        asyncio.run(
            serve(
                args.port,
                args.host,
                grace_s=args.grace,
                ready=ready,
                unix=args.unix,
                tls=tls,
                remote=remote,
                remote_ready=remote_ready,
                tcp_sessions=args.tcp_sessions,
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


def main(argv: list[str] | None = None) -> int:
    """These commands alone (``python -m arena.commands.referee``), as ``arena`` runs them."""
    return run_alone(register, argv)


if __name__ == "__main__":
    sys.exit(main())
