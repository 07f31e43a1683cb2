"""A test bot that misbehaves at its ARENA_FAULT_AT-th decision, as ARENA_FAULT says:
`crash` (its code raises, every time from then on), `exit` (the process dies),
`illegal` (answers a card it cannot hold, then indexes out of range, ...)."""

import os
import random

from bots.sdk import Bot, Request


class FaultBot(Bot):
    name = "fault"

    def __init__(self) -> None:
        self.fault = os.environ["ARENA_FAULT"]
        self.at = int(os.environ.get("ARENA_FAULT_AT", "3"))
        self.rng = random.Random(2)
        self.count = 0

    def decide(self, request: Request) -> int | str:
        self.count += 1
        if self.count >= self.at:
            if self.fault == "crash":
                raise RuntimeError("deliberate failure in decide")
            if self.fault == "exit":
                os._exit(3)
            if self.fault == "illegal":
                # a text it cannot play, an index out of range that the referee reads
                # from the bytes (below 128), and one it parses (two varint bytes)
                return ("discard JK", 99, 10_000)[self.count % 3]
        return self.rng.randrange(len(request.legal_actions))
