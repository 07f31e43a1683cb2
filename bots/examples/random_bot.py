"""A bot for every game that picks a uniformly random legal action."""

from __future__ import annotations

import os
import random

from bots.sdk import Bot, Request, run


class RandomBot(Bot):
    """Uniformly random legal actions; seeded for reproducible tests."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        if seed is None and os.environ.get("ARENA_BOT_SEED"):
            seed = int(os.environ["ARENA_BOT_SEED"])
        self.rng = random.Random(seed)

    def decide(self, request: Request) -> int:
        """Any legal action."""
        return self.rng.randrange(len(request.legal_actions))


if __name__ == "__main__":
    run(RandomBot())
