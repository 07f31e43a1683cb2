"""C9 at the wire: record every byte the referee sends to each seat over real
sockets, then replay the match's record and check every Decision and MatchEnd a
seat received against what the seat may know by then, by the events it was told
(tests/knowledge.py, built from the replay's event log, never from a view)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import pytest

from referee.record import new_state
from rummyarena.v1 import bot_pb2
from tests.knowledge import Knowledge, SeatKnowledge, text_leaks, view_leaks
from tests.referee_support import (
    CAPS_FOR_TESTS,
    SEATS_FOR_TESTS,
    RefereeProcess,
    play_raw_seat,
    referee_fixture,
)


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def seat_leaks(game: str, knowledge: SeatKnowledge, msg: bot_pb2.RefereeMessage) -> list[str]:
    """What a Decision or MatchEnd sent to a seat names that the seat may not know
    (C9): its view, legal actions and advice are checked as the conformance suite
    checks views; its events and result may name only cards the seat was told of."""
    seat = knowledge.seat
    if msg.HasField("decision"):
        d = msg.decision
        which = d.view.WhichOneof("game")
        assert which is not None, "a decision carries the seat's view"
        return [
            *view_leaks(game, knowledge, getattr(d.view, which)),
            *text_leaks(knowledge.seen, seat, "legal action", d.legal_actions),
            *text_leaks(knowledge.seen, seat, "advice", [d.advice] if d.HasField("advice") else []),
            *text_leaks(knowledge.ever, seat, "event", [e.text for e in d.events]),
        ]
    if msg.HasField("match_end"):
        end = msg.match_end
        texts = [e.text for e in end.events]
        return [
            *text_leaks(knowledge.ever, seat, "event", texts),
            *text_leaks(knowledge.ever, seat, "result", [str(end.result)]),
        ]
    return []


@pytest.mark.parametrize("game", sorted(SEATS_FOR_TESTS))
def test_c9_nothing_hidden_reaches_a_seat_on_the_wire(ref: RefereeProcess, game: str) -> None:
    from referee.games import game_names

    if game not in game_names():
        pytest.fail(f"{game} is not registered")
    n = SEATS_FOR_TESTS[game]
    m = ref.create(game, n, seed=17, options=CAPS_FOR_TESTS[game])

    async def everyone() -> list[list[bytes]]:
        return await asyncio.gather(
            *(play_raw_seat(ref.address, tok, random.Random(i)) for i, tok in enumerate(m.tokens))
        )

    sent = asyncio.run(everyone())
    record = ref.record(m.match_id)
    by_decision: dict[int, list[tuple[int, bot_pb2.RefereeMessage]]] = {}
    ends = []
    for s, raws in enumerate(sent):
        for raw in raws:
            msg = bot_pb2.RefereeMessage.FromString(raw)
            if msg.HasField("decision"):
                by_decision.setdefault(msg.decision.decision_id, []).append((s, msg))
            elif msg.HasField("match_end"):
                ends.append((s, msg))
    assert len(ends) == n
    state = new_state(record)
    model = Knowledge(range(n))
    decision = 0  # the decisions sent, in order (the referee's own moves, C7, had none)
    checked = 0
    for entry in record.actions:
        if entry.source != "forced":
            model.follow(state)
            for s, msg in by_decision.get(decision, []):
                assert s == entry.seat
                leaks = seat_leaks(game, model[s], msg)
                assert not leaks, f"decision {decision}: " + "; ".join(leaks)
                checked += 1
            decision += 1
        state.apply_checked(entry.text)
    assert sum(len(v) for v in by_decision.values()) == decision == checked > 0
    model.follow(state)
    for s, msg in ends:
        leaks = seat_leaks(game, model[s], msg)
        assert not leaks, "match end: " + "; ".join(leaks)
