"""The class a bot subclasses, and the typed request it receives per decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee import codec
from referee.engine import Event
from rummyarena.v1 import bot_pb2


@dataclass(frozen=True, slots=True)
class Clock:
    """This decision's time: ``decision_ms`` free, then ``bank_ms`` of bank left."""

    decision_ms: int
    bank_ms: int


class Request:
    """One decision: the seat's view, the legal actions, advice, events and clock.

    ``view`` is the game's own view dataclass (e.g. ``HollywoodView``), decoded
    on first use, so bots that only look at ``legal_actions`` pay nothing for it.
    """

    __slots__ = (
        "_raw",
        "_view",
        "advice",
        "clock",
        "decision_id",
        "events",
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
        self.clock = clock
        self.advice = advice
        self.events = events if events is not None else []
        self._view = view
        self._raw = raw

    @classmethod
    def from_message(cls, msg: bot_pb2.Decision, game: str) -> Request:
        """A request from the referee's Decision message."""
        return cls(
            decision_id=msg.decision_id,
            game=game,
            legal_actions=list(msg.legal_actions),
            clock=Clock(msg.clock.decision_ms, msg.clock.bank_ms),
            advice=msg.advice if msg.HasField("advice") else None,
            events=[codec.event_from_proto(e) for e in msg.events],
            raw=msg.view,
        )

    @property
    def view(self) -> Any:
        """The seat's view of the match, as the game's view dataclass."""
        if self._view is None and self._raw is not None:
            self._view = codec.view_from_proto(self._raw, self.legal_actions)
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
    statuses: tuple[str, ...]
    detail_json: str
    events: tuple[Event, ...]

    @property
    def won(self) -> bool:
        """Whether this seat finished first (alone or shared)."""
        return self.ranks[self.seat] == 0


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
