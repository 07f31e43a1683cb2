"""The class a bot subclasses, and the typed request it receives per decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee import wire
from referee.engine import Event
from referee.record import SeatStatus
from rummyarena.v1 import bot_pb2


@dataclass(frozen=True, slots=True)
class Clock:
    """This decision's time: ``decision_ms`` free, then ``bank_ms`` of bank left."""

    decision_ms: int
    bank_ms: int


class Request:
    """One decision: the seat's view, the legal actions, advice, events and clock.

    ``view`` (the game's own view dataclass, e.g. ``HollywoodView``), ``events``
    and ``clock`` are decoded from the message on first use, so a bot that only
    looks at ``legal_actions`` pays nothing for them.
    """

    __slots__ = (
        "_clock",
        "_events",
        "_msg",
        "_raw",
        "_view",
        "advice",
        "decision_id",
        "game",
        "legal_actions",
    )

    def __init__(
        self,
        decision_id: int,
        game: str,
        legal_actions: list[str],
        clock: Clock,
        advice: str | None = None,
        events: list[Event] | None = None,
        view: Any = None,
        raw: Any = None,
    ) -> None:
        self.decision_id = decision_id
        self.game = game
        self.legal_actions = legal_actions
        self.advice = advice
        self._clock: Clock | None = clock
        self._events = events
        self._view = view
        self._raw = raw
        self._msg: bot_pb2.Decision | None = None

    @classmethod
    def from_message(cls, msg: bot_pb2.Decision, game: str) -> Request:
        """A request from the referee's Decision message (the rest decoded on use)."""
        request = cls.__new__(cls)
        request.decision_id = msg.decision_id
        request.game = game
        request.legal_actions = list(msg.legal_actions)
        request.advice = msg.advice or None  # advice is never empty when given
        request._clock = request._events = request._view = None
        request._raw = msg.view
        request._msg = msg
        return request

    @property
    def clock(self) -> Clock:
        """This decision's time."""
        if self._clock is None:
            c = self._msg.clock if self._msg is not None else None
            self._clock = Clock(c.decision_ms, c.bank_ms) if c is not None else Clock(0, 0)
        return self._clock

    @property
    def events(self) -> list[Event]:
        """What this seat may see of what happened since its previous decision."""
        if self._events is None:
            msg = self._msg
            self._events = [] if msg is None else [wire.event_from_proto(e) for e in msg.events]
        return self._events

    @property
    def view(self) -> Any:
        """The seat's view of the match, as the game's view dataclass."""
        if self._view is None and self._raw is not None:
            self._view = wire.view_from_proto(self._raw, self.legal_actions)
        return self._view

    def index(self, text: str) -> int:
        """The index of a legal action given by its text (ValueError if not legal)."""
        return self.legal_actions.index(text)


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The end of a match as one seat learns it."""

    seat: int
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    statuses: tuple[SeatStatus, ...]
    detail_json: str
    events: tuple[Event, ...]
    # why the referee stopped the match before its end (shutting down, a fault of its
    # own); empty when the match was played to its end. An aborted match has no result.
    aborted: str = ""

    @property
    def won(self) -> bool:
        """Whether this seat finished first (alone or shared); never in an aborted match."""
        return not self.aborted and self.ranks[self.seat] == 0


class Bot:
    """A bot: implement :meth:`decide`; the other hooks are optional."""

    #: How the bot introduces itself to the referee (logs only).
    name = "bot"

    def decide(self, request: Request) -> int | str:
        """Choose an action: its index in ``request.legal_actions``, or its text."""
        raise NotImplementedError

    def on_start(self, game: str, seat: int, seats: int, options: dict[str, Any]) -> None:
        """Called once when the match starts."""

    def on_notice(self, kind: str, message: str, played: str) -> None:
        """Called when the referee played a default action for this seat."""

    def on_end(self, over: MatchOver) -> None:
        """Called once when the match is over."""
