"""Domain values as protobuf and back: cards, options, clock rules, events, and the
values of the enums (``proto/rummyarena/v1/common.proto``, ``record.proto``).

Cards travel as their C2 text, actions as their text form. An enum's values are
``Literal`` strings on our side (:data:`referee.record.SeatStatus`, ``ActionSource``,
``MatchStatus``; :data:`referee.wire.messages.NoticeKind`): each is its enum value's
name, lowercase, without the enum's prefix, and is mapped to the enum here, once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any, TypeVar

from referee.cards import CARD_BY_ID, Card, parse_card
from referee.clock import ClockRules
from referee.engine import Event
from referee.record import (
    MATCH_STATUSES,
    SOURCES,
    STATUSES,
    ActionSource,
    MatchStatus,
    OptionScalar,
    SeatStatus,
)
from rummyarena.v1 import common_pb2, record_pb2

#: C2 text of every card id, so encoding a hand is a list lookup per card.
CARD_TEXT: list[str] = [""] * 65
for _cid, _card in CARD_BY_ID.items():
    CARD_TEXT[_cid] = str(_card)

_Name = TypeVar("_Name", bound=str)
_Value = TypeVar("_Value", bound=int)


def enum_values(enum: type[_Value], prefix: str, names: Iterable[_Name]) -> dict[_Name, _Value]:
    """Each of ``names`` by its value in the protobuf ``enum``: the value named ``prefix``
    and the name in capitals (``timeout`` in ``SeatStatus`` is ``SEAT_STATUS_TIMEOUT``).
    A name the enum lacks fails at import."""
    wrapper: Any = enum  # at run time an EnumTypeWrapper, whose methods are untyped
    return {name: wrapper.Value(prefix + name.upper()) for name in names}


_STATUS_TO_PB = enum_values(common_pb2.SeatStatus, "SEAT_STATUS_", STATUSES)
_STATUS_FROM_PB: dict[int, SeatStatus] = {v: k for k, v in _STATUS_TO_PB.items()}
# keyed by str: an ActionEntry's source is typed str (one of SOURCES)
_SOURCE_TO_PB: dict[str, record_pb2.ActionSource] = enum_values(
    record_pb2.ActionSource, "ACTION_SOURCE_", SOURCES
)
_SOURCE_FROM_PB: dict[int, ActionSource] = {_SOURCE_TO_PB[k]: k for k in SOURCES}
_MATCH_STATUS_TO_PB = enum_values(common_pb2.MatchStatus, "MATCH_STATUS_", MATCH_STATUSES)
_MATCH_STATUS_FROM_PB: dict[int, MatchStatus] = {v: k for k, v in _MATCH_STATUS_TO_PB.items()}


class CodecError(ValueError):
    """A message that does not describe a valid domain value."""


def cards_text(cards: Iterable[int]) -> list[str]:
    """Cards as C2 strings."""
    return [CARD_TEXT[c] for c in cards]


def cards_from(texts: Iterable[str]) -> tuple[Card, ...]:
    """C2 strings as cards."""
    try:
        return tuple(parse_card(t) for t in texts)
    except ValueError as exc:
        raise CodecError(str(exc)) from exc


# -- options, clock, events ----------------------------------------------------------------


def options_to_proto(
    options: Mapping[str, OptionScalar], target: MutableMapping[str, common_pb2.OptionValue]
) -> None:
    """Fill a protobuf ``map<string, OptionValue>`` from an options mapping."""
    for key, value in options.items():
        slot = target[key]
        if isinstance(value, bool):
            slot.bool_value = value
        elif isinstance(value, int):
            slot.int_value = value
        elif isinstance(value, str):
            slot.string_value = value
        elif value is None:
            slot.Clear()
        else:
            raise CodecError(f"option {key!r} has a value of type {type(value).__name__}")


def options_from_proto(source: Mapping[str, common_pb2.OptionValue]) -> dict[str, OptionScalar]:
    """An options mapping from a protobuf ``map<string, OptionValue>``, keys sorted."""
    out: dict[str, OptionScalar] = {}
    for key in sorted(source):
        value = source[key]
        which = value.WhichOneof("value")
        out[key] = None if which is None else getattr(value, which)
    return out


def clock_to_proto(rules: ClockRules) -> common_pb2.ClockRules:
    """Clock rules as a message."""
    return common_pb2.ClockRules(
        decision_ms=rules.decision_ms,
        bank_ms=rules.bank_ms,
        strike_limit=rules.strike_limit,
        join_ms=rules.join_ms,
    )


def clock_from_proto(msg: common_pb2.ClockRules, defaults: ClockRules | None = None) -> ClockRules:
    """Clock rules from a message; fields left at zero take ``defaults`` when given."""
    if defaults is None:
        return ClockRules(msg.decision_ms, msg.bank_ms, msg.strike_limit, msg.join_ms)
    try:
        return ClockRules(
            msg.decision_ms or defaults.decision_ms,
            msg.bank_ms or defaults.bank_ms,
            msg.strike_limit or defaults.strike_limit,
            msg.join_ms or defaults.join_ms,
        )
    except ValueError as exc:
        raise CodecError(str(exc)) from exc


def event_to_proto(event: Event) -> common_pb2.Event:
    """An engine event as a message."""
    if event.seat is None:
        return common_pb2.Event(text=event.text)
    return common_pb2.Event(seat=event.seat, text=event.text)


def event_from_proto(msg: common_pb2.Event) -> Event:
    """An event message as an engine event (as seen by its receiver)."""
    return Event(msg.seat if msg.HasField("seat") else None, msg.text)


# -- enums ---------------------------------------------------------------------------------


def status_to_proto(status: SeatStatus) -> common_pb2.SeatStatus:
    """A seat status as its ``SeatStatus`` enum value."""
    return _STATUS_TO_PB[status]


def status_from_proto(value: int) -> SeatStatus:
    """A ``SeatStatus`` enum value as the seat status."""
    try:
        return _STATUS_FROM_PB[value]
    except KeyError:
        raise CodecError(f"unknown seat status {value}") from None


def source_to_proto(source: ActionSource) -> record_pb2.ActionSource:
    """Who chose an action (an :data:`~referee.record.ActionSource`), as its
    ``ActionSource`` enum value."""
    return _SOURCE_TO_PB[source]


def source_from_proto(value: int) -> ActionSource:
    """An ``ActionSource`` enum value as who chose the action."""
    try:
        return _SOURCE_FROM_PB[value]
    except KeyError:
        raise CodecError(f"unknown action source {value}") from None


def match_status_to_proto(status: MatchStatus) -> common_pb2.MatchStatus:
    """How a match ended, as its ``MatchStatus`` enum value."""
    return _MATCH_STATUS_TO_PB[status]


def match_status_from_proto(value: int) -> MatchStatus:
    """A ``MatchStatus`` enum value as how the match ended."""
    try:
        return _MATCH_STATUS_FROM_PB[value]
    except KeyError:
        raise CodecError(f"unknown match status {value}") from None
