"""Views as protobuf and back: each game's view dataclass as its field of
``PlayerView`` (``proto/rummyarena/v1/views.proto``).

The Gin views are translated by hand; the other games' views map by field name.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.cards import Card, parse_card
from referee.games.flip_flop import FlipFlopView
from referee.games.gin_three import GinThreeView, Roles
from referee.games.gin_views import HandView, OutcomeView
from referee.games.hollywood_gin import HollywoodView
from referee.games.rummy500 import Rummy500View
from referee.wire.protobytes import field_hints
from referee.wire.values import CARD_TEXT, CodecError, cards_from, cards_text
from rummyarena.v1 import views_pb2


def _hand_to_proto(hand: HandView, out: views_pb2.GinHandView) -> None:
    out.player = hand.player
    out.opponent = hand.opponent
    out.dealer = hand.dealer
    out.phase = hand.phase
    out.hand.extend([CARD_TEXT[c] for c in hand.hand])
    out.opponent_hand_size = hand.opponent_hand_size
    out.opponent_known.extend([CARD_TEXT[c] for c in hand.opponent_known])
    out.discard_pile.extend([CARD_TEXT[c] for c in hand.discard_pile])
    out.stock_size = hand.stock_size
    if hand.taken_from_discard is not None:
        out.taken_from_discard = CARD_TEXT[hand.taken_from_discard]
    out.turns = hand.turns


def _hand_from_proto(msg: views_pb2.GinHandView) -> HandView:
    return HandView(
        player=msg.player,
        opponent=msg.opponent,
        dealer=msg.dealer,
        phase=msg.phase,
        hand=cards_from(msg.hand),
        opponent_hand_size=msg.opponent_hand_size,
        opponent_known=cards_from(msg.opponent_known),
        discard_pile=cards_from(msg.discard_pile),
        stock_size=msg.stock_size,
        taken_from_discard=parse_card(msg.taken_from_discard)
        if msg.HasField("taken_from_discard")
        else None,
        turns=msg.turns,
    )


def _outcome_to_proto(outcome: OutcomeView, out: views_pb2.GinOutcome) -> None:
    out.kind = outcome.kind
    if outcome.winner is not None:
        out.winner = outcome.winner
    out.points = outcome.points
    if outcome.knocker is not None:
        out.knocker = outcome.knocker
    for meld in outcome.knocker_melds:
        out.knocker_melds.add(cards=cards_text(meld))
    out.knocker_deadwood.extend(cards_text(outcome.knocker_deadwood))
    for meld in outcome.defender_melds:
        out.defender_melds.add(cards=cards_text(meld))
    out.defender_layoffs.extend(outcome.defender_layoffs)
    out.defender_deadwood.extend(cards_text(outcome.defender_deadwood))


def _outcome_from_proto(msg: views_pb2.GinOutcome) -> OutcomeView:
    return OutcomeView(
        kind=msg.kind,
        winner=msg.winner if msg.HasField("winner") else None,
        points=msg.points,
        knocker=msg.knocker if msg.HasField("knocker") else None,
        knocker_melds=tuple(cards_from(m.cards) for m in msg.knocker_melds),
        knocker_deadwood=cards_from(msg.knocker_deadwood),
        defender_melds=tuple(cards_from(m.cards) for m in msg.defender_melds),
        defender_layoffs=tuple(msg.defender_layoffs),
        defender_deadwood=cards_from(msg.defender_deadwood),
    )


def _hollywood_to_proto(view: HollywoodView, out: views_pb2.PlayerView) -> None:
    msg = out.hollywood_gin
    msg.seat = view.seat
    if view.to_act is not None:
        msg.to_act = view.to_act
    msg.hand_number = view.hand_number
    if view.hand is not None:
        _hand_to_proto(view.hand, msg.hand)
    for points, winner in zip(view.columns, view.column_winners, strict=True):
        column = msg.columns.add(points=points)
        if winner is not None:
            column.winner = winner
    msg.wins.extend(view.wins)
    if view.last_hand is not None:
        _outcome_to_proto(view.last_hand, msg.last_hand)


def _hollywood_from_proto(msg: views_pb2.HollywoodGinView, legal: tuple[str, ...]) -> HollywoodView:
    return HollywoodView(
        game="hollywood-gin",
        seat=msg.seat,
        to_act=msg.to_act if msg.HasField("to_act") else None,
        hand_number=msg.hand_number,
        hand=_hand_from_proto(msg.hand) if msg.HasField("hand") else None,
        columns=tuple((c.points[0], c.points[1]) for c in msg.columns),
        column_winners=tuple(c.winner if c.HasField("winner") else None for c in msg.columns),
        wins=(msg.wins[0], msg.wins[1]),
        last_hand=_outcome_from_proto(msg.last_hand) if msg.HasField("last_hand") else None,
        legal_actions=legal,
    )


def _gin_three_to_proto(view: GinThreeView, out: views_pb2.PlayerView) -> None:
    msg = out.gin_three
    msg.seat = view.seat
    if view.to_act is not None:
        msg.to_act = view.to_act
    msg.role = view.role
    roles = view.roles
    msg.roles.box, msg.roles.captain, msg.roles.sitter = roles.box, roles.captain, roles.sitter
    msg.scores.extend(view.scores)
    msg.hand_number = view.hand_number
    if view.hand is not None:
        _hand_to_proto(view.hand, msg.hand)
    if view.advising is not None:
        _hand_to_proto(view.advising, msg.advising)
    if view.advice is not None:
        msg.advice = view.advice
    if view.last_hand is not None:
        _outcome_to_proto(view.last_hand, msg.last_hand)


def _gin_three_from_proto(msg: views_pb2.GinThreeView, legal: tuple[str, ...]) -> GinThreeView:
    s = msg.scores
    return GinThreeView(
        game="gin-three",
        seat=msg.seat,
        to_act=msg.to_act if msg.HasField("to_act") else None,
        role=msg.role,
        roles=Roles(msg.roles.box, msg.roles.captain, msg.roles.sitter),
        scores=(s[0], s[1], s[2]),
        hand_number=msg.hand_number,
        hand=_hand_from_proto(msg.hand) if msg.HasField("hand") else None,
        advising=_hand_from_proto(msg.advising) if msg.HasField("advising") else None,
        advice=msg.advice if msg.HasField("advice") else None,
        last_hand=_outcome_from_proto(msg.last_hand) if msg.HasField("last_hand") else None,
        legal_actions=legal,
    )


# -- views mapped field by field -------------------------------------------------------------
#
# The Gin views above are translated by hand (they are the hot path of the
# benchmark). The other games' views map by field name: a dataclass field goes
# to the message field of the same name, cards become C2 strings, nested
# dataclasses submessages, None an unset optional; ``game`` and
# ``legal_actions`` are carried elsewhere in the Decision.


def dataclass_to_proto(value: Any, out: Any) -> None:
    """Fill message ``out`` from the fields of dataclass ``value`` of the same names."""
    fields = out.DESCRIPTOR.fields_by_name
    for f in dataclasses.fields(value):
        if f.name not in fields:
            continue
        v = getattr(value, f.name)
        if v is None:
            continue
        if isinstance(v, Card):
            setattr(out, f.name, CARD_TEXT[v])
        elif dataclasses.is_dataclass(v):
            dataclass_to_proto(v, getattr(out, f.name))
        elif isinstance(v, tuple):
            if not v:
                continue
            target = getattr(out, f.name)
            first = v[0]
            if dataclasses.is_dataclass(first):
                for item in v:
                    dataclass_to_proto(item, target.add())
            elif isinstance(first, Card):
                target.extend([CARD_TEXT[c] for c in v])
            elif isinstance(first, tuple):  # per-seat card lists
                for cards in v:
                    target.add().cards.extend([CARD_TEXT[c] for c in cards])
            else:
                target.extend(v)
        else:
            setattr(out, f.name, v)


def dataclass_from_proto(cls: type, msg: Any, extra: Mapping[str, Any]) -> Any:
    """The dataclass ``cls`` from message ``msg``; ``extra`` fills fields the message lacks."""
    hints = field_hints(cls)
    fields = msg.DESCRIPTOR.fields_by_name
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in fields:
            kwargs[f.name] = extra.get(f.name)
            continue
        hint = hints[f.name]
        args = typing.get_args(hint)
        optional = type(None) in args
        if optional and not msg.HasField(f.name):
            kwargs[f.name] = None
            continue
        if optional:
            hint = next(a for a in args if a is not type(None))
        kwargs[f.name] = _decode_value(hint, getattr(msg, f.name))
    return cls(**kwargs)


def _decode_value(hint: Any, value: Any) -> Any:
    if hint is Card:
        return parse_card(value)
    if dataclasses.is_dataclass(hint):
        return dataclass_from_proto(hint, value, {})  # type: ignore[arg-type]
    if typing.get_origin(hint) is tuple:
        item = typing.get_args(hint)[0]
        if item is Card:
            return cards_from(value)
        if dataclasses.is_dataclass(item):
            return tuple(dataclass_from_proto(item, v, {}) for v in value)  # type: ignore[arg-type]
        if typing.get_origin(item) is tuple:  # per-seat card lists
            return tuple(cards_from(v.cards) for v in value)
        return tuple(value)
    return value


def _by_field(oneof: str) -> Callable[[Any, views_pb2.PlayerView], None]:
    def encode(view: Any, out: views_pb2.PlayerView) -> None:
        dataclass_to_proto(view, getattr(out, oneof))

    return encode


#: view dataclass -> the function that fills its field of PlayerView
_VIEW_ENCODERS: dict[type, Callable[[Any, views_pb2.PlayerView], None]] = {
    HollywoodView: _hollywood_to_proto,
    GinThreeView: _gin_three_to_proto,
}
#: PlayerView oneof field -> (game name, decoder)
_VIEW_DECODERS: dict[str, tuple[str, Callable[[Any, tuple[str, ...]], Any]]] = {
    "hollywood_gin": ("hollywood-gin", _hollywood_from_proto),
    "gin_three": ("gin-three", _gin_three_from_proto),
}
#: view dataclass -> its PlayerView field, for the views that map by field name
FIELD_MAPPED_VIEWS: dict[type, str] = {}


def _register_mapped(game: str, view_type: type, oneof: str) -> None:
    _VIEW_ENCODERS[view_type] = _by_field(oneof)
    FIELD_MAPPED_VIEWS[view_type] = oneof
    _VIEW_DECODERS[oneof] = (
        game,
        lambda msg, legal: dataclass_from_proto(
            view_type, msg, {"game": game, "legal_actions": legal}
        ),
    )


def _register_other_games() -> None:
    """The games whose views map to their messages field by field."""
    for game, view_type, oneof in (
        ("flip-flop", FlipFlopView, "flip_flop"),
        ("rummy-500", Rummy500View, "rummy_500"),
    ):
        _register_mapped(game, view_type, oneof)


_register_other_games()


def view_to_proto(view: Any, out: views_pb2.PlayerView | None = None) -> views_pb2.PlayerView:
    """A game's view dataclass as the PlayerView message of its game."""
    if out is None:
        out = views_pb2.PlayerView()
    try:
        encode = _VIEW_ENCODERS[type(view)]
    except KeyError:
        raise CodecError(f"no protobuf message for views of type {type(view).__name__}") from None
    encode(view, out)
    return out


def view_from_proto(msg: views_pb2.PlayerView, legal: Sequence[str] = ()) -> Any:
    """The game's view dataclass from a PlayerView message (``legal`` fills legal_actions)."""
    which = msg.WhichOneof("game")
    if which is None:
        raise CodecError("the view names no game")
    _, decode = _VIEW_DECODERS[which]
    return decode(getattr(msg, which), tuple(legal))


def view_game(msg: views_pb2.PlayerView) -> str | None:
    """The game name of a PlayerView message."""
    which = msg.WhichOneof("game")
    return None if which is None else _VIEW_DECODERS[which][0]


def advice_of(view: Any) -> str | None:
    """The advice a view carries for its seat (Gin for three, T3), if any."""
    advice = getattr(view, "advice", None)
    return advice if isinstance(advice, str) else None
