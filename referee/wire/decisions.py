"""The decision message: the one message a seat gets per decision (docs/architecture.md,
decision 3), as protobuf (:func:`decision_message`) and written straight to its
wire bytes (:class:`DecisionEncoder`, the referee's hot path)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from referee.engine import Event
from referee.games.hollywood_gin import HollywoodGin
from referee.wire.entries import Clock, event_entry, legal_entry
from referee.wire.hollywood_fast import HollywoodWriter
from referee.wire.protobytes import (
    Writer,
    compiled_writer,
    delimited,
    field_tag,
    string_field,
    uint_field,
)
from referee.wire.values import CodecError
from referee.wire.views import VIEW_FIELDS, advice_of, view_to_proto
from rummyarena.v1 import bot_pb2, views_pb2


def decision_message(
    decision_id: int,
    view: Any,
    legal: Sequence[str],
    events: Iterable[Event],
    decision_ms: int,
    bank_ms: int,
) -> bot_pb2.RefereeMessage:
    """The one message of a decision (docs/architecture.md, decision 3)."""
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
# defaults omitted): the view by the writer compiled for its dataclass
# (:func:`~referee.wire.protobytes.compiled_writer`), the legal actions and the
# events from entries encoded once. ``DecisionEncoder.decision(...)`` equals
# ``decision_message(...).SerializeToString()`` for every view
# (tests/test_referee_codec.py).


def _view_writers() -> dict[type, tuple[bytes, Writer]]:
    """view dataclass -> (its PlayerView field's tag, the writer of its message)."""
    fields = views_pb2.PlayerView.DESCRIPTOR.fields_by_name
    writers = {}
    for view_type, oneof in VIEW_FIELDS.items():
        fd = fields[oneof]
        writer = compiled_writer(view_type, fd.message_type)
        if writer is None:
            raise TypeError(f"no bytes writer for {view_type.__name__}: a field type it lacks")
        writers[view_type] = (field_tag(fd), writer)
    return writers


_VIEW_WRITERS = _view_writers()


class DecisionEncoder:
    """Writes one match's decision messages as bytes."""

    __slots__ = ("_clock", "_hollywood")

    def __init__(self, decision_ms: int) -> None:
        self._clock = Clock(decision_ms)
        self._hollywood: HollywoodWriter | None = None

    @staticmethod
    def view_bytes(view: Any) -> bytes:
        """The PlayerView message of ``view`` as bytes."""
        try:
            tag, write = _VIEW_WRITERS[type(view)]
        except KeyError:
            raise CodecError(
                f"no protobuf message for views of type {type(view).__name__}"
            ) from None
        body = write(view)
        return b"" if body is None else delimited(tag, body)

    def decision(
        self,
        decision_id: int,
        view: Any,
        legal: Sequence[str],
        events: Iterable[Event],
        bank_ms: int,
    ) -> bytes:
        """The RefereeMessage of one decision, serialised."""
        parts = [uint_field(b"\x08", decision_id), delimited(b"\x12", self.view_bytes(view))]
        parts += map(legal_entry, legal)
        advice = advice_of(view)
        if advice is not None:
            parts.append(string_field(b"\x22", advice))
        parts += map(event_entry, events)
        parts.append(self._clock.with_bank(bank_ms))
        return delimited(b"\x12", b"".join(parts))  # RefereeMessage.decision

    def decision_from_state(
        self, state: Any, seat: int, decision_id: int, seen: int, bank_ms: int
    ) -> tuple[bytes, Sequence[str], int] | None:
        """Hollywood Gin's decision written straight from the state, without making the
        view (:mod:`referee.wire.hollywood_fast`): the message, the legal action texts
        and how many events the seat has now been sent. None for the other games and
        when ``seat`` is not to act: the caller writes the view (:meth:`decision`)."""
        if type(state) is not HollywoodGin or state.over or state.hand.turn != seat:
            return None
        writer = self._hollywood
        if writer is None:
            writer = self._hollywood = HollywoodWriter()
        return writer.decision(state, seat, decision_id, seen, self._clock.with_bank(bank_ms))
