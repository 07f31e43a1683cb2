"""No answer can end a match for everyone (C7; docs/architecture.md, decision 4): whatever a
seat sends as its answer over the wire (random text, a legal text mutated, any index),
the referee takes it as that seat's fault (an invalid answer: a notice, a strike, the
default action) and the match ends with a result. The parsers' side of the same
promise is tests/test_action_text_properties.py."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import grpc
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rummyarena.v1 import bot_pb2, common_pb2
from tests.referee_support import (
    CAPS_FOR_TESTS,
    PLAY,
    SEATS_FOR_TESTS,
    RefereeProcess,
    play_raw_seat,
    referee_fixture,
)

GAMES = sorted(SEATS_FOR_TESTS)
#: The answers of the faulty seat: a text, an index, or a legal text mutated.
ANSWER = st.one_of(
    st.tuples(st.just("text"), st.text(max_size=60)),
    st.tuples(st.just("index"), st.integers(0, 2**32 - 1)),
    st.tuples(st.just("mutate"), st.integers(0, 2**16)),
)


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def mutate(text: str, seed: int) -> str:
    """A legal action's text changed one way: a card repeated, a word dropped or
    swapped, its case changed, junk added."""
    rng = random.Random(seed)
    words = text.split()
    i = rng.randrange(len(words))
    kind = seed % 6
    if kind == 0:
        words.insert(i, words[i])
    elif kind == 1 and len(words) > 1:
        del words[i]
    elif kind == 2:
        j = rng.randrange(len(words))
        words[i], words[j] = words[j], words[i]
    elif kind == 3:
        return text.lower() if text != text.lower() else text.upper()
    elif kind == 4:
        words.append(rng.choice(["JC", "|", "??", "0", "JK", "AS AS"]))
    else:
        words[i] = words[i][:-1] or "|"
    return " ".join(words)


async def faulty_seat(
    address: str, token: str, answers: list[tuple[str, object]]
) -> tuple[list[bot_pb2.Notice], bot_pb2.MatchEnd]:
    """Answer the first decisions with ``answers``, the rest with random legal indexes."""
    rng = random.Random(0)
    notices: list[bot_pb2.Notice] = []
    queue = list(answers)
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(PLAY)()
        await call.write(bot_pb2.BotMessage(join=bot_pb2.Join(token=token)).SerializeToString())
        while (raw := await asyncio.wait_for(call.read(), 20)) is not grpc.aio.EOF:
            msg = bot_pb2.RefereeMessage.FromString(raw)
            if msg.HasField("decision"):
                d = msg.decision
                reply = bot_pb2.Answer(decision_id=d.decision_id)
                kind, value = queue.pop(0) if queue else ("index", None)
                if kind == "text":
                    reply.text = str(value)
                elif kind == "mutate":
                    assert isinstance(value, int)
                    reply.text = mutate(d.legal_actions[value % len(d.legal_actions)], value)
                else:
                    reply.index = (
                        rng.randrange(len(d.legal_actions)) if value is None else int(str(value))
                    )
                await call.write(bot_pb2.BotMessage(answer=reply).SerializeToString())
            elif msg.HasField("notice"):
                notices.append(msg.notice)
            elif msg.HasField("match_end"):
                await call.done_writing()
                return notices, msg.match_end
    raise AssertionError("the faulty seat's stream ended without a MatchEnd")


@settings(
    max_examples=24,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(game=st.sampled_from(GAMES), answers=st.lists(ANSWER, min_size=1, max_size=6))
@example(game="hollywood-gin", answers=[("text", "arrange JC JC 9C")])
@example(game="gin-three", answers=[("text", "arrange JC JC 9C")] * 2)
def test_c7_no_answer_ends_a_match_for_everyone(
    ref: RefereeProcess, game: str, answers: list[tuple[str, object]]
) -> None:
    seats = SEATS_FOR_TESTS[game]
    m = ref.create(game, seats, seed=len(answers), options=CAPS_FOR_TESTS[game])

    async def main() -> tuple[list[bot_pb2.Notice], bot_pb2.MatchEnd]:
        others = [
            play_raw_seat(ref.address, token, random.Random(i))
            for i, token in enumerate(m.tokens[1:])
        ]
        faulty, *_ = await asyncio.gather(faulty_seat(ref.address, m.tokens[0], answers), *others)
        return faulty

    notices, end = asyncio.run(main())
    # only "illegal action" ever comes out of a bad answer: never a referee fault
    assert {n.kind for n in notices} <= {
        bot_pb2.NOTICE_KIND_INVALID,
        bot_pb2.NOTICE_KIND_FORFEITED,
    }, notices
    assert end.result.status == common_pb2.MATCH_STATUS_COMPLETED, end.result.reason
    assert end.result.detail_json  # the engine's result, not an invented one
    seat0 = next(s for s in end.result.seats if s.seat == 0)
    assert seat0.status in (common_pb2.SEAT_STATUS_OK, common_pb2.SEAT_STATUS_INVALID)
    assert seat0.strikes == len(notices)
    record = ref.record(m.match_id)
    assert record.result is not None and record.status == "completed"
