from rummyarena.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActionSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_SOURCE_BOT: _ClassVar[ActionSource]
    ACTION_SOURCE_TIMEOUT: _ClassVar[ActionSource]
    ACTION_SOURCE_INVALID: _ClassVar[ActionSource]
    ACTION_SOURCE_CRASHED: _ClassVar[ActionSource]
    ACTION_SOURCE_FORFEITED: _ClassVar[ActionSource]
    ACTION_SOURCE_FORCED: _ClassVar[ActionSource]
ACTION_SOURCE_BOT: ActionSource
ACTION_SOURCE_TIMEOUT: ActionSource
ACTION_SOURCE_INVALID: ActionSource
ACTION_SOURCE_CRASHED: ActionSource
ACTION_SOURCE_FORFEITED: ActionSource
ACTION_SOURCE_FORCED: ActionSource

class ActionRecord(_message.Message):
    __slots__ = ("seat", "text", "think_us", "source")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    THINK_US_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    text: str
    think_us: int
    source: ActionSource
    def __init__(self, seat: _Optional[int] = ..., text: _Optional[str] = ..., think_us: _Optional[int] = ..., source: _Optional[_Union[ActionSource, str]] = ...) -> None: ...

class SeatRecord(_message.Message):
    __slots__ = ("name", "status", "strikes", "forfeited")
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    name: str
    status: _common_pb2.SeatStatus
    strikes: int
    forfeited: bool
    def __init__(self, name: _Optional[str] = ..., status: _Optional[_Union[_common_pb2.SeatStatus, str]] = ..., strikes: _Optional[int] = ..., forfeited: _Optional[bool] = ...) -> None: ...

class MatchRecord(_message.Message):
    __slots__ = ("format_version", "match_id", "game", "options", "seed", "seats", "actions", "result", "clock", "started_unix_ms", "action_index", "think_us", "sources", "deal")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.OptionValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.OptionValue, _Mapping]] = ...) -> None: ...
    FORMAT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    STARTED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    THINK_US_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    format_version: int
    match_id: str
    game: str
    options: _containers.MessageMap[str, _common_pb2.OptionValue]
    seed: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatRecord]
    actions: _containers.RepeatedCompositeFieldContainer[ActionRecord]
    result: _common_pb2.MatchResult
    clock: _common_pb2.ClockRules
    started_unix_ms: int
    action_index: _containers.RepeatedScalarFieldContainer[int]
    think_us: _containers.RepeatedScalarFieldContainer[int]
    sources: _containers.RepeatedCompositeFieldContainer[SourceMark]
    deal: str
    def __init__(self, format_version: _Optional[int] = ..., match_id: _Optional[str] = ..., game: _Optional[str] = ..., options: _Optional[_Mapping[str, _common_pb2.OptionValue]] = ..., seed: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatRecord, _Mapping]]] = ..., actions: _Optional[_Iterable[_Union[ActionRecord, _Mapping]]] = ..., result: _Optional[_Union[_common_pb2.MatchResult, _Mapping]] = ..., clock: _Optional[_Union[_common_pb2.ClockRules, _Mapping]] = ..., started_unix_ms: _Optional[int] = ..., action_index: _Optional[_Iterable[int]] = ..., think_us: _Optional[_Iterable[int]] = ..., sources: _Optional[_Iterable[_Union[SourceMark, _Mapping]]] = ..., deal: _Optional[str] = ...) -> None: ...

class SourceMark(_message.Message):
    __slots__ = ("action", "source")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    action: int
    source: ActionSource
    def __init__(self, action: _Optional[int] = ..., source: _Optional[_Union[ActionSource, str]] = ...) -> None: ...
