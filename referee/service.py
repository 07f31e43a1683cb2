"""The gRPC referee service (docs/architecture.md, decisions 5 and 13): thin servicers over
:mod:`referee.matches` and :mod:`referee.runner`, plus health checking and reflection.

The bot stream takes raw bytes and parses them here, so that a malformed
message is answered with INVALID_ARGUMENT and a reason instead of a generic
deserialisation failure; a message over :data:`MAX_MESSAGE_BYTES` is the seat's
fault (invalid), and gRPC itself refuses one over :data:`GRPC_MAX_RECEIVE`.
The match service needs the platform's credential (:mod:`referee.auth`; WatchMatch
also takes the watch credential of the match it names); the bots' ``Play`` and
``Serve`` (a bot process's session, :mod:`referee.sessions`, whose key is its
credential) and health stay open. :func:`serve` stops gracefully
on SIGTERM or SIGINT (:meth:`referee.matches.Referee.shutdown`).

With a certificate and key (:func:`tls_identity`) the TCP port speaks TLS, for bots
that dial in over the internet; the Unix socket, reached by sandboxed bots on the same
machine, stays plain. Every ``Serve`` stream carries a heartbeat each
:data:`HEARTBEAT_S` seconds of quiet, and the referee pings each connection as often:
a connection that stops answering is dropped, and its session is no longer connected.

A remote bot gives its owner's API key instead of a session key; the referee has no
database, so it asks the platform, whose ``WatchRemote`` stream hears of the arrival
and whose ``AdmitRemote`` answers it (:class:`referee.sessions.RemoteDesk`), within
:data:`ADMIT_S`.

Each listener takes its own kind of ``Serve`` (:class:`ServeKeys`; docs/protocol.md,
"Listeners"): API keys only on the listener of remote bots (:func:`serve`'s
``remote``, which speaks TLS and serves only the bots' side); session keys on the Unix
socket of hosted bots (:func:`serve`'s ``unix``, a server of its own that serves only
the bots' side too), and on the TCP port only when there is no socket or
``tcp_sessions`` says so: a key that leaked is then no use to another user of the
machine, who can reach the TCP port but not the socket's folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import resource
import signal
import ssl
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from referee import wire
from referee.auth import PlatformAuth, platform_secret, secret_source
from referee.clock import ClockRules
from referee.engine import EngineError
from referee.matches import FinishedMatch, Referee
from referee.matchlog import public_events
from referee.runner import Match
from referee.seats import MatchPhase, ProtocolError, Seat, SeatLink
from referee.sessions import (
    MAX_LABEL,
    REFUSAL_CODES,
    Admission,
    RemoteDesk,
    Session,
    SessionStream,
    source_of,
)
from referee.wire import read_index
from rummyarena.v1 import bot_pb2, common_pb2, match_pb2, match_pb2_grpc

log = logging.getLogger(__name__)

#: The largest message a bot or client may send; answers are tiny.
MAX_MESSAGE_BYTES = 64 * 1024
#: The largest message gRPC reads at all: past it the stream ends (RESOURCE_EXHAUSTED)
#: before the referee sees the message.
GRPC_MAX_RECEIVE = 1024 * 1024
#: How long running matches may take to finish after SIGTERM or SIGINT, by default.
GRACE_S = 30.0
#: After a shutdown's matches have ended, how long the service stays up for the
#: platform to fetch their records (it stops sooner once all are released).
LINGER_S = 5.0
#: The open-file limit below which the referee warns (one per connection).
FEW_FILES = 4096

#: Server options that bound what one client can hold (docs/protocol.md, "Limits").
SERVER_OPTIONS = (
    ("grpc.max_receive_message_length", GRPC_MAX_RECEIVE),
    ("grpc.so_reuseport", 0),
    # streams one connection may hold at once (a bot session plays several matches)
    ("grpc.max_concurrent_streams", 256),
    # a connection with no call for 5 minutes is closed; one that never finishes its
    # HTTP/2 handshake, after 10 s
    ("grpc.max_connection_idle_ms", 300_000),
    ("grpc.server_handshake_timeout_ms", 10_000),
    # the referee pings every connection each HEARTBEAT_S and drops one silent for twice
    # that (server_options)
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    # clients may ping at most every 10 s, even without calls; more often, twice, and
    # the connection is closed
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_ping_strikes", 2),
)
#: How often a quiet ``Serve`` stream gets a heartbeat, and each connection a ping, by
#: default; a connection whose ping goes unanswered for twice that is dropped.
HEARTBEAT_S = 10.0
#: The header of a ``Serve`` stream that gives its heartbeat interval, in milliseconds.
HEARTBEAT_HEADER = "rummyarena-heartbeat-ms"
#: How long a new stream may take to send its Join.
JOIN_WAIT_S = 30.0
#: How long a failing stream waits for a write in flight before ending with its status.
SETTLE_S = 1.0
#: How long a remote bot's Serve waits for the platform to admit or refuse it.
ADMIT_S = 10.0

REFEREE_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Referee"].full_name
MATCHES_SERVICE = match_pb2.DESCRIPTOR.services_by_name["Matches"].full_name

_HEARTBEAT = bot_pb2.Assignment(heartbeat=True)

_STATE = {
    MatchPhase.WAITING: match_pb2.MATCH_STATE_WAITING,
    MatchPhase.RUNNING: match_pb2.MATCH_STATE_RUNNING,
    MatchPhase.FINISHED: match_pb2.MATCH_STATE_FINISHED,
}


@dataclass(frozen=True, slots=True)
class ServeKeys:
    """Which keys the ``Serve`` calls on one listener may give: ``where`` names the
    listener, ``no_sessions`` and ``no_api_keys`` say why a kind of key is refused
    there (empty: it is taken); ``session``, the one session a listener of a session's own
    serves (empty: any)."""

    where: str
    no_sessions: str = ""
    no_api_keys: str = ""
    session: str = ""

    def refusal(self, api_key: bool) -> str:
        """Why a ``Serve`` call with an API key (else a session key) is refused here;
        empty when it is not."""
        why = self.no_api_keys if api_key else self.no_sessions
        return f"{self.where} {why}" if why else ""


_NO_API_KEYS = (
    "takes no API keys: a remote bot dials the platform's address for remote bots "
    "(arena worker --remote) over TLS"
)
#: The TCP port with no Unix socket beside it (arena referee, arena play): every session.
TCP_PORT = ServeKeys("the referee's TCP port", no_api_keys=_NO_API_KEYS)
#: The TCP port beside a Unix socket: its hosted bots' sessions are served on the socket.
TCP_PORT_NO_SESSIONS = ServeKeys(
    "the referee's TCP port",
    no_sessions=(
        "takes no session keys: its hosted bots serve their sessions on its Unix "
        "socket, which ARENA_REFEREE names to them"
    ),
    no_api_keys=_NO_API_KEYS,
)
#: The Unix socket of hosted bots.
UNIX_SOCKET = ServeKeys("the Unix socket of the referee's hosted bots", no_api_keys=_NO_API_KEYS)


def own_socket(session_id: str) -> ServeKeys:
    """The Unix socket of one hosted bot's own (``OpenSessionRequest.socket``): its
    session alone."""
    return ServeKeys(
        f"the Unix socket of session {session_id}", no_api_keys=_NO_API_KEYS, session=session_id
    )


#: The listener of remote bots.
REMOTE_PORT = ServeKeys(
    "the referee's port for remote bots",
    no_sessions=(
        "takes no session keys: a remote bot gives its owner's API key (ARENA_API_KEY), "
        "its bot's name and its game"
    ),
)


async def _abort(context: grpc.aio.ServicerContext[Any, Any], code: str, message: str) -> NoReturn:
    await context.abort(grpc.StatusCode[code], message)
    raise AssertionError("abort returned")  # pragma: no cover


class RefereeServicer:
    """The bot side: one Play stream per seat, one Serve stream per bot session."""

    def __init__(
        self,
        referee: Referee,
        heartbeat_s: float = HEARTBEAT_S,
        desk: RemoteDesk | None = None,
        keys: ServeKeys = TCP_PORT,
    ) -> None:
        self.referee = referee
        self.heartbeat_s = heartbeat_s
        self.desk = desk or RemoteDesk()
        self.keys = keys

    def handler(self) -> grpc.GenericRpcHandler:
        """The generic handler of the Referee service: bytes both ways (the runner
        writes serialised RefereeMessages, the decisions straight from :mod:`referee.wire`)."""
        play = grpc.stream_stream_rpc_method_handler(
            self.play, request_deserializer=None, response_serializer=None
        )
        serve = grpc.unary_stream_rpc_method_handler(
            self.serve,
            request_deserializer=None,
            response_serializer=bot_pb2.Assignment.SerializeToString,
        )
        return grpc.method_handlers_generic_handler(REFEREE_SERVICE, {"Play": play, "Serve": serve})

    async def serve(self, raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """A bot process's session: every seat assigned to it, as they come, and a
        heartbeat after each :attr:`heartbeat_s` of quiet, until the session is closed,
        taken over by another stream, or the referee shuts down, or a heartbeat cannot be
        written (the connection is gone). A remote bot (an API key) is first admitted
        onto a session by the platform. A kind of key this listener does not take
        (:attr:`keys`) is refused before anything else is done with it."""
        try:
            request = bot_pb2.ServeRequest.FromString(raw)
        except (DecodeError, ValueError):
            await _abort(
                context,
                "INVALID_ARGUMENT",
                "the request must be a ServeRequest with the session key",
            )
        remote = bool(request.api_key and not request.key)
        refusal = self.keys.refusal(remote)
        if refusal:
            await _abort(context, "PERMISSION_DENIED", refusal)
        connection_id = ""
        try:
            if remote:
                connection_id, session_id = await self._admission(request, context)
                session, stream = self.referee.sessions.connect_admitted(session_id, request.agent)
            else:
                session, stream = self.referee.sessions.connect(
                    request.key, request.agent, self.keys.session
                )
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        log.info("session %s (%s) connected: %s", session.id, session.name, session.agent)
        try:
            await self._stream(context, session, stream)
        finally:
            self.referee.sessions.disconnect(session, stream)
            log.info("session %s disconnected", session.id)
            if connection_id:
                self.desk.left(connection_id, session.id)
        if stream.reason:
            await _abort(context, "PERMISSION_DENIED", stream.reason)

    async def _admission(
        self, request: bot_pb2.ServeRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> tuple[str, str]:
        """Ask the platform about a remote bot: its connection id and the session it is
        admitted onto; ProtocolError when it is refused or the platform does not answer."""
        for what, value in (
            ("api_key", request.api_key),
            ("bot", request.bot),
            ("game", request.game),
        ):
            if len(value) > MAX_LABEL:
                raise ProtocolError(
                    "INVALID_ARGUMENT", f"the ServeRequest's {what} is over {MAX_LABEL} characters"
                )
        arrival = match_pb2.RemoteArrival(
            api_key=request.api_key,
            bot=request.bot,
            game=request.game,
            agent=request.agent[:MAX_LABEL],
            peer=context.peer(),
        )
        connection_id, answer = self.desk.arrive(arrival, source_of(arrival.peer))
        try:
            admission = await asyncio.wait_for(answer, ADMIT_S)
        except TimeoutError:
            raise ProtocolError("UNAVAILABLE", "the platform did not answer; try again") from None
        finally:
            self.desk.forget(connection_id)
        if not admission.session_id:
            raise ProtocolError(admission.code, admission.refusal)
        log.info(
            "remote bot %r (%s) admitted onto session %s",
            request.bot,
            arrival.peer,
            admission.session_id,
        )
        return connection_id, admission.session_id

    async def _stream(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        session: Session,
        stream: SessionStream,
    ) -> None:
        # the headers tell the bot its session is on before any assignment comes, and
        # how often it hears at least a heartbeat
        beat_ms = str(round(self.heartbeat_s * 1000))
        await context.send_initial_metadata(((HEARTBEAT_HEADER, beat_ms),))
        while True:
            try:
                a = await asyncio.wait_for(stream.next(), self.heartbeat_s)
            except TimeoutError:
                if not await self._beat(context):
                    log.info("session %s: its heartbeat was not delivered", session.id)
                    return
                continue
            if a is None:
                return
            await context.write(
                bot_pb2.Assignment(
                    match_id=a.match_id,
                    game=a.game,
                    seat=a.seat,
                    token=a.token,
                    seat_name=a.seat_name,
                )
            )

    async def _beat(self, context: grpc.aio.ServicerContext[Any, Any]) -> bool:
        """Write a heartbeat; whether the stream is still open and took it in time (a
        write stuck for a heartbeat's interval is a connection that no longer reads)."""
        if context.done():
            return False
        try:
            await asyncio.wait_for(context.write(_HEARTBEAT), self.heartbeat_s)
        except (TimeoutError, grpc.aio.AbortError, grpc.aio.UsageError, grpc.RpcError):
            return False
        return not context.done()

    async def play(self, _requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """A seat's stream: Join, then answers until the match ends."""
        try:
            raw = await asyncio.wait_for(context.read(), JOIN_WAIT_S)
        except TimeoutError:
            await _abort(context, "DEADLINE_EXCEEDED", f"no Join within {JOIN_WAIT_S:.0f} s")
        if raw is grpc.aio.EOF:
            return
        if len(raw) > MAX_MESSAGE_BYTES:
            await _abort(
                context,
                "RESOURCE_EXHAUSTED",
                f"a Join of {len(raw)} bytes: the referee reads at most {MAX_MESSAGE_BYTES}",
            )
        msg = _parse(raw)
        if msg is None or msg.WhichOneof("kind") != "join":
            await _abort(
                context,
                "INVALID_ARGUMENT",
                "the first message must be a BotMessage with a Join holding the seat token",
            )
        link = SeatLink(context.write)
        try:
            match, seat, _ = self.referee.join(msg.join.token, link, msg.join.agent)
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        reader = asyncio.ensure_future(self._read(context, match, seat, link))
        finished = asyncio.ensure_future(link.finished.wait())
        failure: tuple[str, str] | None = None
        try:
            done, _ = await asyncio.wait({reader, finished}, return_when=asyncio.FIRST_COMPLETED)
            if reader in done:
                failure = reader.result()
        finally:
            reader.cancel()
            finished.cancel()
            match.detach(seat, link, "the stream ended")
        if failure is not None:
            # a write still in flight (from the match task) would hold up the status
            await _settle(link)
            await _abort(context, *failure)

    async def _read(
        self, context: grpc.aio.ServicerContext[Any, Any], match: Match, seat: Seat, link: SeatLink
    ) -> tuple[str, str] | None:
        """Feed the seat's messages to the match; the status to end with on a fault."""
        while True:
            raw = await context.read()
            if raw is grpc.aio.EOF:
                return None
            if len(raw) > MAX_MESSAGE_BYTES:
                problem = (
                    f"a message of {len(raw)} bytes: the referee reads at most "
                    f"{MAX_MESSAGE_BYTES} (answers are a few bytes)"
                )
                match.protocol_fault(seat, link, problem)
                return "RESOURCE_EXHAUSTED", problem
            # the common answer, by an index below 128, in the canonical encoding: read
            # from the bytes; anything else is parsed
            index = read_index(raw, seat.answer_head)
            if index >= 0:
                match.on_index(seat, index)
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
                match.protocol_fault(seat, link, str(exc))
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
    """The platform side: create, watch, fetch and release matches; open and close bot
    sessions."""

    def __init__(
        self,
        referee: Referee,
        desk: RemoteDesk | None = None,
        sockets: OwnSockets | None = None,
    ) -> None:
        self.referee = referee
        self.desk = desk or RemoteDesk()
        self.sockets = sockets

    async def CreateMatch(  # the gRPC method name
        self, request: match_pb2.CreateMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.CreateMatchResponse:
        """Create a match and return its seat tokens."""
        names = [n or f"seat {i}" for i, n in enumerate(request.seat_names)]
        try:
            if not names:
                raise ProtocolError("INVALID_ARGUMENT", "seat_names names no seat")
            clock = wire.clock_from_proto(request.clock, self.referee.default_clock)
            deal = json.loads(request.deal) if request.deal else None  # a ValueError if not JSON
            if deal is not None and not isinstance(deal, dict):
                raise ProtocolError("INVALID_ARGUMENT", "deal is not a JSON object")
            match = self.referee.create(
                request.game,
                wire.options_from_proto(request.options),
                request.seed,
                names,
                clock,
                request.match_id,
                request.seat_sessions,
                request.seat_faults,
                deal,
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
        if isinstance(match, FinishedMatch):
            record = match_pb2.GetMatchResponse().record
            record.MergeFromString(match.record)
            history = public_events(
                record.game,
                record.seed,
                len(record.seats),
                wire.options_from_proto(record.options),
                record.action_index,
            )
            for event in history:
                yield match_pb2.MatchUpdate(event=event)
            yield match_pb2.MatchUpdate(result=record.result)
            return
        history = match.public_events()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        match.log.watchers.append(queue)
        try:
            for event in history:
                yield match_pb2.MatchUpdate(event=event)
            if match.phase is MatchPhase.FINISHED:  # it ended while the history was made
                yield match_pb2.MatchUpdate(result=match.result_pb)
                return
            while (item := await queue.get()) is not None:
                if isinstance(item, common_pb2.Event):
                    yield match_pb2.MatchUpdate(event=item)
                else:
                    yield match_pb2.MatchUpdate(result=item)
        finally:
            match.log.watchers.remove(queue)

    async def GetMatch(
        self, request: match_pb2.GetMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.GetMatchResponse:
        """The match's state, and its result and record once finished; with ``wait``,
        once it has finished (and with ``release``, forgotten then, as ``ReleaseMatch``
        would)."""
        try:
            match = self.referee.get(request.match_id)
            if request.wait and not isinstance(match, FinishedMatch):
                await match.done.wait()
                match = self.referee.get(request.match_id)
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        reply = match_pb2.GetMatchResponse(match_id=match.id, state=_STATE[match.phase])
        # a match is finished, with its record, before its seats have all been told
        record = match.record if isinstance(match, FinishedMatch) else match.record_bytes
        if record is not None and request.record_bytes:
            reply.record_data = record
        elif record is not None:
            reply.record.MergeFromString(record)
            reply.result.CopyFrom(reply.record.result)
        if request.wait and request.release and record is not None:
            self.referee.release_when_finished(match.id)
        return reply

    async def ReleaseMatch(
        self, request: match_pb2.ReleaseMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.ReleaseMatchResponse:
        """Forget a finished match whose record the platform has stored."""
        try:
            released = self.referee.release(request.match_id)
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        return match_pb2.ReleaseMatchResponse(released=released)

    async def OpenSession(
        self, request: match_pb2.OpenSessionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.OpenSessionResponse:
        """Open a session for a bot process: its id, and its key for Serve; with
        ``socket``, on a Unix socket of its own too."""
        if request.socket and self.sockets is None:
            await _abort(
                context,
                "FAILED_PRECONDITION",
                "this referee makes no sockets of a session's own: start it with --unix",
            )
        try:
            session = self.referee.open_session(request.name)
        except ProtocolError as exc:
            await _abort(context, exc.code, str(exc))
        if request.socket:
            assert self.sockets is not None
            try:
                await self.sockets.open(session.id, request.socket)
            except OSError as exc:
                self.referee.close_session(session.id)
                await _abort(context, "INVALID_ARGUMENT", str(exc))
        log.info("session %s (%s) opened", session.id, session.name)
        return match_pb2.OpenSessionResponse(session_id=session.id, key=session.key)

    async def CloseSession(
        self, request: match_pb2.CloseSessionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.CloseSessionResponse:
        """Close a session: its stream ends (with PERMISSION_DENIED and the reason, when
        one is given) and its unjoined seats count as never joined."""
        if request.reason:
            self.referee.sessions.revoke(request.session_id, request.reason[:MAX_LABEL])
        closed = self.referee.close_session(request.session_id)
        if self.sockets is not None:
            await self.sockets.close(request.session_id)
        if closed:
            log.info("session %s closed", request.session_id)
        return match_pb2.CloseSessionResponse(closed=closed)

    async def WatchRemote(
        self, request: match_pb2.WatchRemoteRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[match_pb2.RemoteEvent]:
        """Every remote bot's arrival and, once admitted, departure, until the platform
        ends the call or the referee shuts down."""
        if self.referee.sessions.closing:
            await _abort(context, "UNAVAILABLE", "the referee is shutting down")
        queue = self.desk.watch()
        try:
            # the headers tell the platform its watch is on: remote bots are taken now
            await context.send_initial_metadata(())
            while (event := await queue.get()) is not None:
                yield event
        finally:
            self.desk.unwatch(queue)

    async def AdmitRemote(
        self, request: match_pb2.AdmitRemoteRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.AdmitRemoteResponse:
        """Admit a waiting remote connection onto an open session, or refuse it."""
        if request.refusal:
            code = request.code or "PERMISSION_DENIED"
            if code not in REFUSAL_CODES:
                await _abort(
                    context,
                    "INVALID_ARGUMENT",
                    f"code {code[:40]!r} is not one of {', '.join(sorted(REFUSAL_CODES))}",
                )
            admission = Admission(code=code, refusal=request.refusal[:MAX_LABEL])
        elif self.referee.sessions.get(request.session_id) is None:
            await _abort(
                context,
                "INVALID_ARGUMENT",
                f"no open session {request.session_id[:80]!r} to admit the connection onto: "
                "open one first, or give a refusal",
            )
        else:
            admission = Admission(session_id=request.session_id)
        if not self.desk.answer(request.connection_id, admission):
            await _abort(
                context,
                "NOT_FOUND",
                f"no remote connection {request.connection_id[:80]!r} waits (it gave up)",
            )
        return match_pb2.AdmitRemoteResponse()


class TlsError(ValueError):
    """A TLS certificate or key the referee cannot serve with; the message names the file."""


def tls_identity(cert: bytes | str | Path, key: bytes | str | Path) -> tuple[bytes, bytes]:
    """The referee's certificate chain and private key as PEM bytes, read from the files
    when given paths (and checked to be a pair); :class:`TlsError` naming the file that
    cannot be read or does not hold what it should."""
    pems = []
    for what, source, marker in (
        ("certificate", cert, b"-----BEGIN CERTIFICATE-----"),
        ("private key", key, b"PRIVATE KEY-----"),
    ):
        name = "the given bytes" if isinstance(source, bytes) else str(source)
        try:
            pem = source if isinstance(source, bytes) else Path(source).read_bytes()
        except OSError as exc:
            raise TlsError(f"cannot read the TLS {what} {name}: {exc.strerror}") from None
        if marker not in pem:
            raise TlsError(f"the TLS {what} {name} is not a PEM {what}")
        pems.append(pem)
    if not isinstance(cert, bytes) and not isinstance(key, bytes):
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
        except ssl.SSLError as exc:
            raise TlsError(
                f"the TLS certificate {cert} and private key {key} do not make a pair: "
                f"{exc.reason or exc}"
            ) from None
    return pems[0], pems[1]


class OwnSockets:
    """The Unix sockets of sessions' own (``OpenSessionRequest.socket``): for each, a
    server of the bots' side that serves that session alone (:func:`own_socket`), made
    when the session opens and stopped, its file removed, when it closes."""

    def __init__(
        self,
        handler: Callable[[ServeKeys], grpc.GenericRpcHandler],
        heartbeat_s: float,
        health: HealthServicer,
    ) -> None:
        self.handler = handler
        self.heartbeat_s = heartbeat_s
        self.health = health
        self.servers: dict[str, tuple[grpc.aio.Server, str]] = {}

    async def open(self, session_id: str, path: str) -> None:
        """Serve the session ``session_id`` on a new socket at ``path``; OSError naming
        the path when it cannot be made."""
        server = grpc.aio.server(options=server_options(self.heartbeat_s))
        server.add_generic_rpc_handlers((self.handler(own_socket(session_id)),))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        if os.path.lexists(path) or server.add_insecure_port(f"unix:{path}") == 0:
            raise OSError(f"cannot listen on the Unix socket {path[:200]!r}")
        await server.start()
        # the bot runs as a uid of its own: the socket's folder, the platform's, guards it
        os.chmod(path, 0o666)
        self.servers[session_id] = (server, path)

    async def close(self, session_id: str) -> None:
        """Stop the socket of ``session_id`` (quiet if it has none) and remove its file."""
        found = self.servers.pop(session_id, None)
        if found is not None:
            server, path = found
            await server.stop(1.0)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    async def close_all(self) -> None:
        """Stop every socket (the referee stops)."""
        for session_id in list(self.servers):
            await self.close(session_id)


def server_options(heartbeat_s: float = HEARTBEAT_S) -> tuple[tuple[str, int], ...]:
    """:data:`SERVER_OPTIONS` with the connection pings at ``heartbeat_s``: a peer that
    does not answer one within twice that is dropped."""
    ping_ms = max(1, round(heartbeat_s * 1000))
    keepalive = {"grpc.keepalive_time_ms": ping_ms, "grpc.keepalive_timeout_ms": 2 * ping_ms}
    options = tuple((name, keepalive.get(name, value)) for name, value in SERVER_OPTIONS)
    # gRPC core times an unanswered ping out by this one, not by the keepalive timeout
    return (*options, ("grpc.http2.ping_timeout_ms", 2 * ping_ms))


def raise_open_files_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (each connection
    holds one); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("cannot raise the open-file limit from %d to %d: %s", soft, target, exc)
    if soft != resource.RLIM_INFINITY and soft < FEW_FILES:
        log.warning(
            "only %d open files allowed, one per connection: raise the hard limit "
            "(ulimit -Hn, or LimitNOFILE= in a systemd unit) to serve many bots",
            soft,
        )
    return soft


#: Where remote bots reach the referee: (host, port, TLS certificate chain and key).
RemoteListener = tuple[str, int, tuple[bytes, bytes]]


@dataclass
class _Started:
    server: grpc.aio.Server
    referee: Referee
    port: int
    health: HealthServicer
    desk: RemoteDesk
    remote: grpc.aio.Server | None = None
    remote_port: int = 0
    hosted: grpc.aio.Server | None = None  # the Unix socket of hosted bots
    sockets: OwnSockets | None = None  # the sockets of sessions' own

    def bots_servers(self) -> list[grpc.aio.Server]:
        """The servers of the bots' side alone: the remote bots' and the hosted bots'."""
        return [s for s in (self.remote, self.hosted) if s is not None]


def _bind(server: grpc.aio.Server, host: str, port: int, tls: tuple[bytes, bytes] | None) -> int:
    if tls is None:
        bound = server.add_insecure_port(f"{host}:{port}")
    else:
        cert, key = tls
        credentials = grpc.ssl_server_credentials(((key, cert),))
        bound = server.add_secure_port(f"{host}:{port}", credentials)
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    return int(bound)


async def _start(
    port: int,
    host: str,
    default_clock: ClockRules | None,
    secret: str | None,
    unix: str | None = None,
    tls: tuple[bytes, bytes] | None = None,
    heartbeat_s: float = HEARTBEAT_S,
    remote: RemoteListener | None = None,
    tcp_sessions: bool = False,
    **referee_options: Any,
) -> _Started:
    raise_open_files_limit()
    referee = Referee(default_clock, **referee_options)
    desk = RemoteDesk()
    if secret is None:
        secret = platform_secret()
        log.info("the match service takes the platform's secret from %s", secret_source())
    watch = f"/{MATCHES_SERVICE}/WatchMatch"
    auth = PlatformAuth(
        secret,
        (f"/{MATCHES_SERVICE}/",),
        frozenset({watch, f"/{MATCHES_SERVICE}/WatchRemote"}),
        # a spectator's watch credential follows one match (referee.auth)
        {watch: lambda request: str(request.match_id)},
    )

    def bots(keys: ServeKeys) -> grpc.GenericRpcHandler:
        return RefereeServicer(referee, heartbeat_s, desk, keys).handler()

    port_keys = TCP_PORT if unix is None or tcp_sessions else TCP_PORT_NO_SESSIONS
    server = grpc.aio.server(interceptors=(auth,), options=server_options(heartbeat_s))
    server.add_generic_rpc_handlers((bots(port_keys),))
    health = HealthServicer()
    sockets = OwnSockets(bots, heartbeat_s, health) if unix is not None else None
    matches = MatchesServicer(referee, desk, sockets)
    match_pb2_grpc.add_MatchesServicer_to_server(matches, server)  # type: ignore[no-untyped-call]
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
    bound = _bind(server, host, port, tls)
    started = _Started(server, referee, bound, health, desk, sockets=sockets)
    if unix is not None:
        # the bots' side only, sessions and seats: a sandboxed bot reaches nothing else
        started.hosted = grpc.aio.server(options=server_options(heartbeat_s))
        started.hosted.add_generic_rpc_handlers((bots(UNIX_SOCKET),))
        health_pb2_grpc.add_HealthServicer_to_server(health, started.hosted)
        if started.hosted.add_insecure_port(f"unix:{unix}") == 0:
            raise OSError(f"cannot listen on the Unix socket {unix}")
    if remote is not None:
        # the bots' side only: the match service is not reachable from the internet
        remote_host, remote_port, remote_tls = remote
        started.remote = grpc.aio.server(options=server_options(heartbeat_s))
        started.remote.add_generic_rpc_handlers((bots(REMOTE_PORT),))
        health_pb2_grpc.add_HealthServicer_to_server(health, started.remote)
        started.remote_port = _bind(started.remote, remote_host, remote_port, remote_tls)
    await server.start()
    for bots_server in started.bots_servers():
        await bots_server.start()
    if unix is not None:
        # sandboxed bots run as uids of their own: the socket's folder is what guards it
        os.chmod(unix, 0o666)
    # The engines' and the wire encoding's lookup tables (tens of thousands of tuples, made at
    # import) live as long as the process: move them out of the garbage collector's
    # full passes, which otherwise walk them again and again while matches run (about
    # 8% of the referee's instructions per decision; docs/performance.md).
    gc.freeze()
    log.info("referee listening on %s:%d%s", host, bound, " (TLS)" if tls else "")
    if remote is not None:
        log.info("remote bots: TLS on %s:%d", remote[0], started.remote_port)
    return started


async def start_server(
    port: int,
    host: str = "127.0.0.1",
    default_clock: ClockRules | None = None,
    *,
    secret: str | None = None,
    tls: tuple[bytes, bytes] | None = None,
    heartbeat_s: float = HEARTBEAT_S,
    **referee_options: Any,
) -> tuple[grpc.aio.Server, Referee, int]:
    """Start a referee server; returns it, its referee and the port it listens on. The
    match service takes ``secret`` (default: :func:`referee.auth.platform_secret`);
    ``tls`` (from :func:`tls_identity`) makes the port speak TLS; ``heartbeat_s`` is
    the sessions' heartbeat interval; ``referee_options`` go to
    :class:`referee.matches.Referee`."""
    started = await _start(
        port, host, default_clock, secret, None, tls, heartbeat_s, **referee_options
    )
    return started.server, started.referee, started.port


async def serve(
    port: int,
    host: str = "127.0.0.1",
    *,
    grace_s: float = GRACE_S,
    ready: Callable[[int], None] | None = None,
    unix: str | None = None,
    tls: tuple[bytes, bytes] | None = None,
    heartbeat_s: float = HEARTBEAT_S,
    remote: RemoteListener | None = None,
    remote_ready: Callable[[int], None] | None = None,
    tcp_sessions: bool = False,
    **referee_options: Any,
) -> None:
    """Run a referee server until SIGTERM or SIGINT, then stop gracefully: no new
    matches or seats, running matches finish within ``grace_s`` (the rest end
    aborted), and the service stays up a moment for their records to be fetched. A
    second signal aborts what is left at once. With ``tls`` (a certificate chain and
    key, :func:`tls_identity`) the TCP port speaks TLS; the Unix socket stays plain.
    With ``remote`` (host, port, certificate chain and key) remote bots also reach the
    bots' side on that TLS port; ``ready`` and ``remote_ready`` are given the ports
    bound. With ``unix``, the TCP port takes session keys only if ``tcp_sessions``
    (:class:`ServeKeys`)."""
    started = await _start(
        port, host, None, None, unix, tls, heartbeat_s, remote, tcp_sessions, **referee_options
    )
    server, referee, health = started.server, started.referee, started.health
    if ready is not None:
        ready(started.port)
    if remote_ready is not None and started.remote is not None:
        remote_ready(started.remote_port)
    loop = asyncio.get_running_loop()
    signals: list[int] = []
    stop, hurry = asyncio.Event(), asyncio.Event()

    def on_signal(sig: int) -> None:
        signals.append(sig)
        (stop if len(signals) == 1 else hurry).set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    try:
        await stop.wait()
        live = list(referee.matches)
        log.info(
            "%s: shutting down; %d matches have %.0f s to finish",
            signal.Signals(signals[0]).name,
            len(live),
            grace_s,
        )
        for name in ("", REFEREE_SERVICE, MATCHES_SERVICE):
            await health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        started.desk.shutdown()
        shutdown = asyncio.ensure_future(referee.shutdown(grace_s))
        hurried = asyncio.ensure_future(hurry.wait())
        await asyncio.wait({shutdown, hurried}, return_when=asyncio.FIRST_COMPLETED)
        hurried.cancel()
        if not shutdown.done():
            log.info("second signal: aborting the matches left")
            await referee.close()
        await shutdown
        deadline = time.monotonic() + LINGER_S
        while any(m in referee.finished for m in live) and time.monotonic() < deadline:
            if hurry.is_set():
                break
            await asyncio.sleep(0.05)
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await referee.close()
        started.desk.shutdown()
        if started.sockets is not None:
            await started.sockets.close_all()
        for bots_server in started.bots_servers():
            await bots_server.stop(1.0)
        await server.stop(1.0)
