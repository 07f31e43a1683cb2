"""Match results and records as protobuf (``MatchResult``, ``MatchRecord``) and the
bytes a record is stored as."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

from referee.engine import EngineError, Result
from referee.record import (
    FORMAT_VERSION,
    ActionEntry,
    ActionSource,
    MatchRecord,
    MatchStatus,
    SeatEntry,
    detail_json,
    new_state,
    replay,
)
from referee.wire.values import (
    CodecError,
    clock_from_proto,
    clock_to_proto,
    match_status_from_proto,
    match_status_to_proto,
    options_from_proto,
    options_to_proto,
    source_from_proto,
    source_to_proto,
    status_from_proto,
    status_to_proto,
)
from rummyarena.v1 import common_pb2, record_pb2


def result_to_proto(
    result: Result | None,
    seats: Sequence[SeatEntry],
    actions: Sequence[ActionEntry] = (),
    status: MatchStatus = "completed",
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
    status: MatchStatus = "completed",
    reason: str = "",
) -> common_pb2.MatchResult:
    """A match result from each seat's total thinking time (microseconds) and the count
    of actions; an aborted match has no result and says why."""
    msg = common_pb2.MatchResult(decisions=decisions, status=match_status_to_proto(status))
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
            status=status_to_proto(seat.status),
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
    sources: Mapping[int, ActionSource],
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
        deal=head.deal,
        result=result_message(
            head.result, head.seats, seat_think_us, len(action_index), head.status, head.reason
        ),
    )
    options_to_proto(head.options, msg.options)
    for seat in head.seats:
        msg.seats.add(
            name=seat.name,
            status=status_to_proto(seat.status),
            strikes=seat.strikes,
            forfeited=seat.forfeited,
        )
    msg.action_index.extend(action_index)
    msg.think_us.extend(min(t, 0xFFFFFFFF) for t in think_us)
    for k in sorted(sources):
        msg.sources.add(action=k, source=source_to_proto(sources[k]))
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
        status=match_status_from_proto(msg.result.status),
        reason=msg.result.reason,
        deal=msg.deal,
    )
    actions = []
    if msg.format_version == 1:
        for i, a in enumerate(msg.actions):
            source = _source(a.source)
            if a.seat >= n or source is None:
                raise CodecError(
                    f"action {i} names seat {a.seat} or source {a.source} out of range"
                )
            actions.append(ActionEntry(a.seat, a.text, a.think_us, source))
    else:
        actions = _replay_indexes(msg, record)
    return dataclasses.replace(record, actions=tuple(actions))


def _source(value: int) -> ActionSource | None:
    """Who chose an action, from its enum value; None for a value that names no one."""
    try:
        return source_from_proto(value)
    except CodecError:
        return None


def _replay_indexes(msg: record_pb2.MatchRecord, record: MatchRecord) -> list[ActionEntry]:
    """The actions of a format-2 record, named by re-running the engine."""
    count = len(msg.action_index)
    if len(msg.think_us) != count:
        raise CodecError(f"{count} actions but {len(msg.think_us)} timings")
    sources: dict[int, ActionSource] = {}
    for mark in msg.sources:
        source = _source(mark.source)
        if mark.action >= count or source is None:
            raise CodecError(f"source mark for action {mark.action} is out of range")
        sources[mark.action] = source
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
