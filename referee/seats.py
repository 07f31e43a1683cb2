"""A match's seats as the runner keeps them (docs/architecture.md, decision 4): the stream a
seat is connected by, its clock, status, strikes and forfeit, the decision it is to
answer and what that decision comes to; the match's phases, the faults a bot's messages
can earn, and which legal action an answer names."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from referee.clock import ClockRules
from referee.engine import Action, EngineError, GameState
from referee.record import STATUSES, SeatEntry, SeatStatus
from rummyarena.v1 import bot_pb2

log = logging.getLogger(__name__)

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


#: A fault of a seat's answer, which costs a strike: the seat status it gives, the source
#: of the default action played instead, and the kind of the seat's notice.
Fault = Literal["timeout", "invalid", "crashed"]


def worse(a: SeatStatus, b: SeatStatus) -> SeatStatus:
    """The worse of two seat statuses."""
    return a if STATUSES.index(a) >= STATUSES.index(b) else b


# -- what a decision comes to -------------------------------------------------------------
# A pending decision's future resolves to one of these, for the match task to settle, or,
# when the seat's stream reader took a legal answer in time and applied it itself, to the
# next decision (referee.runner: Match._take).


@dataclass(frozen=True, slots=True)
class Answered:
    """An answer the reader left to the match task: one that names no legal action
    (``index`` None, ``problem`` says why), or one that came past the decision limit."""

    index: int | None
    problem: str


@dataclass(frozen=True, slots=True)
class ReportedError:
    """The bot reported that it failed to decide (a BotError), with its message."""

    message: str


@dataclass(frozen=True, slots=True)
class TimedOut:
    """No answer by the decision's deadline (the match's watchdog)."""


@dataclass(frozen=True, slots=True)
class Gone:
    """The seat's stream was cut off or sent something unreadable; the seat was marked,
    and forfeited, when it went."""

    reason: str


@dataclass(frozen=True, slots=True)
class Rejoined:
    """The seat came back on a new stream: the decision is sent again."""


@dataclass(frozen=True, slots=True)
class Aborted:
    """The match is being aborted, for ``reason``."""

    reason: str


#: What a pending decision comes to when the match task is to handle it.
Outcome = Answered | ReportedError | TimedOut | Gone | Rejoined | Aborted


class SeatLink:
    """One connected bot stream of a seat."""

    __slots__ = ("closed", "finished", "welcomed", "write", "writing")

    def __init__(self, write: Writer) -> None:
        self.write = write
        self.closed = False
        self.writing = False  # a write is in flight
        self.welcomed = False  # the Welcome was written on this stream
        self.finished = asyncio.Event()  # set when the referee has nothing more to send


class SeatClock:
    """One seat's clock: the bank left, and the time the seat has used."""

    __slots__ = ("bank_ms", "rules", "used_ms")

    def __init__(self, rules: ClockRules) -> None:
        self.rules = rules
        self.bank_ms = float(rules.bank_ms)
        self.used_ms = 0.0

    def allowance_s(self) -> float:
        """The longest this decision may take, in seconds (decision limit plus bank)."""
        return (self.rules.decision_ms + self.bank_ms) / 1000.0

    def charge(self, elapsed_ms: float) -> bool:
        """Record a decision that took ``elapsed_ms``; False when it ran out of time."""
        self.used_ms += elapsed_ms
        over = elapsed_ms - self.rules.decision_ms
        if over <= 0:
            return True
        if over <= self.bank_ms:
            self.bank_ms -= over
            return True
        self.bank_ms = 0.0
        return False


@dataclass(eq=False)
class Seat:
    """One seat of a match."""

    index: int
    name: str
    token: str
    clock: SeatClock
    status: SeatStatus = "ok"
    strikes: int = 0
    forfeited: bool = False
    joined: bool = False  # the token has opened a stream (a later one is a rejoin)
    link: SeatLink | None = None  # None while the seat is away
    agent: str = ""
    seen: int = 0  # events already sent to this seat (an index into the state's events)
    think_us: int = 0  # the seat's thinking time so far
    pending_id: int = -1
    # what the pending decision comes to: an Outcome, or the next decision when the
    # seat's reader applied the answer itself (referee.runner.Resolution)
    pending: asyncio.Future[Any] | None = None
    # the bytes an Answer to the pending decision by index holds before the index
    # (wire.answer_head): the service reads such answers without parsing them
    # (wire.read_index)
    answer_head: bytes = b""
    settled: deque[int] = field(default_factory=lambda: deque(maxlen=SETTLED_KEPT))

    def entry(self) -> SeatEntry:
        """This seat as recorded."""
        return SeatEntry(self.name, self.status, self.strikes, self.forfeited)


def pick_answer(
    state: GameState, answer: bot_pb2.Answer | int, legal: list[Action], texts: Sequence[str]
) -> tuple[int | None, str]:
    """The index of the legal action an answer (or an index read from its bytes) names,
    or None and what is wrong. Whatever is wrong with a text is the seat's fault,
    whichever error reading it raises."""
    if isinstance(answer, int):
        index = answer
    elif (which := answer.WhichOneof("choice")) == "index":
        index = answer.index
    elif which == "text":
        text = answer.text
        try:
            return texts.index(text), ""
        except ValueError:
            pass
        try:
            action = state.parse_action(text[:300])
        except EngineError as exc:
            return None, f"cannot read action {text[:80]!r}: {exc}"
        except Exception as exc:  # a parser's own error: still not a legal action
            log.warning("reading %r raised %r", text[:80], exc)
            return None, f"cannot read action {text[:80]!r}"
        if action in legal:
            return legal.index(action), ""
        return None, f"{action} is not a legal action now"
    else:
        return None, "the answer names no action (set index or text)"
    if index < len(legal):
        return index, ""
    return None, f"index {index} is out of range: {len(legal)} legal actions"
