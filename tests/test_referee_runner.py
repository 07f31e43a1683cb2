"""The runner's two ways of taking an answer, with seats played in process: by
index in the stream's reader (``Match.on_index``, which makes the next decision
at once) and parsed, through the match task (``Match.on_answer``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import pytest

from referee.clock import ClockRules
from referee.matches import Referee
from referee.record import ActionEntry
from referee.runner import Match
from referee.seats import SeatLink
from rummyarena.v1 import bot_pb2

CLOCK = ClockRules(decision_ms=5000, bank_ms=5000, strike_limit=3, join_ms=1000)


def play(by_index: bool, setup: Callable[[Match], None] | None = None) -> tuple[Match, list[str]]:
    """One Hollywood Gin match of two random seats (the same choices whatever the path),
    answered by index through ``on_index`` or as parsed Answers through ``on_answer``;
    the match, and anything the answering callbacks raised."""
    raised: list[str] = []

    async def main() -> Match:
        referee = Referee(measure=True)
        match = referee.create("hollywood-gin", {"max_hands": 3}, 11, ["a", "b"], CLOCK)
        if setup is not None:
            setup(match)
        loop = asyncio.get_running_loop()
        rng = random.Random(11)

        def answer(seat: Any, did: int, index: int) -> None:
            try:
                if by_index:
                    match.on_index(seat, index)
                else:
                    match.on_answer(seat, bot_pb2.Answer(decision_id=did, index=index))
            except Exception as exc:  # what the service's reader would have died of
                raised.append(repr(exc))

        for seat in match.seats:

            async def write(data: bytes, seat: Any = seat) -> None:
                msg = bot_pb2.RefereeMessage.FromString(data)
                if msg.WhichOneof("kind") == "decision":
                    d = msg.decision
                    index = rng.randrange(max(1, len(d.legal_actions)))  # 0 if none
                    loop.call_soon(answer, seat, d.decision_id, index)

            match.attach(seat, SeatLink(write), "random")
        await asyncio.wait_for(match.done.wait(), 60)
        return match

    return asyncio.run(main()), raised


def texts(actions: tuple[ActionEntry, ...]) -> list[tuple[int, str, str]]:
    return [(a.seat, a.text, a.source) for a in actions]


def test_an_answer_taken_by_the_reader_plays_as_through_the_match_task() -> None:
    fast, raised_fast = play(by_index=True)
    slow, raised_slow = play(by_index=False)
    assert raised_fast == raised_slow == []
    assert fast.error is None and slow.error is None
    assert fast.record is not None and slow.record is not None
    assert texts(fast.record.actions) == texts(slow.record.actions)
    assert fast.record.result == slow.record.result
    assert [s.status for s in fast.record.seats] == ["ok", "ok"]
    # one decision per action the bots chose, each timed by the referee
    chosen = [a for a in fast.record.actions if a.source != "forced"]
    assert {a.source for a in chosen} == {"bot"}
    assert fast.decisions == len(chosen) == len(fast.referee_ns)


def test_a_referee_fault_while_taking_an_answer_ends_the_match_not_the_reader() -> None:
    """A bug in the engine or the codec met while the reader takes an answer ends that
    match with an error, as it would in the match task; the reader does not raise."""

    class Breaking:
        """The match's encoder, failing at its fifth decision."""

        def __init__(self, inner: Any) -> None:
            self.inner, self.calls = inner, 0

        def decision_from_state(self, *args: Any) -> Any:
            self.calls += 1
            if self.calls == 5:
                raise RuntimeError("a referee bug")
            return self.inner.decision_from_state(*args)

    def break_the_fifth_decision(match: Match) -> None:
        match._encoder = Breaking(match._encoder)  # type: ignore[assignment]

    match, raised = play(by_index=True, setup=break_the_fifth_decision)
    assert raised == []
    assert match.error == "RuntimeError: a referee bug"
    assert match.record is not None and len(match.record.actions) >= 4
    # the fault says so in the result: aborted, with the reason, no ranks to trust
    assert match.record.status == "aborted"
    assert match.record.reason == "referee fault: RuntimeError: a referee bug"
    assert match.record.result is None
    assert match.result_pb is not None and match.result_pb.status == 1  # MATCH_STATUS_ABORTED


@pytest.mark.parametrize("by_index", [True, False])
def test_c7_a_seat_to_act_with_no_legal_action_aborts_the_match_naming_it(by_index: bool) -> None:
    """An engine that offers the seat to act no legal action (C7 says there is always
    one) is at fault: the match ends aborted with a reason that says so, at once, from
    the reader or the match task alike, and no seat is punished for it."""

    def no_action_at_the_fifth_ask(match: Match) -> None:
        state = match.state
        real = state.legal_actions
        asked = 0

        def legal_actions() -> list[Any]:
            nonlocal asked
            asked += 1
            return [] if asked == 5 else real()

        state.legal_actions = legal_actions  # type: ignore[method-assign]

    match, raised = play(by_index=by_index, setup=no_action_at_the_fifth_ask)
    assert raised == []
    assert match.record is not None and match.record.status == "aborted"
    assert match.record.reason.startswith("referee fault: ")
    assert "no legal action" in match.record.reason
    assert match.record.result is None
    assert [s.status for s in match.record.seats] == ["ok", "ok"]
