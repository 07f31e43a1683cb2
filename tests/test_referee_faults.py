"""Faulty bots and bad input (docs/architecture.md, decision 4): timeouts draw on the bank
then strike, crashes and illegal answers strike, disconnects forfeit, and the
other players' match still finishes; bad messages get a gRPC status that says
what was wrong."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest

from rummyarena.v1 import bot_pb2
from tests.referee_support import (
    EXAMPLES,
    TEST_BOTS,
    RefereeProcess,
    answer,
    join,
    referee_fixture,
    start_bot,
    statuses,
    wait_all,
)

RANDOM = EXAMPLES / "random_bot.py"
PLAY = "/rummyarena.v1.Referee/Play"


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def test_hanging_bot_times_out_uses_its_bank_then_forfeits(ref: RefereeProcess) -> None:
    m = ref.create(
        "hollywood-gin",
        2,
        seed=3,
        options={"max_hands": 1},
        decision_ms=150,
        bank_ms=300,
        strike_limit=2,
    )
    hang = start_bot(TEST_BOTS / "hang_bot.py", ref.address, m.tokens[0], ARENA_HANG_AFTER="2")
    other = start_bot(RANDOM, ref.address, m.tokens[1], ARENA_BOT_SEED="3")
    [(code, out)] = wait_all([other])
    assert code == 0, out
    hang.kill()
    hang.wait()
    record = ref.record(m.match_id)
    assert statuses(record) == [("timeout", True), ("ok", False)]
    assert record.seats[0].strikes == 3
    timeouts = [a for a in record.actions if a.source == "timeout"]
    assert len(timeouts) == 3
    # the first timeout spent the decision limit and the whole bank, the later ones the limit
    assert timeouts[0].think_us >= 430_000
    assert all(100_000 <= a.think_us < 400_000 for a in timeouts[1:])
    later = record.actions[record.actions.index(timeouts[-1]) + 1 :]
    assert all(a.source == "forfeited" for a in later if a.seat == 0)
    assert any(a.seat == 0 for a in later)


def test_crash_illegal_and_exit_each_get_their_status(ref: RefereeProcess) -> None:
    m = ref.create("gin-three", 3, seed=4, options={"max_hands": 1}, strike_limit=2)
    procs = [
        start_bot(
            TEST_BOTS / "fault_bot.py", ref.address, tok, ARENA_FAULT=fault, ARENA_FAULT_AT="2"
        )
        for fault, tok in zip(("crash", "illegal", "exit"), m.tokens, strict=True)
    ]
    results = wait_all(procs)
    record = ref.record(m.match_id)
    assert statuses(record) == [("crashed", True), ("invalid", True), ("disconnected", True)]
    assert [s.strikes for s in record.seats] == [3, 3, 0]
    invalid = [a for a in record.actions if a.seat == 1 and a.source == "invalid"]
    assert len(invalid) == 3  # the text, then both indexes out of range
    assert results[2][0] == 3  # the exiting bot died with its own code
    assert results[0][0] == 0 and results[1][0] == 0, results  # the others saw the end
    assert record.result is not None


# -- raw streams: bad bytes and bad protocol -------------------------------------------------


async def _stream(
    address: str, *messages: bytes
) -> tuple[list[bytes], grpc.aio.AioRpcError | None]:
    """Send raw messages on one Play stream and read until it ends (with an error)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(PLAY)()
        for raw in messages:
            await call.write(raw)
        got: list[bytes] = []
        try:
            while (msg := await asyncio.wait_for(call.read(), 10)) is not grpc.aio.EOF:
                got.append(msg)
        except grpc.aio.AioRpcError as exc:
            return got, exc
        return got, None


def run(coro: object) -> tuple[list[bytes], grpc.aio.AioRpcError | None]:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_unknown_token_is_permission_denied(ref: RefereeProcess) -> None:
    _, err = run(_stream(ref.address, join("no-such-token")))
    assert err is not None and err.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "unknown seat token" in (err.details() or "")


def test_garbage_bytes_are_invalid_argument(ref: RefereeProcess) -> None:
    _, err = run(_stream(ref.address, b"\xff\xff\xff\xff garbage"))
    assert err is not None and err.code() == grpc.StatusCode.INVALID_ARGUMENT
    m = ref.create("hollywood-gin", 2, seed=8, options={"max_hands": 1}, join_ms=200)
    _, err = run(_stream(ref.address, join(m.tokens[0]), b"\xff\xff\xff\xff garbage"))
    assert err is not None and err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a BotMessage" in (err.details() or "")
    record = ref.record(m.match_id)
    assert statuses(record) == [("invalid", True), ("disconnected", True)]


def test_oversized_message_is_resource_exhausted(ref: RefereeProcess) -> None:
    m = ref.create("hollywood-gin", 2, seed=8, options={"max_hands": 1}, join_ms=200)
    big = bot_pb2.BotMessage(join=bot_pb2.Join(token=m.tokens[0], agent="x" * 200_000))
    _, err = run(_stream(ref.address, big.SerializeToString()))
    assert err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_a_second_stream_with_a_token_takes_the_seat_over(ref: RefereeProcess) -> None:
    """A token opens its seat again while the match runs (a rejoin): the stream that
    held the seat ends, the new one plays it."""
    m = ref.create("hollywood-gin", 2, seed=8, options={"max_hands": 1}, join_ms=2000)

    async def two_streams() -> tuple[list[bytes], grpc.aio.AioRpcError | None]:
        async with grpc.aio.insecure_channel(ref.address) as channel:
            first = channel.stream_stream(PLAY)()
            await first.write(join(m.tokens[0]))
            await asyncio.sleep(0.1)
            second = channel.stream_stream(PLAY)()
            await second.write(join(m.tokens[0]))
            got: list[bytes] = []
            while (raw := await asyncio.wait_for(first.read(), 10)) is not grpc.aio.EOF:
                got.append(raw)
            second.cancel()
            return got, None

    got, _ = run(two_streams())
    assert got == []  # the first stream ended without a message: the second took the seat
    ref.record(m.match_id)


def test_answer_out_of_turn_is_failed_precondition(ref: RefereeProcess) -> None:
    # the match waits for its seats meanwhile: 5 s, not less, or on a loaded machine it
    # may be over (nobody joined in time) before the answer is read
    m = ref.create("hollywood-gin", 2, seed=8, options={"max_hands": 1}, join_ms=5000)
    _, err = run(_stream(ref.address, join(m.tokens[0]), answer(999, 0)))
    assert err is not None and err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "out of turn" in (err.details() or "")
    _, err = run(_stream(ref.address, join(m.tokens[1]), join(m.tokens[1])))
    assert err is not None and err.code() == grpc.StatusCode.FAILED_PRECONDITION
    ref.record(m.match_id)
