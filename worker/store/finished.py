"""A finished match as a worker hands it in (the record's bytes as the referee wrote
them), and the check the store makes before it trusts one, which also derives the seat
results it stores: read from the record's header and result alone, never by re-running
the engine on its actions (``arena verify`` does that)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from referee import wire
from referee.clock import ClockRules
from referee.engine import OptionsError, UnknownGameError
from referee.games import get_game
from referee.record import FORMAT_VERSION, SOURCES, OptionScalar, SeatStatus
from rummyarena.v1 import common_pb2, record_pb2
from worker.store.base import StoreError

#: The only record format the store takes: the protobuf ``MatchRecord`` of referee.wire.
RECORD_FORMAT = "MatchRecord"
#: The range of an ``integer`` column (scores, action counts, durations).
_INT4_MIN, _INT4_MAX = -(2**31), 2**31 - 1


class InvalidResult(StoreError):
    """A finished match the store refuses, naming the match and what is wrong: a record
    that does not parse, of an aborted match, with no result, inconsistent in itself, out
    of the columns' range, or that does not fit the match. ``retry``: the match should be
    played again (the referee aborted it), rather than failed."""

    def __init__(self, match_id: int, reason: str, *, retry: bool = False) -> None:
        super().__init__(f"match {match_id}: {reason}")
        self.match_id = match_id
        self.reason = reason
        self.retry = retry


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """One seat's result: rank (0 = first), score, status (ok, timeout, invalid, crashed,
    disconnected) and whether it forfeited (a forfeit ranks last for ratings)."""

    seat: int
    rank: int
    score: int
    status: SeatStatus = "ok"
    forfeit: bool = False
    #: The sandbox's limit that stopped its bot (``memory``, ``processes``, ``cpu``,
    #: ``file size``), when one did.
    stopped_by: str | None = None


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """What a worker hands in when a match ends: the encoded record, as the referee wrote
    it (the seat results are read from it by :func:`check_finished`)."""

    record: bytes
    format: str = RECORD_FORMAT
    duration_ms: int | None = None
    #: What the platform noted of the match (a seat whose bot could not start), kept as
    #: the match's ``error`` line.
    note: str | None = None


@dataclass(frozen=True, slots=True)
class CheckedFinish:
    """A finish found sound: the record's game, number of seats and actions, and the seat
    results in seat order, as the record has them."""

    game: str
    num_seats: int
    num_actions: int
    results: tuple[SeatOutcome, ...]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat_status(match_id: int, value: int, where: str) -> SeatStatus:
    """The seat status of a ``SeatStatus`` enum value; :class:`InvalidResult` for a value
    that is none (UNSPECIFIED among them)."""
    try:
        return wire.status_from_proto(value)
    except wire.CodecError:
        raise InvalidResult(
            match_id, f"the record's {where} status {value} is not a seat status"
        ) from None


#: Games, numbers of seats and options (with their types) already found valid: a run of
#: matches shares a few, so each is checked against its game once. Kept small.
_VALID_OPTIONS: set[tuple[str, int, tuple[tuple[str, type, OptionScalar], ...]]] = set()
_VALID_OPTIONS_MAX = 256


def _check_options(match_id: int, game: str, num_seats: int, msg: record_pb2.MatchRecord) -> None:
    """Raise :class:`InvalidResult` unless the record's game is known, allows its number
    of seats, and takes its options: what starting the match checks, without dealing."""
    options: dict[str, OptionScalar] = {}
    for key, value in msg.options.items():  # as referee.wire reads them
        which = value.WhichOneof("value")
        options[key] = None if which is None else getattr(value, which)
    known = (game, num_seats, tuple(sorted((k, type(v), v) for k, v in options.items())))
    if known in _VALID_OPTIONS:
        return
    try:
        spec = get_game(game)
    except UnknownGameError:
        raise InvalidResult(match_id, f"the record's game {game!r} is not a known game") from None
    if not spec.min_seats <= num_seats <= spec.max_seats:
        raise InvalidResult(
            match_id,
            f"the record has {num_seats} seats; {game} is for {spec.min_seats}–{spec.max_seats}",
        )
    try:
        spec.options(options)
    except OptionsError as exc:
        raise InvalidResult(match_id, f"the record's options: {exc}") from exc
    if len(_VALID_OPTIONS) >= _VALID_OPTIONS_MAX:
        _VALID_OPTIONS.clear()
    _VALID_OPTIONS.add(known)


def check_finished(match_id: int, finished: FinishedMatch) -> CheckedFinish:
    """The record's game, number of seats and actions and its seat results, once the
    finish is found sound. Raises :class:`InvalidResult` naming the match and the field
    otherwise.

    The record is checked from its header and its result, without re-running the engine
    on its actions (``arena verify`` does that): it parses as a ``MatchRecord`` of a
    format the referee writes; it has a result and the match was not aborted; its seat
    statuses, clock, game, number of seats and options are valid, and its action fields
    agree with each other. Its result has one entry per seat, each rank in range, each
    score fitting its column, and its seat list says the same statuses and forfeits.
    Whether the record fits the match row is checked by the finish itself."""
    if finished.format != RECORD_FORMAT:
        raise InvalidResult(match_id, f"format {finished.format!r} is not {RECORD_FORMAT}")
    try:
        msg = record_pb2.MatchRecord.FromString(bytes(finished.record))
    except Exception as exc:  # DecodeError on garbage; the protobuf runtime may raise others
        raise InvalidResult(match_id, f"the record does not decode ({exc})") from exc
    if msg.format_version not in (1, FORMAT_VERSION):
        raise InvalidResult(
            match_id,
            f"the record's format_version {msg.format_version} is not 1 or {FORMAT_VERSION}",
        )
    result = msg.result
    if msg.HasField("result") and result.status == common_pb2.MATCH_STATUS_ABORTED:
        raise InvalidResult(
            match_id,
            f"the match was aborted ({result.reason or 'no reason given'}): there is no "
            "result to store; play it again",
            retry=True,
        )
    if result.status != common_pb2.MATCH_STATUS_COMPLETED:
        raise InvalidResult(match_id, f"the record's result status {result.status} is unknown")
    if not msg.HasField("result") or not result.detail_json:
        raise InvalidResult(
            match_id, "the record has no result (a match that did not end is failed, not finished)"
        )
    try:
        json.loads(result.detail_json)
    except ValueError as exc:
        raise InvalidResult(
            match_id, f"the record's result detail_json is not JSON ({exc})"
        ) from exc

    n = len(msg.seats)
    listed_statuses = [
        _seat_status(match_id, entry.status, f"seat {i}") for i, entry in enumerate(msg.seats)
    ]
    clock = msg.clock
    try:
        ClockRules(clock.decision_ms, clock.bank_ms, clock.strike_limit, clock.join_ms)
    except ValueError as exc:
        raise InvalidResult(match_id, f"the record's clock: {exc}") from exc
    _check_options(match_id, msg.game, n, msg)

    if msg.format_version == 1:
        num_actions = len(msg.actions)
        for i, action in enumerate(msg.actions):
            if action.seat >= n or not 0 <= action.source < len(SOURCES):
                raise InvalidResult(
                    match_id,
                    f"the record's action {i} names seat {action.seat} or source "
                    f"{action.source} out of range",
                )
    else:
        num_actions = len(msg.action_index)
        if len(msg.think_us) != num_actions:
            raise InvalidResult(
                match_id,
                f"the record has {num_actions} actions (action_index) but "
                f"{len(msg.think_us)} timings (think_us)",
            )
        for mark in msg.sources:
            if mark.action >= num_actions or not 0 <= mark.source < len(SOURCES):
                raise InvalidResult(
                    match_id,
                    f"the record's source mark for action {mark.action} (source {mark.source}) "
                    "is out of range",
                )

    if len(result.seats) != n:
        raise InvalidResult(
            match_id, f"the record has {n} seats but a result for {len(result.seats)}"
        )
    recorded = {s.seat: s for s in result.seats}
    if sorted(recorded) != list(range(n)):
        raise InvalidResult(
            match_id,
            f"the record's result is for seats {[s.seat for s in result.seats]}, not 0..{n - 1}",
        )
    outcomes = []
    for seat in range(n):
        entry_result = recorded[seat]
        if not 0 <= entry_result.rank < n:
            raise InvalidResult(
                match_id, f"seat {seat} rank {entry_result.rank} is out of range 0..{n - 1}"
            )
        if not _INT4_MIN <= entry_result.score <= _INT4_MAX:
            raise InvalidResult(
                match_id,
                f"seat {seat} score {entry_result.score} does not fit the score column "
                f"({_INT4_MIN}..{_INT4_MAX})",
            )
        status = _seat_status(match_id, entry_result.status, f"result seat {seat}")
        listed = msg.seats[seat]
        if listed_statuses[seat] != status or listed.forfeited != entry_result.forfeited:
            raise InvalidResult(
                match_id,
                f"seat {seat}: the record's seat list (status {listed_statuses[seat]!r}, "
                f"forfeited {listed.forfeited}) differs from its result (status {status!r}, "
                f"forfeited {entry_result.forfeited})",
            )
        outcomes.append(
            SeatOutcome(seat, entry_result.rank, entry_result.score, status, entry_result.forfeited)
        )
    if finished.duration_ms is not None and (
        not _is_int(finished.duration_ms) or not 0 <= finished.duration_ms <= _INT4_MAX
    ):
        raise InvalidResult(
            match_id, f"duration_ms {finished.duration_ms!r} is out of range 0..{_INT4_MAX}"
        )
    return CheckedFinish(msg.game, n, num_actions, tuple(outcomes))
