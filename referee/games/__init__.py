"""The game engines; importing this package registers every game."""

from referee.games import flip_flop, gin_three, hollywood_gin, rummy500

__all__ = ["flip_flop", "gin_three", "hollywood_gin", "rummy500"]
