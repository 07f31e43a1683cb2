"""C7 at the wire: a move that is no choice (the only legal action) is the referee's.
No seat is sent a decision for it, the record marks it ``forced``, and the seat
learns of it from its next decision's events."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import pytest

from referee.record import MatchRecord, new_state
from rummyarena.v1 import bot_pb2
from tests.referee_support import RefereeProcess, play_raw_seat, referee_fixture


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def play(ref: RefereeProcess, seed: int) -> tuple[MatchRecord, list[list[bot_pb2.Decision]]]:
    """A Hollywood Gin match of two random raw seats; its record and each seat's decisions."""
    m = ref.create("hollywood-gin", 2, seed=seed, options={"max_hands": 6})

    async def both() -> list[list[bytes]]:
        return await asyncio.gather(
            *(
                play_raw_seat(ref.address, tok, random.Random(seed + i))
                for i, tok in enumerate(m.tokens)
            )
        )

    sent = asyncio.run(both())
    decisions = [
        [
            msg.decision
            for msg in map(bot_pb2.RefereeMessage.FromString, raws)
            if msg.HasField("decision")
        ]
        for raws in sent
    ]
    return ref.record(m.match_id), decisions


def test_c7_g3_the_draw_after_both_pass_is_the_referees(ref: RefereeProcess) -> None:
    # G3: when both players pass the upcard, the non-dealer's draw must come from the
    # stock, the only legal action. Random seats pass half the time: some of these
    # seeded matches have such hands (the seeds make it the same every run).
    for seed in range(1, 6):
        record, decisions = play(ref, seed)
        forced = [i for i, a in enumerate(record.actions) if a.source == "forced"]
        if forced:
            break
    assert forced, "no hand of these matches had both players pass the upcard"

    # the engine agrees: forced exactly where there was one legal action
    state = new_state(record)
    for i, entry in enumerate(record.actions):
        legal = [str(a) for a in state.legal_actions()]
        if entry.source == "forced":
            assert legal == [entry.text] == ["draw stock"], (i, legal)
            assert entry.think_us == 0
        else:
            assert len(legal) >= 2, (i, legal)
        state.apply_checked(entry.text)

    # no seat was asked: every decision sent offered a choice, and the decision ids
    # number the bots' decisions only
    sent = sorted((d for seat in decisions for d in seat), key=lambda d: d.decision_id)
    assert all(len(d.legal_actions) >= 2 for d in sent)
    assert [d.decision_id for d in sent] == list(range(len(record.actions) - len(forced)))

    # the seat that drew learns of it from its next decision's events
    for i in forced:
        seat = record.actions[i].seat
        earlier = sum(1 for a in record.actions[:i] if a.source != "forced")
        following = next(d for d in decisions[seat] if d.decision_id >= earlier)
        texts = [(e.seat, e.text) for e in following.events if e.HasField("seat")]
        assert (seat, "draw stock") in texts
