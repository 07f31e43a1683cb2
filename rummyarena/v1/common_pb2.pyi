from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SeatStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_STATUS_UNSPECIFIED: _ClassVar[SeatStatus]
    SEAT_STATUS_OK: _ClassVar[SeatStatus]
    SEAT_STATUS_TIMEOUT: _ClassVar[SeatStatus]
    SEAT_STATUS_INVALID: _ClassVar[SeatStatus]
    SEAT_STATUS_CRASHED: _ClassVar[SeatStatus]
    SEAT_STATUS_DISCONNECTED: _ClassVar[SeatStatus]

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_COMPLETED: _ClassVar[MatchStatus]
    MATCH_STATUS_ABORTED: _ClassVar[MatchStatus]
SEAT_STATUS_UNSPECIFIED: SeatStatus
SEAT_STATUS_OK: SeatStatus
SEAT_STATUS_TIMEOUT: SeatStatus
SEAT_STATUS_INVALID: SeatStatus
SEAT_STATUS_CRASHED: SeatStatus
SEAT_STATUS_DISCONNECTED: SeatStatus
MATCH_STATUS_COMPLETED: MatchStatus
MATCH_STATUS_ABORTED: MatchStatus

class OptionValue(_message.Message):
    __slots__ = ("int_value", "bool_value", "string_value")
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    int_value: int
    bool_value: bool
    string_value: str
    def __init__(self, int_value: _Optional[int] = ..., bool_value: _Optional[bool] = ..., string_value: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seat", "text")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    text: str
    def __init__(self, seat: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class ClockRules(_message.Message):
    __slots__ = ("decision_ms", "bank_ms", "strike_limit", "join_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    STRIKE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    JOIN_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    strike_limit: int
    join_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., strike_limit: _Optional[int] = ..., join_ms: _Optional[int] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "name", "rank", "score", "status", "strikes", "forfeited", "think_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    THINK_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    rank: int
    score: int
    status: SeatStatus
    strikes: int
    forfeited: bool
    think_ms: int
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., rank: _Optional[int] = ..., score: _Optional[int] = ..., status: _Optional[_Union[SeatStatus, str]] = ..., strikes: _Optional[int] = ..., forfeited: _Optional[bool] = ..., think_ms: _Optional[int] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("seats", "detail_json", "decisions", "status", "reason")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_JSON_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    detail_json: str
    decisions: int
    status: MatchStatus
    reason: str
    def __init__(self, seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., detail_json: _Optional[str] = ..., decisions: _Optional[int] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., reason: _Optional[str] = ...) -> None: ...
