"""A test bot whose process dies at its first decision, in every match it is given."""

import os

from bots.sdk import Bot, Request


class CrashBot(Bot):
    name = "crash"

    def decide(self, request: Request) -> int:
        os._exit(3)
