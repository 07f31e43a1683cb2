"""What a running match keeps of its play (docs/architecture.md, decisions 2 and 7): its actions
in the record's compact form (each one's index in the legal actions, its thinking
time, and who chose it where not the bot), the events its seats and watchers have not
yet had, and the watchers themselves. A long match holds a few bytes per action; the
record is made from the log at the end, and a new watcher's history is re-run from it.
"""

from __future__ import annotations

import asyncio
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

from referee import wire
from referee.engine import GameState
from referee.games import get_game
from referee.record import ActionSource, MatchRecord, replay
from referee.seats import Seat
from rummyarena.v1 import common_pb2, record_pb2

#: The longest thinking time an action's entry holds, in microseconds (what its
#: array's 4-byte items hold, about 71 minutes): a longer one is logged as this.
_THINK_MAX = 0xFFFFFFFF


class MatchLog:
    """The play of one match so far, compact."""

    __slots__ = ("dropped", "index", "published", "sources", "state", "think", "watchers")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.index = array("I")  # each action's position in the legal actions
        self.think = array("I")  # each action's thinking time, in microseconds
        self.sources: dict[int, ActionSource] = {}  # the actions the bot did not choose
        self.watchers: list[asyncio.Queue[Any]] = []
        self.published = 0  # events given to the watchers (an index into the state's)
        self.dropped = 0  # events dropped from the front of the state's list

    def add(self, index: int, think_us: int, source: ActionSource) -> None:
        """Log the action just applied to the state."""
        if source != "bot":
            self.sources[len(self.index)] = source
        self.index.append(index)
        self.think.append(think_us if think_us < _THINK_MAX else _THINK_MAX)
        if self.watchers:
            self.publish()
        else:
            self.published = len(self.state.events)

    def publish(self) -> None:
        """Give the watchers the public events they have not had."""
        events = self.state.events
        new = [wire.event_to_proto(e) for e in events[self.published :] if e.visible_to is None]
        self.published = len(events)
        for q in self.watchers:
            for e in new:
                q.put_nowait(e)

    def drop_sent(self, seats: Iterable[Seat]) -> None:
        """Drop the events that every seat still playing has been sent and the watchers
        have had: a long match holds only the events since its seats' last decisions."""
        seats = list(seats)
        low = self.published
        for seat in seats:
            if not seat.forfeited and seat.seen < low:
                low = seat.seen
        if low:
            self.state.drop_events(low)
            self.dropped += low
            self.published -= low
            for seat in seats:
                seat.seen = max(0, seat.seen - low)

    def public_events(
        self, game: str, seed: int, seats: int, options: Mapping[str, Any]
    ) -> list[common_pb2.Event]:
        """The public events published so far (the match keeps only its recent ones)."""
        return public_events(game, seed, seats, options, self.index, self.dropped + self.published)

    def record(self, head: MatchRecord, seats: Iterable[Seat]) -> record_pb2.MatchRecord:
        """The match's record: ``head`` (everything but the actions) with the actions
        logged and each seat's thinking time."""
        think = [seat.think_us for seat in seats]
        return wire.compact_record_to_proto(head, self.index, self.think, self.sources, think)


def public_events(
    game: str,
    seed: int,
    seats: int,
    options: Mapping[str, Any],
    indexes: Iterable[int],
    count: int | None = None,
) -> list[common_pb2.Event]:
    """The public events of a match (the first ``count`` of all its events, or all),
    re-run from its seed and its actions' indexes: a new watcher's history, of a match
    running or finished."""
    state = get_game(game).new_match(seed, seats=seats, options=options)
    for _ in replay(state, indexes):
        pass
    events = state.events if count is None else state.events[:count]
    return [wire.event_to_proto(e) for e in events if e.visible_to is None]
