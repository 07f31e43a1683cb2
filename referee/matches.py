"""Every match of one referee process (:class:`Referee`): creating them within the
referee's limits, the seat tokens that open them, the seats told to bot sessions
(:mod:`referee.sessions`), the finished ones kept as their records' bytes until the
platform releases them (within a byte budget and an age limit), and a graceful
shutdown."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from referee import settings
from referee.clock import ClockRules
from referee.runner import Match
from referee.seats import MatchPhase, ProtocolError, Seat, SeatLink
from referee.sessions import MAX_SESSIONS, Assignment, Session, Sessions
from referee.walltime import WRITE_S

#: Bytes of finished, unreleased matches' records the referee keeps for GetMatch; past
#: it the oldest are forgotten.
KEEP_BYTES = 64 * 1024 * 1024
#: How long a finished, unreleased match is kept, in seconds.
KEEP_S = 3600.0
#: Matches waiting for their seats, at most; CreateMatch is refused beyond.
MAX_WAITING = 1000
#: The longest a match may wait for its seats (its clock's join_ms), in milliseconds.
MAX_JOIN_MS = 300_000
#: The longest seat name, in characters.
MAX_NAME = 100
#: The longest match id, in characters.
MAX_MATCH_ID = 128
#: The reason given to matches aborted by a shutdown.
SHUTTING_DOWN = "referee shutting down"


@dataclass(eq=False, slots=True)
class FinishedMatch:
    """A finished match as the referee keeps it until the platform releases it: the
    bytes of its record (which hold its result), and its seats' tokens."""

    id: str
    record: bytes
    tokens: tuple[str, ...]
    finished_at: float  # time.monotonic()
    phase: ClassVar[MatchPhase] = MatchPhase.FINISHED

    @property
    def size(self) -> int:
        """The bytes this entry is counted as (its record, plus a fixed overhead)."""
        return len(self.record) + 512


class Referee:
    """Every match of one referee process, and the seat tokens that open them.

    Finished matches are kept, as their records' bytes, until the platform releases
    them (:meth:`release`), at most ``keep_bytes`` of them and for at most ``keep_s``
    seconds, the oldest forgotten first."""

    def __init__(
        self,
        default_clock: ClockRules | None = None,
        *,
        keep_bytes: int = KEEP_BYTES,
        keep_s: float = KEEP_S,
        max_waiting: int = MAX_WAITING,
        max_join_ms: int = MAX_JOIN_MS,
        max_sessions: int = MAX_SESSIONS,
        measure: bool = False,
        max_match_s: float | None = None,
    ) -> None:
        self.default_clock = default_clock or ClockRules(join_ms=min(30_000, max_join_ms))
        #: the longest any of its matches is played (``referee.walltime``), in seconds
        self.max_match_s = settings.load().max_match_s if max_match_s is None else max_match_s
        self.keep_bytes = keep_bytes
        self.keep_s = keep_s
        self.max_waiting = max_waiting
        self.max_join_ms = max_join_ms
        self.measure = measure
        self.matches: dict[str, Match] = {}  # waiting or running
        self.finished: OrderedDict[str, FinishedMatch] = OrderedDict()  # oldest first
        self.kept_bytes = 0
        self.tokens: dict[str, tuple[Match, Seat]] = {}
        self.sessions = Sessions(max_sessions)
        self.closing = False  # shutting down: no new matches or seats
        self._finished_tokens: dict[str, str] = {}
        self._release_on_finish: set[str] = set()  # their callers have their records
        self._tasks: set[asyncio.Task[None]] = set()

    def create(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        seed: int,
        seat_names: list[str],
        clock: ClockRules | None = None,
        match_id: str = "",
        seat_sessions: Sequence[str] = (),
        seat_faults: Sequence[str] = (),
        deal: Mapping[str, Any] | None = None,
    ) -> Match:
        """Create and start a match; its seats' tokens are on ``match.seats``.
        ``seat_sessions``, when given, names for each seat the id of the session to tell
        of it, or ``""``; ``seat_faults``, when given, for each seat ``""`` or why its bot
        cannot play (that seat forfeits before the deal). ``deal``, when given, is a
        chosen deal's table (``referee.scenario.deal``) to deal the first hand from,
        what it leaves out from ``seed``; the record keeps it, so that it re-runs."""
        if self.closing:
            raise ProtocolError(
                "UNAVAILABLE", "the referee is shutting down: create the match on another one"
            )
        if match_id and (match_id in self.matches or match_id in self.finished):
            raise ProtocolError("ALREADY_EXISTS", f"match id {match_id!r} is already in use")
        if len(match_id) > MAX_MATCH_ID:
            raise ProtocolError(
                "INVALID_ARGUMENT", f"a match id has at most {MAX_MATCH_ID} characters"
            )
        if not 0 <= seed < 1 << 64:
            raise ProtocolError("INVALID_ARGUMENT", f"seed must be in 0..2**64-1, not {seed}")
        for name in seat_names:
            if len(name) > MAX_NAME:
                raise ProtocolError(
                    "INVALID_ARGUMENT", f"a seat name has at most {MAX_NAME} characters"
                )
        clock = clock or self.default_clock
        if clock.join_ms > self.max_join_ms:
            raise ProtocolError(
                "INVALID_ARGUMENT",
                f"join_ms {clock.join_ms} is over this referee's limit of {self.max_join_ms} ms",
            )
        sessions = self._seat_sessions(seat_sessions, len(seat_names))
        if seat_faults and len(seat_faults) != len(seat_names):
            raise ProtocolError(
                "INVALID_ARGUMENT",
                f"seat_faults has {len(seat_faults)} entries for {len(seat_names)} seats: "
                'give none, or one per seat ("" for a seat that plays)',
            )
        self._forget_old()
        waiting = sum(1 for m in self.matches.values() if m.phase is MatchPhase.WAITING)
        if waiting >= self.max_waiting:
            raise ProtocolError(
                "RESOURCE_EXHAUSTED",
                f"{waiting} matches are waiting for their seats, this referee's limit: "
                "start the bots of those first, or try again later",
            )
        match = Match(
            match_id or secrets.token_hex(8),
            game,
            options,
            seed,
            seat_names,
            clock,
            self.measure,
            seat_faults,
            deal,
            self.max_match_s,
        )
        self.matches[match.id] = match
        for seat in match.seats:
            self.tokens[seat.token] = (match, seat)
        for seat, session in zip(match.seats, sessions, strict=True):
            if session is not None and not seat.forfeited:
                assignment = Assignment(match.id, game, seat.index, seat.token, seat.name)
                self.sessions.assign(session, assignment, seat)
        task = asyncio.get_running_loop().create_task(self._run(match))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return match

    def _seat_sessions(self, ids: Sequence[str], seats: int) -> list[Session | None]:
        """The session of each seat (None: its token is handed out by the caller);
        ProtocolError when ``ids`` are not one per seat or name a session not open."""
        if not ids:
            return [None] * seats
        if len(ids) != seats:
            raise ProtocolError(
                "INVALID_ARGUMENT",
                f"seat_sessions has {len(ids)} entries for {seats} seats: give none, or one "
                'per seat ("" for a seat whose token you hand out yourself)',
            )
        sessions: list[Session | None] = []
        for index, session_id in enumerate(ids):
            session = self.sessions.get(session_id) if session_id else None
            if session_id and session is None:
                raise ProtocolError(
                    "INVALID_ARGUMENT",
                    f"seat {index}: no open session {session_id[:80]!r} on this referee "
                    "(never opened here, or closed): open one with OpenSession",
                )
            sessions.append(session)
        return sessions

    def open_session(self, name: str) -> Session:
        """Open a session for a bot process (``name`` is for the logs)."""
        return self.sessions.open(name)

    def close_session(self, session_id: str) -> bool:
        """Close a session: its stream ends, its key is forgotten, and the seats assigned
        through it that have not joined count as never joined now. False when no session
        had this id."""
        session = self.sessions.close(session_id)
        if session is None:
            return False
        for assignment, _ in session.unjoined():
            found = self.tokens.get(assignment.token)
            if found is not None:
                _never_joins(*found)
        return True

    async def _run(self, match: Match) -> None:
        await match.run()
        self.matches.pop(match.id, None)
        tokens = tuple(seat.token for seat in match.seats)
        for token in tokens:
            self.tokens.pop(token, None)
            self._finished_tokens[token] = match.id
        assert match.record_bytes is not None  # made by Match._finish
        entry = FinishedMatch(match.id, match.record_bytes, tokens, time.monotonic())
        self.finished[match.id] = entry
        self.kept_bytes += entry.size
        if match.id in self._release_on_finish:
            self._release_on_finish.discard(match.id)
            self._forget(entry)
        self._forget_old()

    def _forget_old(self) -> None:
        """Forget the oldest finished matches past the byte budget or the age limit."""
        too_old = time.monotonic() - self.keep_s
        finished = self.finished
        while finished:
            oldest = next(iter(finished.values()))
            if self.kept_bytes <= self.keep_bytes and oldest.finished_at >= too_old:
                break
            self._forget(oldest)

    def _forget(self, entry: FinishedMatch) -> None:
        del self.finished[entry.id]
        self.kept_bytes -= entry.size
        for token in entry.tokens:
            self._finished_tokens.pop(token, None)

    def join(self, token: str, link: SeatLink, agent: str) -> tuple[Match, Seat, bool]:
        """Connect a stream to the seat its token opens: the match, the seat, and whether
        this is a rejoin. ProtocolError when the token opens none."""
        found = self.tokens.get(token)
        if found is None:
            if token in self._finished_tokens:
                raise ProtocolError(
                    "FAILED_PRECONDITION", f"match {self._finished_tokens[token]} is already over"
                )
            raise ProtocolError("PERMISSION_DENIED", "unknown seat token")
        match, seat = found
        if self.closing and not seat.joined:
            raise ProtocolError(
                "UNAVAILABLE", "the referee is shutting down and takes no new seats"
            )
        return match, seat, match.attach(seat, link, agent)

    def get(self, match_id: str) -> Match | FinishedMatch:
        """The match with this id; ProtocolError NOT_FOUND otherwise."""
        match = self.matches.get(match_id) or self.finished.get(match_id)
        if match is None:
            raise ProtocolError(
                "NOT_FOUND",
                f"no match {match_id!r} on this referee (never created here, released, "
                "or forgotten past its keep limits)",
            )
        return match

    def release_when_finished(self, match_id: str) -> None:
        """Forget the match as soon as it has finished (now, if it has): its caller has
        its record (``GetMatch`` with ``wait`` and ``release``)."""
        if match_id in self.matches:
            self._release_on_finish.add(match_id)
        elif (entry := self.finished.get(match_id)) is not None:
            self._forget(entry)

    def release(self, match_id: str) -> bool:
        """Forget a finished match (the platform has stored its record); False when it was
        not kept. ProtocolError while it is still being played."""
        if match_id in self.matches:
            raise ProtocolError("FAILED_PRECONDITION", f"match {match_id} is still being played")
        entry = self.finished.get(match_id)
        if entry is None:
            return False
        self._forget(entry)
        return True

    async def shutdown(self, grace_s: float) -> None:
        """Take no new matches, seats or sessions, and end every session's stream; let
        the running matches finish within ``grace_s`` seconds, then abort the rest (and,
        at once, those still waiting for their seats) with the reason "referee shutting
        down"."""
        self.closing = True
        self.sessions.shutdown()
        for match in list(self.matches.values()):
            if match.phase is MatchPhase.WAITING:
                match.abort(SHUTTING_DOWN)
        tasks = set(self._tasks)
        if tasks:
            _, tasks = await asyncio.wait(tasks, timeout=grace_s)
        for match in list(self.matches.values()):
            match.abort(SHUTTING_DOWN)
        if tasks:
            await asyncio.wait(tasks, timeout=WRITE_S + 1)

    async def close(self) -> None:
        """Abort every match still running, then stop."""
        await self.shutdown(0.0)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def _nowhere(_data: bytes) -> None:
    raise ConnectionError("the seat's bot session is closed")


def _never_joins(match: Match, seat: Seat) -> None:
    """A waiting match's seat that will not join (its session closed) counts as never
    joined at once: it forfeits (disconnected), as a seat that never joins does when the
    join time is up, and the match starts as soon as the other seats have joined.

    Through the runner's own joining: a stream that joins the seat and is gone at once,
    the seat forfeited in between (the match task wakes only after this returns), so
    nothing is written to it and no rejoin is possible."""
    if match.phase is not MatchPhase.WAITING or seat.joined or seat.forfeited:
        return
    link = SeatLink(_nowhere)
    match.attach(seat, link, "")
    seat.status, seat.forfeited = "disconnected", True
    match.detach(seat, link, "its session closed")
