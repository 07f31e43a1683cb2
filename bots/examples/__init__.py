"""Example bots: a random bot and a heuristic bot for every game."""
