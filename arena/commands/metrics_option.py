"""``--metrics [HOST:]PORT``, which every long-running role takes (``arena worker``,
``scheduler``, ``referee`` and ``web``): serve the process's metrics for a Prometheus
scraper (``docs/operations.md``, "Metrics"; :mod:`worker.metrics`)."""

from __future__ import annotations

import logging
from typing import Any

from arena.errors import CommandError


def register(sub: Any, bench_sub: Any) -> None:
    """Nothing: this module adds an option to other modules' commands."""


def metrics_argument(parser: Any) -> None:
    """``--metrics [HOST:]PORT``; off unless given."""
    parser.add_argument(
        "--metrics",
        metavar="[HOST:]PORT",
        default=None,
        help="serve Prometheus metrics at http://HOST:PORT/metrics (HOST default 127.0.0.1; "
        "port 0: any free port); off unless given",
    )


def serve_metrics(address: str | None) -> None:
    """Start serving the metrics at ``address`` (``--metrics``), if given, from a thread of
    its own; a bad address or a port in use is a :class:`CommandError` saying so."""
    if address is None:
        return
    from worker import metrics

    try:
        host, port = metrics.parse_address(address)
    except metrics.MetricsAddressError as exc:
        raise CommandError(str(exc)) from None
    try:
        bound = metrics.serve(host, port)
    except OSError as exc:
        raise CommandError(
            f"--metrics {address}: cannot listen on {host}:{port} ({exc.strerror or exc}): "
            "pass another port (0: any free port)"
        ) from None
    # a port picked (0) is said at WARNING, which the default log level shows: there is no
    # other way to learn it
    logging.getLogger("arena.metrics").log(
        logging.WARNING if port == 0 else logging.INFO,
        "metrics at http://%s:%d/metrics",
        host,
        bound,
    )
