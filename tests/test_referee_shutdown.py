"""Stopping loses nothing it need not: on SIGTERM or SIGINT the referee takes no new
matches or seats, lets running matches finish within its grace period, then ends the
rest as aborted, "referee shutting down", which bots and the match service both see
(docs/protocol.md, "Shutdown"). Never an invented result."""

from __future__ import annotations

import asyncio
import random
import signal

import grpc
import pytest

from rummyarena.v1 import bot_pb2, common_pb2, match_pb2, match_pb2_grpc
from tests.referee_support import EXAMPLES, PLAY, RefereeProcess, start_bot, wait_all

#: Long enough for the quick match to finish on a loaded machine once its seats stop
#: dawdling; the stuck match waits it out.
GRACE_S = 8


async def seat(
    address: str, token: str, delay: float, answer: bool, hurry: asyncio.Event | None = None
) -> bot_pb2.MatchEnd:
    """Play one seat over a raw stream, answering after ``delay`` s (at once once
    ``hurry`` is set), or never; its MatchEnd."""
    rng = random.Random(token)
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(PLAY)()
        await call.write(bot_pb2.BotMessage(join=bot_pb2.Join(token=token)).SerializeToString())
        while (raw := await call.read()) is not grpc.aio.EOF:
            msg = bot_pb2.RefereeMessage.FromString(raw)
            if msg.HasField("decision") and answer:
                if hurry is None or not hurry.is_set():
                    await asyncio.sleep(delay)
                d = msg.decision
                pick = bot_pb2.Answer(
                    decision_id=d.decision_id, index=rng.randrange(len(d.legal_actions))
                )
                await call.write(bot_pb2.BotMessage(answer=pick).SerializeToString())
            elif msg.HasField("match_end"):
                await call.done_writing()
                return msg.match_end
    raise AssertionError("the stream ended without a MatchEnd")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_shutdown_finishes_what_it_can_and_aborts_the_rest_honestly(sig: int) -> None:
    ref = RefereeProcess("--grace", str(GRACE_S))
    try:
        # finishes within the grace period: one hand, quick answers
        quick = ref.create("hollywood-gin", 2, seed=2, options={"max_hands": 1})
        # cannot finish: seat 1 never answers and has a long clock
        stuck = ref.create("hollywood-gin", 2, seed=3, decision_ms=60_000, bank_ms=0)
        # never starts: nobody joins
        waiting = ref.create("hollywood-gin", 2, seed=4, join_ms=60_000)

        async def main() -> None:
            md = ref.metadata
            signalled = asyncio.Event()  # the quick seats answer at once from then on
            async with grpc.aio.insecure_channel(ref.address) as channel:
                matches = match_pb2_grpc.MatchesStub(channel)
                seats = [
                    asyncio.ensure_future(
                        seat(ref.address, quick.tokens[0], 0.02, True, signalled)
                    ),
                    asyncio.ensure_future(
                        seat(ref.address, quick.tokens[1], 0.02, True, signalled)
                    ),
                    asyncio.ensure_future(seat(ref.address, stuck.tokens[0], 0.0, True)),
                    asyncio.ensure_future(seat(ref.address, stuck.tokens[1], 0.0, False)),
                ]
                await asyncio.sleep(0.5)  # both matches are running
                ref.proc.send_signal(sig)
                signalled.set()
                await asyncio.sleep(0.3)
                # no new matches
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await matches.CreateMatch(
                        match_pb2.CreateMatchRequest(game="gin-three", seat_names=["a", "b", "c"]),
                        metadata=md,
                    )
                assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
                assert "shutting down" in (caught.value.details() or "")
                ends = await asyncio.wait_for(asyncio.gather(*seats), GRACE_S + 10)
                # the quick match finished within the grace period, for real
                for end in ends[:2]:
                    assert end.result.status == common_pb2.MATCH_STATUS_COMPLETED
                    assert end.result.detail_json
                # the stuck one ended aborted, and both its seats were told why
                for end in ends[2:]:
                    assert end.result.status == common_pb2.MATCH_STATUS_ABORTED
                    assert end.result.reason == "referee shutting down"
                    assert not end.result.detail_json
                # the match service says the same, while the referee lingers for it
                for m, status in (
                    (quick, common_pb2.MATCH_STATUS_COMPLETED),
                    (stuck, common_pb2.MATCH_STATUS_ABORTED),
                    (waiting, common_pb2.MATCH_STATUS_ABORTED),
                ):
                    reply = await matches.GetMatch(
                        match_pb2.GetMatchRequest(match_id=m.match_id), metadata=md
                    )
                    assert reply.state == match_pb2.MATCH_STATE_FINISHED
                    assert reply.result.status == status
                    assert reply.record.result.status == status
                    if status == common_pb2.MATCH_STATUS_ABORTED:
                        assert reply.result.reason == "referee shutting down"
                    await matches.ReleaseMatch(
                        match_pb2.ReleaseMatchRequest(match_id=m.match_id), metadata=md
                    )

        asyncio.run(main())
        # every record fetched and released: the referee stops at once, cleanly
        assert ref.proc.wait(10) == 0
    finally:
        if ref.proc.poll() is None:
            ref.proc.kill()
        ref.channel.close()


async def _running(ref: RefereeProcess, match_id: str, timeout: float = 60) -> None:
    """Wait until every seat of the match has joined and it runs."""
    async with grpc.aio.insecure_channel(ref.address) as channel:
        matches = match_pb2_grpc.MatchesStub(channel)
        request = match_pb2.GetMatchRequest(match_id=match_id)
        deadline = asyncio.get_running_loop().time() + timeout
        while (await matches.GetMatch(request, metadata=ref.metadata)).state != (
            match_pb2.MATCH_STATE_RUNNING
        ):
            assert asyncio.get_running_loop().time() < deadline, "the bot did not join"
            await asyncio.sleep(0.05)


def test_an_sdk_bot_is_told_its_match_was_aborted() -> None:
    ref = RefereeProcess("--grace", "0.5")
    try:
        m = ref.create("hollywood-gin", 2, seed=3, decision_ms=60_000, bank_ms=0, join_ms=60_000)
        bot = start_bot(EXAMPLES / "random_bot.py", ref.address, m.tokens[0])

        async def silent_then_signal() -> bot_pb2.MatchEnd:
            stuck = asyncio.ensure_future(seat(ref.address, m.tokens[1], 0.0, False))
            await _running(ref, m.match_id)  # the bot has started and joined
            ref.proc.send_signal(signal.SIGTERM)
            return await asyncio.wait_for(stuck, 15)

        end = asyncio.run(silent_then_signal())
        assert end.result.status == common_pb2.MATCH_STATUS_ABORTED
        [(code, output)] = wait_all([bot])
        assert code == 0, output
        assert "the match was aborted (referee shutting down): no result" in output
    finally:
        if ref.proc.poll() is None:
            ref.proc.kill()
        ref.channel.close()
