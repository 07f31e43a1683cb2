"""The gRPC referee service (ARCHITECTURE decision 5): thin servicers over
:mod:`referee.runner`, plus health checking and reflection.

The bot stream takes raw bytes and parses them here, so that a malformed
message is answered with INVALID_ARGUMENT and a reason instead of a generic
deserialisation failure; oversized messages are refused by gRPC itself
(RESOURCE_EXHAUSTED) at :data:`MAX_MESSAGE_BYTES`.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from referee import codec
from referee.clock import ClockRules
from referee.engine import EngineError
from referee.runner import Match, MatchPhase, ProtocolError, Referee, SeatLink
from rummyarena.v1 import bot_pb2, match_pb2, match_pb2_grpc

log = logging.getLogger(__name__)

#: The largest message a bot or client may send; answers are tiny.
MAX_MESSAGE_BYTES = 64 * 1024
#: How long a new stream may take to send its Join.
JOIN_WAIT_S = 30.0
#: How long a failing stream waits for a write in flight before ending with its status.
SETTLE_S = 1.0

REFEREE_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Referee"].full_name
MATCHES_SERVICE = match_pb2.DESCRIPTOR.services_by_name["Matches"].full_name

_STATE = {
    MatchPhase.WAITING: match_pb2.MATCH_STATE_WAITING,
    MatchPhase.RUNNING: match_pb2.MATCH_STATE_RUNNING,
    MatchPhase.FINISHED: match_pb2.MATCH_STATE_FINISHED,
}


async def _abort(context: grpc.aio.ServicerContext[Any, Any], code: str, message: str) -> NoReturn:
    await context.abort(grpc.StatusCode[code], message)
    raise AssertionError("abort returned")  # pragma: no cover


class RefereeServicer:
    """The bot side: one Play stream per seat."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    def handler(self) -> grpc.GenericRpcHandler:
        """The generic handler of the Referee service: bytes both ways (the runner
        writes serialised RefereeMessages, the decisions straight from the codec)."""
        play = grpc.stream_stream_rpc_method_handler(
            self.play, request_deserializer=None, response_serializer=None
        )
        return grpc.method_handlers_generic_handler(REFEREE_SERVICE, {"Play": play})

    async def play(self, _requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """A seat's session: Join, then answers until the match ends."""
        try:
            raw = await asyncio.wait_for(context.read(), JOIN_WAIT_S)
        except TimeoutError:
            await _abort(context, "DEADLINE_EXCEEDED", f"no Join within {JOIN_WAIT_S:.0f} s")
        if raw is grpc.aio.EOF:
            return
        msg = _parse(raw)
        if msg is None or msg.WhichOneof("kind") != "join":
            await _abort(
                context,
                "INVALID_ARGUMENT",
                "the first message must be a BotMessage with a Join holding the seat token",
            )
        link = SeatLink(context.write)
        try:
            match, seat = self.referee.seat_for(msg.join.token)
            match.attach(seat, link, msg.join.agent)
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        reader = asyncio.ensure_future(self._read(context, match, seat))
        finished = asyncio.ensure_future(link.finished.wait())
        failure: tuple[str, str] | None = None
        try:
            done, _ = await asyncio.wait({reader, finished}, return_when=asyncio.FIRST_COMPLETED)
            if reader in done:
                failure = reader.result()
        finally:
            reader.cancel()
            finished.cancel()
            match.detach(seat, "the stream ended")
        if failure is not None:
            # a write still in flight (from the match task) would hold up the status
            await _settle(link)
            await _abort(context, *failure)

    async def _read(
        self, context: grpc.aio.ServicerContext[Any, Any], match: Match, seat: Any
    ) -> tuple[str, str] | None:
        """Feed the seat's messages to the match; the status to end with on a fault."""
        while True:
            raw = await context.read()
            if raw is grpc.aio.EOF:
                return None
            # the common answer, by an index below 128, in the canonical encoding
            # (codec.answer_head): read from the bytes; anything else is parsed
            head = seat.answer_head
            if (
                head
                and raw[2:-1] == head
                and raw[-1] < 0x80
                and raw[0] == 0x12
                and raw[1] == len(raw) - 2
            ):
                match.on_index(seat, raw[-1])
                continue
            msg = _parse(raw)
            try:
                if msg is None:
                    raise ProtocolError("INVALID_ARGUMENT", "the message is not a BotMessage")
                kind = msg.WhichOneof("kind")
                if kind == "answer":
                    match.on_answer(seat, msg.answer)
                elif kind == "error":
                    match.on_error(seat, msg.error)
                elif kind == "join":
                    raise ProtocolError("FAILED_PRECONDITION", "this stream has already joined")
                else:
                    raise ProtocolError("INVALID_ARGUMENT", "the BotMessage is empty")
            except ProtocolError as exc:
                match.protocol_fault(seat, str(exc))
                return exc.code, str(exc)


async def _settle(link: SeatLink) -> None:
    """Wait (briefly) for the match's write in flight on ``link``, if any, to complete."""
    deadline = time.monotonic() + SETTLE_S
    while link.writing and time.monotonic() < deadline:
        await asyncio.sleep(0.005)


def _parse(raw: bytes) -> bot_pb2.BotMessage | None:
    try:
        msg: bot_pb2.BotMessage = bot_pb2.BotMessage.FromString(raw)
        return msg
    except (DecodeError, ValueError):
        return None


class MatchesServicer(match_pb2_grpc.MatchesServicer):
    """The platform side: create, watch and fetch matches."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    async def CreateMatch(  # the gRPC method name
        self, request: match_pb2.CreateMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.CreateMatchResponse:
        """Create a match and return its seat tokens."""
        names = [n or f"seat {i}" for i, n in enumerate(request.seat_names)]
        try:
            if not names:
                raise ProtocolError("INVALID_ARGUMENT", "seat_names names no seat")
            clock = codec.clock_from_proto(request.clock, self.referee.default_clock)
            match = self.referee.create(
                request.game,
                codec.options_from_proto(request.options),
                request.seed,
                names,
                clock,
                request.match_id,
            )
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        except (EngineError, ValueError) as exc:
            await _abort(context, "INVALID_ARGUMENT", str(exc))
        return match_pb2.CreateMatchResponse(
            match_id=match.id, tokens=[s.token for s in match.seats]
        )

    async def WatchMatch(
        self, request: match_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[match_pb2.MatchUpdate]:
        """The public events so far and as they come, then the result."""
        try:
            match = self.referee.get(request.match_id)
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        history = match.public_events()
        if match.phase is MatchPhase.FINISHED:
            for event in history:
                yield match_pb2.MatchUpdate(event=event)
            yield match_pb2.MatchUpdate(result=match.result_pb)
            return
        queue: asyncio.Queue[Any] = asyncio.Queue()
        match.watchers.append(queue)
        try:
            for event in history:
                yield match_pb2.MatchUpdate(event=event)
            while (item := await queue.get()) is not None:
                if isinstance(item, type(match_pb2.MatchUpdate().event)):
                    yield match_pb2.MatchUpdate(event=item)
                else:
                    yield match_pb2.MatchUpdate(result=item)
        finally:
            match.watchers.remove(queue)

    async def GetMatch(
        self, request: match_pb2.GetMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.GetMatchResponse:
        """The match's state, and its result and record once finished."""
        try:
            match = self.referee.get(request.match_id)
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        reply = match_pb2.GetMatchResponse(match_id=match.id, state=_STATE[match.phase])
        if match.phase is MatchPhase.FINISHED and match.record is not None:
            reply.result.CopyFrom(match.result_pb)
            reply.record.CopyFrom(codec.record_to_proto(match.record))
        return reply


async def start_server(
    port: int, host: str = "127.0.0.1", default_clock: ClockRules | None = None
) -> tuple[grpc.aio.Server, Referee, int]:
    """Start a referee server; returns it, its referee and the port it listens on."""
    referee = Referee(default_clock)
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    server.add_generic_rpc_handlers((RefereeServicer(referee).handler(),))
    match_pb2_grpc.add_MatchesServicer_to_server(MatchesServicer(referee), server)  # type: ignore[no-untyped-call]
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    for name in ("", REFEREE_SERVICE, MATCHES_SERVICE):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (
            REFEREE_SERVICE,
            MATCHES_SERVICE,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    await server.start()
    # The engines' and the codec's lookup tables (tens of thousands of tuples, made at
    # import) live as long as the process: move them out of the garbage collector's
    # full passes, which otherwise walk them again and again while matches run (about
    # 8% of the referee's instructions per decision; docs/performance.md).
    gc.freeze()
    log.info("referee listening on %s:%d", host, bound)
    return server, referee, bound


async def serve(port: int, host: str = "127.0.0.1") -> None:
    """Run a referee server until cancelled."""
    server, referee, _ = await start_server(port, host)
    try:
        await server.wait_for_termination()
    finally:
        await referee.close()
        await server.stop(1.0)
