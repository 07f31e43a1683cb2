"""A bot for every game that picks a uniformly random legal action."""

from __future__ import annotations

import random

from bots.sdk import Bot, Request, run
from referee import settings


class RandomBot(Bot):
    """Uniformly random legal actions; seeded for reproducible tests."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = settings.load().bot_seed
        self.rng = random.Random(seed)

    def decide(self, request: Request) -> int:
        """Any legal action."""
        return self.rng.randrange(len(request.legal_actions))


if __name__ == "__main__":
    run(RandomBot())
