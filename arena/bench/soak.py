"""`arena bench referee --soak N`: the referee's memory over many matches.

A referee process plays N short Hollywood Gin matches one after another (after a
warm-up of W more), its seats played over loopback by the SDK's random bot in this
process. After each match the
platform's part is played too: the record fetched and the match released (or not,
with ``release=False``, to see what the keep limits hold). The referee's resident
memory (VmRSS) is read after a warm-up and at the end; the figure is its growth per
finished match. The memory of one running full-length match, measured in process
with tracemalloc, comes beside it, and where memory grows over the same matches
played in process, by source file (the codec's and engines' lookup tables fill as
new hands come, up to their bounds; the runner itself keeps nothing).
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import secrets
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import psutil

from bots.examples.random_bot import RandomBot
from bots.sdk.client import play
from referee.auth import SECRET_ENV, call_metadata
from referee.clock import ClockRules
from referee.matches import Referee
from referee.runner import Match
from referee.seats import SeatLink
from rummyarena.v1 import bot_pb2, match_pb2, match_pb2_grpc

#: A full-length Hollywood Gin match between random seats (8,800 actions).
LONG_SEED = 1


def rss_bytes(pid: int) -> int:
    """A process's resident memory."""
    return int(psutil.Process(pid).memory_info().rss)


def _seat_randomly(
    match: Match, rng: random.Random, on_decision: Callable[[], None] | None = None
) -> None:
    """Attach every seat of ``match`` to an in-process stream that answers each decision
    with a random legal index (``on_decision`` is called at each one)."""
    loop = asyncio.get_running_loop()
    for seat in match.seats:

        async def write(data: bytes, seat: Any = seat) -> None:
            msg = bot_pb2.RefereeMessage.FromString(data)
            if msg.HasField("decision"):
                if on_decision is not None:
                    on_decision()
                n = len(msg.decision.legal_actions)
                loop.call_soon(match.on_index, seat, rng.randrange(n))

        match.attach(seat, SeatLink(write), "random")


async def _soak(
    address: str, secret: str, pid: int, count: int, warm: int, release: bool
) -> dict[str, Any]:
    md = call_metadata(secret)
    rss_warm = 0
    record_bytes = 0
    t0 = time.perf_counter()
    async with grpc.aio.insecure_channel(address) as channel:
        matches = match_pb2_grpc.MatchesStub(channel)  # type: ignore[no-untyped-call]
        for i in range(warm + count):
            req = match_pb2.CreateMatchRequest(game="hollywood-gin", seed=i, seat_names=["a", "b"])
            req.options["max_hands"].int_value = 1
            created = await matches.CreateMatch(req, metadata=md)
            await asyncio.gather(*(play(RandomBot(i), address, t, channel) for t in created.tokens))
            reply = await matches.GetMatch(
                match_pb2.GetMatchRequest(match_id=created.match_id), metadata=md
            )
            while reply.state != match_pb2.MATCH_STATE_FINISHED:
                await asyncio.sleep(0.001)
                reply = await matches.GetMatch(
                    match_pb2.GetMatchRequest(match_id=created.match_id), metadata=md
                )
            record_bytes += reply.record.ByteSize()
            if release:
                await matches.ReleaseMatch(
                    match_pb2.ReleaseMatchRequest(match_id=created.match_id), metadata=md
                )
            if i + 1 == warm:
                rss_warm = rss_bytes(pid)
    if not warm:
        rss_warm = rss_bytes(pid)
    rss_end = rss_bytes(pid)
    return {
        "matches": count,
        "released": release,
        "warm_up_matches": warm,
        "rss_after_warm_up": rss_warm,
        "rss_at_end": rss_end,
        "growth_per_match": (rss_end - rss_warm) / count,
        "record_bytes_mean": record_bytes / (warm + count),
        "seconds": time.perf_counter() - t0,
    }


def running_match_bytes(seed: int = LONG_SEED) -> tuple[int, int]:
    """The most one running full-length match held (bytes, tracemalloc), measured on its
    second run (the first fills the codec's shared caches), and its actions."""
    clock = ClockRules(decision_ms=5000, bank_ms=5000, join_ms=1000)

    async def once() -> tuple[int, int]:
        referee = Referee()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        match: Match = referee.create("hollywood-gin", None, seed, ["a", "b"], clock)
        peak, count = 0, 0

        def sample() -> None:
            nonlocal peak, count
            count += 1
            if count % 250 == 0:
                peak = max(peak, tracemalloc.get_traced_memory()[0] - base)

        _seat_randomly(match, random.Random(seed), sample)
        await match.done.wait()
        tracemalloc.stop()
        return peak, match.actions_taken

    asyncio.run(once())
    return asyncio.run(once())


def in_process_growth(count: int, warm: int) -> dict[str, float]:
    """Where memory grows, by source file, over ``count`` short matches played in this
    process after ``warm`` others, each released: bytes per match (tracemalloc)."""
    clock = ClockRules(decision_ms=5000, bank_ms=5000, join_ms=1000)

    async def main() -> dict[str, float]:
        referee = Referee()
        before = None
        for i in range(warm + count):
            if i == warm:
                gc.collect()
                tracemalloc.start()
                before = tracemalloc.take_snapshot()
            match = referee.create("hollywood-gin", {"max_hands": 1}, i, ["a", "b"], clock)
            _seat_randomly(match, random.Random(i))
            await match.done.wait()
            await asyncio.sleep(0)  # the referee files it as finished
            referee.release(match.id)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        assert before is not None
        return {
            str(Path(stat.traceback[0].filename).relative_to(Path.cwd()))
            if Path(stat.traceback[0].filename).is_relative_to(Path.cwd())
            else stat.traceback[0].filename: stat.size_diff / count
            for stat in after.compare_to(before, "filename")[:6]
        }

    return asyncio.run(main())


def run_soak(count: int, warm: int, release: bool = True) -> dict[str, Any]:
    """Soak a referee process with ``count`` sequential short matches after ``warm``."""
    secret = secrets.token_urlsafe(16)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.commands.referee", "referee", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, SECRET_ENV: secret},
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError(f"the referee did not start: {line!r}")
        address = line.split()[-1]
        figures = asyncio.run(_soak(address, secret, proc.pid, count, warm, release))
    finally:
        proc.terminate()
        proc.wait(30)
    peak, actions = running_match_bytes()
    figures["running_match_bytes"] = peak
    figures["running_match_actions"] = actions
    figures["in_process_growth_by_file"] = in_process_growth(count, warm)
    return figures
