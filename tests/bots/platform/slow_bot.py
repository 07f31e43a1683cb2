"""A test bot that plays random legal actions, 50 ms each: its matches last seconds."""

import random
import time

from bots.sdk import Bot, Request


class SlowBot(Bot):
    name = "slow"

    def __init__(self) -> None:
        self.rng = random.Random(5)

    def decide(self, request: Request) -> int:
        time.sleep(0.05)
        return self.rng.randrange(len(request.legal_actions))
