"""The Python bot SDK: subclass :class:`Bot`, implement :meth:`Bot.decide`, run it.

from bots.sdk import Bot, Request, run

class MyBot(Bot):
    def decide(self, request: Request) -> int | str:
        return 0  # the first legal action

run(MyBot())  # reads ARENA_REFEREE and ARENA_TOKEN

A bot process that plays every match of a session: ``await serve(MyBot, referee, key)``
(or ``arena bot run mybot.py --session-key KEY``); from its author's machine, with the
owner's API key: ``await serve(MyBot, address, api_key=KEY, bot=NAME, game=GAME)`` (or
``arena bot run mybot.py --platform HOST:PORT --game GAME``).
"""

from bots.sdk.bot import Bot, Clock, MatchOver, Request
from bots.sdk.client import play, run, serve
from bots.sdk.helpers import SeenCards, best_arrangement, deadwood, gin_hand

__all__ = [
    "Bot",
    "Clock",
    "MatchOver",
    "Request",
    "SeenCards",
    "best_arrangement",
    "deadwood",
    "gin_hand",
    "play",
    "run",
    "serve",
]
