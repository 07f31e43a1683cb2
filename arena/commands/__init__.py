"""Subcommands of ``arena``: each module defines ``register(subparsers, bench_subparsers)``
and sets ``func`` on its parsers; the function returns the exit code."""

from __future__ import annotations

from typing import Any


def bot_actions(sub: Any) -> Any:
    """The ACTION subparsers of ``arena bot``, made by whichever command module asks first:
    running a bot (``referee``) and registering one (``bot_registry``) live apart but share
    the one ``bot`` command."""
    parser = sub.choices.get("bot")
    if parser is None:
        parser = sub.add_parser("bot", help="bot tools: run, submit, list, show")
        actions = parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
        parser.set_defaults(bot_actions=actions)
    return parser.get_default("bot_actions")
