"""The game engines; importing this package registers every game."""

from referee.games import gin_three, hollywood_gin

__all__ = ["gin_three", "hollywood_gin"]
