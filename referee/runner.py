"""The match runner: seats, clocks, statuses and the default policy
(ARCHITECTURE decision 4). Transport-free: the service hands each seat a
:class:`SeatLink` that can write messages, and feeds the seat's answers in.

One asyncio task runs each match. For every decision it sends the seat to act
one message with its view, legal actions, events and clock, then waits for
the answer within the decision limit plus the seat's bank. A move that is the
only legal action is no decision: the referee makes it itself (C7). A timeout,
an illegal answer or a reported crash plays the default action and counts a
strike; past the strike limit, or on disconnect, the seat forfeits and the
referee plays the rest of it with the default policy.

The common answer, a legal index within the decision limit, is taken by the
seat's stream reader as it comes (:meth:`Match.on_index`), which makes the next
decision at once; the match task writes each decision and handles everything
else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from referee import codec
from referee.clock import ClockRules, SeatClock
from referee.codec import answer_head
from referee.engine import Action, EngineError, GameState, Result, get_game
from referee.record import STATUSES, ActionEntry, MatchRecord, SeatEntry, options_dict
from rummyarena.v1 import bot_pb2, common_pb2

log = logging.getLogger(__name__)

#: How many finished matches the referee keeps for GetMatch before forgetting the oldest.
KEEP_FINISHED = 10_000
#: Expired decision ids remembered per seat, so a late answer is ignored, not refused.
EXPIRED_KEPT = 64

#: Writes one serialised RefereeMessage to a seat's stream.
Writer = Callable[[bytes], Awaitable[None]]


class MatchPhase(Enum):
    """Where a match stands."""

    WAITING = "waiting"
    RUNNING = "running"
    FINISHED = "finished"


class ProtocolError(Exception):
    """A bot message the referee refuses; ``code`` names the gRPC status to end with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


#: The position of :func:`default_action`'s choice in the legal actions.
DEFAULT_INDEX = 0


def default_action(legal: list[Action]) -> Action:
    """The referee's safe default: the first legal action (each game lists drawing,
    passing or declining first, and its caps end every hand, C8)."""
    return legal[0]


def _worse(a: str, b: str) -> str:
    return a if STATUSES.index(a) >= STATUSES.index(b) else b


class SeatLink:
    """One connected bot stream of a seat."""

    __slots__ = ("closed", "finished", "write", "writing")

    def __init__(self, write: Writer) -> None:
        self.write = write
        self.closed = False
        self.writing = False  # a write is in flight
        self.finished = asyncio.Event()  # set when the referee has nothing more to send


@dataclass(eq=False)
class Seat:
    """One seat of a match."""

    index: int
    name: str
    token: str
    clock: SeatClock
    status: str = "ok"
    strikes: int = 0
    forfeited: bool = False
    token_used: bool = False
    link: SeatLink | None = None
    agent: str = ""
    seen: int = 0  # events already sent to this seat
    pending_id: int = -1
    pending: asyncio.Future[Any] | None = None
    # the bytes an Answer to the pending decision by index holds before the index
    # (codec.answer_head): the service reads such answers without parsing them
    answer_head: bytes = b""
    expired: deque[int] = field(default_factory=lambda: deque(maxlen=EXPIRED_KEPT))

    def entry(self) -> SeatEntry:
        """This seat as recorded."""
        return SeatEntry(self.name, self.status, self.strikes, self.forfeited)


# What a pending decision resolves to: ("answer", Answer or index) / ("error", text) /
# ("gone", text) / ("timeout", text), or ("next", what Match._next returned) when the answer
# was taken as it came (Match.on_index).
Outcome = tuple[str, Any]
# A decision made and not yet answered: seat, decision id, legal actions, their texts,
# the message, and the future of its outcome.
Pending = tuple["Seat", int, list[Action], Sequence[str], bytes, "asyncio.Future[Outcome]"]


class _Pause:
    """What Match._next returns after many moves of the referee's own in a row."""


_PAUSE = _Pause()


class Match:
    """One match being played, its seats and, at the end, its record."""

    _create_future: Callable[[], asyncio.Future[Any]]  # the running loop's, set by _play

    def __init__(
        self,
        match_id: str,
        game: str,
        options: Mapping[str, Any] | None,
        seed: int,
        seat_names: list[str],
        clock: ClockRules,
    ) -> None:
        spec = get_game(game)
        self.id = match_id
        self.game = game
        self.seed = seed
        self.clock = clock
        self.state: GameState = spec.new_match(seed, seats=len(seat_names), options=options)
        self.options = options_dict(self.state.options)
        self.seats = [
            Seat(i, name, secrets.token_urlsafe(24), SeatClock(clock))
            for i, name in enumerate(seat_names)
        ]
        self.phase = MatchPhase.WAITING
        # the actions taken, as (seat, text, think_us, source, index): the ActionEntry
        # records are made from them once, when asked for (the record at the end)
        self._taken: list[tuple[int, str, int, str, int]] = []
        self.record: MatchRecord | None = None
        self.result_pb: common_pb2.MatchResult | None = None
        self.error: str | None = None
        self.done = asyncio.Event()
        self.watchers: list[asyncio.Queue[Any]] = []
        # the referee's own time per decision: from taking an answer to the next message
        # being ready to send (engine, view, codec), without the transport
        self.referee_ns: list[int] = []
        self._all_joined = asyncio.Event()
        self._published = 0
        self._started_ms = 0
        self._decision_id = 0
        self._encoder = codec.DecisionEncoder(clock.decision_ms)
        # the decision being made or waited on, and when it was sent (perf_counter_ns)
        self._pending: Pending | None = None
        self._sent = 0
        self._t0 = 0  # when the referee took the last answer (its own time runs from there)
        self._waiting: asyncio.Future[Outcome] | None = None  # the decision being timed
        self._deadline = 0.0  # its deadline, in the event loop's time
        self._timer: asyncio.TimerHandle | None = None

    @property
    def actions(self) -> tuple[ActionEntry, ...]:
        """Every action taken so far, as recorded."""
        return tuple(ActionEntry(*taken) for taken in self._taken)

    @property
    def actions_taken(self) -> int:
        """How many actions have been taken so far."""
        return len(self._taken)

    @property
    def decisions(self) -> int:
        """How many decisions have been sent to the seats so far (each a round trip; the
        moves the referee makes itself are not decisions)."""
        return self._decision_id

    # -- joining -----------------------------------------------------------------------------

    def attach(self, seat: Seat, link: SeatLink, agent: str) -> None:
        """Connect a bot stream to ``seat`` (its token checked by the caller)."""
        if self.phase is MatchPhase.FINISHED:
            raise ProtocolError("FAILED_PRECONDITION", f"match {self.id} is already over")
        if seat.token_used:
            raise ProtocolError(
                "ALREADY_EXISTS", f"the token of seat {seat.index} was already used"
            )
        if seat.forfeited:
            raise ProtocolError("FAILED_PRECONDITION", f"seat {seat.index} has forfeited")
        seat.token_used = True
        seat.link = link
        seat.agent = agent[:200]
        if all(s.link is not None for s in self.seats):
            self._all_joined.set()

    def detach(self, seat: Seat, reason: str) -> None:
        """The seat's stream ended: before the end of the match, it forfeits (disconnected)."""
        link = seat.link
        if link is None:
            return
        link.closed = True
        if self.phase is MatchPhase.FINISHED:
            return
        if not seat.forfeited:
            seat.status = _worse(seat.status, "disconnected")
            seat.forfeited = True
        self._resolve(seat, ("gone", reason))

    def protocol_fault(self, seat: Seat, message: str) -> None:
        """The seat sent something unreadable: it is invalid and forfeits."""
        if self.phase is not MatchPhase.FINISHED and not seat.forfeited:
            seat.status = _worse(seat.status, "invalid")
            seat.strikes += 1
            seat.forfeited = True
        if seat.link is not None:
            seat.link.closed = True
        self._resolve(seat, ("gone", message))

    # -- answers -----------------------------------------------------------------------------

    def on_answer(self, seat: Seat, answer: bot_pb2.Answer) -> None:
        """An Answer from the seat's stream; raises ProtocolError when out of turn."""
        did = answer.decision_id
        if seat.pending is not None and did == seat.pending_id:
            self._resolve(seat, ("answer", answer))
        elif did in seat.expired:
            return  # a late answer to a decision the referee already settled
        else:
            raise ProtocolError(
                "FAILED_PRECONDITION",
                f"answer to decision {did} out of turn: "
                + (
                    f"the pending decision is {seat.pending_id}"
                    if seat.pending is not None
                    else "no decision of this seat is pending"
                ),
            )

    def on_index(self, seat: Seat, index: int) -> None:
        """An Answer by ``index`` to the seat's pending decision (the service has matched
        its bytes against ``seat.answer_head``).

        The common case, a legal index within the decision limit, is taken here, in the
        stream's reader, and the next decision made at once: the match task then only
        writes it, one pass of the event loop later, beside the decisions the other
        matches made in the same pass (docs/performance.md). Anything else goes to the
        match task."""
        fut = seat.pending
        if fut is None or fut.done():
            return
        t0 = time.perf_counter_ns()
        elapsed_ms = (t0 - self._sent) / 1e6
        pending = self._pending
        assert pending is not None  # made in _next together with seat.pending
        _, _, legal, texts, _, current = pending
        if current is not fut or index >= len(legal) or elapsed_ms > self.clock.decision_ms:
            fut.set_result(("answer", index))  # the match task settles it
            return
        try:
            self._t0 = t0
            seat.pending = None
            seat.answer_head = b""
            seat.clock.charge(elapsed_ms)
            self._apply(seat, legal[index], int(elapsed_ms * 1000), "bot", texts[index], index)
            fut.set_result(("next", self._next()))
        except Exception as exc:  # a referee bug: the match task ends the match
            fut.set_exception(exc)

    def on_error(self, seat: Seat, error: bot_pb2.BotError) -> None:
        """A BotError from the seat: the bot failed to decide."""
        if seat.pending is not None and error.decision_id == seat.pending_id:
            self._resolve(seat, ("error", error.message[:500]))
        elif error.decision_id not in seat.expired:
            raise ProtocolError(
                "FAILED_PRECONDITION", f"error report for decision {error.decision_id} out of turn"
            )

    def _resolve(self, seat: Seat, outcome: Outcome) -> None:
        fut = seat.pending
        if fut is not None and not fut.done():
            fut.set_result(outcome)

    # -- the match ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Wait for the seats, play the match to its end, and make the record."""
        try:
            await self._wait_for_seats()
            await self._play()
        except Exception as exc:  # a referee bug must not take the process down
            log.exception("match %s failed", self.id)
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            await self._finish()

    async def _wait_for_seats(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._all_joined.wait(), self.clock.join_ms / 1000)
        for seat in self.seats:
            if seat.link is None and not seat.forfeited:
                seat.status, seat.forfeited = "disconnected", True
        self.phase = MatchPhase.RUNNING
        self._started_ms = int(time.time() * 1000)
        welcome = bot_pb2.RefereeMessage()
        w = welcome.welcome
        w.match_id, w.game = self.id, self.game
        codec.options_to_proto(self.options, w.options)
        for seat in self.seats:
            w.seats.add(seat=seat.index, name=seat.name)
        w.clock.CopyFrom(codec.clock_to_proto(self.clock))
        for seat in self.seats:
            w.your_seat = seat.index
            await self._send(seat, welcome.SerializeToString())

    async def _send(self, seat: Seat, data: bytes) -> bool:
        link = seat.link
        if link is None or link.closed:
            return False
        link.writing = True
        try:
            await link.write(data)
        except Exception as exc:  # the stream broke under us
            self.detach(seat, f"write failed: {exc}")
            return False
        finally:
            link.writing = False
        return True

    async def _play(self) -> None:
        loop = asyncio.get_running_loop()
        call_at, loop_time = loop.call_at, loop.time
        self._create_future = loop.create_future
        perf = time.perf_counter_ns
        self._t0 = perf()
        pending = self._next()
        while pending is not None:
            if isinstance(pending, _Pause):
                await asyncio.sleep(0)  # a played-out seat must not hold up other matches
                pending = self._next()
                continue
            seat, did, legal, texts, msg, fut = pending
            sent = self._sent = perf()
            ok = await self._send(seat, msg)
            if ok and not fut.done():
                # one watchdog timer per match, moved only when it would fire too late
                deadline = self._deadline = loop_time() + seat.clock.allowance_s()
                self._waiting = fut
                timer = self._timer
                if timer is None or timer.when() > deadline:
                    if timer is not None:
                        timer.cancel()
                    self._timer = call_at(deadline, self._watchdog)
                outcome = await fut
                self._waiting = None
            elif fut.done():
                outcome = fut.result()
            else:
                outcome = ("gone", "the stream is closed")
            if outcome[0] == "next":  # on_index took the answer and made the next decision
                pending = outcome[1]
                continue
            t0 = self._t0 = perf()
            elapsed_ms = (t0 - sent) / 1e6
            seat.pending = None
            seat.answer_head = b""
            await self._settle(seat, did, legal, texts, outcome, elapsed_ms)
            pending = self._next()

    def _next(self) -> Pending | _Pause | None:
        """Play the referee's own moves up to the next decision of a bot and make that
        decision: its message, and the future its outcome will resolve. None when the
        match is over; ``_PAUSE`` after many moves of the referee's own in a row.

        The referee's own moves: one that is no choice (C7: the only legal action; the
        seat gets no decision for it), and every move of a seat that has forfeited."""
        state = self.state
        seats = self.seats
        played = 0
        while (turn := state.to_act()) is not None:
            seat = seats[turn]
            legal = state.legal_actions()
            if len(legal) == 1 or seat.forfeited:  # C7, or a forfeited seat: the default
                self._apply(
                    seat, default_action(legal), 0, "forced" if len(legal) == 1 else "forfeited"
                )
                played += 1
                if played == 64:
                    return _PAUSE
                continue
            did = self._decision_id
            self._decision_id += 1
            texts: Sequence[str]
            bank = int(seat.clock.bank_ms)
            encoder = self._encoder
            fast = encoder.decision_from_state(state, turn, did, seat.seen, bank)
            if fast is not None:  # the message straight from the state
                msg, texts, seat.seen = fast
            else:
                view = state.view(turn)
                # every view lists the legal actions' texts for the seat to act: reuse them
                shown = getattr(view, "legal_actions", None)
                texts = (
                    shown
                    if shown is not None and len(shown) == len(legal)
                    else [str(a) for a in legal]
                )
                events = state.events_for(turn, seat.seen)
                seat.seen = len(state.events)
                msg = encoder.decision_with(
                    did, encoder.view_bytes(view), texts, codec.advice_of(view), events, bank
                )
            fut: asyncio.Future[Outcome] = self._create_future()
            seat.pending, seat.pending_id = fut, did
            seat.answer_head = answer_head(did)
            self.referee_ns.append(time.perf_counter_ns() - self._t0)
            pending = self._pending = (seat, did, legal, texts, msg, fut)
            return pending
        return None

    def _watchdog(self) -> None:
        """The match's timer: time out the pending decision if its deadline has passed,
        else wait on until it does (an answer in time clears ``_waiting``)."""
        self._timer = None
        fut = self._waiting
        if fut is None or fut.done():
            return  # nothing pending: the next decision sets the timer again
        loop = asyncio.get_running_loop()
        if loop.time() >= self._deadline:
            fut.set_result(("timeout", "no answer in time"))
        else:
            self._timer = loop.call_at(self._deadline, self._watchdog)

    async def _settle(
        self,
        seat: Seat,
        did: int,
        legal: list[Action],
        texts: Sequence[str],
        outcome: Outcome,
        elapsed_ms: float,
    ) -> None:
        """Apply the seat's answer (one the reader did not take: parsed from the
        message, past the decision limit, or not legal), or the default action with a
        strike."""
        kind, payload = outcome
        think_us = int(elapsed_ms * 1000)
        if kind == "answer":
            in_time = seat.clock.charge(elapsed_ms)
            if in_time:
                index, problem = self._pick(payload, legal, texts)
                if index is not None:
                    self._apply(seat, legal[index], think_us, "bot", texts[index], index)
                    return
                fault = "invalid"
            else:
                fault, problem = "timeout", f"answered after {elapsed_ms:.0f} ms, out of time"
        elif kind == "timeout":
            seat.clock.charge(elapsed_ms)
            seat.expired.append(did)
            fault, problem = "timeout", f"no answer within {elapsed_ms:.0f} ms"
        elif kind == "error":
            seat.clock.charge(elapsed_ms)
            fault, problem = "crashed", f"the bot reported an error: {payload}"
        else:  # gone: detach already marked the seat
            self._apply(seat, default_action(legal), think_us, "forfeited")
            return
        seat.expired.append(did)
        seat.strikes += 1
        seat.status = _worse(seat.status, fault)
        action = default_action(legal)
        forfeits = seat.strikes > self.clock.strike_limit
        if forfeits:
            seat.forfeited = True
        notice = bot_pb2.RefereeMessage()
        n = notice.notice
        n.decision_id = did
        n.kind = _NOTICE[fault]
        n.message = problem + (
            f"; strike {seat.strikes} of {self.clock.strike_limit} allowed"
            + (": the seat forfeits and the referee plays it from now on" if forfeits else "")
        )
        n.played = str(action)
        n.strikes = seat.strikes
        if forfeits:
            n.kind = _NOTICE["forfeited"]
        await self._send(seat, notice.SerializeToString())
        self._apply(seat, action, think_us, fault)

    def _pick(
        self, answer: bot_pb2.Answer | int, legal: list[Action], texts: Sequence[str]
    ) -> tuple[int | None, str]:
        """The index of the legal action an answer (or an index read by the service)
        names, or None and what is wrong."""
        if isinstance(answer, int):
            index = answer
        elif (which := answer.WhichOneof("choice")) == "index":
            index = answer.index
        elif which == "text":
            text = answer.text
            try:
                return texts.index(text), ""
            except ValueError:
                pass
            try:
                action = self.state.parse_action(text[:300])
            except EngineError as exc:
                return None, f"cannot read action {text[:80]!r}: {exc}"
            if action in legal:
                return legal.index(action), ""
            return None, f"{action} is not a legal action now"
        else:
            return None, "the answer names no action (set index or text)"
        if index < len(legal):
            return index, ""
        return None, f"index {index} is out of range: {len(legal)} legal actions"

    def _apply(
        self,
        seat: Seat,
        action: Action,
        think_us: int,
        source: str,
        text: str | None = None,
        index: int = DEFAULT_INDEX,
    ) -> None:
        """Apply ``action`` (the ``index``-th legal action) and record it."""
        self.state.apply(action)
        self._taken.append(
            (seat.index, str(action) if text is None else text, think_us, source, index)
        )
        if self.watchers:
            self._publish()
        else:
            self._published = len(self.state.events)

    def _publish(self) -> None:
        events = self.state.events
        new = [codec.event_to_proto(e) for e in events[self._published :] if e.visible_to is None]
        self._published = len(events)
        for q in self.watchers:
            for e in new:
                q.put_nowait(e)

    def public_events(self) -> list[common_pb2.Event]:
        """The public events published so far (for a new watcher)."""
        events = self.state.events[: self._published]
        return [codec.event_to_proto(e) for e in events if e.visible_to is None]

    async def _finish(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting = None
        state = self.state
        result: Result | None = state.result()
        self.phase = MatchPhase.FINISHED
        if self.watchers:
            self._publish()
        entries = tuple(s.entry() for s in self.seats)
        self.record = MatchRecord(
            game=self.game,
            options=self.options,
            seed=self.seed,
            seats=entries,
            actions=self.actions,
            result=result,
            match_id=self.id,
            clock=self.clock,
            started_unix_ms=self._started_ms,
        )
        self.result_pb = codec.result_to_proto(result, entries, self.record.actions)
        for seat in self.seats:
            end = bot_pb2.RefereeMessage()
            end.match_end.result.CopyFrom(self.result_pb)
            end.match_end.events.extend(
                codec.event_to_proto(e) for e in state.events_for(seat.index, seat.seen)
            )
            await self._send(seat, end.SerializeToString())
            if seat.link is not None:
                seat.link.finished.set()
            seat.pending = None
        for q in self.watchers:
            q.put_nowait(self.result_pb)
            q.put_nowait(None)
        self.done.set()


_NOTICE = {
    "timeout": bot_pb2.NOTICE_KIND_TIMEOUT,
    "invalid": bot_pb2.NOTICE_KIND_INVALID,
    "crashed": bot_pb2.NOTICE_KIND_CRASHED,
    "forfeited": bot_pb2.NOTICE_KIND_FORFEITED,
}


class Referee:
    """Every match of one referee process, and the seat tokens that open them."""

    def __init__(self, default_clock: ClockRules | None = None) -> None:
        self.default_clock = default_clock or ClockRules()
        self.matches: dict[str, Match] = {}
        self.tokens: dict[str, tuple[Match, Seat]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._finished: deque[str] = deque()

    def create(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        seed: int,
        seat_names: list[str],
        clock: ClockRules | None = None,
        match_id: str = "",
    ) -> Match:
        """Create and start a match; its seats' tokens are on ``match.seats``."""
        if match_id and match_id in self.matches:
            raise ProtocolError("ALREADY_EXISTS", f"match id {match_id!r} is already in use")
        if len(match_id) > 200:
            raise ProtocolError("INVALID_ARGUMENT", "a match id has at most 200 characters")
        if not 0 <= seed < 1 << 64:
            raise ProtocolError("INVALID_ARGUMENT", f"seed must be in 0..2**64-1, not {seed}")
        match = Match(
            match_id or secrets.token_hex(8),
            game,
            options,
            seed,
            seat_names,
            clock or self.default_clock,
        )
        self.matches[match.id] = match
        for seat in match.seats:
            self.tokens[seat.token] = (match, seat)
        task = asyncio.get_running_loop().create_task(self._run(match))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return match

    async def _run(self, match: Match) -> None:
        await match.run()
        self._finished.append(match.id)
        while len(self._finished) > KEEP_FINISHED:
            old = self.matches.pop(self._finished.popleft(), None)
            if old is not None:
                for seat in old.seats:
                    self.tokens.pop(seat.token, None)

    def seat_for(self, token: str) -> tuple[Match, Seat]:
        """The match and seat a token opens; ProtocolError when it opens none."""
        found = self.tokens.get(token)
        if found is None:
            raise ProtocolError("PERMISSION_DENIED", "unknown seat token")
        return found

    def get(self, match_id: str) -> Match:
        """The match with this id; ProtocolError NOT_FOUND otherwise."""
        match = self.matches.get(match_id)
        if match is None:
            raise ProtocolError("NOT_FOUND", f"no match {match_id!r} on this referee")
        return match

    async def close(self) -> None:
        """Cancel every match still running."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
