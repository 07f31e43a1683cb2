"""The referee's clock in the runner itself (docs/architecture.md, decision 4), with seats
played in process: one watchdog timer serves a match, and a seat whose allowance is
shorter than the one the timer was set for is still timed out on its own deadline."""

from __future__ import annotations

import asyncio
import random

from referee.clock import ClockRules
from referee.matches import Referee
from referee.seats import SeatLink
from rummyarena.v1 import bot_pb2

DECISION_MS = 50
BANK_MS = 1000


def test_a_seat_with_its_bank_spent_times_out_on_its_own_deadline() -> None:
    """Seat 0 answers at once and keeps its whole bank, so the match's timer is set
    for about a second at each of its decisions; seat 1 never answers: its first
    timeout spends its bank, and every later one must come after the 50 ms decision
    limit, not when the timer set for seat 0's allowance would fire."""

    async def main() -> list[int]:
        referee = Referee()
        clock = ClockRules(decision_ms=DECISION_MS, bank_ms=BANK_MS, strike_limit=3, join_ms=1000)
        match = referee.create("hollywood-gin", {"max_hands": 1}, 4, ["quick", "silent"], clock)
        loop = asyncio.get_running_loop()
        rng = random.Random(4)
        quick, silent = match.seats

        async def answer(data: bytes) -> None:
            msg = bot_pb2.RefereeMessage.FromString(data)
            if msg.WhichOneof("kind") == "decision":
                d = msg.decision
                pick = rng.randrange(len(d.legal_actions))
                reply = bot_pb2.Answer(decision_id=d.decision_id, index=pick)
                loop.call_soon(match.on_answer, quick, reply)

        async def ignore(data: bytes) -> None:
            return None

        match.attach(quick, SeatLink(answer), "quick")
        match.attach(silent, SeatLink(ignore), "silent")
        await asyncio.wait_for(match.done.wait(), 30)
        assert match.record is not None
        return [a.think_us for a in match.record.actions if a.source == "timeout"]

    timeouts = asyncio.run(main())
    assert len(timeouts) == 4  # three strikes allowed, the fourth fault forfeits
    assert timeouts[0] >= (DECISION_MS + BANK_MS) * 1000  # the bank spent first
    for think_us in timeouts[1:]:
        assert DECISION_MS * 1000 <= think_us < BANK_MS * 1000 / 2, timeouts
