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

class FlipFlopPlayer(_message.Message):
    __slots__ = ("seat", "bankroll", "set_aside", "eligible", "in_round", "eliminated_in_round", "hand_size", "face_up", "declared")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BANKROLL_FIELD_NUMBER: _ClassVar[int]
    SET_ASIDE_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_FIELD_NUMBER: _ClassVar[int]
    IN_ROUND_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_IN_ROUND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bankroll: int
    set_aside: int
    eligible: _containers.RepeatedScalarFieldContainer[str]
    in_round: bool
    eliminated_in_round: int
    hand_size: int
    face_up: _containers.RepeatedScalarFieldContainer[str]
    declared: int
    def __init__(self, seat: _Optional[int] = ..., bankroll: _Optional[int] = ..., set_aside: _Optional[int] = ..., eligible: _Optional[_Iterable[str]] = ..., in_round: _Optional[bool] = ..., eliminated_in_round: _Optional[int] = ..., hand_size: _Optional[int] = ..., face_up: _Optional[_Iterable[str]] = ..., declared: _Optional[int] = ...) -> None: ...

class FlipFlopReveal(_message.Message):
    __slots__ = ("seat", "pot", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    pot: str
    card: str
    def __init__(self, seat: _Optional[int] = ..., pot: _Optional[str] = ..., card: _Optional[str] = ...) -> None: ...

class FlipFlopSpread(_message.Message):
    __slots__ = ("number", "owner", "cards")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    number: int
    owner: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, number: _Optional[int] = ..., owner: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class FlipFlopShownHand(_message.Message):
    __slots__ = ("seat", "cards", "value")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    value: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., value: _Optional[int] = ...) -> None: ...

class FlipFlopRound(_message.Message):
    __slots__ = ("round", "ending", "seat", "shown", "spreads", "discard_pile", "game_winners", "game_share", "set_asides_paid", "flip_winner", "flip_card", "flip_won", "flop_winner", "flop_card", "flop_won", "eliminated")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ENDING_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    SPREADS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    GAME_WINNERS_FIELD_NUMBER: _ClassVar[int]
    GAME_SHARE_FIELD_NUMBER: _ClassVar[int]
    SET_ASIDES_PAID_FIELD_NUMBER: _ClassVar[int]
    FLIP_WINNER_FIELD_NUMBER: _ClassVar[int]
    FLIP_CARD_FIELD_NUMBER: _ClassVar[int]
    FLIP_WON_FIELD_NUMBER: _ClassVar[int]
    FLOP_WINNER_FIELD_NUMBER: _ClassVar[int]
    FLOP_CARD_FIELD_NUMBER: _ClassVar[int]
    FLOP_WON_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    round: int
    ending: str
    seat: int
    shown: _containers.RepeatedCompositeFieldContainer[FlipFlopShownHand]
    spreads: _containers.RepeatedCompositeFieldContainer[FlipFlopSpread]
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    game_winners: _containers.RepeatedScalarFieldContainer[int]
    game_share: int
    set_asides_paid: _containers.RepeatedScalarFieldContainer[int]
    flip_winner: int
    flip_card: str
    flip_won: int
    flop_winner: int
    flop_card: str
    flop_won: int
    eliminated: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., ending: _Optional[str] = ..., seat: _Optional[int] = ..., shown: _Optional[_Iterable[_Union[FlipFlopShownHand, _Mapping]]] = ..., spreads: _Optional[_Iterable[_Union[FlipFlopSpread, _Mapping]]] = ..., discard_pile: _Optional[_Iterable[str]] = ..., game_winners: _Optional[_Iterable[int]] = ..., game_share: _Optional[int] = ..., set_asides_paid: _Optional[_Iterable[int]] = ..., flip_winner: _Optional[int] = ..., flip_card: _Optional[str] = ..., flip_won: _Optional[int] = ..., flop_winner: _Optional[int] = ..., flop_card: _Optional[str] = ..., flop_won: _Optional[int] = ..., eliminated: _Optional[_Iterable[int]] = ...) -> None: ...

class FlipFlopView(_message.Message):
    __slots__ = ("seat", "to_act", "phase", "round", "dealer", "pots", "players", "hand", "flip_card", "flip_suit", "flop_suit", "reveals", "spreads", "discard_pile", "stock_size", "turns", "taken_from_discard", "last_round")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    POTS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    FLIP_CARD_FIELD_NUMBER: _ClassVar[int]
    FLIP_SUIT_FIELD_NUMBER: _ClassVar[int]
    FLOP_SUIT_FIELD_NUMBER: _ClassVar[int]
    REVEALS_FIELD_NUMBER: _ClassVar[int]
    SPREADS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FROM_DISCARD_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    phase: str
    round: int
    dealer: int
    pots: _containers.RepeatedScalarFieldContainer[int]
    players: _containers.RepeatedCompositeFieldContainer[FlipFlopPlayer]
    hand: _containers.RepeatedScalarFieldContainer[str]
    flip_card: str
    flip_suit: str
    flop_suit: str
    reveals: _containers.RepeatedCompositeFieldContainer[FlipFlopReveal]
    spreads: _containers.RepeatedCompositeFieldContainer[FlipFlopSpread]
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    stock_size: int
    turns: int
    taken_from_discard: str
    last_round: FlipFlopRound
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., phase: _Optional[str] = ..., round: _Optional[int] = ..., dealer: _Optional[int] = ..., pots: _Optional[_Iterable[int]] = ..., players: _Optional[_Iterable[_Union[FlipFlopPlayer, _Mapping]]] = ..., hand: _Optional[_Iterable[str]] = ..., flip_card: _Optional[str] = ..., flip_suit: _Optional[str] = ..., flop_suit: _Optional[str] = ..., reveals: _Optional[_Iterable[_Union[FlipFlopReveal, _Mapping]]] = ..., spreads: _Optional[_Iterable[_Union[FlipFlopSpread, _Mapping]]] = ..., discard_pile: _Optional[_Iterable[str]] = ..., stock_size: _Optional[int] = ..., turns: _Optional[int] = ..., taken_from_discard: _Optional[str] = ..., last_round: _Optional[_Union[FlipFlopRound, _Mapping]] = ...) -> None: ...

class Cards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Rummy500Placed(_message.Message):
    __slots__ = ("card", "stands_for", "seat")
    CARD_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    card: str
    stands_for: str
    seat: int
    def __init__(self, card: _Optional[str] = ..., stands_for: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class Rummy500Meld(_message.Message):
    __slots__ = ("number", "kind", "cards")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    number: int
    kind: str
    cards: _containers.RepeatedCompositeFieldContainer[Rummy500Placed]
    def __init__(self, number: _Optional[int] = ..., kind: _Optional[str] = ..., cards: _Optional[_Iterable[_Union[Rummy500Placed, _Mapping]]] = ...) -> None: ...

class Rummy500Hand(_message.Message):
    __slots__ = ("number", "dealer", "phase", "turn", "hand", "hand_sizes", "known", "melds", "discard_pile", "stock_size", "melded_points", "floating", "must_meld", "must_meld_now", "may_not_discard", "rummy_calls", "turns")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    KNOWN_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    MELDED_POINTS_FIELD_NUMBER: _ClassVar[int]
    FLOATING_FIELD_NUMBER: _ClassVar[int]
    MUST_MELD_FIELD_NUMBER: _ClassVar[int]
    MUST_MELD_NOW_FIELD_NUMBER: _ClassVar[int]
    MAY_NOT_DISCARD_FIELD_NUMBER: _ClassVar[int]
    RUMMY_CALLS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    number: int
    dealer: int
    phase: str
    turn: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    known: _containers.RepeatedCompositeFieldContainer[Cards]
    melds: _containers.RepeatedCompositeFieldContainer[Rummy500Meld]
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    stock_size: int
    melded_points: _containers.RepeatedScalarFieldContainer[int]
    floating: _containers.RepeatedScalarFieldContainer[bool]
    must_meld: str
    must_meld_now: bool
    may_not_discard: str
    rummy_calls: _containers.RepeatedScalarFieldContainer[str]
    turns: int
    def __init__(self, number: _Optional[int] = ..., dealer: _Optional[int] = ..., phase: _Optional[str] = ..., turn: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., known: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., melds: _Optional[_Iterable[_Union[Rummy500Meld, _Mapping]]] = ..., discard_pile: _Optional[_Iterable[str]] = ..., stock_size: _Optional[int] = ..., melded_points: _Optional[_Iterable[int]] = ..., floating: _Optional[_Iterable[bool]] = ..., must_meld: _Optional[str] = ..., must_meld_now: _Optional[bool] = ..., may_not_discard: _Optional[str] = ..., rummy_calls: _Optional[_Iterable[str]] = ..., turns: _Optional[int] = ...) -> None: ...

class Rummy500Outcome(_message.Message):
    __slots__ = ("number", "reason", "went_out", "melded_points", "left_in_hand", "left_points", "hand_scores")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WENT_OUT_FIELD_NUMBER: _ClassVar[int]
    MELDED_POINTS_FIELD_NUMBER: _ClassVar[int]
    LEFT_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    LEFT_POINTS_FIELD_NUMBER: _ClassVar[int]
    HAND_SCORES_FIELD_NUMBER: _ClassVar[int]
    number: int
    reason: str
    went_out: int
    melded_points: _containers.RepeatedScalarFieldContainer[int]
    left_in_hand: _containers.RepeatedCompositeFieldContainer[Cards]
    left_points: _containers.RepeatedScalarFieldContainer[int]
    hand_scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, number: _Optional[int] = ..., reason: _Optional[str] = ..., went_out: _Optional[int] = ..., melded_points: _Optional[_Iterable[int]] = ..., left_in_hand: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., left_points: _Optional[_Iterable[int]] = ..., hand_scores: _Optional[_Iterable[int]] = ...) -> None: ...

class Rummy500View(_message.Message):
    __slots__ = ("seat", "to_act", "scores", "hands_played", "hand", "last_hand")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_act: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    hands_played: int
    hand: Rummy500Hand
    last_hand: Rummy500Outcome
    def __init__(self, seat: _Optional[int] = ..., to_act: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., hands_played: _Optional[int] = ..., hand: _Optional[_Union[Rummy500Hand, _Mapping]] = ..., last_hand: _Optional[_Union[Rummy500Outcome, _Mapping]] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("hollywood_gin", "gin_three", "rummy_500", "flip_flop")
    HOLLYWOOD_GIN_FIELD_NUMBER: _ClassVar[int]
    GIN_THREE_FIELD_NUMBER: _ClassVar[int]
    RUMMY_500_FIELD_NUMBER: _ClassVar[int]
    FLIP_FLOP_FIELD_NUMBER: _ClassVar[int]
    hollywood_gin: HollywoodGinView
    gin_three: GinThreeView
    rummy_500: Rummy500View
    flip_flop: FlipFlopView
    def __init__(self, hollywood_gin: _Optional[_Union[HollywoodGinView, _Mapping]] = ..., gin_three: _Optional[_Union[GinThreeView, _Mapping]] = ..., rummy_500: _Optional[_Union[Rummy500View, _Mapping]] = ..., flip_flop: _Optional[_Union[FlipFlopView, _Mapping]] = ...) -> None: ...
