"""The one translation between domain values and the protobuf messages of
``proto/rummyarena/v1`` (STYLE: the contract is the .proto).

Only this module, the service and the bot SDK import the generated code.
Cards travel as their C2 text, actions as their text form.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import typing
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from referee.actions import DISCARD_TEXTS
from referee.cards import CARD_BY_ID, Card, parse_card
from referee.clock import ClockRules
from referee.engine import EngineError, Event, Result
from referee.games.gin_hand import PHASE_ARRANGE, PHASE_DISCARD, GinHand
from referee.games.gin_three import GinThreeView, Roles
from referee.games.gin_views import HandView, OutcomeView
from referee.games.hollywood_gin import HollywoodGin, HollywoodView
from referee.record import (
    FORMAT_VERSION,
    MATCH_STATUSES,
    SOURCES,
    STATUSES,
    ActionEntry,
    MatchRecord,
    OptionScalar,
    SeatEntry,
    detail_json,
    new_state,
    replay,
)
from rummyarena.v1 import bot_pb2, common_pb2, record_pb2, views_pb2

#: C2 text of every card id, so encoding a hand is a list lookup per card.
CARD_TEXT: list[str] = [""] * 65
for _cid, _card in CARD_BY_ID.items():
    CARD_TEXT[_cid] = str(_card)

_STATUS_TO_PB = {name: i + 1 for i, name in enumerate(STATUSES)}  # 0 is UNSPECIFIED
_STATUS_FROM_PB = {v: k for k, v in _STATUS_TO_PB.items()}
_SOURCE_TO_PB = {name: i for i, name in enumerate(SOURCES)}  # 0 is the bot
_MATCH_STATUS_TO_PB = {
    "completed": common_pb2.MATCH_STATUS_COMPLETED,
    "aborted": common_pb2.MATCH_STATUS_ABORTED,
}
_MATCH_STATUS_FROM_PB: dict[int, str] = {v: k for k, v in _MATCH_STATUS_TO_PB.items()}
assert set(_MATCH_STATUS_TO_PB) == set(MATCH_STATUSES)
_SOURCE_FROM_PB = dict(enumerate(SOURCES))


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


# -- results and records -------------------------------------------------------------------


def status_to_proto(status: str) -> int:
    """A seat status name as the enum value."""
    return _STATUS_TO_PB[status]


def status_from_proto(value: int) -> str:
    """A seat status enum value as its name."""
    try:
        return _STATUS_FROM_PB[value]
    except KeyError:
        raise CodecError(f"unknown seat status {value}") from None


def result_to_proto(
    result: Result | None,
    seats: Sequence[SeatEntry],
    actions: Sequence[ActionEntry] = (),
    status: str = "completed",
    reason: str = "",
) -> common_pb2.MatchResult:
    """A match result with every seat's rank, score, status and thinking time."""
    think_us = [0] * len(seats)
    for entry in actions:
        think_us[entry.seat] += entry.think_us
    return result_message(result, seats, think_us, len(actions), status, reason)


def result_message(
    result: Result | None,
    seats: Sequence[SeatEntry],
    think_us: Sequence[int],
    decisions: int,
    status: str = "completed",
    reason: str = "",
) -> common_pb2.MatchResult:
    """A match result from each seat's total thinking time (microseconds) and the count
    of actions; an aborted match has no result and says why."""
    msg = common_pb2.MatchResult(decisions=decisions, status=_MATCH_STATUS_TO_PB[status])
    if status == "aborted":
        msg.reason = reason
        result = None
    if result is not None:
        msg.detail_json = detail_json(result.detail)
    for i, seat in enumerate(seats):
        msg.seats.add(
            seat=i,
            name=seat.name,
            rank=result.ranks[i] if result is not None else 0,
            score=result.scores[i] if result is not None else 0,
            status=_STATUS_TO_PB[seat.status],
            strikes=seat.strikes,
            forfeited=seat.forfeited,
            think_ms=think_us[i] // 1000,
        )
    return msg


def result_from_proto(msg: common_pb2.MatchResult) -> Result | None:
    """The engine result inside a result message (None when it has none)."""
    if not msg.detail_json:
        return None
    seats = sorted(msg.seats, key=lambda s: s.seat)
    try:
        detail = json.loads(msg.detail_json)
    except ValueError as exc:
        raise CodecError(f"result detail is not JSON: {exc}") from exc
    return Result(
        ranks=tuple(s.rank for s in seats),
        scores=tuple(s.score for s in seats),
        detail=detail,
    )


def record_to_proto(record: MatchRecord) -> record_pb2.MatchRecord:
    """A match record as a message (format 2: actions as legal-action indexes)."""
    think_us = [0] * len(record.seats)
    for entry in record.actions:
        think_us[entry.seat] += entry.think_us
    return compact_record_to_proto(
        record,
        action_indexes(record),
        [entry.think_us for entry in record.actions],
        {k: entry.source for k, entry in enumerate(record.actions) if entry.source != "bot"},
        think_us,
    )


def compact_record_to_proto(
    head: MatchRecord,
    action_index: Sequence[int],
    think_us: Sequence[int],
    sources: Mapping[int, str],
    seat_think_us: Sequence[int],
) -> record_pb2.MatchRecord:
    """A match record as a message from its compact parts, as the referee keeps them
    while a match runs: ``head`` for everything but the actions (its ``actions`` are not
    read), each action's legal-action index and time, the actions the bot did not choose
    (sparse), and each seat's total thinking time."""
    msg = record_pb2.MatchRecord(
        format_version=FORMAT_VERSION,
        match_id=head.match_id,
        game=head.game,
        seed=head.seed,
        clock=clock_to_proto(head.clock),
        started_unix_ms=head.started_unix_ms,
        result=result_message(
            head.result, head.seats, seat_think_us, len(action_index), head.status, head.reason
        ),
    )
    options_to_proto(head.options, msg.options)
    for seat in head.seats:
        msg.seats.add(
            name=seat.name,
            status=_STATUS_TO_PB[seat.status],
            strikes=seat.strikes,
            forfeited=seat.forfeited,
        )
    msg.action_index.extend(action_index)
    msg.think_us.extend(min(t, 0xFFFFFFFF) for t in think_us)
    for k in sorted(sources):
        msg.sources.add(action=k, source=_SOURCE_TO_PB[sources[k]])
    return msg


def action_indexes(record: MatchRecord) -> list[int]:
    """Each action's index in the legal actions of its decision: as recorded by the
    referee, or found by re-running the engine on the texts when not known."""
    if all(entry.index >= 0 for entry in record.actions):
        return [entry.index for entry in record.actions]
    try:
        state = new_state(record)
    except EngineError as exc:
        raise CodecError(f"cannot start the recorded match: {exc}") from exc
    out = []
    for k, entry in enumerate(record.actions):
        legal = state.legal_actions()
        try:
            action = state.parse_action(entry.text)
            index = legal.index(action)
        except (EngineError, ValueError):
            raise CodecError(
                f"action {k} ({entry.text!r}) is not legal at that point of the match"
            ) from None
        out.append(index)
        state.apply(action)
    return out


def record_from_proto(msg: record_pb2.MatchRecord) -> MatchRecord:
    """A match record from its message (format 1 or 2; format 2 re-runs the engine to
    name each action and its seat)."""
    if msg.format_version not in (1, FORMAT_VERSION):
        raise CodecError(
            f"record format version {msg.format_version}; this referee reads 1 and {FORMAT_VERSION}"
        )
    seats = tuple(
        SeatEntry(s.name, status_from_proto(s.status), s.strikes, s.forfeited) for s in msg.seats
    )
    n = len(seats)
    record = MatchRecord(
        game=msg.game,
        options=options_from_proto(msg.options),
        seed=msg.seed,
        seats=seats,
        actions=(),
        result=result_from_proto(msg.result) if msg.HasField("result") else None,
        match_id=msg.match_id,
        clock=clock_from_proto(msg.clock),
        started_unix_ms=msg.started_unix_ms,
        status=_match_status_from_proto(msg.result.status),
        reason=msg.result.reason,
    )
    actions = []
    if msg.format_version == 1:
        for i, a in enumerate(msg.actions):
            if a.seat >= n or a.source not in _SOURCE_FROM_PB:
                raise CodecError(
                    f"action {i} names seat {a.seat} or source {a.source} out of range"
                )
            actions.append(ActionEntry(a.seat, a.text, a.think_us, _SOURCE_FROM_PB[a.source]))
    else:
        actions = _replay_indexes(msg, record)
    return dataclasses.replace(record, actions=tuple(actions))


def _match_status_from_proto(value: int) -> str:
    try:
        return _MATCH_STATUS_FROM_PB[value]
    except KeyError:
        raise CodecError(f"unknown match status {value}") from None


def _replay_indexes(msg: record_pb2.MatchRecord, record: MatchRecord) -> list[ActionEntry]:
    """The actions of a format-2 record, named by re-running the engine."""
    count = len(msg.action_index)
    if len(msg.think_us) != count:
        raise CodecError(f"{count} actions but {len(msg.think_us)} timings")
    sources = {}
    for mark in msg.sources:
        if mark.action >= count or mark.source not in _SOURCE_FROM_PB:
            raise CodecError(f"source mark for action {mark.action} is out of range")
        sources[mark.action] = _SOURCE_FROM_PB[mark.source]
    try:
        state = new_state(record)
        return [
            ActionEntry(seat, str(action), msg.think_us[k], sources.get(k, "bot"), index)
            for k, ((seat, action), index) in enumerate(
                zip(replay(state, msg.action_index), msg.action_index, strict=True)
            )
        ]
    except EngineError as exc:
        raise CodecError(f"cannot re-run the recorded match: {exc}") from exc


def encode_record(record: MatchRecord) -> bytes:
    """A match record as bytes (deterministic: equal records give equal bytes)."""
    data: bytes = record_to_proto(record).SerializeToString(deterministic=True)
    return data


def decode_record(data: bytes) -> MatchRecord:
    """A match record from the bytes of :func:`encode_record`."""
    msg = record_pb2.MatchRecord()
    try:
        msg.ParseFromString(data)
    except Exception as exc:  # the runtime raises DecodeError or a RuntimeWarning-like error
        raise CodecError(f"not a match record: {exc}") from exc
    return record_from_proto(msg)


# -- views ---------------------------------------------------------------------------------


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
    hints = _hints(cls)
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


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls)
    return found


def _by_field(view_type: type, oneof: str) -> Callable[[Any, views_pb2.PlayerView], None]:
    def encode(view: Any, out: views_pb2.PlayerView) -> None:
        dataclass_to_proto(view, getattr(out, oneof))

    encode.oneof = oneof  # type: ignore[attr-defined]
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


def _register_mapped(game: str, view_type: type, oneof: str) -> None:
    _VIEW_ENCODERS[view_type] = _by_field(view_type, oneof)
    _VIEW_DECODERS[oneof] = (
        game,
        lambda msg, legal: dataclass_from_proto(
            view_type, msg, {"game": game, "legal_actions": legal}
        ),
    )


def _register_other_games() -> None:
    """The games whose views map by field name, when their engines are registered."""
    importlib.import_module("referee.games")
    for module_name, game, view_name, oneof in (
        ("flip_flop", "flip-flop", "FlipFlopView", "flip_flop"),
        ("rummy500", "rummy-500", "Rummy500View", "rummy_500"),
    ):
        # only games that referee.games registers (importing an engine registers it)
        module = sys.modules.get(f"referee.games.{module_name}")
        view_type = getattr(module, view_name, None)
        if isinstance(view_type, type) and oneof in views_pb2.PlayerView.DESCRIPTOR.fields_by_name:
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


# -- the bot protocol ----------------------------------------------------------------------


def decision_message(
    decision_id: int,
    view: Any,
    legal: Sequence[str],
    events: Iterable[Event],
    decision_ms: int,
    bank_ms: int,
) -> bot_pb2.RefereeMessage:
    """The one message of a decision (ARCHITECTURE decision 3)."""
    msg = bot_pb2.RefereeMessage()
    d = msg.decision
    d.decision_id = decision_id
    view_to_proto(view, d.view)
    d.legal_actions.extend(legal)
    advice = advice_of(view)
    if advice is not None:
        d.advice = advice
    add = d.events.add
    for e in events:
        if e.seat is None:
            add(text=e.text)
        else:
            add(seat=e.seat, text=e.text)
    d.clock.decision_ms = decision_ms
    d.clock.bank_ms = bank_ms
    return msg


# -- the decision message straight to wire bytes ---------------------------------------------
#
# The hot path of the referee: one message per decision. Instead of filling a
# RefereeMessage field by field and serialising it, the bytes are written
# directly in the canonical protobuf encoding (fields in number order, proto3
# defaults omitted), with the encoded card entries precomputed per field and the
# parts that rarely change (the last hand's showdown, the score columns) cached
# per match. ``decision_bytes(...) == decision_message(...).SerializeToString()``
# for every view (tests/test_referee_codec.py); views without a hand-written
# encoder go through :func:`view_to_proto`.


def _slow_varint(value: int) -> bytes:
    out = bytearray()
    while value > 127:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: The varints of 0 .. 2**14 - 1 (one and two bytes), looked up instead of computed.
_SMALL = 1 << 14
_VARINTS = [_slow_varint(i) for i in range(_SMALL)]


def _varint(value: int) -> bytes:
    """A varint; negative int32/int64 values as their 64-bit two's complement."""
    if 0 <= value < _SMALL:
        return _VARINTS[value]
    if value < 0:
        value += 1 << 64
    return _slow_varint(value)


def _delimited(tag: bytes, payload: bytes) -> bytes:
    n = len(payload)
    return tag + (_VARINTS[n] if n < _SMALL else _varint(n)) + payload


def _string(tag: bytes, text: str) -> bytes:
    return _delimited(tag, text.encode())


def _packed(tag: bytes, values: Iterable[int]) -> bytes:
    return _delimited(tag, b"".join([_varint(v) for v in values]))


_CARD_ENTRIES: dict[bytes, list[bytes]] = {}


def _card_entries(tag: bytes) -> list[bytes]:
    """The encoded entry of every card id in the string field of ``tag`` (made once)."""
    entries = _CARD_ENTRIES.get(tag)
    if entries is None:
        entries = _CARD_ENTRIES[tag] = [_string(tag, text) if text else b"" for text in CARD_TEXT]
    return entries


def _card_table(field: int) -> list[bytes]:
    """The encoded entry of every card id in string field ``field``."""
    return _card_entries(bytes(((field << 3) | 2,)))


_MELD_CARDS = _card_table(1)  # Meld.cards
_HAND_CARDS = _card_table(5)  # GinHandView.hand
_KNOWN_CARDS = _card_table(7)  # GinHandView.opponent_known
_PILE_CARDS = _card_table(8)  # GinHandView.discard_pile
_TAKEN_CARD = _card_table(10)  # GinHandView.taken_from_discard
_KNOCKER_DEADWOOD = _card_table(6)  # GinOutcome.knocker_deadwood
_DEFENDER_DEADWOOD = _card_table(9)  # GinOutcome.defender_deadwood
#: Encoded Decision.legal_actions entries by text (bounded: cleared when full).
_LEGAL: dict[str, bytes] = {}
_LEGAL_MAX = 20_000


def _uint(tag: bytes, value: int) -> bytes:
    """An implicit-presence varint field (omitted at zero)."""
    if not value:
        return b""
    return tag + (_VARINTS[value] if 0 < value < _SMALL else _varint(value))


#: GinHandView fields 1-4 (player, opponent, dealer, phase) by their values.
_HAND_HEADS: dict[tuple[int, int, int, str], bytes] = {}


def _hand_head(player: int, opponent: int, dealer: int, phase_text: str) -> bytes:
    key = (player, opponent, dealer, phase_text)
    head = _HAND_HEADS.get(key)
    if head is None:
        head = _HAND_HEADS[key] = (
            _uint(b"\x08", player)
            + _uint(b"\x10", opponent)
            + _uint(b"\x18", dealer)
            + (_string(b"\x22", phase_text) if phase_text else b"")
        )
    return head


def _hand_fields(
    player: int,
    opponent: int,
    dealer: int,
    phase_text: str,
    hand: Iterable[int],
    opponent_hand_size: int,
    opponent_known: Iterable[int],
    discard_pile: Iterable[int],
    stock_size: int,
    taken: int | None,
    turns: int,
) -> bytes:
    """A GinHandView message's bytes, field by field (the fields of ``HandView``)."""
    parts = [
        _hand_head(player, opponent, dealer, phase_text),
        *[_HAND_CARDS[c] for c in hand],
        _uint(b"\x30", opponent_hand_size),
        *[_KNOWN_CARDS[c] for c in opponent_known],
        *[_PILE_CARDS[c] for c in discard_pile],
        _uint(b"\x48", stock_size),
    ]
    if taken is not None:
        parts.append(_TAKEN_CARD[taken])
    parts.append(_uint(b"\x58", turns))
    return b"".join(parts)


def _hand_bytes(hand: HandView) -> bytes:
    return _hand_fields(
        hand.player,
        hand.opponent,
        hand.dealer,
        hand.phase,
        hand.hand,
        hand.opponent_hand_size,
        hand.opponent_known,
        hand.discard_pile,
        hand.stock_size,
        hand.taken_from_discard,
        hand.turns,
    )


class _SuitEntries(dict[int, bytes]):
    """The encoded entries of the cards of one suit, joined, for every 13-bit rank mask
    of that suit (card id ``16 * suit + rank``), made on first use: a hand's cards are
    four look-ups, in card id order, instead of one entry per card."""

    __slots__ = ("base", "entries")

    def __init__(self, entries: Sequence[bytes], suit: int) -> None:
        super().__init__()
        self.entries = entries
        self.base = 16 * suit

    def __missing__(self, ranks: int) -> bytes:
        base, entries = self.base, self.entries
        value = self[ranks] = b"".join([entries[base + r] for r in range(13) if ranks >> r & 1])
        return value


def _suit_tables(entries: Sequence[bytes]) -> tuple[_SuitEntries, ...]:
    return tuple(_SuitEntries(entries, suit) for suit in range(4))


_HAND_SUITS = _suit_tables(_HAND_CARDS)
_KNOWN_SUITS = _suit_tables(_KNOWN_CARDS)
#: Decision.legal_actions entries of the discards (``discard C``), by suit and ranks.
_DISCARD_SUITS = _suit_tables(
    [_string(b"\x1a", DISCARD_TEXTS[c]) if c in DISCARD_TEXTS else b"" for c in range(65)]
)
#: Encoded Decision.events entries by event (bounded: cleared when full). Only events
#: with short texts are kept: those recur (a draw, a discard, a column won), while the
#: long ones name a whole hand (a deal, an arrangement) and would only fill the table.
_EVENTS: dict[Event, bytes] = {}
_EVENTS_MAX = 20_000
_EVENT_TEXT_KEPT = 24
#: Encoded Decision.legal_actions blocks of the phases with fixed texts (draw, upcard):
#: a handful of entries (the knocker's arrangements are never kept).
_LEGAL_BLOCKS: dict[tuple[str, ...], bytes] = {}


def _legal_entry(text: str) -> bytes:
    entry = _LEGAL.get(text)
    if entry is None:
        if len(_LEGAL) >= _LEGAL_MAX:
            _LEGAL.clear()
        entry = _LEGAL[text] = _string(b"\x1a", text)
    return entry


def _new_event_entry(e: Event) -> bytes:
    """The Decision.events entry of ``e``, made and kept (``_EVENTS``)."""
    said = _string(b"\x12", e.text) if e.text else b""
    if e.seat is None:
        entry = _delimited(b"\x2a", said)
    else:
        entry = _delimited(b"\x2a", b"\x08" + _varint(e.seat) + said)
    if len(e.text) <= _EVENT_TEXT_KEPT:
        if len(_EVENTS) >= _EVENTS_MAX:
            _EVENTS.clear()
        _EVENTS[e] = entry
    return entry


def _outcome_bytes(outcome: OutcomeView) -> bytes:
    parts = [_string(b"\x0a", outcome.kind) if outcome.kind else b""]
    if outcome.winner is not None:
        parts.append(b"\x10" + _varint(outcome.winner))
    parts.append(_uint(b"\x18", outcome.points))
    if outcome.knocker is not None:
        parts.append(b"\x20" + _varint(outcome.knocker))
    for meld in outcome.knocker_melds:
        parts.append(_delimited(b"\x2a", b"".join([_MELD_CARDS[c] for c in meld])))
    parts.extend([_KNOCKER_DEADWOOD[c] for c in outcome.knocker_deadwood])
    for meld in outcome.defender_melds:
        parts.append(_delimited(b"\x3a", b"".join([_MELD_CARDS[c] for c in meld])))
    parts.extend([_string(b"\x42", t) for t in outcome.defender_layoffs])
    parts.extend([_DEFENDER_DEADWOOD[c] for c in outcome.defender_deadwood])
    return b"".join(parts)


# The views that map by field name (Flip Flop, Rummy 500) are written to bytes by
# writers compiled once per dataclass and message type, from the dataclass's field
# types and the message's descriptor: the same walk as :func:`dataclass_to_proto`,
# writing the canonical encoding instead of filling a message (a submessage is
# present once any of its fields was set, as the protobuf library has it).

_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE
#: (attribute, tag, has presence, the submessage's descriptor) per field.
_PlanEntry = tuple[str, bytes, bool, Any]
_PLANS: dict[tuple[type, Any], list[_PlanEntry]] = {}


def _plan(cls: type, descriptor: Any) -> list[_PlanEntry]:
    key = (cls, descriptor)  # descriptors are interned: one object per message type
    plan = _PLANS.get(key)
    if plan is None:
        by_name = descriptor.fields_by_name
        found = sorted(
            (by_name[f.name].number, f.name, by_name[f.name])
            for f in dataclasses.fields(cls)
            if f.name in by_name
        )
        plan = _PLANS[key] = [
            (
                name,
                _varint(number << 3 | (2 if fd.type in (_STRING, _MESSAGE) or fd.is_packed else 0)),
                fd.has_presence,
                fd.message_type,
            )
            for number, name, fd in found
        ]
    return plan


def _scalar(value: int) -> bytes:
    return _VARINTS[value] if 0 <= value < _SMALL else _varint(value)


#: view dataclass -> (the PlayerView field's tag, its message descriptor)
_MAPPED_VIEWS: dict[type, tuple[bytes, Any]] = {}


#: Writers compiled per (dataclass, message descriptor); None where a field's type is
#: not one the compiler knows (those views go through the protobuf messages).
_Writer = Callable[[Any], bytes | None]
_COMPILED: dict[tuple[type, Any], _Writer | None] = {}


def _is_dataclass_type(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _field_lines(
    name: str, hint: Any, tag: bytes, presence: bool, sub: Any, env: dict[str, Any]
) -> list[str] | None:
    """The lines that write one field, by its declared type (``None`` is always
    skipped, as :func:`dataclass_to_proto` does); None for a type not known here."""
    args = typing.get_args(hint)
    if type(None) in args:  # Optional[X]
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1:
            return None
        hint, args = rest[0], typing.get_args(rest[0])
    t = f"T_{name}"
    env[t] = tag
    head = [f"    v = value.{name}", "    if v is not None:"]
    if hint is Card:
        env[f"E_{name}"] = _card_entries(tag)
        return [*head, "        touched = True", f"        parts.append(E_{name}[v])"]
    if hint is int or hint is bool:
        test = "True" if presence else "v"
        return [
            *head,
            "        touched = True",
            f"        if {test}:",
            f"            parts.append({t} + _scalar(int(v)))",
        ]
    if hint is str:
        test = "True" if presence else "v"
        return [
            *head,
            "        touched = True",
            f"        if {test}:",
            f"            parts.append(_string({t}, v))",
        ]
    if _is_dataclass_type(hint):
        writer = _compiled_writer(hint, sub)
        if writer is None:
            return None
        env[f"W_{name}"] = writer
        return [
            *head,
            f"        body = W_{name}(v)",
            "        if body is not None:",
            "            touched = True",
            f"            parts.append(_delimited({t}, body))",
        ]
    if typing.get_origin(hint) is not tuple or not args:
        return None
    item = args[0]
    if args[-1] is not Ellipsis and any(a is not item for a in args):
        return None  # a fixed tuple of mixed types
    body: list[str]
    if item is Card:
        env[f"E_{name}"] = _card_entries(tag)
        body = [f"            parts += [E_{name}[c] for c in v]"]
    elif item is int or item is bool:
        body = [
            f"            parts.append(_delimited({t}, b''.join([_scalar(int(x)) for x in v])))"
        ]
    elif item is str:
        body = [f"            parts += [_string({t}, x) for x in v]"]
    elif typing.get_origin(item) is tuple and typing.get_args(item)[:1] == (Card,):
        env["E_cards"] = _card_entries(b"\x0a")  # Cards.cards
        body = [
            "            for cards in v:",
            f"                parts.append(_delimited({t}, b''.join([E_cards[c] for c in cards])))",
        ]
    elif _is_dataclass_type(item) and (writer := _compiled_writer(item, sub)) is not None:
        env[f"W_{name}"] = writer
        body = [f"            parts += [_delimited({t}, W_{name}(x) or b'') for x in v]"]
    else:
        return None
    return [*head, "        if v:", "            touched = True", *body]


def _compiled_writer(cls: type, descriptor: Any) -> _Writer | None:
    """A function writing dataclass ``cls`` as message ``descriptor``, straight-line
    code made once from the field types (as ``dataclasses`` makes ``__init__``); None
    when a field's type is not one known here."""
    key = (cls, descriptor)
    if key in _COMPILED:
        return _COMPILED[key]
    _COMPILED[key] = None  # until it is made (a type that contains itself gets None)
    hints = _hints(cls)
    env: dict[str, Any] = {"_scalar": _scalar, "_string": _string, "_delimited": _delimited}
    lines = ["def write(value):", "    parts = []", "    touched = False"]
    for name, tag, presence, sub in _plan(cls, descriptor):
        field_lines = _field_lines(name, hints[name], tag, presence, sub, env)
        if field_lines is None:
            return None
        lines += field_lines
    lines.append("    return b''.join(parts) if touched else None")
    exec("\n".join(lines), env)  # our own source, made from the dataclass fields
    writer: _Writer = env["write"]
    _COMPILED[key] = writer
    return writer


def _mapped_view_bytes(view: Any) -> bytes | None:
    """The PlayerView of a view that maps by field name, in bytes; None for other views
    and for views no writer could be compiled for."""
    found = _MAPPED_VIEWS.get(type(view))
    if found is None:
        return None
    tag, descriptor = found
    write = _compiled_writer(type(view), descriptor)
    if write is None:
        return None
    body = write(view)
    return b"" if body is None else _delimited(tag, body)


def _register_mapped_views() -> None:
    fields = views_pb2.PlayerView.DESCRIPTOR.fields_by_name
    for view_type, encode in _VIEW_ENCODERS.items():
        oneof = getattr(encode, "oneof", None)
        if oneof is not None:
            fd = fields[oneof]
            _MAPPED_VIEWS[view_type] = (_varint(fd.number << 3 | 2), fd.message_type)


_register_mapped_views()


class DecisionEncoder:
    """Writes one match's decision messages as bytes, caching what rarely changes."""

    __slots__ = (
        "_bank_ms",
        "_clock",
        "_clock_ms",
        "_columns",
        "_columns_key",
        "_hand_tail",
        "_heads",
        "_outcome",
        "_outcome_key",
        "_pile",
        "_pile_ids",
        "_sheet_len",
    )

    def __init__(self, decision_ms: int) -> None:
        self._clock_ms = _uint(b"\x08", decision_ms)
        self._bank_ms = -1
        self._clock = b""
        self._outcome_key: OutcomeView | None = None
        self._outcome = b""
        self._columns_key: tuple[Any, ...] | None = None
        self._columns = b""
        self._sheet_len = -1
        # per hand: HollywoodView fields 1-3 by seat, and fields 5-7 (columns, showdown)
        self._heads: list[bytes] = []
        self._hand_tail = b""
        self._pile_ids: list[Card] = []
        self._pile = b""

    def _last_hand(self, tag: bytes, outcome: OutcomeView) -> bytes:
        if outcome is not self._outcome_key and outcome != self._outcome_key:
            self._outcome_key = outcome
            self._outcome = _delimited(tag, _outcome_bytes(outcome))
        return self._outcome

    def _hollywood(self, view: HollywoodView) -> bytes:
        parts = [_uint(b"\x08", view.seat)]
        if view.to_act is not None:
            parts.append(b"\x10" + _varint(view.to_act))
        parts.append(_uint(b"\x18", view.hand_number))
        if view.hand is not None:
            parts.append(_delimited(b"\x22", _hand_bytes(view.hand)))
        key = (view.columns, view.column_winners, view.wins)
        if key != self._columns_key:
            self._columns_key = key
            self._columns = self._columns_bytes(view.columns, view.column_winners, view.wins)
        parts.append(self._columns)
        if view.last_hand is not None:
            parts.append(self._last_hand(b"\x3a", view.last_hand))
        return _delimited(b"\x0a", b"".join(parts))  # PlayerView.hollywood_gin

    def _gin_three(self, view: GinThreeView) -> bytes:
        parts = [_uint(b"\x08", view.seat)]
        if view.to_act is not None:
            parts.append(b"\x10" + _varint(view.to_act))
        if view.role:
            parts.append(_string(b"\x1a", view.role))
        r = view.roles
        roles = _uint(b"\x08", r.box) + _uint(b"\x10", r.captain) + _uint(b"\x18", r.sitter)
        parts.append(_delimited(b"\x22", roles))
        if view.scores:
            parts.append(_packed(b"\x2a", view.scores))
        parts.append(_uint(b"\x30", view.hand_number))
        if view.hand is not None:
            parts.append(_delimited(b"\x3a", _hand_bytes(view.hand)))
        if view.advising is not None:
            parts.append(_delimited(b"\x42", _hand_bytes(view.advising)))
        if view.advice is not None:
            parts.append(_string(b"\x4a", view.advice))
        if view.last_hand is not None:
            parts.append(self._last_hand(b"\x52", view.last_hand))
        return _delimited(b"\x12", b"".join(parts))  # PlayerView.gin_three

    def _columns_bytes(
        self,
        columns: Sequence[Sequence[int]],
        winners: Sequence[int | None],
        wins: Sequence[int],
    ) -> bytes:
        cols = []
        for points, winner in zip(columns, winners, strict=True):
            col = _packed(b"\x0a", points) if points else b""
            if winner is not None:
                col += b"\x10" + _varint(winner)
            cols.append(_delimited(b"\x2a", col))
        if wins:
            cols.append(_packed(b"\x32", wins))
        return b"".join(cols)

    def decision_from_state(
        self, state: Any, seat: int, decision_id: int, seen: int, bank_ms: int
    ) -> tuple[bytes, Sequence[str], int] | None:
        """The whole RefereeMessage of ``seat``'s decision written in one pass from the
        state, for the games this encoder has a state writer for (Hollywood Gin; the
        referee's hot path), with the legal action texts and how many events the seat
        has now been sent (events from index ``seen`` on). Equal to :meth:`decision` of
        the seat's view and events (tests/test_referee_codec.py); None for the other
        games (the caller goes through the view), or when ``seat`` is not to act.

        One function on purpose: the referee runs it between gRPC's work on the same
        core, where every call and every object it touches costs a cache miss, so the
        GinHandView (``referee/games/gin_views.py`` says what each field holds) is
        written by table look-ups in place: the hand's cards, the opponent's known
        cards and the discards are four look-ups each (``_SuitEntries``), the discard
        pile is the last one written or extended by its new top card, and what changes
        only when a hand ends is kept per hand."""
        if type(state) is not HollywoodGin or state.over:
            return None
        hand: GinHand = state.hand
        if hand.turn != seat:
            return None
        texts = hand.legal_texts
        if texts is None:
            texts = hand.texts()
        played = len(state.sheet)
        if played != self._sheet_len:
            self._new_hand(state, played)
        V = _VARINTS
        # GinHandView: fields 1-4, the hand, the opponent's hand size and known cards
        dealer = hand.dealer
        opponent = dealer if seat == hand.non_dealer else hand.non_dealer
        phase = hand.phase
        key = (seat, opponent, dealer, phase._value_)  # not .value: a property
        hands = hand.hands
        mask = hands[seat]
        h = _HAND_SUITS
        block = [
            _HAND_HEADS.get(key) or _hand_head(*key),
            h[0][mask & 0x1FFF],
            h[1][mask >> 16 & 0x1FFF],
            h[2][mask >> 32 & 0x1FFF],
            h[3][mask >> 48 & 0x1FFF],
        ]
        size = hands[opponent].bit_count()
        if size:
            block.append(b"\x30" + V[size])
        known = hand.known[opponent]
        if known:
            k = _KNOWN_SUITS
            block += (
                k[0][known & 0x1FFF],
                k[1][known >> 16 & 0x1FFF],
                k[2][known >> 32 & 0x1FFF],
                k[3][known >> 48 & 0x1FFF],
            )
        # the discard pile changes at its top, a card at a time (a discard puts one
        # there, a draw takes it): the last one written, with its top card put or taken
        pile = hand.discard_pile
        ids = self._pile_ids
        n = len(pile)
        if n != len(ids) or pile != ids:
            if n == len(ids) + 1 and pile[:-1] == ids:
                self._pile += _PILE_CARDS[pile[-1]]
            elif n == len(ids) - 1 and pile == ids[:-1]:
                self._pile = self._pile[: -len(_PILE_CARDS[ids[-1]])]
            else:
                self._pile = b"".join([_PILE_CARDS[c] for c in pile])
            self._pile_ids = pile.copy()
        block.append(self._pile)
        stock = len(hand.deck) - hand.stock_pos
        if stock:
            block.append(b"\x48" + V[stock])
        taken = hand.taken
        if taken >= 0:
            block.append(_TAKEN_CARD[taken])
        turns = hand.turns
        if turns:
            block.append(b"\x58" + (V[turns] if turns < _SMALL else _varint(turns)))
        hand_bytes = b"".join(block)
        # HollywoodView: fields 1-3, the hand (4), then the columns and the showdown
        n = len(hand_bytes)
        hollywood = b"".join(
            (
                self._heads[seat],
                b"\x22",
                V[n] if n < _SMALL else _varint(n),
                hand_bytes,
                self._hand_tail,
            )
        )
        n = len(hollywood)
        view = b"\x0a" + (V[n] if n < _SMALL else _varint(n)) + hollywood
        n = len(view)
        parts = [
            _uint(b"\x08", decision_id),
            b"\x12",
            V[n] if n < _SMALL else _varint(n),
            view,
        ]
        # Decision.legal_actions: the discards by suit, then the knocks (the order of
        # GinHand._discard_actions); the draw and upcard lists are a handful, kept
        if phase is PHASE_DISCARD:
            if taken >= 0:
                mask &= ~(1 << taken)
            d = _DISCARD_SUITS
            parts += (
                d[0][mask & 0x1FFF],
                d[1][mask >> 16 & 0x1FFF],
                d[2][mask >> 32 & 0x1FFF],
                d[3][mask >> 48 & 0x1FFF],
            )
            for text in texts[mask.bit_count() :]:  # the knocks
                parts.append(_legal_entry(text))
        else:
            legal = _LEGAL_BLOCKS.get(texts)
            if legal is None:
                legal = b"".join([_legal_entry(t) for t in texts])
                if phase is not PHASE_ARRANGE:  # never keep the knocker's arrangements
                    _LEGAL_BLOCKS[texts] = legal
            parts.append(legal)
        events = state.events
        count = len(events)
        if seen < count:
            entries = _EVENTS
            for e in events[seen:]:
                if e.visible_to is None or seat in e.visible_to:
                    parts.append(entries.get(e) or _new_event_entry(e))
        if bank_ms != self._bank_ms:  # the bank changes only when a seat runs over
            self._bank_ms = bank_ms
            self._clock = _delimited(b"\x32", self._clock_ms + _uint(b"\x10", bank_ms))
        parts.append(self._clock)
        body = b"".join(parts)
        n = len(body)
        return b"\x12" + (V[n] if n < _SMALL else _varint(n)) + body, texts, count

    def _new_hand(self, state: HollywoodGin, played: int) -> None:
        """What a Hollywood Gin decision holds that changes only when a hand ends: the
        HollywoodView fields before the hand (seat, to act, hand number) by seat, and
        those after it (the columns, the last hand's showdown)."""
        self._sheet_len = played
        number = b"\x18" + _varint(played + 1)
        self._heads = [_uint(b"\x08", s) + b"\x10" + _VARINTS[s] + number for s in (0, 1)]
        sheet = state.score_sheet
        tail = self._columns_bytes(sheet.columns, sheet.column_winners, sheet.wins)
        last = state.last_hand
        if last is not None:
            tail += self._last_hand(b"\x3a", last)
        self._hand_tail = tail

    def view_bytes(self, view: Any) -> bytes:
        """The PlayerView message of ``view`` as bytes."""
        kind = type(view)
        if kind is HollywoodView:
            return self._hollywood(view)
        if kind is GinThreeView:
            return self._gin_three(view)
        mapped = _mapped_view_bytes(view)
        if mapped is not None:
            return mapped
        data: bytes = view_to_proto(view).SerializeToString()
        return data

    def decision(
        self,
        decision_id: int,
        view: Any,
        legal: Sequence[str],
        events: Iterable[Event],
        bank_ms: int,
    ) -> bytes:
        """The RefereeMessage of one decision, serialised."""
        return self.decision_with(
            decision_id, self.view_bytes(view), legal, advice_of(view), events, bank_ms
        )

    def decision_with(
        self,
        decision_id: int,
        view_bytes: bytes,
        legal: Sequence[str],
        advice: str | None,
        events: Iterable[Event],
        bank_ms: int,
    ) -> bytes:
        """The RefereeMessage of one decision, serialised, around a PlayerView already
        in bytes (:meth:`view_bytes`)."""
        parts = [_uint(b"\x08", decision_id), _delimited(b"\x12", view_bytes)]
        parts += [_legal_entry(text) for text in legal]
        if advice is not None:
            parts.append(_string(b"\x22", advice))
        known = _EVENTS
        parts += [known.get(e) or _new_event_entry(e) for e in events]
        if bank_ms != self._bank_ms:  # the bank changes only when a seat runs over
            self._bank_ms = bank_ms
            self._clock = _delimited(b"\x32", self._clock_ms + _uint(b"\x10", bank_ms))
        parts.append(self._clock)
        return _delimited(b"\x12", b"".join(parts))  # RefereeMessage.decision


def answer_head(decision_id: int) -> bytes:
    """What an Answer to ``decision_id`` by index holds before the index: the referee
    reads ``BotMessage.answer`` bytes of the form ``0x12 LEN answer_head(id) INDEX``
    (the form :func:`answer_bytes` writes, index below 128) without parsing them."""
    return _uint(b"\x08", decision_id) + b"\x10"


def answer_bytes(decision_id: int, index: int) -> bytes:
    """A BotMessage answering ``decision_id`` with legal action ``index``, serialised
    (the bot side's hot path: equal to the protobuf library's encoding)."""
    body = answer_head(decision_id) + _scalar(index)
    return b"\x12" + _VARINTS[len(body)] + body  # BotMessage.answer (under 128 bytes)
