"""A test bot that plays randomly, then stops answering after ARENA_HANG_AFTER decisions."""

import os
import random
import time

from bots.sdk import Bot, Request


class HangBot(Bot):
    name = "hang"

    def __init__(self) -> None:
        self.after = int(os.environ.get("ARENA_HANG_AFTER", "2"))
        self.rng = random.Random(1)
        self.count = 0

    def decide(self, request: Request) -> int:
        self.count += 1
        if self.count > self.after:
            time.sleep(3600)
        return self.rng.randrange(len(request.legal_actions))
