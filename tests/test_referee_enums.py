"""The values of the .proto's enums on our side (docs/architecture.md, decision 16): each is
its enum value's name, lowercase, without the enum's prefix, so the strings a record,
the store and JSON hold are the contract's own. Every value of an enum (UNSPECIFIED
aside) maps to ours and back, and we name no value the enum lacks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

import pytest

from referee import wire
from referee.record import MATCH_STATUSES, SOURCES, STATUSES
from referee.seats import Fault
from referee.wire import CodecError, NoticeKind
from rummyarena.v1 import bot_pb2, common_pb2, record_pb2

ENUMS: list[tuple[Any, str, tuple[str, ...], Callable[[Any], int], Callable[[int], str]]] = [
    (common_pb2.SeatStatus, "SEAT_STATUS_", STATUSES, wire.status_to_proto, wire.status_from_proto),
    (
        record_pb2.ActionSource,
        "ACTION_SOURCE_",
        SOURCES,
        wire.source_to_proto,
        wire.source_from_proto,
    ),
    (
        common_pb2.MatchStatus,
        "MATCH_STATUS_",
        MATCH_STATUSES,
        wire.match_status_to_proto,
        wire.match_status_from_proto,
    ),
]


def _names(enum: Any, prefix: str) -> dict[int, str]:
    """Each value of a protobuf enum but UNSPECIFIED, by number: its name, lowercase,
    without the prefix."""
    return {
        v.number: v.name.removeprefix(prefix).lower()
        for v in enum.DESCRIPTOR.values
        if not v.name.endswith("_UNSPECIFIED")
    }


@pytest.mark.parametrize(
    ("enum", "prefix", "ours", "to_proto", "from_proto"),
    ENUMS,
    ids=[e[0].DESCRIPTOR.name for e in ENUMS],
)
def test_every_enum_value_is_its_lowercase_name_and_back(
    enum: Any,
    prefix: str,
    ours: tuple[str, ...],
    to_proto: Callable[[Any], int],
    from_proto: Callable[[int], str],
) -> None:
    names = _names(enum, prefix)
    assert sorted(ours) == sorted(names.values())
    for number, name in names.items():
        assert from_proto(number) == name
        assert to_proto(name) == number
    for number in {v.number for v in enum.DESCRIPTOR.values} - names.keys() | {max(names) + 1}:
        with pytest.raises(CodecError):
            from_proto(number)


def test_notice_kinds_are_the_enums_lowercase_names() -> None:
    names = _names(bot_pb2.NoticeKind, "NOTICE_KIND_")
    assert {name: number for number, name in names.items()} == wire.NOTICE_KINDS
    assert set(wire.NOTICE_KINDS) == set(get_args(NoticeKind))


def test_a_fault_is_a_seat_status_an_action_source_and_a_notice_kind() -> None:
    """The runner gives a faulty answer's seat the fault as its status, records the
    default it plays as that source, and sends the fault as the notice's kind."""
    for fault in get_args(Fault):
        assert fault in STATUSES and fault in SOURCES and fault in wire.NOTICE_KINDS
