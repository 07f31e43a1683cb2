"""The record of a match (docs/architecture.md, decisions 2 and 7) and its verification.

A record holds the game, the validated options, the seed and every action's
text in order, so the engine re-runs the match exactly; timings, seat
statuses and the result ride along. ``referee.wire`` turns it into bytes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from referee import scenario
from referee.clock import ClockRules
from referee.engine import Action, EngineError, GameState, Result
from referee.games import get_game

OptionScalar = int | bool | str | None

# The values of the .proto's enums SeatStatus, ActionSource and MatchStatus, as the
# record, the store and JSON spell them: each enum value's name, lowercase, without the
# enum's prefix (SEAT_STATUS_TIMEOUT is "timeout"). ``referee.wire`` maps them to the
# enums and back; tests/test_referee_enums.py checks every value both ways.

#: A seat's status; STATUSES lists them best first, and a seat keeps the worst it has had.
SeatStatus = Literal["ok", "timeout", "invalid", "crashed", "disconnected"]
STATUSES: tuple[SeatStatus, ...] = get_args(SeatStatus)
#: Who chose an action: the bot, the referee's default after a fault or a forfeit, or
#: the referee because it was the only legal action (C7: no choice, so no decision).
ActionSource = Literal["bot", "timeout", "invalid", "crashed", "forfeited", "forced"]
SOURCES: tuple[ActionSource, ...] = get_args(ActionSource)

#: How a match ended: played to its end, or stopped by the referee before it (a referee
#: fault, or the referee shutting down), with no result to rank or rate.
MatchStatus = Literal["completed", "aborted"]
MATCH_STATUSES: tuple[MatchStatus, ...] = get_args(MatchStatus)

#: Format 2 stores each action as its index in the legal-action list (see record.proto);
#: format 1 (the action texts) is still read.
FORMAT_VERSION = 2


@dataclass(frozen=True, slots=True)
class ActionEntry:
    """One action taken: by which seat, its text, how long the seat took, who chose it,
    and its position in the legal actions listed at that decision (-1: not known yet)."""

    seat: int
    text: str
    think_us: int = 0
    source: ActionSource = "bot"
    index: int = field(default=-1, compare=False)  # derived from the text; not part of equality


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """How one seat fared."""

    name: str
    status: SeatStatus = "ok"
    strikes: int = 0
    forfeited: bool = False


@dataclass(frozen=True)
class MatchRecord:
    """Everything needed to re-run a match, plus how it went."""

    game: str
    options: Mapping[str, OptionScalar]
    seed: int
    seats: tuple[SeatEntry, ...]
    actions: tuple[ActionEntry, ...]
    result: Result | None
    match_id: str = ""
    clock: ClockRules = field(default_factory=ClockRules)
    started_unix_ms: int = 0
    status: MatchStatus = "completed"
    reason: str = ""  # why the match was aborted
    deal: str = ""  # a chosen deal's table as canonical JSON (``referee.scenario``), or ""


def options_dict(options: Any) -> dict[str, OptionScalar]:
    """Every field of a validated options dataclass, for a record."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


def detail_json(detail: Mapping[str, Any]) -> str:
    """A result's detail as canonical JSON (sorted keys, no spaces)."""
    return json.dumps(detail, sort_keys=True, separators=(",", ":"))


def new_state(record: MatchRecord) -> GameState:
    """The match's initial state, from its game, options and seed (and its chosen deal,
    when it was dealt from one)."""
    if record.deal:
        return scenario.deal(
            record.game,
            json.loads(record.deal),
            options=dict(record.options),
            seats=len(record.seats),
            seed=record.seed,
        )
    return get_game(record.game).new_match(
        record.seed, seats=len(record.seats), options=dict(record.options)
    )


def deal_json(deal: Mapping[str, Any]) -> str:
    """A chosen deal's table as a record keeps it (canonical JSON)."""
    return json.dumps(deal, sort_keys=True, separators=(",", ":"))


class ReplayError(EngineError):
    """Recorded indexes that do not re-run: ``position`` is the first action that fails."""

    def __init__(self, position: int, message: str) -> None:
        super().__init__(f"action {position}: {message}")
        self.position = position


def replay(state: GameState, indexes: Iterable[int]) -> Iterator[tuple[int, Action]]:
    """Re-run a match from its first state and each action's index in the legal actions
    at its decision (record format 2; the same index a bot answers with), applying each
    to ``state`` in turn: yields the acting seat and the action, after applying it. The
    one replay of the project: records are decoded, watchers given the history, and
    finished matches shown with it."""
    for position, index in enumerate(indexes):
        seat = state.to_act()
        if seat is None:
            raise ReplayError(position, "the match is over, but the record goes on")
        legal = state.legal_actions()
        if index >= len(legal):
            raise ReplayError(position, f"index {index} out of range ({len(legal)} legal actions)")
        action = legal[index]
        state.apply(action)
        yield seat, action


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of re-running a record: ``ok``, or where and how it diverges."""

    ok: bool
    message: str
    index: int | None = None  # the action index where it diverges, if at an action
    expected: str = ""
    got: str = ""


def verify(record: MatchRecord) -> Verdict:
    """Re-run the engine on ``record`` and compare every action's seat and the result."""
    try:
        state = new_state(record)
    except EngineError as exc:
        return Verdict(False, f"cannot start the match: {exc}")
    for i, entry in enumerate(record.actions):
        seat = state.to_act()
        if seat is None:
            return Verdict(
                False,
                f"action {i}: the match is already over, but the record goes on",
                i,
                "end of match",
                f"seat {entry.seat}: {entry.text}",
            )
        if seat != entry.seat:
            return Verdict(
                False,
                f"action {i}: seat {seat} is to act, the record has seat {entry.seat}",
                i,
                f"seat {seat}",
                f"seat {entry.seat}",
            )
        try:
            state.apply_checked(entry.text)
        except EngineError as exc:
            legal = ", ".join(str(a) for a in state.legal_actions()[:8])
            return Verdict(False, f"action {i}: {exc}", i, legal, entry.text)
    result = state.result()
    if record.status == "aborted":
        if record.result is not None:
            return Verdict(False, "the record is marked aborted but has a result")
        return Verdict(
            True,
            f"ok: aborted after {len(record.actions)} actions ({record.reason}); "
            "every action re-runs",
        )
    if result is None:
        return Verdict(
            False,
            f"the record ends after {len(record.actions)} actions but the match is not over "
            f"(seat {state.to_act()} to act)",
            len(record.actions),
            "more actions",
            "end of record",
        )
    if record.result is None:
        return Verdict(False, "the record has no result", None, _describe(result), "none")
    want, got = _describe(result), _describe(record.result)
    if want != got:
        return Verdict(False, f"the result differs: engine {want}, record {got}", None, want, got)
    return Verdict(True, f"ok: {len(record.actions)} actions, result {want}")


def _describe(result: Result) -> str:
    return (
        f"ranks {list(result.ranks)} scores {list(result.scores)} "
        f"detail {detail_json(result.detail)}"
    )
