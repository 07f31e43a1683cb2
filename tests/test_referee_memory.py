"""The referee's memory stays flat: a running match holds its actions in the record's
compact form and only the events its seats have not been sent; a finished match is
kept as its record's bytes until the platform releases it, within a byte budget and an
age limit. Seats are played in process; the soak over many matches is a benchmark
(`arena bench referee --soak N`, docs/performance.md)."""

from __future__ import annotations

import asyncio
import random
import tracemalloc
from typing import Any

import pytest

from referee import runner
from referee.clock import ClockRules
from referee.matches import FinishedMatch, Referee
from referee.runner import Match
from referee.seats import MatchPhase, ProtocolError, SeatLink
from referee.service import MatchesServicer
from rummyarena.v1 import bot_pb2, match_pb2

CLOCK = ClockRules(decision_ms=5000, bank_ms=5000, strike_limit=3, join_ms=1000)
#: A full-length Hollywood Gin match between random seats: seed 1 runs 8,800 actions.
LONG_SEED = 1
#: The most a running match may hold (the compact record of docs/architecture.md, decision 7).
RUNNING_LIMIT = 200_000


def seat_randomly(match: Match, rng: random.Random, on_decision: Any = None) -> None:
    """Attach every seat to a stream that answers each decision with a random index."""
    loop = asyncio.get_running_loop()
    for seat in match.seats:

        async def write(data: bytes, seat: Any = seat) -> None:
            msg = bot_pb2.RefereeMessage.FromString(data)
            if msg.WhichOneof("kind") == "decision":
                if on_decision is not None:
                    on_decision()
                n = len(msg.decision.legal_actions)
                loop.call_soon(match.on_index, seat, rng.randrange(n))

        match.attach(seat, SeatLink(write), "random")


def test_a_full_length_match_holds_under_200_kb_while_it_runs() -> None:
    """Measured on the match's second run: the first fills the codec's lookup caches,
    which every match of the process shares."""
    peak = [0]

    async def main() -> Match:
        referee = Referee()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        match = referee.create("hollywood-gin", None, LONG_SEED, ["a", "b"], CLOCK)
        count = [0]

        def sample() -> None:
            count[0] += 1
            if count[0] % 250 == 0:
                peak[0] = max(peak[0], tracemalloc.get_traced_memory()[0] - base)

        seat_randomly(match, random.Random(LONG_SEED), sample)
        await asyncio.wait_for(match.done.wait(), 120)
        tracemalloc.stop()
        return match

    asyncio.run(main())
    peak[0] = 0
    match = asyncio.run(main())
    assert match.actions_taken > 8000, "the match must be a long one to show anything"
    assert match.status == "completed"
    assert 0 < peak[0] < RUNNING_LIMIT, f"a running match held {peak[0]} bytes"


def play_short_matches(referee: Referee, count: int) -> list[Match]:
    """Play ``count`` one-hand matches to their end on ``referee``."""

    async def main() -> list[Match]:
        played = []
        for seed in range(count):
            match = referee.create("hollywood-gin", {"max_hands": 1}, seed, ["a", "b"], CLOCK)
            seat_randomly(match, random.Random(seed))
            await asyncio.wait_for(match.done.wait(), 30)
            await asyncio.sleep(0)  # the referee files it as finished
            played.append(match)
        return played

    return asyncio.run(main())


def test_a_released_match_is_forgotten() -> None:
    referee = Referee()
    [match] = play_short_matches(referee, 1)
    kept = referee.get(match.id)
    assert isinstance(kept, FinishedMatch) and kept.record == match.record_bytes
    assert match.id not in referee.matches and not referee.tokens  # no live state is kept
    assert referee.release(match.id) is True
    assert referee.kept_bytes == 0 and not referee.finished
    with pytest.raises(ProtocolError, match="no match"):
        referee.get(match.id)
    assert referee.release(match.id) is False


def test_a_wait_that_releases_answers_with_the_record_then_forgets_the_match() -> None:
    """``GetMatch`` with ``wait`` and ``release``: the answer holds the record, and the
    match is forgotten as ``ReleaseMatch`` would, whether it was still being played when
    the call came or had already been filed as finished."""
    referee = Referee()

    async def main() -> list[tuple[bytes, bytes | None]]:
        servicer = MatchesServicer(referee)
        out = []
        for seed, early in ((5, True), (6, False)):
            match = referee.create("hollywood-gin", {"max_hands": 1}, seed, ["a", "b"], CLOCK)
            request = match_pb2.GetMatchRequest(
                match_id=match.id, wait=True, record_bytes=True, release=True
            )
            if early:  # the call waits while the match is played
                waiting = asyncio.ensure_future(servicer.GetMatch(request, None))
                await asyncio.sleep(0)
                seat_randomly(match, random.Random(seed))
                reply = await asyncio.wait_for(waiting, 30)
            else:  # the match is over and filed before the call
                seat_randomly(match, random.Random(seed))
                await asyncio.wait_for(match.done.wait(), 30)
                await asyncio.sleep(0)
                assert match.id in referee.finished
                reply = await servicer.GetMatch(request, None)
            await asyncio.sleep(0)  # the referee files it as finished, if it had not
            out.append((reply.record_data, match.record_bytes))
        return out

    for sent, written in asyncio.run(main()):
        assert sent and sent == written
    assert not referee.finished and referee.kept_bytes == 0 and not referee.matches
    assert not referee._release_on_finish


def test_unreleased_matches_are_kept_within_the_byte_budget_oldest_first() -> None:
    probe = Referee()
    [first] = play_short_matches(probe, 1)
    size = probe.finished[first.id].size
    referee = Referee(keep_bytes=3 * size + size // 2)  # room for three such records
    played = play_short_matches(referee, 6)
    assert referee.kept_bytes <= referee.keep_bytes
    kept = list(referee.finished)
    assert kept == [m.id for m in played][-len(kept) :] and 2 <= len(kept) <= 4
    assert played[0].id not in referee.finished


def test_unreleased_matches_are_forgotten_past_the_age_limit() -> None:
    referee = Referee(keep_s=0.0)
    played = play_short_matches(referee, 3)
    # each finished match is forgotten as soon as it is older than the limit
    assert len(referee.finished) <= 1 and played[0].id not in referee.finished


def test_a_finished_match_has_its_record_while_its_seats_are_still_being_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The match is finished, with its record, as soon as its result is known; the end
    of match may still be on its way to a slow seat (up to WRITE_S): GetMatch must not
    answer "finished" without the record meanwhile."""
    monkeypatch.setattr(runner, "WRITE_S", 0.5)

    async def main() -> tuple[int, bool]:
        referee = Referee()
        match = referee.create("hollywood-gin", {"max_hands": 1}, 3, ["a", "b"], CLOCK)
        loop = asyncio.get_running_loop()
        rng = random.Random(3)
        for seat in match.seats:

            async def write(data: bytes, seat: Any = seat) -> None:
                msg = bot_pb2.RefereeMessage.FromString(data)
                if msg.HasField("decision"):
                    n = len(msg.decision.legal_actions)
                    loop.call_soon(match.on_index, seat, rng.randrange(n))
                elif msg.HasField("match_end"):
                    await asyncio.sleep(3600)  # a seat that takes nothing more

            match.attach(seat, SeatLink(write), "slow")
        while match.phase is not MatchPhase.FINISHED:
            await asyncio.sleep(0.001)
        assert match.id in referee.matches  # not yet filed: the end is being written
        reply = await MatchesServicer(referee).GetMatch(
            match_pb2.GetMatchRequest(match_id=match.id), None
        )
        await match.done.wait()
        return reply.state, reply.HasField("record") and reply.record.format_version > 0

    state, has_record = asyncio.run(main())
    assert state == match_pb2.MATCH_STATE_FINISHED and has_record
