"""Every seat is sent every event it may see, once, in order (C9), however long the
match: the runner drops the events all its seats have been sent (memory stays flat),
and what each seat received over a whole match must equal what a replay of the record
shows that seat. Seats played in process, one long match of every game."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from referee.clock import ClockRules
from referee.games import game_names
from referee.matches import Referee
from referee.record import new_state, replay
from referee.runner import EVENTS_KEPT, Match
from referee.seats import SeatLink
from rummyarena.v1 import bot_pb2

CLOCK = ClockRules(decision_ms=5000, bank_ms=5000, strike_limit=3, join_ms=1000)
SEATS = {"hollywood-gin": 2, "gin-three": 3, "rummy-500": 4, "flip-flop": 4}


def play(game: str, seed: int) -> tuple[Match, dict[int, list[tuple[int | None, str]]]]:
    """A whole match between random seats; every event each seat was sent."""
    got: dict[int, list[tuple[int | None, str]]] = {}

    async def main() -> Match:
        referee = Referee()
        names = [f"s{i}" for i in range(SEATS[game])]
        match = referee.create(game, None, seed, names, CLOCK)
        loop = asyncio.get_running_loop()
        rng = random.Random(seed)
        for seat in match.seats:
            got[seat.index] = []

            async def write(data: bytes, seat: Any = seat) -> None:
                msg = bot_pb2.RefereeMessage.FromString(data)
                kind = msg.WhichOneof("kind")
                if kind == "decision":
                    d = msg.decision
                    got[seat.index] += [
                        (e.seat if e.HasField("seat") else None, e.text) for e in d.events
                    ]
                    loop.call_soon(match.on_index, seat, rng.randrange(len(d.legal_actions)))
                elif kind == "match_end":
                    got[seat.index] += [
                        (e.seat if e.HasField("seat") else None, e.text)
                        for e in msg.match_end.events
                    ]

            match.attach(seat, SeatLink(write), "random")
        await asyncio.wait_for(match.done.wait(), 120)
        return match

    return asyncio.run(main()), got


@pytest.mark.parametrize("game", game_names())
def test_c9_every_seat_gets_every_event_it_may_see_once_in_order(game: str) -> None:
    assert set(SEATS) == set(game_names())
    match, got = play(game, seed=5)
    record = match.record
    assert record is not None and record.status == "completed"
    state = new_state(record)
    for _ in replay(state, [a.index for a in record.actions]):
        pass
    assert len(state.events) > 2 * EVENTS_KEPT, "the match must be long enough to drop events"
    for seat in range(len(record.seats)):
        want = [(e.seat, e.text) for e in state.events_for(seat)]
        assert got[seat] == want, f"{game}: seat {seat} was sent other events than it may see"
