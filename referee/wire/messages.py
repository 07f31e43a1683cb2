"""The referee's other messages to a seat, serialised: the welcome, a notice of a
faulty answer, and the end of the match (``proto/rummyarena/v1/bot.proto``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, get_args

from referee.clock import ClockRules
from referee.engine import Event
from referee.record import OptionScalar
from referee.wire.values import clock_to_proto, enum_values, event_to_proto, options_to_proto
from rummyarena.v1 import bot_pb2, common_pb2

#: The kind of a notice: the seat status the fault gives, or ``forfeited`` for a fault
#: that makes the seat forfeit (the values of the .proto's ``NoticeKind``).
NoticeKind = Literal["timeout", "invalid", "crashed", "forfeited"]
#: Each notice kind's ``NoticeKind`` enum value.
NOTICE_KINDS = enum_values(bot_pb2.NoticeKind, "NOTICE_KIND_", get_args(NoticeKind))


def welcome_bytes(
    match_id: str,
    game: str,
    options: Mapping[str, OptionScalar],
    seat_names: Sequence[str],
    clock: ClockRules,
    your_seat: int,
) -> bytes:
    """The Welcome a seat gets when the match starts (and again on each rejoin)."""
    msg = bot_pb2.RefereeMessage()
    w = msg.welcome
    w.match_id, w.game = match_id, game
    options_to_proto(options, w.options)
    for i, name in enumerate(seat_names):
        w.seats.add(seat=i, name=name)
    w.clock.CopyFrom(clock_to_proto(clock))
    w.your_seat = your_seat
    data: bytes = msg.SerializeToString()
    return data


def notice_bytes(
    decision_id: int, kind: NoticeKind, message: str, played: str, strikes: int
) -> bytes:
    """The Notice of a faulty answer to ``decision_id``: its ``kind`` (a key of
    :data:`NOTICE_KINDS`), what was wrong, the action the referee played instead and
    the seat's strikes."""
    msg = bot_pb2.RefereeMessage()
    n = msg.notice
    n.decision_id = decision_id
    n.kind = NOTICE_KINDS[kind]
    n.message = message
    n.played = played
    n.strikes = strikes
    data: bytes = msg.SerializeToString()
    return data


def match_end_bytes(result: common_pb2.MatchResult, events: Iterable[Event]) -> bytes:
    """The MatchEnd a seat gets: the result, and the events it has not been sent."""
    msg = bot_pb2.RefereeMessage()
    end = msg.match_end
    end.result.CopyFrom(result)
    end.events.extend(event_to_proto(e) for e in events)
    data: bytes = msg.SerializeToString()
    return data
