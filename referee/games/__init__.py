"""The game engines and their registry (one entry per game, by name).

The registry is written out here, over the engines, so that ``referee.engine`` (the
API every engine implements) imports no engine: the layers are cards and melds, the
engine API, the engines, then this registry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.cards import Card
from referee.engine import GameSpec, GameState, UnknownGameError
from referee.games import flip_flop, gin_three, hollywood_gin, rummy500

#: Every game, by its registered name.
GAMES: dict[str, GameSpec] = {
    spec.name: spec for spec in (hollywood_gin.SPEC, gin_three.SPEC, rummy500.SPEC, flip_flop.SPEC)
}


def get_game(name: str) -> GameSpec:
    """The game called ``name``."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {name!r}; games are: {', '.join(sorted(GAMES))}"
        ) from None


def game_names() -> list[str]:
    """The names of every game."""
    return sorted(GAMES)


def new_match(
    game: str,
    seed: int,
    *,
    seats: int | None = None,
    options: Mapping[str, Any] | None = None,
    decks: Sequence[Sequence[Card]] | None = None,
) -> GameState:
    """Start a match of the game called ``game``."""
    return get_game(game).new_match(seed, seats=seats, options=options, decks=decks)


__all__ = [
    "GAMES",
    "flip_flop",
    "game_names",
    "get_game",
    "gin_three",
    "hollywood_gin",
    "new_match",
    "rummy500",
]
