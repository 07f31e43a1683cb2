"""Playing a bot over the referee's gRPC stream (docs/protocol.md): one match
(:func:`play`), or every match a bot session is seated in (:func:`serve`), over a
plain or a TLS connection (:func:`referee_channel`)."""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from collections.abc import Callable
from pathlib import Path

import grpc
from google.protobuf.message import DecodeError

from bots.sdk.bot import Bot, MatchOver, Request
from referee import settings, wire
from rummyarena.v1 import bot_pb2, common_pb2

log = logging.getLogger(__name__)

_NOTICE_NAMES = {
    v.number: v.name.removeprefix("NOTICE_KIND_").lower()
    for v in bot_pb2.NoticeKind.DESCRIPTOR.values
}


#: The Play method; the stream carries bytes both ways (answers are encoded by
#: referee.wire, the referee's messages parsed in ``_session``).
_PLAY = "/" + bot_pb2.DESCRIPTOR.services_by_name["Referee"].full_name + "/Play"
#: The Serve method: a session's assignments.
_SERVE = "/" + bot_pb2.DESCRIPTOR.services_by_name["Referee"].full_name + "/Serve"


#: How long a bot whose connection dropped in mid-match keeps trying to rejoin (the
#: referee keeps its seat while its decision's clock runs: docs/protocol.md, "Rejoin").
REJOIN_S = 10.0
#: How long after its Join a seat hears nothing before it is told it waits for the others.
JOINED_S = 0.5
#: How long a session whose Serve stream dropped keeps trying to reconnect.
RECONNECT_S = 10.0
#: The longest wait between two attempts to reconnect a session, in seconds.
RECONNECT_BACKOFF_S = 2.0
#: A session's stream that brings nothing, not even a heartbeat, for this many of the
#: referee's heartbeat intervals is taken for dead: it is cancelled and reconnected.
SILENT_HEARTBEATS = 3
#: The header in which the referee gives its heartbeat interval (referee.service).
_HEARTBEAT_HEADER = "rummyarena-heartbeat-ms"
#: How much longer than its silence deadline a remote bot waits for its session to be
#: on: the referee waits up to 10 s for the platform to admit it.
ADMISSION_S = 15.0


class BotSessionError(RuntimeError):
    """The referee ended the session with an error status."""


class RefereeUnreachable(BotSessionError):
    """No referee answers at the address: the connection dropped (or never opened) and
    rejoining or reconnecting failed for as long as it is tried; the gRPC error is its
    ``__cause__``."""


class TlsMismatch(BotSessionError):
    """The connection failed in its TLS handshake, or a plain connection was closed at
    once by a port that speaks TLS: the message says which, and what to pass."""


def referee_channel(
    address: str, *, tls: bool = False, ca: bytes | str | Path | None = None
) -> grpc.aio.Channel:
    """A channel to the referee at ``address`` (host:port, or unix:PATH): plain by
    default; TLS with ``tls``, trusting the system's certificate authorities, or only
    ``ca`` (a PEM file or its bytes: a platform with a self-signed certificate) when
    given, which implies TLS."""
    if ca is None and not tls:
        return grpc.aio.insecure_channel(address)
    pem = ca
    if ca is not None and not isinstance(ca, bytes):
        try:
            pem = Path(ca).read_bytes()
        except OSError as exc:
            raise BotSessionError(
                f"cannot read the TLS CA certificate {ca}: {exc.strerror}"
            ) from None
    return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(pem))


def _tls_problem(exc: grpc.aio.AioRpcError, address: str, tls: bool) -> TlsMismatch | None:
    """The clear error for a failure that a TLS mismatch explains, else None."""
    details = exc.details() or ""
    if exc.code() != grpc.StatusCode.UNAVAILABLE:
        return None
    if tls and "handshake failed" in details.lower():
        reason = details.rsplit("OPENSSL_internal:", 1)[-1].removesuffix(": OK").strip()
        if "WRONG_VERSION_NUMBER" in details:
            hint = "the port does not speak TLS: dial it without --tls and --tls-ca"
        elif "CERTIFICATE_VERIFY_FAILED" in details:
            hint = (
                "its certificate is not signed by an authority this bot trusts: pass "
                "--tls-ca FILE (ARENA_TLS_CA) with the platform's CA certificate"
            )
        else:
            hint = "check the address's host name and the --tls-ca FILE (ARENA_TLS_CA)"
        return TlsMismatch(
            f"the TLS handshake with the referee at {address} failed ({reason}): {hint}"
        )
    if not tls and details.endswith("Socket closed"):
        return TlsMismatch(
            f"the referee at {address} closed the plain connection at once: if it serves "
            "TLS, dial it with --tls (ARENA_TLS=1), and --tls-ca FILE (ARENA_TLS_CA) for a "
            "self-signed certificate"
        )
    return None


class _Seat:
    """What a session knows of its seat, kept across rejoins."""

    __slots__ = ("game", "joined", "seat", "started", "welcomed")

    def __init__(self) -> None:
        self.game, self.seat, self.started = "", -1, False
        self.welcomed = False  # the current stream was welcomed
        # a Join went out on a connection: the referee may hold the seat as joined even
        # if its Welcome never arrived, so a drop from then on is rejoined too
        self.joined = False


#: How a dropped connection shows: UNAVAILABLE, or INTERNAL when an answer was being
#: written as the connection went down ("Failed execute_batch"). Either way the seat
#: joins again with its token; a referee that refuses the token says so then.
_DROPPED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL)


async def play(
    bot: Bot,
    referee: str,
    token: str,
    channel: grpc.aio.Channel | None = None,
    joined: Callable[[], None] | None = None,
    *,
    tls: bool = False,
    ca: bytes | str | Path | None = None,
) -> MatchOver:
    """Join the referee at ``referee`` (host:port) with ``token`` and play to the end. If
    the connection drops once the Join has gone out (the referee may have taken it before
    the drop, even when its Welcome did not arrive), join again with the same token (for
    up to :data:`REJOIN_S` seconds) and play on. ``joined`` is called once when the
    referee has taken the join and the match waits for its other seats (no Welcome
    within :data:`JOINED_S`). Without ``channel``, ``tls`` and ``ca`` make one as
    :func:`referee_channel` does."""
    own = channel is None
    chan = channel or referee_channel(referee, tls=tls, ca=ca)
    state = _Seat()
    deadline = 0.0
    try:
        while True:
            call = chan.stream_stream(
                _PLAY,
                request_serializer=None,
                response_deserializer=None,
            )()
            try:
                join = bot_pb2.BotMessage(join=bot_pb2.Join(token=token, agent=bot.name))
                await call.write(join.SerializeToString())
                state.joined = True
                return await _session(bot, call, state, joined)
            except grpc.aio.AioRpcError as exc:
                loop_time = asyncio.get_running_loop().time()
                if not state.joined or exc.code() not in _DROPPED:
                    mismatch = _tls_problem(exc, referee, tls or ca is not None)
                    if mismatch is not None:
                        raise mismatch from exc
                    raise BotSessionError(f"{exc.code().name}: {exc.details()}") from exc
                if state.welcomed or not deadline:  # a new drop: rejoin for REJOIN_S
                    deadline = loop_time + REJOIN_S
                    state.welcomed = False
                if loop_time > deadline:
                    raise RefereeUnreachable(
                        f"the connection to the referee dropped and rejoining failed for "
                        f"{REJOIN_S:.0f} s: {exc.details()}"
                    ) from exc
                log.warning("the connection to the referee dropped (%s); rejoining", exc.details())
                call.cancel()
                await asyncio.sleep(0.2)
    finally:
        if own:
            await chan.close()


async def _session(
    bot: Bot,
    call: grpc.aio.StreamStreamCall,
    state: _Seat,
    joined: Callable[[], None] | None = None,
) -> MatchOver:
    game, seat = state.game, state.seat
    BotMessage, Answer, answer_bytes = bot_pb2.BotMessage, bot_pb2.Answer, wire.answer_bytes
    parse = bot_pb2.RefereeMessage.FromString
    first = None if state.started else joined  # a rejoin is not a join
    while True:
        if first is not None:
            raw = await _first_read(call, first)
            first = None
        else:
            raw = await call.read()
        if raw is grpc.aio.EOF:  # another stream joined with this seat's token
            raise BotSessionError(
                "the referee closed the stream before the match ended (did another process "
                "join with this seat's token?)"
            )
        try:
            msg = parse(raw)
        except DecodeError as exc:
            raise BotSessionError(
                f"the referee sent a message that is not a RefereeMessage ({exc}); "
                "check that the bot and the referee speak the same rummyarena.v1 protocol"
            ) from exc
        kind = msg.WhichOneof("kind")
        if kind == "decision":
            d = msg.decision
            request = Request.from_message(d, game)
            try:
                choice = bot.decide(request)
            except Exception as exc:  # report the crash; the referee plays a default
                log.error("decide failed: %s", traceback.format_exc())
                err = bot_pb2.BotError(
                    decision_id=d.decision_id, message=f"{type(exc).__name__}: {exc}"
                )
                await call.write(BotMessage(error=err).SerializeToString())
                continue
            if type(choice) is int and 0 <= choice < 1 << 32:
                await call.write(answer_bytes(request.decision_id, choice))
            elif isinstance(choice, int):
                answer = Answer(decision_id=request.decision_id, index=choice)
                await call.write(BotMessage(answer=answer).SerializeToString())
            else:
                answer = Answer(decision_id=request.decision_id, text=str(choice))
                await call.write(BotMessage(answer=answer).SerializeToString())
        elif kind == "welcome":
            if state.welcomed:  # one Welcome per stream: never read the same one again
                raise BotSessionError("the referee sent a second Welcome on one stream")
            w = msg.welcome
            game, seat = state.game, state.seat = w.game, w.your_seat
            state.welcomed = True
            if not state.started:  # a rejoin is welcomed again: the bot starts once
                state.started = True
                bot.on_start(game, seat, len(w.seats), wire.options_from_proto(w.options))
        elif kind == "notice":
            n = msg.notice
            bot.on_notice(_NOTICE_NAMES.get(n.kind, "unknown"), n.message, n.played)
        elif kind == "match_end":
            end = msg.match_end
            seats = sorted(end.result.seats, key=lambda s: s.seat)
            over = MatchOver(
                seat=seat,
                ranks=tuple(s.rank for s in seats),
                scores=tuple(s.score for s in seats),
                statuses=tuple(wire.status_from_proto(s.status) for s in seats),
                detail_json=end.result.detail_json,
                events=tuple(wire.event_from_proto(e) for e in end.events),
                aborted=(end.result.reason or "aborted")
                if end.result.status == common_pb2.MATCH_STATUS_ABORTED
                else "",
            )
            bot.on_end(over)
            await call.done_writing()
            return over


async def _first_read(call: grpc.aio.StreamStreamCall, joined: Callable[[], None]) -> object:
    """The stream's first message; calls ``joined`` if none comes within :data:`JOINED_S`:
    the referee refuses a bad join at once, so by then the seat is taken and waits for the
    others (the Welcome comes when every seat has joined)."""
    read = asyncio.ensure_future(call.read())
    done, _ = await asyncio.wait({read}, timeout=JOINED_S)
    if not done:
        joined()
    return await read


async def serve(
    make_bot: Callable[[], Bot],
    referee: str,
    key: str = "",
    *,
    api_key: str = "",
    bot: str = "",
    game: str = "",
    channel: grpc.aio.Channel | None = None,
    tls: bool = False,
    ca: bytes | str | Path | None = None,
) -> None:
    """Hold the session ``key`` opens on the referee at ``referee`` (host:port) and play
    every match it is seated in, several at once, each on its own Play stream over the
    same channel with a bot from ``make_bot()`` (called once per match). Without
    ``channel``, ``tls`` and ``ca`` make one as :func:`referee_channel` does.

    A remote bot gives instead of ``key`` its owner's ``api_key``, its ``bot`` name and
    its ``game``: the platform admits it onto a session (again on each reconnect, onto
    the same one) or refuses it, a :class:`BotSessionError` with the platform's message.

    A match whose play fails is logged; the session goes on. If the connection drops,
    or the stream brings nothing, not even a heartbeat, for :data:`SILENT_HEARTBEATS`
    of the referee's heartbeat intervals (a connection that died silently), reconnect
    (with backoff) for up to :data:`RECONNECT_S` seconds, then give up with
    :class:`RefereeUnreachable`; a key the referee does not know, or a TLS mismatch
    (:class:`TlsMismatch`), is a BotSessionError at once. Returns when the referee ends
    the session (closed, taken over by another process, or the referee shutting down)
    and the matches in progress have ended."""
    if bool(key) == bool(api_key):
        raise BotSessionError("give either a session key or an API key (a remote bot), not both")
    own = channel is None
    chan = channel or referee_channel(referee, tls=tls, ca=ca)
    request = bot_pb2.ServeRequest(
        key=key, agent=_agent(make_bot), api_key=api_key, bot=bot, game=game
    ).SerializeToString()
    admission = ADMISSION_S if api_key else 0.0
    playing: dict[str, asyncio.Task[None]] = {}  # by seat token, across reconnects
    loop = asyncio.get_running_loop()
    deadline, backoff = 0.0, 0.1
    silence: float | None = None  # unknown until a referee gives its heartbeat
    ever_on = False
    try:
        while True:
            call = chan.unary_stream(
                _SERVE,
                request_serializer=None,
                response_deserializer=bot_pb2.Assignment.FromString,
            )(request)
            try:
                wait = None if silence is None else silence + admission
                headers = await asyncio.wait_for(call.initial_metadata(), wait)
                if not call.done():  # the referee took the key: the session is on
                    deadline, backoff, ever_on = 0.0, 0.1, True
                    silence = _silence_s(headers)
                while True:
                    assignment = await asyncio.wait_for(call.read(), silence)
                    if assignment is grpc.aio.EOF:
                        break
                    token = assignment.token
                    if assignment.heartbeat or token in playing:  # or sent again
                        continue
                    task = loop.create_task(_play_seat(make_bot, referee, assignment, chan))
                    playing[token] = task
                    task.add_done_callback(functools.partial(_forget, playing, token))
                break  # the referee ended the session
            except (grpc.aio.AioRpcError, TimeoutError) as exc:
                if isinstance(exc, TimeoutError):
                    call.cancel()
                    why = f"nothing from the referee for {silence:.1f} s, not even a heartbeat"
                    cause: Exception = exc
                else:
                    secure = tls or ca is not None
                    why, cause = _dropped(exc, referee, secure, ever_on, bool(api_key)), exc
                now = loop.time()
                deadline = deadline or now + RECONNECT_S
                if now > deadline:
                    raise RefereeUnreachable(
                        f"the session's connection to the referee dropped and reconnecting "
                        f"failed for {RECONNECT_S:.0f} s: {why}"
                    ) from cause
                log.warning("the session's connection dropped (%s); reconnecting", why)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RECONNECT_BACKOFF_S)
        if playing:
            await asyncio.wait(list(playing.values()))
    finally:
        for task in list(playing.values()):
            task.cancel()
        if playing:
            await asyncio.wait(list(playing.values()))
        if own:
            await chan.close()


def _dropped(
    exc: grpc.aio.AioRpcError, referee: str, tls: bool, ever_on: bool, remote: bool = False
) -> str:
    """Why a session's stream failed, when reconnecting may mend it; raises the error
    that ends the session when it cannot (a refused key, a TLS mismatch)."""
    code = exc.code()
    refused = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
    if remote and code in refused:
        raise BotSessionError(f"the platform refused the bot: {exc.details()}") from None
    if code == grpc.StatusCode.UNAUTHENTICATED:
        raise BotSessionError(f"the referee refused the session key: {exc.details()}") from None
    if code == grpc.StatusCode.PERMISSION_DENIED:
        raise BotSessionError(f"the referee ended the session: {exc.details()}") from None
    mismatch = None if ever_on else _tls_problem(exc, referee, tls)
    if mismatch is not None:
        raise mismatch from exc
    if code != grpc.StatusCode.UNAVAILABLE:
        raise BotSessionError(f"{code.name}: {exc.details()}") from exc
    return str(exc.details() or code.name)


def _silence_s(headers: object) -> float | None:
    """How long a session's stream may bring nothing before it is taken for dead, from
    the heartbeat interval in the referee's headers; None (wait as long as it takes)
    from a referee that sends no heartbeats."""
    for name, value in headers or ():  # type: ignore[attr-defined]
        if name == _HEARTBEAT_HEADER:
            try:
                return SILENT_HEARTBEATS * int(value) / 1000
            except ValueError:
                return None
    return None


def _forget(playing: dict[str, asyncio.Task[None]], token: str, _task: object) -> None:
    playing.pop(token, None)


def _agent(make_bot: Callable[[], Bot]) -> str:
    """How a session introduces itself: the bot class's name, else the factory's."""
    name = getattr(make_bot, "name", None)
    return name if isinstance(name, str) else getattr(make_bot, "__name__", "bot")


async def _play_seat(
    make_bot: Callable[[], Bot],
    referee: str,
    assignment: bot_pb2.Assignment,
    channel: grpc.aio.Channel,
) -> None:
    """Play one match of a session with a fresh bot; a failure is logged, not raised."""
    where = f"match {assignment.match_id}, seat {assignment.seat}"
    try:
        over = await play(make_bot(), referee, assignment.token, channel)
    except BotSessionError as exc:
        log.error("%s: %s", where, exc)
    except Exception:
        log.exception("%s failed", where)
    else:
        log.info("%s: %s", where, f"aborted ({over.aborted})" if over.aborted else "over")


def run(
    bot: Bot,
    referee: str | None = None,
    token: str | None = None,
    joined: Callable[[], None] | None = None,
    *,
    tls: bool | None = None,
    ca: bytes | str | Path | None = None,
) -> MatchOver:
    """Play one match; the address and token default to ``ARENA_REFEREE`` and
    ``ARENA_TOKEN``, ``tls`` and ``ca`` to ``ARENA_TLS`` and ``ARENA_TLS_CA``;
    ``joined`` as for :func:`play`."""
    found = settings.load()
    referee = referee or found.referee
    token = token or found.token
    if not referee or not token:
        raise BotSessionError(
            "give the referee address and token, or set ARENA_REFEREE and ARENA_TOKEN"
        )
    ca = ca if ca is not None else found.tls_ca
    tls = found.tls if tls is None else tls
    return asyncio.run(play(bot, referee, token, joined=joined, tls=tls, ca=ca))
