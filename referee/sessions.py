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
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field

from referee.seats import ProtocolError, Seat

#: Sessions open at once, at most; OpenSession is refused beyond.
MAX_SESSIONS = 1000
#: The longest session name or agent kept (they are for logs), in characters.
MAX_LABEL = 200


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

    __slots__ = ("_queue",)

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Assignment | None] = asyncio.Queue()

    def put(self, assignment: Assignment) -> None:
        """Write ``assignment`` on this stream next."""
        self._queue.put_nowait(assignment)

    def end(self) -> None:
        """End the stream (status OK) once what is queued has been written."""
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

    def connect(self, key: str, agent: str) -> tuple[Session, SessionStream]:
        """A new stream for the session this key opens, holding every seat assigned to
        it that has not joined yet; a stream it had before ends. ProtocolError when the
        key opens no session."""
        if self.closing:
            raise ProtocolError("UNAVAILABLE", "the referee is shutting down")
        session = self._by_key.get(key)
        if session is None:
            raise ProtocolError(
                "UNAUTHENTICATED",
                "unknown session key (never opened on this referee, or closed): start the "
                "bot with the key of a session that Matches.OpenSession opened and that is "
                "still open",
            )
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
