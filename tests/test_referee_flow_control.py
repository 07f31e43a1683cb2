"""A seat cannot hang its match by withholding HTTP/2 flow-control window: every
write to a seat has a deadline (a decision's is the decision's own clock, any other
write's WRITE_S), and a seat whose stream takes no bytes by then is cut off (status
timeout, forfeited) while the other seats' match plays on to its end."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator

import pytest
from h2.config import H2Configuration
from h2.connection import H2Connection
from h2.events import ConnectionTerminated, DataReceived, StreamEnded, StreamReset
from h2.settings import SettingCodes, Settings

from referee.runner import WRITE_S
from rummyarena.v1 import bot_pb2, match_pb2
from tests.referee_support import PLAY, RefereeProcess, play_raw_seat, referee_fixture, statuses

DECISION_MS = 300
BANK_MS = 700
#: The honest seat's MatchEnd is due within this many seconds: at most one write to the
#: withholding seat is held up to its deadline (a decision's, or WRITE_S for any other),
#: and a one-hand match between a quick bot and the referee's default policy takes
#: well under the grace.
GRACE_S = 4.0
BOUND_S = WRITE_S + (DECISION_MS + BANK_MS) / 1000 + GRACE_S


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def grpc_frame(message: bot_pb2.BotMessage) -> bytes:
    """A message in gRPC's length-prefixed framing (uncompressed)."""
    data: bytes = message.SerializeToString()
    return b"\x00" + len(data).to_bytes(4, "big") + data


class WithholdingSeat:
    """A bot on a bare HTTP/2 connection that grants the referee ``window`` bytes on its
    Play stream and never more: it sends no WINDOW_UPDATE, for the stream or the
    connection. It answers each Decision it receives whole with index 0."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.received: list[bot_pb2.RefereeMessage] = []
        self.closed = False

    @property
    def decisions(self) -> int:
        """How many Decisions reached the seat whole."""
        return sum(1 for m in self.received if m.HasField("decision"))

    async def play(self, address: str, token: str) -> None:
        """Join with ``token`` and read until the connection ends (or the task is
        cancelled); the socket is closed either way."""
        host, port = address.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            conn = H2Connection(H2Configuration(client_side=True))
            conn.local_settings = Settings(
                client=True, initial_values={SettingCodes.INITIAL_WINDOW_SIZE: self.window}
            )
            conn.initiate_connection()
            stream = conn.get_next_available_stream_id()
            headers = [
                (":method", "POST"),
                (":scheme", "http"),
                (":path", PLAY),
                (":authority", address),
                ("content-type", "application/grpc"),
                ("te", "trailers"),
            ]
            conn.send_headers(stream, headers)
            conn.send_data(stream, grpc_frame(bot_pb2.BotMessage(join=bot_pb2.Join(token=token))))
            buffer = b""
            while True:
                writer.write(conn.data_to_send())  # SETTINGS and PING acks, answers
                await writer.drain()
                data = await reader.read(65536)
                if not data:
                    return
                for event in conn.receive_data(data):
                    if isinstance(event, ConnectionTerminated):
                        return
                    if isinstance(event, StreamEnded | StreamReset):
                        continue  # the referee ended the stream: wait for the connection
                    if not isinstance(event, DataReceived) or event.stream_id != stream:
                        continue
                    buffer += event.data  # taken, never acknowledged
                    while len(buffer) >= 5:
                        end = 5 + int.from_bytes(buffer[1:5], "big")
                        if len(buffer) < end:
                            break  # the rest of this message is held back by the window
                        msg = bot_pb2.RefereeMessage.FromString(buffer[5:end])
                        buffer = buffer[end:]
                        self.received.append(msg)
                        if msg.HasField("decision"):
                            answer = bot_pb2.Answer(decision_id=msg.decision.decision_id, index=0)
                            conn.send_data(stream, grpc_frame(bot_pb2.BotMessage(answer=answer)))
        finally:
            writer.close()
            self.closed = True


async def play_beside(
    address: str, tokens: list[str], seat: WithholdingSeat
) -> tuple[list[bot_pb2.RefereeMessage], float]:
    """Seat 0 plays honestly while ``seat`` holds seat 1: the honest seat's messages and
    how long it took to get its MatchEnd. Fails when that is not within BOUND_S."""
    withholding = asyncio.create_task(seat.play(address, tokens[1]))
    try:
        start = time.monotonic()
        try:
            raw = await asyncio.wait_for(
                play_raw_seat(address, tokens[0], random.Random(5)), BOUND_S
            )
        except TimeoutError:
            pytest.fail(
                f"the honest seat had no MatchEnd within {BOUND_S:.1f} s: the seat that "
                f"withholds window holds up its match (it received {len(seat.received)} "
                f"messages, {seat.decisions} of them decisions)"
            )
        return [bot_pb2.RefereeMessage.FromString(m) for m in raw], time.monotonic() - start
    finally:
        withholding.cancel()
        await asyncio.gather(withholding, return_exceptions=True)


def check_finished_without(
    ref: RefereeProcess, match_id: str, honest: list[bot_pb2.RefereeMessage]
) -> None:
    """The honest seat got its MatchEnd last and the match completed with a result,
    seat 1 timed out and forfeited."""
    assert honest and honest[-1].HasField("match_end"), honest[-1:]
    record = ref.record(match_id)
    assert record.status == "completed", (record.status, record.reason)
    assert record.result is not None
    assert statuses(record)[1] == ("timeout", True)
    assert statuses(record)[0][1] is False


def one_hand(ref: RefereeProcess) -> match_pb2.CreateMatchResponse:
    """A one-hand Hollywood Gin match with the tests' short clocks."""
    return ref.create(
        "hollywood-gin",
        2,
        seed=3,
        options={"max_hands": 1},
        decision_ms=DECISION_MS,
        bank_ms=BANK_MS,
        strike_limit=3,
        join_ms=5000,
    )


def test_a_seat_that_grants_no_window_cannot_hang_its_match(ref: RefereeProcess) -> None:
    m = one_hand(ref)
    seat = WithholdingSeat(window=0)
    honest, took = asyncio.run(play_beside(ref.address, list(m.tokens), seat))
    assert took < BOUND_S
    assert seat.received == []  # not even the Welcome got through
    assert seat.closed
    check_finished_without(ref, m.match_id, honest)


def test_a_seat_that_stops_granting_window_mid_match_cannot_hang_it(
    ref: RefereeProcess,
) -> None:
    m = one_hand(ref)
    # room for the Welcome and a few decisions, then the referee's writes stall
    seat = WithholdingSeat(window=3000)
    honest, took = asyncio.run(play_beside(ref.address, list(m.tokens), seat))
    assert took < BOUND_S
    assert seat.received and seat.received[0].HasField("welcome")
    assert seat.decisions >= 1  # it stalled mid-match, not before
    assert not any(msg.HasField("match_end") for msg in seat.received)
    assert seat.closed
    check_finished_without(ref, m.match_id, honest)
