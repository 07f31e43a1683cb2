"""A seat's stream is not its life: a seat may rejoin with its token while its clock
runs and gets its pending decision again; an answer sent twice is ignored, not
punished; a message over the referee's size limit is the seat's fault (invalid), as
docs/protocol.md says."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import grpc
import pytest

from bots.sdk import Bot, MatchOver, Request
from bots.sdk.client import play
from rummyarena.v1 import bot_pb2
from tests.referee_support import (
    PLAY,
    DroppingProxy,
    RefereeProcess,
    answer,
    join,
    play_raw_seat,
    referee_fixture,
    statuses,
)


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


async def next_decision(call: grpc.aio.StreamStreamCall) -> bot_pb2.Decision:
    while True:
        raw = await asyncio.wait_for(call.read(), 10)
        assert raw is not grpc.aio.EOF, "the stream ended before a decision"
        msg = bot_pb2.RefereeMessage.FromString(raw)
        if msg.HasField("decision"):
            return msg.decision


async def play_on(call: grpc.aio.StreamStreamCall, rng: random.Random) -> bot_pb2.MatchEnd:
    """Answer every decision on ``call`` with a random index until the match ends."""
    while (raw := await asyncio.wait_for(call.read(), 10)) is not grpc.aio.EOF:
        msg = bot_pb2.RefereeMessage.FromString(raw)
        if msg.HasField("decision"):
            d = msg.decision
            await call.write(answer(d.decision_id, rng.randrange(len(d.legal_actions))))
        elif msg.HasField("match_end"):
            await call.done_writing()
            return msg.match_end
    raise AssertionError("the stream ended without a MatchEnd")


def test_a_seat_rejoins_while_its_clock_runs_and_gets_its_decision_again(
    ref: RefereeProcess,
) -> None:
    m = ref.create("hollywood-gin", 2, seed=6, options={"max_hands": 1}, decision_ms=3000)

    async def main() -> tuple[int, int, list[str]]:
        other = asyncio.ensure_future(play_raw_seat(ref.address, m.tokens[1], random.Random(1)))
        async with grpc.aio.insecure_channel(ref.address) as first:
            call = first.stream_stream(PLAY)()
            await call.write(join(m.tokens[0]))
            lost = await next_decision(call)
            call.cancel()  # the connection drops with the decision unanswered
        await asyncio.sleep(0.3)
        async with grpc.aio.insecure_channel(ref.address) as second:
            call = second.stream_stream(PLAY)()
            await call.write(join(m.tokens[0]))
            kinds = []
            while True:  # the Welcome again, then the same decision
                msg = bot_pb2.RefereeMessage.FromString(await asyncio.wait_for(call.read(), 10))
                kinds.append(msg.WhichOneof("kind"))
                if msg.HasField("decision"):
                    again = msg.decision
                    break
            d = again
            await call.write(answer(d.decision_id, 0))
            await play_on(call, random.Random(0))
        await other
        return lost.decision_id, again.decision_id, kinds

    lost_id, again_id, kinds = asyncio.run(main())
    assert lost_id == again_id
    assert kinds == ["welcome", "decision"]
    record = ref.record(m.match_id)
    assert statuses(record) == [("ok", False), ("ok", False)]
    assert record.result is not None


def test_a_seat_that_does_not_come_back_in_time_forfeits_disconnected(
    ref: RefereeProcess,
) -> None:
    m = ref.create(
        "hollywood-gin", 2, seed=6, options={"max_hands": 1}, decision_ms=300, bank_ms=300
    )

    async def main() -> None:
        other = asyncio.ensure_future(play_raw_seat(ref.address, m.tokens[1], random.Random(1)))
        async with grpc.aio.insecure_channel(ref.address) as channel:
            call = channel.stream_stream(PLAY)()
            await call.write(join(m.tokens[0]))
            await next_decision(call)
            call.cancel()
        await asyncio.wait_for(other, 20)

    asyncio.run(main())
    record = ref.record(m.match_id)
    assert statuses(record) == [("disconnected", True), ("ok", False)]
    assert record.result is not None


def test_an_answer_sent_twice_is_ignored_not_punished(ref: RefereeProcess) -> None:
    m = ref.create("hollywood-gin", 2, seed=7, options={"max_hands": 1})

    async def main() -> int:
        """Plays seat 0 answering every decision twice; returns the decisions answered."""
        other = asyncio.ensure_future(play_raw_seat(ref.address, m.tokens[1], random.Random(1)))
        rng = random.Random(0)
        answered = 0
        async with grpc.aio.insecure_channel(ref.address) as channel:
            call = channel.stream_stream(PLAY)()
            await call.write(join(m.tokens[0]))
            while (raw := await asyncio.wait_for(call.read(), 10)) is not grpc.aio.EOF:
                msg = bot_pb2.RefereeMessage.FromString(raw)
                if msg.HasField("decision"):
                    d = msg.decision
                    once = answer(d.decision_id, rng.randrange(len(d.legal_actions)))
                    await call.write(once)
                    answered += 1
                    try:
                        await call.write(once)  # a retry of the same answer
                    except grpc.aio.AioRpcError:
                        # the answer ended the match and the referee finished the call
                        # before the retry was written: nothing more to read
                        await other
                        return answered
                elif msg.HasField("notice"):
                    raise AssertionError(f"a notice for a repeated answer: {msg.notice}")
                elif msg.HasField("match_end"):
                    assert [s.strikes for s in msg.match_end.result.seats] == [0, 0]
                    await call.done_writing()
                    await other
                    return answered
        raise AssertionError("no MatchEnd")

    answered = asyncio.run(main())
    record = ref.record(m.match_id)
    assert answered > 3
    assert statuses(record) == [("ok", False), ("ok", False)]
    assert [s.strikes for s in record.seats] == [0, 0]


def test_an_oversized_message_in_mid_match_is_invalid(ref: RefereeProcess) -> None:
    m = ref.create("hollywood-gin", 2, seed=8, options={"max_hands": 1})

    async def main() -> grpc.aio.AioRpcError:
        other = asyncio.ensure_future(play_raw_seat(ref.address, m.tokens[1], random.Random(1)))
        async with grpc.aio.insecure_channel(ref.address) as channel:
            call = channel.stream_stream(PLAY)()
            await call.write(join(m.tokens[0]))
            d = await next_decision(call)
            big = bot_pb2.BotMessage(
                answer=bot_pb2.Answer(decision_id=d.decision_id, text="x" * 100_000)
            )
            await call.write(big.SerializeToString())
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                while await asyncio.wait_for(call.read(), 10) is not grpc.aio.EOF:
                    pass
        await asyncio.wait_for(other, 30)
        return caught.value

    err = asyncio.run(main())
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "at most 65536" in (err.details() or "")
    record = ref.record(m.match_id)
    assert statuses(record) == [("invalid", True), ("ok", False)]


def test_the_sdk_rejoins_after_a_network_blip(ref: RefereeProcess) -> None:
    """The connection of an SDK bot drops in mid-match; the SDK joins again with its
    token and plays on, and its seat finishes without a fault."""
    m = ref.create("hollywood-gin", 2, seed=9, options={"max_hands": 1}, decision_ms=3000)

    class Blipping(Bot):
        def __init__(self, proxy: DroppingProxy) -> None:
            self.proxy, self.decisions, self.starts = proxy, 0, 0

        def on_start(self, game: str, seat: int, seats: int, options: object) -> None:
            self.starts += 1

        def decide(self, request: Request) -> int:
            self.decisions += 1
            if self.decisions == 3:
                self.proxy.drop_all()  # the answer to this decision is lost with it
            return 0

    async def main() -> tuple[MatchOver, Blipping]:
        proxy = DroppingProxy(ref.address)
        address = await proxy.start()
        bot = Blipping(proxy)
        other = asyncio.ensure_future(play_raw_seat(ref.address, m.tokens[1], random.Random(1)))
        try:
            over = await asyncio.wait_for(play(bot, address, m.tokens[0]), 30)
        finally:
            await proxy.close()
        await other
        return over, bot

    over, bot = asyncio.run(main())
    assert bot.starts == 1 and bot.decisions > 3
    assert not over.aborted and over.statuses == ("ok", "ok")
    record = ref.record(m.match_id)
    assert statuses(record) == [("ok", False), ("ok", False)]


class MutingProxy(DroppingProxy):
    """A proxy that, once ``mute`` is set, passes on nothing more from the referee."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.mute = False

    async def forwarding(self, down: bool) -> bool:
        return not (down and self.mute)


def test_the_sdk_rejoins_when_the_connection_drops_between_its_join_and_the_welcome(
    ref: RefereeProcess,
) -> None:
    """The referee took the seat's Join (the seat has joined: the match started) but the
    connection dropped before the Welcome reached the bot. The seat is the bot's all the
    same: the SDK joins again with its token rather than give the seat up, and plays to
    the end."""
    m = ref.create("hollywood-gin", 2, seed=9, options={"max_hands": 1}, decision_ms=3000)

    class Counting(Bot):
        def __init__(self) -> None:
            self.starts, self.decisions = 0, 0

        def on_start(self, game: str, seat: int, seats: int, options: object) -> None:
            self.starts += 1

        def decide(self, request: Request) -> int:
            self.decisions += 1
            return 0

    async def main() -> tuple[MatchOver, Counting]:
        proxy = MutingProxy(ref.address)
        address = await proxy.start()
        bot = Counting()
        async with grpc.aio.insecure_channel(address) as channel:
            await asyncio.wait_for(channel.channel_ready(), 10)  # connected: now mute it
            proxy.mute = True
            async with grpc.aio.insecure_channel(ref.address) as direct:
                other = direct.stream_stream(PLAY)()
                await other.write(join(m.tokens[1]))
                playing = asyncio.ensure_future(play(bot, address, m.tokens[0], channel=channel))
                # the match starts once the bot's Join is in: the other seat is welcomed
                first = bot_pb2.RefereeMessage.FromString(await asyncio.wait_for(other.read(), 10))
                assert first.HasField("welcome")
                proxy.drop_all()
                proxy.mute = False
                rest = asyncio.ensure_future(play_on(other, random.Random(1)))
                try:
                    over = await asyncio.wait_for(playing, 30)
                finally:
                    await proxy.close()
                await rest
        return over, bot

    over, bot = asyncio.run(main())
    assert bot.starts == 1 and bot.decisions > 0
    assert not over.aborted and over.statuses == ("ok", "ok")
    assert statuses(ref.record(m.match_id)) == [("ok", False), ("ok", False)]
