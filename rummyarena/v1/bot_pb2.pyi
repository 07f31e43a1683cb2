from rummyarena.v1 import common_pb2 as _common_pb2
from rummyarena.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NoticeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NOTICE_KIND_UNSPECIFIED: _ClassVar[NoticeKind]
    NOTICE_KIND_TIMEOUT: _ClassVar[NoticeKind]
    NOTICE_KIND_INVALID: _ClassVar[NoticeKind]
    NOTICE_KIND_CRASHED: _ClassVar[NoticeKind]
    NOTICE_KIND_FORFEITED: _ClassVar[NoticeKind]
NOTICE_KIND_UNSPECIFIED: NoticeKind
NOTICE_KIND_TIMEOUT: NoticeKind
NOTICE_KIND_INVALID: NoticeKind
NOTICE_KIND_CRASHED: NoticeKind
NOTICE_KIND_FORFEITED: NoticeKind

class ServeRequest(_message.Message):
    __slots__ = ("key", "agent", "api_key", "bot", "game")
    KEY_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    key: str
    agent: str
    api_key: str
    bot: str
    game: str
    def __init__(self, key: _Optional[str] = ..., agent: _Optional[str] = ..., api_key: _Optional[str] = ..., bot: _Optional[str] = ..., game: _Optional[str] = ...) -> None: ...

class Assignment(_message.Message):
    __slots__ = ("match_id", "game", "seat", "token", "seat_name", "heartbeat")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAME_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat: int
    token: str
    seat_name: str
    heartbeat: bool
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., token: _Optional[str] = ..., seat_name: _Optional[str] = ..., heartbeat: _Optional[bool] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("join", "answer", "error")
    JOIN_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    join: Join
    answer: Answer
    error: BotError
    def __init__(self, join: _Optional[_Union[Join, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ..., error: _Optional[_Union[BotError, _Mapping]] = ...) -> None: ...

class Join(_message.Message):
    __slots__ = ("token", "agent")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    token: str
    agent: str
    def __init__(self, token: _Optional[str] = ..., agent: _Optional[str] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("decision_id", "index", "text")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    index: int
    text: str
    def __init__(self, decision_id: _Optional[int] = ..., index: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class BotError(_message.Message):
    __slots__ = ("decision_id", "message")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    message: str
    def __init__(self, decision_id: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "decision", "notice", "match_end")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    decision: Decision
    notice: Notice
    match_end: MatchEnd
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("match_id", "game", "options", "seats", "your_seat", "clock")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.OptionValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.OptionValue, _Mapping]] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    YOUR_SEAT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    options: _containers.MessageMap[str, _common_pb2.OptionValue]
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    your_seat: int
    clock: _common_pb2.ClockRules
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., options: _Optional[_Mapping[str, _common_pb2.OptionValue]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., your_seat: _Optional[int] = ..., clock: _Optional[_Union[_common_pb2.ClockRules, _Mapping]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("decision_ms", "bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "view", "legal_actions", "advice", "events", "clock")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ADVICE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    view: _views_pb2.PlayerView
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    advice: str
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.Event]
    clock: Clock
    def __init__(self, decision_id: _Optional[int] = ..., view: _Optional[_Union[_views_pb2.PlayerView, _Mapping]] = ..., legal_actions: _Optional[_Iterable[str]] = ..., advice: _Optional[str] = ..., events: _Optional[_Iterable[_Union[_common_pb2.Event, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("decision_id", "kind", "message", "played", "strikes")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    kind: NoticeKind
    message: str
    played: str
    strikes: int
    def __init__(self, decision_id: _Optional[int] = ..., kind: _Optional[_Union[NoticeKind, str]] = ..., message: _Optional[str] = ..., played: _Optional[str] = ..., strikes: _Optional[int] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("result", "events")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    result: _common_pb2.MatchResult
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.Event]
    def __init__(self, result: _Optional[_Union[_common_pb2.MatchResult, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_common_pb2.Event, _Mapping]]] = ...) -> None: ...
