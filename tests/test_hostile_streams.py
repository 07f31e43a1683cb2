"""A bot playing against the rules of the protocol rather than the game (docs/protocol.md,
"Faults"): answering another seat's decision, using its seat token again after its match,
sending messages of 64 KiB and 1 MiB, and flooding its stream. Each is refused on its
own stream with a status that says why; the match it tried to sway is played as the
record shows, and the referee's other matches go on. Real referee, real gRPC streams;
judged by the statuses and the records."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import grpc
import pytest
from grpc._cython.cygrpc import ExecuteBatchError

from referee.games import get_game
from rummyarena.v1 import bot_pb2
from tests.referee_support import (
    EXAMPLES,
    PLAY,
    RefereeProcess,
    answer,
    join,
    referee_fixture,
    start_bot,
    wait_all,
)

GAME = "hollywood-gin"
OPTIONS = {"max_hands": 1}
RANDOM = EXAMPLES / "random_bot.py"


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


async def _ended(call: grpc.aio.StreamStreamCall) -> grpc.aio.AioRpcError | None:  # type: ignore[type-arg]
    """Read ``call`` to its end; the error it ended with."""
    try:
        while await asyncio.wait_for(call.read(), 30) is not grpc.aio.EOF:
            pass
    except grpc.aio.AioRpcError as exc:
        return exc
    return None


async def _decision(call: grpc.aio.StreamStreamCall) -> bot_pb2.Decision:  # type: ignore[type-arg]
    """The first decision that comes on ``call``."""
    while True:
        raw = await asyncio.wait_for(call.read(), 30)
        assert raw is not grpc.aio.EOF, "the stream ended before a decision"
        message = bot_pb2.RefereeMessage.FromString(raw)
        if message.WhichOneof("kind") == "decision":
            return message.decision


def _play_out(ref: RefereeProcess, tokens: list[str]) -> None:
    """Random bots play the given seats to the match's end."""
    for code, out in wait_all([start_bot(RANDOM, ref.address, t) for t in tokens]):
        assert code == 0, out


def test_an_answer_to_another_seats_decision_is_refused_and_not_played(
    ref: RefereeProcess,
) -> None:
    seed = 8
    first = get_game(GAME).new_match(seed, seats=2, options=OPTIONS).to_act()
    assert first is not None
    other = 1 - first
    m = ref.create(GAME, 2, seed=seed, options=OPTIONS, join_ms=10_000)
    chosen: list[int] = []

    async def play() -> grpc.aio.AioRpcError | None:
        async with grpc.aio.insecure_channel(ref.address) as channel:
            calls = [channel.stream_stream(PLAY)() for _ in range(2)]
            for call, token in zip(calls, m.tokens, strict=True):
                await call.write(join(token))
            decision = await _decision(calls[first])
            # the other seat answers the decision that is not its own
            await calls[other].write(answer(decision.decision_id, 1))
            refused = await _ended(calls[other])
            # the seat whose decision it is answers it
            chosen.append(len(decision.legal_actions) - 1)
            await calls[first].write(answer(decision.decision_id, chosen[0]))
            await _decision(calls[first])  # its next: the answer was played
            for call in calls:
                call.cancel()
            return refused

    refused = asyncio.run(play())
    assert refused is not None and refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "out of turn" in (refused.details() or ""), refused.details()
    record = ref.record(m.match_id)
    played = record.actions[0]
    assert (played.seat, played.source, played.index) == (first, "bot", chosen[0]), played


def test_a_seat_token_used_again_after_its_match_opens_nothing(ref: RefereeProcess) -> None:
    m = ref.create(GAME, 2, seed=3, options=OPTIONS)
    _play_out(ref, list(m.tokens))
    before = ref.record(m.match_id)
    assert before.status == "completed"

    for token in m.tokens:
        messages = iter([join(token), answer(len(before.actions), 0)])
        with grpc.insecure_channel(ref.address) as channel, pytest.raises(grpc.RpcError) as ended:
            for _ in channel.stream_stream(PLAY)(messages, timeout=30):
                pass
        assert ended.value.code() in (
            grpc.StatusCode.PERMISSION_DENIED,
            grpc.StatusCode.FAILED_PRECONDITION,
        ), ended.value
    assert ref.record(m.match_id) == before  # the record is as it was


@pytest.mark.parametrize("size", [64 * 1024 + 1, 1024 * 1024])
def test_a_message_over_the_limit_ends_its_own_stream_only(ref: RefereeProcess, size: int) -> None:
    """A seat that sends a message past the referee's 64 KiB is cut off and forfeits
    (``invalid``; ``disconnected`` past 1 MiB, which gRPC refuses before the referee reads
    it); its opponent's match goes on to its end."""
    m = ref.create(GAME, 2, seed=5, options=OPTIONS, join_ms=10_000)
    opponent = start_bot(RANDOM, ref.address, m.tokens[1])

    async def big() -> None:
        async with grpc.aio.insecure_channel(ref.address) as channel:
            call = channel.stream_stream(PLAY)()
            await call.write(join(m.tokens[0]))
            decision = await _decision(call)
            padding = bot_pb2.BotMessage(
                error=bot_pb2.BotError(decision_id=decision.decision_id, message="x" * size)
            )
            # the referee may end the stream while the message is still being written: the
            # write then fails here, and the record says what the referee made of it
            with contextlib.suppress(grpc.aio.AioRpcError, grpc.RpcError, ExecuteBatchError):
                await call.write(padding.SerializeToString())
            await _ended(call)

    asyncio.run(big())
    ((code, out),) = wait_all([opponent])
    assert code == 0, out
    record = ref.record(m.match_id)
    assert record.status == "completed" and record.seats[1].status == "ok", record.seats
    assert record.seats[0].forfeited and record.seats[0].status != "ok", record.seats  # cut off


def test_a_flood_of_messages_ends_its_stream_and_other_matches_play_on(
    ref: RefereeProcess,
) -> None:
    """10,000 answers written at once on one seat's stream: the first out of turn ends
    it; a match beside it is played to its end meanwhile."""
    flooded = ref.create(GAME, 2, seed=6, options=OPTIONS, join_ms=10_000)
    beside = ref.create(GAME, 2, seed=7, options=OPTIONS)
    bots = [start_bot(RANDOM, ref.address, t) for t in beside.tokens]

    def messages() -> Iterator[bytes]:
        yield join(flooded.tokens[0])
        for i in range(10_000):
            yield answer(i, 0)

    with grpc.insecure_channel(ref.address) as channel, pytest.raises(grpc.RpcError) as ended:
        for _ in channel.stream_stream(PLAY)(messages(), timeout=60):
            pass
    refused = ended.value
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION, refused
    assert "out of turn" in (refused.details() or ""), refused.details()
    for code, out in wait_all(bots):
        assert code == 0, out
    assert ref.record(beside.match_id).status == "completed"
    assert ref.record(flooded.match_id).seats[0].forfeited
