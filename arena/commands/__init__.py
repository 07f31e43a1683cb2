"""Subcommands of ``arena``: each module defines ``register(subparsers, bench_subparsers)``
and sets ``func`` on its parsers; the function returns the exit code."""
