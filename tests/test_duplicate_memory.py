"""A bot process never plays a match whose deal it has seen (docs/architecture.md,
decisions 8 and 12; docs/tournaments.md, "Who meets whom"): the matches of a duplicate
deal play the same cards with the seats rotated, so a process that kept what it was dealt
in one of them would know its opponent's hand in the next.

The bot below remembers every hand it is dealt, in its process and in a file wherever it
can write one, and at its first decision of each match names the cards it believes its
opponent holds: its own hand in an earlier match of the same deal. What it named is
judged from outside, against the deal the match's record re-runs. Real worker, sandboxed
bots, Postgres and Redis."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee import settings
from referee.record import new_state
from referee.wire import decode_record
from tests.platform_support import PlatformEnv
from worker import sandbox
from worker.store import Match

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
#: Of the ten cards of its opponent's hand, the most a bot that knows nothing of them
#: names by luck: ten cards named blind among the 41 it does not see get more than six of
#: them right once in two thousand.
LUCK = 6
MEMORY_BOT = '''
"""Remembers every hand it is dealt; names its opponent's cards from an earlier match of
the same deal (the same upcard, a hand sharing no card with its own), on its standard
error: ``deal-memory {"process", "seat", "hand", "remembered", "named"}``."""

import json
import os
import secrets
import sys
import tempfile
from pathlib import Path

from bots.sdk import Bot, Request

PROCESS = secrets.token_hex(8)  # which process said it
FILE = "deal-memory.json"
DEALT = []  # every hand this process was dealt, with its upcard


def _places():
    return [Path(tempfile.gettempdir()), Path(os.environ.get("HOME", "/")), Path.cwd()]


def _recall():
    known = list(DEALT)
    for place in _places():
        try:
            known += json.loads((place / FILE).read_text())
        except (OSError, ValueError):
            continue
    return list({json.dumps(k, sort_keys=True): k for k in known}.values())


def _remember(dealt, known):
    DEALT.append(dealt)
    for place in _places():
        try:
            (place / FILE).write_text(json.dumps([*known, dealt]))
        except OSError:
            continue


class MemoryBot(Bot):
    name = "memory"

    def __init__(self):
        self.first = True

    def decide(self, request: Request) -> int:
        if self.first:
            self.first = False
            hand = sorted(str(card) for card in request.view.hand.hand)
            upcard = next(e.text.split()[1] for e in request.events if e.text.startswith("upcard "))
            known = _recall()
            named = set()
            for earlier in known:
                if earlier["upcard"] == upcard and not set(earlier["hand"]) & set(hand):
                    named |= set(earlier["hand"])
            said = {
                "process": PROCESS,
                "seat": request.view.seat,
                "hand": hand,
                "remembered": len(known),
                "named": sorted(named),
            }
            print("deal-memory " + json.dumps(said), file=sys.stderr, flush=True)
            _remember({"upcard": upcard, "hand": hand}, known)
        return 0
'''


def _dealt(env: PlatformEnv, match: Match) -> dict[int, set[str]]:
    """Each seat's dealt hand (G2), from the match's record re-run from its seed."""
    state = new_state(decode_record(env.store.record(match.id)))
    return {
        e.seat: set(e.text.split()[1:])
        for e in state.events
        if e.seat is not None and e.text.startswith("dealt ")
    }


def _said(env: PlatformEnv, match: Match, seat: int, hand: set[str]) -> dict[str, Any]:
    """What the seat's bot said at its first decision of the match, from the log the
    worker kept (its line of this hand: a process may play two matches at once)."""
    lines = (env.store.match_log(match.id, seat) or "").splitlines()
    said = [json.loads(s.removeprefix("deal-memory ")) for s in lines if "deal-memory " in s]
    (mine,) = [s for s in said if set(s["hand"]) == hand]
    return mine


def test_d8_no_bot_process_plays_two_matches_of_one_duplicate_deal(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    sandbox.configure("on")  # fails here, saying why, where the machine cannot confine
    env = platform_env
    env.env[settings.SANDBOX] = "on"  # each process's /tmp and home are its own
    bot = tmp_path / "memory_bot.py"
    bot.write_text(MEMORY_BOT)
    for name in ("ann", "bob"):
        env.submit(bot, name, GAME)
    made = env.arena(
        "tournament", "create", "--game", GAME, "--bots", "ann,bob", "--games", "8",
        "--duplicate", "--seed", "7", "--option", "max_hands=1", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tournament = json.loads(made.stdout)["tournament"]
    env.start_worker()
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 0, run.stderr + env.worker_log()
    matches = env.store.list_matches(tournament_id=tournament)
    assert len(matches) == 8 and all(m.state == "done" for m in matches)
    assert len({m.duplicate_set for m in matches}) == 4  # two rotations of each deal

    deals: dict[str, list[int | None]] = {}  # process → the deals of the matches it played
    for match in matches:
        dealt = _dealt(env, match)
        for seat in (0, 1):
            said = _said(env, match, seat, dealt[seat])
            right = set(said["named"]) & dealt[1 - seat]
            assert len(right) <= LUCK, (
                f"match {match.id} seat {seat} named {len(right)} of its opponent's cards"
            )
            deals.setdefault(said["process"], []).append(match.duplicate_set)
    assert all(len(d) == len(set(d)) for d in deals.values()), deals
    # and the processes were reused from deal to deal, remembering: the bot's memory is
    # real, and only the deal it shares with an earlier match is kept from it
    assert max(len(d) for d in deals.values()) > 1, deals
