"""A match's seats as the runner keeps them (ARCHITECTURE decision 4): the stream a
seat is connected by, its clock, status, strikes and forfeit, the decision it is to
answer; and the match's phases and the faults a bot's messages can earn."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from referee.clock import SeatClock
from referee.engine import Action
from referee.record import STATUSES, SeatEntry

#: Settled decision ids remembered per seat: an answer to one is ignored (a retry, or
#: an answer sent again after rejoining), not refused.
SETTLED_KEPT = 64

#: Writes one serialised RefereeMessage to a seat's stream.
Writer = Callable[[bytes], Awaitable[None]]


class MatchPhase(Enum):
    """Where a match stands."""

    WAITING = "waiting"
    RUNNING = "running"
    FINISHED = "finished"


class ProtocolError(Exception):
    """A bot message the referee refuses; ``code`` names the gRPC status to end with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


#: The position of :func:`default_action`'s choice in the legal actions.
DEFAULT_INDEX = 0


def default_action(legal: list[Action]) -> Action:
    """The referee's safe default: the first legal action (each game lists drawing,
    passing or declining first, and its caps end every hand, C8)."""
    return legal[0]


def worse(a: str, b: str) -> str:
    """The worse of two seat statuses."""
    return a if STATUSES.index(a) >= STATUSES.index(b) else b


class SeatLink:
    """One connected bot stream of a seat."""

    __slots__ = ("closed", "finished", "welcomed", "write", "writing")

    def __init__(self, write: Writer) -> None:
        self.write = write
        self.closed = False
        self.writing = False  # a write is in flight
        self.welcomed = False  # the Welcome was written on this stream
        self.finished = asyncio.Event()  # set when the referee has nothing more to send


@dataclass(eq=False)
class Seat:
    """One seat of a match."""

    index: int
    name: str
    token: str
    clock: SeatClock
    status: str = "ok"
    strikes: int = 0
    forfeited: bool = False
    joined: bool = False  # the token has opened a stream (a later one is a rejoin)
    link: SeatLink | None = None  # None while the seat is away
    agent: str = ""
    seen: int = 0  # events already sent to this seat (an index into the state's events)
    think_us: int = 0  # the seat's thinking time so far
    pending_id: int = -1
    pending: asyncio.Future[Any] | None = None
    # the bytes an Answer to the pending decision by index holds before the index
    # (wire.answer_head): the service reads such answers without parsing them
    # (wire.read_index)
    answer_head: bytes = b""
    settled: deque[int] = field(default_factory=lambda: deque(maxlen=SETTLED_KEPT))

    def entry(self) -> SeatEntry:
        """This seat as recorded."""
        return SeatEntry(self.name, self.status, self.strikes, self.forfeited)
