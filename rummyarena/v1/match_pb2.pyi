from rummyarena.v1 import common_pb2 as _common_pb2
from rummyarena.v1 import record_pb2 as _record_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATE_UNSPECIFIED: _ClassVar[MatchState]
    MATCH_STATE_WAITING: _ClassVar[MatchState]
    MATCH_STATE_RUNNING: _ClassVar[MatchState]
    MATCH_STATE_FINISHED: _ClassVar[MatchState]
MATCH_STATE_UNSPECIFIED: MatchState
MATCH_STATE_WAITING: MatchState
MATCH_STATE_RUNNING: MatchState
MATCH_STATE_FINISHED: MatchState

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "options", "seed", "seat_names", "clock", "match_id", "seat_sessions", "seat_faults", "deal")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.OptionValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.OptionValue, _Mapping]] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FAULTS_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    game: str
    options: _containers.MessageMap[str, _common_pb2.OptionValue]
    seed: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    clock: _common_pb2.ClockRules
    match_id: str
    seat_sessions: _containers.RepeatedScalarFieldContainer[str]
    seat_faults: _containers.RepeatedScalarFieldContainer[str]
    deal: str
    def __init__(self, game: _Optional[str] = ..., options: _Optional[_Mapping[str, _common_pb2.OptionValue]] = ..., seed: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., clock: _Optional[_Union[_common_pb2.ClockRules, _Mapping]] = ..., match_id: _Optional[str] = ..., seat_sessions: _Optional[_Iterable[str]] = ..., seat_faults: _Optional[_Iterable[str]] = ..., deal: _Optional[str] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "tokens")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    tokens: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., tokens: _Optional[_Iterable[str]] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class MatchUpdate(_message.Message):
    __slots__ = ("event", "result")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    event: _common_pb2.Event
    result: _common_pb2.MatchResult
    def __init__(self, event: _Optional[_Union[_common_pb2.Event, _Mapping]] = ..., result: _Optional[_Union[_common_pb2.MatchResult, _Mapping]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id", "wait", "record_bytes", "release")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    RECORD_BYTES_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    wait: bool
    record_bytes: bool
    release: bool
    def __init__(self, match_id: _Optional[str] = ..., wait: _Optional[bool] = ..., record_bytes: _Optional[bool] = ..., release: _Optional[bool] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match_id", "state", "result", "record", "record_data")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    RECORD_DATA_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    state: MatchState
    result: _common_pb2.MatchResult
    record: _record_pb2.MatchRecord
    record_data: bytes
    def __init__(self, match_id: _Optional[str] = ..., state: _Optional[_Union[MatchState, str]] = ..., result: _Optional[_Union[_common_pb2.MatchResult, _Mapping]] = ..., record: _Optional[_Union[_record_pb2.MatchRecord, _Mapping]] = ..., record_data: _Optional[bytes] = ...) -> None: ...

class ReleaseMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class ReleaseMatchResponse(_message.Message):
    __slots__ = ("released",)
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    released: bool
    def __init__(self, released: _Optional[bool] = ...) -> None: ...

class OpenSessionRequest(_message.Message):
    __slots__ = ("name", "socket")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOCKET_FIELD_NUMBER: _ClassVar[int]
    name: str
    socket: str
    def __init__(self, name: _Optional[str] = ..., socket: _Optional[str] = ...) -> None: ...

class OpenSessionResponse(_message.Message):
    __slots__ = ("session_id", "key")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    key: str
    def __init__(self, session_id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class CloseSessionRequest(_message.Message):
    __slots__ = ("session_id", "reason")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    reason: str
    def __init__(self, session_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CloseSessionResponse(_message.Message):
    __slots__ = ("closed",)
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    closed: bool
    def __init__(self, closed: _Optional[bool] = ...) -> None: ...

class WatchRemoteRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RemoteEvent(_message.Message):
    __slots__ = ("connection_id", "arrived", "left")
    CONNECTION_ID_FIELD_NUMBER: _ClassVar[int]
    ARRIVED_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    connection_id: str
    arrived: RemoteArrival
    left: RemoteDeparture
    def __init__(self, connection_id: _Optional[str] = ..., arrived: _Optional[_Union[RemoteArrival, _Mapping]] = ..., left: _Optional[_Union[RemoteDeparture, _Mapping]] = ...) -> None: ...

class RemoteArrival(_message.Message):
    __slots__ = ("api_key", "bot", "game", "agent", "peer")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    PEER_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    bot: str
    game: str
    agent: str
    peer: str
    def __init__(self, api_key: _Optional[str] = ..., bot: _Optional[str] = ..., game: _Optional[str] = ..., agent: _Optional[str] = ..., peer: _Optional[str] = ...) -> None: ...

class RemoteDeparture(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class AdmitRemoteRequest(_message.Message):
    __slots__ = ("connection_id", "session_id", "refusal", "code")
    CONNECTION_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    connection_id: str
    session_id: str
    refusal: str
    code: str
    def __init__(self, connection_id: _Optional[str] = ..., session_id: _Optional[str] = ..., refusal: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class AdmitRemoteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
