"""A test bot that plays random legal actions under a short clock, and goes silent for
good the first time it is given a long one (over a minute a decision)."""

import random
import time

from bots.sdk import Bot, Request


class SulkyBot(Bot):
    name = "sulky"

    def __init__(self) -> None:
        self.rng = random.Random(7)

    def decide(self, request: Request) -> int:
        if request.clock.decision_ms > 60_000:
            time.sleep(1e6)
        return self.rng.randrange(len(request.legal_actions))
