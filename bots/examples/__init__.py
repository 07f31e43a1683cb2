"""Example bots: a random bot, the ten-line bot, a heuristic bot and a search bot
(determinized Monte Carlo over ``referee.scenario``) for every game."""
