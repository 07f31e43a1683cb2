from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Meld(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class GinHandView(_message.Message):
    __slots__ = ("player", "opponent", "dealer", "phase", "hand", "opponent_hand_size", "opponent_known", "discard_pile", "stock_size", "taken_from_discard", "turns")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_KNOWN_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FROM_DISCARD_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    player: int
    opponent: int
    dealer: int
    phase: str
    hand: _containers.RepeatedScalarFieldContainer[str]
    opponent_hand_size: int
    opponent_known: _containers.RepeatedScalarFieldContainer[str]
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    stock_size: int
    taken_from_discard: str
    turns: int
    def __init__(self, player: _Optional[int] = ..., opponent: _Optional[int] = ..., dealer: _Optional[int] = ..., phase: _Optional[str] = ..., hand: _Optional[_Iterable[str]] = ..., opponent_hand_size: _Optional[int] = ..., opponent_known: _Optional[_Iterable[str]] = ..., discard_pile: _Optional[_Iterable[str]] = ..., stock_size: _Optional[int] = ..., taken_from_discard: _Optional[str] = ..., turns: _Optional[int] = ...) -> None: ...

class GinOutcome(_message.Message):
    __slots__ = ("kind", "winner", "points", "knocker", "knocker_melds", "knocker_deadwood", "defender_melds", "defender_layoffs", "defender_deadwood")
    KIND_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_MELDS_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_MELDS_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    kind: str
    winner: int
    points: int
    knocker: int
    knocker_melds: _containers.RepeatedCompositeFieldContainer[Meld]
    knocker_deadwood: _containers.RepeatedScalarFieldContainer[str]
    defender_melds: _containers.RepeatedCompositeFieldContainer[Meld]
    defender_layoffs: _containers.RepeatedScalarFieldContainer[str]
    defender_deadwood: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, kind: _Optional[str] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ..., knocker: _Optional[int] = ..., knocker_melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., knocker_deadwood: _Optional[_Iterable[str]] = ..., defender_melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., defender_layoffs: _Optional[_Iterable[str]] = ..., defender_deadwood: _Optional[_Iterable[str]] = ...) -> None: ...

class GinColumn(_message.Message):
    __slots__ = ("points", "winner")
    POINTS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    def __init__(self, points: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ...) -> None: ...

class HollywoodGinView(_message.Message):
    __slots__ = ("seat", "to_act", "hand_number", "hand", "columns", "wins", "last_hand")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    hand_number: int
    hand: GinHandView
    columns: _containers.RepeatedCompositeFieldContainer[GinColumn]
    wins: _containers.RepeatedScalarFieldContainer[int]
    last_hand: GinOutcome
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., hand_number: _Optional[int] = ..., hand: _Optional[_Union[GinHandView, _Mapping]] = ..., columns: _Optional[_Iterable[_Union[GinColumn, _Mapping]]] = ..., wins: _Optional[_Iterable[int]] = ..., last_hand: _Optional[_Union[GinOutcome, _Mapping]] = ...) -> None: ...

class GinThreeRoles(_message.Message):
    __slots__ = ("box", "captain", "sitter")
    BOX_FIELD_NUMBER: _ClassVar[int]
    CAPTAIN_FIELD_NUMBER: _ClassVar[int]
    SITTER_FIELD_NUMBER: _ClassVar[int]
    box: int
    captain: int
    sitter: int
    def __init__(self, box: _Optional[int] = ..., captain: _Optional[int] = ..., sitter: _Optional[int] = ...) -> None: ...

class GinThreeView(_message.Message):
    __slots__ = ("seat", "to_act", "role", "roles", "scores", "hand_number", "hand", "advising", "advice", "last_hand")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    ADVISING_FIELD_NUMBER: _ClassVar[int]
    ADVICE_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    role: str
    roles: GinThreeRoles
    scores: _containers.RepeatedScalarFieldContainer[int]
    hand_number: int
    hand: GinHandView
    advising: GinHandView
    advice: str
    last_hand: GinOutcome
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., role: _Optional[str] = ..., roles: _Optional[_Union[GinThreeRoles, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., hand_number: _Optional[int] = ..., hand: _Optional[_Union[GinHandView, _Mapping]] = ..., advising: _Optional[_Union[GinHandView, _Mapping]] = ..., advice: _Optional[str] = ..., last_hand: _Optional[_Union[GinOutcome, _Mapping]] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("hollywood_gin", "gin_three")
    HOLLYWOOD_GIN_FIELD_NUMBER: _ClassVar[int]
    GIN_THREE_FIELD_NUMBER: _ClassVar[int]
    hollywood_gin: HollywoodGinView
    gin_three: GinThreeView
    def __init__(self, hollywood_gin: _Optional[_Union[HollywoodGinView, _Mapping]] = ..., gin_three: _Optional[_Union[GinThreeView, _Mapping]] = ...) -> None: ...
