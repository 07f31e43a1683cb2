"""Views as protobuf and back: each game's view dataclass as its field of
``PlayerView`` (``proto/rummyarena/v1/views.proto``), field by field by name.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.cards import Card, parse_card
from referee.games.flip_flop import FlipFlopView
from referee.games.gin_three import GinThreeView
from referee.games.hollywood_gin import HollywoodView
from referee.games.rummy500 import Rummy500View
from referee.wire.protobytes import field_hints
from referee.wire.values import CARD_TEXT, CodecError, cards_from
from rummyarena.v1 import views_pb2

# Every game's view maps to its message by field name: a dataclass field goes to
# the message field of the same name, cards become C2 strings, nested dataclasses
# submessages, None an unset optional; ``game`` and ``legal_actions`` are carried
# elsewhere in the Decision. The bytes writer compiled from the same walk is
# :func:`referee.wire.protobytes.compiled_writer`.


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
_VIEW_ENCODERS: dict[type, Callable[[Any, views_pb2.PlayerView], None]] = {}
#: PlayerView oneof field -> (game name, decoder)
_VIEW_DECODERS: dict[str, tuple[str, Callable[[Any, tuple[str, ...]], Any]]] = {}
#: view dataclass -> its PlayerView field
VIEW_FIELDS: dict[type, str] = {}


def _register_mapped(game: str, view_type: type, oneof: str) -> None:
    _VIEW_ENCODERS[view_type] = _by_field(oneof)
    VIEW_FIELDS[view_type] = oneof
    _VIEW_DECODERS[oneof] = (
        game,
        lambda msg, legal: dataclass_from_proto(
            view_type, msg, {"game": game, "legal_actions": legal}
        ),
    )


def _register_games() -> None:
    for game, view_type, oneof in (
        ("hollywood-gin", HollywoodView, "hollywood_gin"),
        ("gin-three", GinThreeView, "gin_three"),
        ("flip-flop", FlipFlopView, "flip_flop"),
        ("rummy-500", Rummy500View, "rummy_500"),
    ):
        _register_mapped(game, view_type, oneof)


_register_games()


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
