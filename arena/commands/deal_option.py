"""``--deal FILE``, which ``arena play`` and ``arena bot check`` take: a chosen deal in
its TOML or JSON file (docs/bots.md, "Chosen deals"), read and dealt once before any
process starts, so that a file that cannot be read or a deal the rules cannot reach is
one line naming the file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.errors import CommandError


def register(sub: Any, bench_sub: Any) -> None:
    """Nothing: this module reads an option of other modules' commands."""


def read_deal(path: Path) -> dict[str, Any]:
    """The deal file at ``path`` as :func:`referee.scenario.load_deal` reads it, its game
    known and its ``seats`` and ``options``, when given, of the right kind."""
    from referee.engine import UnknownGameError
    from referee.games import get_game
    from referee.scenario import ScenarioError, load_deal

    try:
        deal = load_deal(path)
    except ScenarioError as exc:
        raise CommandError(str(exc)) from None
    try:
        get_game(deal["game"])
    except UnknownGameError as exc:
        raise CommandError(f"{path}: {exc}") from None
    seats = deal.get("seats", 0)
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise CommandError(f"{path}: seats is a number of players, not {seats!r}")
    if not isinstance(deal.get("options", {}), dict):
        raise CommandError(f"{path}: options is a table of the game's options")
    return deal


def check_deal(deal: Mapping[str, Any], options: Mapping[str, Any], seats: int, path: Path) -> None:
    """Deal the file's deal once with ``options`` and ``seats``, so that a deal the rules
    cannot reach is one line naming the file before any process starts."""
    from referee.engine import EngineError
    from referee.scenario import deal as chosen

    try:
        chosen(deal["game"], deal["deal"], options=options, seats=seats, seed=deal.get("seed", 0))
    except EngineError as exc:
        raise CommandError(f"{path}: {exc}") from None
