"""Bot sessions (docs/architecture.md, decision 12): a bot process connects once, with its
session key, and is told of each match it is seated in; it plays each on its own
``Play`` stream.

The platform opens a session (its id names it, its key is the bot's credential),
names it for seats in ``CreateMatch``, and closes it when it retires the process.
Each seat assigned through a session is written on the session's ``Serve`` stream;
while none is connected the seat waits. A new stream (a reconnect, or another
process taking the session over: the older stream ends) gets every assigned seat
that has not joined yet, so none is lost with a dropped connection; the bot skips a
token it is already playing.

A remote bot dials in with its owner's API key instead of a session key; only the
platform can check it, so the referee tells the platform's watchers of the arrival
(:class:`RemoteDesk`) and waits for their answer: a session to admit it onto, or a
refusal. Few arrivals from one source wait at once (:data:`MAX_PENDING_PER_SOURCE`, the
source as :func:`source_of` says), so that one address flooding the referee with
made-up keys is refused at once rather than filling the platform's queue ahead of
everyone else.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import secrets
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import unquote

from referee.seats import ProtocolError, Seat
from rummyarena.v1 import match_pb2

#: Sessions open at once, at most; OpenSession is refused beyond.
MAX_SESSIONS = 1000
#: The longest session name or agent kept (they are for logs), in characters.
MAX_LABEL = 200
#: Remote connections waiting for the platform's answer at once, at most; more are
#: told to try again.
MAX_PENDING = 1000
#: Remote connections from one source (:func:`source_of`) waiting at once, at most; more
#: are refused at once (RESOURCE_EXHAUSTED). A bot dials once, and again on a drop.
MAX_PENDING_PER_SOURCE = 4
#: The status names a refusal of a remote bot may end its stream with.
REFUSAL_CODES = frozenset(
    {"PERMISSION_DENIED", "UNAUTHENTICATED", "INVALID_ARGUMENT", "NOT_FOUND", "UNAVAILABLE"}
)


@dataclass(frozen=True, slots=True)
class Assignment:
    """A seat of a match for a session's bot: it joins with ``token``."""

    match_id: str
    game: str
    seat: int
    token: str
    seat_name: str


class SessionStream:
    """One connected ``Serve`` stream: the assignments to write on it, in order."""

    __slots__ = ("_queue", "reason")

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Assignment | None] = asyncio.Queue()
        self.reason = ""  # set: the stream ends with PERMISSION_DENIED and this message

    def put(self, assignment: Assignment) -> None:
        """Write ``assignment`` on this stream next."""
        self._queue.put_nowait(assignment)

    def end(self, reason: str = "") -> None:
        """End the stream once what is queued has been written: status OK, or
        PERMISSION_DENIED with ``reason`` when given."""
        self.reason = self.reason or reason
        self._queue.put_nowait(None)

    async def next(self) -> Assignment | None:
        """The next assignment to write; None when the stream is to end."""
        return await self._queue.get()


@dataclass(eq=False)
class Session:
    """One bot process's session: its credential, its stream, its seats not yet joined."""

    id: str
    key: str
    name: str
    agent: str = ""
    stream: SessionStream | None = None  # None while no Serve stream is connected
    # the seats assigned through the session, until they have joined or forfeited
    assigned: list[tuple[Assignment, Seat]] = field(default_factory=list)

    def unjoined(self) -> list[tuple[Assignment, Seat]]:
        """The assigned seats that have not joined (and have not forfeited) yet."""
        self.assigned = [(a, s) for a, s in self.assigned if not s.joined and not s.forfeited]
        return self.assigned


class Sessions:
    """Every open session of one referee, by id and by key."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        self.max_sessions = max_sessions
        self.closing = False  # shutting down: no new sessions or streams
        self._by_id: dict[str, Session] = {}
        self._by_key: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def open(self, name: str) -> Session:
        """A new session; ProtocolError when the referee is shutting down or full."""
        if self.closing:
            raise ProtocolError(
                "UNAVAILABLE", "the referee is shutting down: open the session on another one"
            )
        if len(self._by_id) >= self.max_sessions:
            raise ProtocolError(
                "RESOURCE_EXHAUSTED",
                f"{len(self._by_id)} sessions are open, this referee's limit: close the "
                "sessions of retired bot processes first",
            )
        session = Session(secrets.token_hex(8), secrets.token_urlsafe(24), name[:MAX_LABEL])
        self._by_id[session.id] = session
        self._by_key[session.key] = session
        return session

    def get(self, session_id: str) -> Session | None:
        """The open session with this id, if any."""
        return self._by_id.get(session_id)

    def connected(self, session_id: str) -> bool:
        """Whether the open session with this id has a ``Serve`` stream connected now
        (one whose connection was found dead, by its heartbeat or the connection's
        pings, no longer counts)."""
        session = self._by_id.get(session_id)
        return session is not None and session.stream is not None

    def assign(self, session: Session, assignment: Assignment, seat: Seat) -> None:
        """Tell the session of a seat: now if its stream is connected, else when one
        connects."""
        session.unjoined()  # forget the seats that have joined since
        session.assigned.append((assignment, seat))
        if session.stream is not None:
            session.stream.put(assignment)

    def connect(self, key: str, agent: str, only: str = "") -> tuple[Session, SessionStream]:
        """A new stream for the session this key opens, holding every seat assigned to
        it that has not joined yet; a stream it had before ends. ProtocolError when the
        key opens no session, or, on a listener of one session's own (``only``, its id),
        is not that session's key: whether it opens another is not said, and that other
        is left as it was."""
        if self.closing:
            raise ProtocolError("UNAVAILABLE", "the referee is shutting down")
        if only:
            own = self._by_id.get(only)
            if own is None or not hmac.compare_digest(own.key, key):
                raise ProtocolError(
                    "PERMISSION_DENIED",
                    "this socket serves one session alone, and the key is not its key: a "
                    "hosted bot is given its own session's key and socket",
                )
        session = self._by_key.get(key)
        if session is None:
            raise ProtocolError(
                "UNAUTHENTICATED",
                "unknown session key (never opened on this referee, or closed): start the "
                "bot with the key of a session that Matches.OpenSession opened and that is "
                "still open",
            )
        return self._attach(session, agent)

    def connect_admitted(self, session_id: str, agent: str) -> tuple[Session, SessionStream]:
        """As :meth:`connect`, for a remote bot the platform admitted onto the session
        ``session_id``; ProtocolError when it was closed meanwhile."""
        if self.closing:
            raise ProtocolError("UNAVAILABLE", "the referee is shutting down")
        session = self._by_id.get(session_id)
        if session is None:
            raise ProtocolError(
                "UNAVAILABLE", "the platform closed the session it admitted this bot onto"
            )
        return self._attach(session, agent)

    def _attach(self, session: Session, agent: str) -> tuple[Session, SessionStream]:
        if session.stream is not None:
            session.stream.end()
        stream = session.stream = SessionStream()
        session.agent = agent[:MAX_LABEL]
        for assignment, _ in session.unjoined():
            stream.put(assignment)
        return session, stream

    def disconnect(self, session: Session, stream: SessionStream) -> None:
        """A stream of the session ended; assignments wait for the next one."""
        if session.stream is stream:
            session.stream = None

    def revoke(self, session_id: str, reason: str) -> None:
        """End the session's stream, if one is connected, with PERMISSION_DENIED and
        ``reason`` (it is about to be closed)."""
        session = self._by_id.get(session_id)
        if session is not None and session.stream is not None:
            session.stream.end(reason)
            session.stream = None

    def close(self, session_id: str) -> Session | None:
        """Close a session: its stream ends and its key is forgotten. The session, with
        its seats not yet joined; None when no session had this id."""
        session = self._by_id.pop(session_id, None)
        if session is None:
            return None
        del self._by_key[session.key]
        if session.stream is not None:
            session.stream.end()
            session.stream = None
        return session

    def shutdown(self) -> None:
        """End every stream, and take no new sessions or streams."""
        self.closing = True
        for session in self._by_id.values():
            if session.stream is not None:
                session.stream.end()
                session.stream = None


def source_of(peer: str) -> str:
    """Where a connection comes from, as gRPC names its peer, for the per-source limit:
    its IPv4 address (an IPv4-mapped IPv6 one too), the /64 network of its IPv6 address
    (one host commonly holds a whole /64), else the peer as given (``unix:…``: every
    process on a Unix socket is one source)."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return peer
    return source_of_address(unquote(rest).rsplit(":", 1)[0].strip("[]"), peer)


def source_of_address(host: str, default: str = "") -> str:
    """:func:`source_of` an address alone (``2001:db8::1``, ``192.0.2.7``): ``default``
    (else ``host``) when it is none."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return default or host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


@dataclass(frozen=True, slots=True)
class Admission:
    """The platform's answer to a remote connection: the session to admit it onto, or
    the status name and message to refuse it with."""

    session_id: str = ""
    code: str = ""
    refusal: str = ""


class RemoteDesk:
    """The remote bots waiting for the platform's answer, and the platform's open
    ``WatchRemote`` streams that hear of them (docs/protocol.md, "Remote bots")."""

    def __init__(
        self, max_pending: int = MAX_PENDING, per_source: int = MAX_PENDING_PER_SOURCE
    ) -> None:
        self.max_pending = max_pending
        self.per_source = per_source
        self.closing = False  # shutting down: no new connections wait
        self.watchers: list[asyncio.Queue[match_pb2.RemoteEvent | None]] = []
        # by connection id: the future of the platform's answer, and the source
        self._pending: dict[str, tuple[asyncio.Future[Admission], str]] = {}
        self._sources: Counter[str] = Counter()  # connections waiting, by source

    def watch(self) -> asyncio.Queue[match_pb2.RemoteEvent | None]:
        """A new watcher: the queue its events come on (None: the watch ends)."""
        queue: asyncio.Queue[match_pb2.RemoteEvent | None] = asyncio.Queue()
        self.watchers.append(queue)
        return queue

    def unwatch(self, queue: asyncio.Queue[match_pb2.RemoteEvent | None]) -> None:
        """A watcher's stream ended."""
        self.watchers.remove(queue)

    def arrive(
        self, arrival: match_pb2.RemoteArrival, source: str
    ) -> tuple[str, asyncio.Future[Admission]]:
        """Tell every watcher of a new remote connection from ``source``: its id and the
        future of the platform's answer (call :meth:`forget` when done with it).
        ProtocolError when no platform watches, when as many connections from ``source``
        wait already as one source may hold, or too many wait in all."""
        if self.closing:
            raise ProtocolError("UNAVAILABLE", "the referee is shutting down")
        if not self.watchers:
            raise ProtocolError(
                "UNAVAILABLE",
                "this referee takes no remote bots: dial the platform's remote address",
            )
        if self._sources[source] >= self.per_source:
            raise ProtocolError(
                "RESOURCE_EXHAUSTED",
                f"{self._sources[source]} bots from {source} are waiting for the platform's "
                "answer already, as many as one address may: dial again once they have it",
            )
        if len(self._pending) >= self.max_pending:
            raise ProtocolError(
                "UNAVAILABLE",
                f"{len(self._pending)} bots are waiting for the platform's answer: try again",
            )
        connection_id = secrets.token_hex(8)
        answer: asyncio.Future[Admission] = asyncio.get_running_loop().create_future()
        self._pending[connection_id] = (answer, source)
        self._sources[source] += 1
        self._tell(match_pb2.RemoteEvent(connection_id=connection_id, arrived=arrival))
        return connection_id, answer

    def answer(self, connection_id: str, admission: Admission) -> bool:
        """Give the platform's answer to a waiting connection; False when it is not
        waiting (it gave up, or was answered already)."""
        answer = self._pop(connection_id)
        if answer is None or answer.done():
            return False
        answer.set_result(admission)
        return True

    def forget(self, connection_id: str) -> None:
        """The connection no longer waits (answered, timed out, or gone)."""
        self._pop(connection_id)

    def _pop(self, connection_id: str) -> asyncio.Future[Admission] | None:
        found = self._pending.pop(connection_id, None)
        if found is None:
            return None
        answer, source = found
        self._sources[source] -= 1
        if not self._sources[source]:
            del self._sources[source]
        return answer

    def left(self, connection_id: str, session_id: str) -> None:
        """Tell every watcher that an admitted connection's stream ended."""
        departure = match_pb2.RemoteDeparture(session_id=session_id)
        self._tell(match_pb2.RemoteEvent(connection_id=connection_id, left=departure))

    def _tell(self, event: match_pb2.RemoteEvent) -> None:
        for queue in self.watchers:
            queue.put_nowait(event)

    def shutdown(self) -> None:
        """End every watch, and refuse the connections still waiting and to come."""
        self.closing = True
        for queue in self.watchers:
            queue.put_nowait(None)
        for answer, _ in self._pending.values():
            if not answer.done():
                answer.set_result(
                    Admission(code="UNAVAILABLE", refusal="the referee is shutting down")
                )
        self._pending.clear()
        self._sources.clear()
