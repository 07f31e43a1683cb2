"""The match runner: seats, clocks, statuses and the default policy
(docs/architecture.md, decision 4). Transport-free: the service hands each seat a
:class:`SeatLink` that can write messages, and feeds the seat's answers in.

One asyncio task runs each match. For every decision it sends the seat to act
one message with its view, legal actions, events and clock, then waits for
the answer within the decision limit plus the seat's bank. A move that is the
only legal action is no decision: the referee makes it itself (C7). A timeout,
an illegal answer or a reported crash plays the default action and counts a
strike; past the strike limit the seat forfeits and the referee plays the rest
of it with the default policy. A seat whose stream drops may rejoin with its
token while its clock runs (the pending decision is sent again); one that is
still away when its decision's time is up forfeits (disconnected).

Every match also has a wall-clock cap (:mod:`referee.walltime`): the longest play its
clock and game allow, at most the platform's ``ARENA_MAX_MATCH_S``. When it passes, no
seat has time left: the decision pending then times out at once and its seat forfeits
(``timeout``), and the referee plays the rest of the match with the default policy for
every seat, the others without a fault of theirs; a match it cannot play out within
:data:`~referee.walltime.PLAYOUT_S` more is aborted with the reason.

Every write to a seat has a deadline (a decision's is the decision's own, kept by
the match's :class:`~referee.watchdog.Watchdog`: the clock runs from before the
write), so a seat that cannot be written to times out like a silent one and cannot
hold up its match. A running match keeps its actions in the compact form of the
record (legal-action indexes and times) and only the events its seats have not yet
been sent; a finished match is kept as its record's bytes until the platform
releases it, within a byte budget and an age limit
(:class:`referee.matches.Referee`). A fault of the referee itself (an engine that
offers the seat to act no legal action is one), or the referee shutting down, ends
a match as ``aborted`` with the reason: never an invented result.

Every answer is read in the seat's stream reader, as it comes, by one method
(:meth:`Match._take`); the common one, a legal action within the decision
limit, is applied there and the next decision made at once. The match task
writes each decision and handles everything else (the bank, faults, notices).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from referee import scenario, settings, wire
from referee.clock import ClockRules
from referee.engine import Action, GameState, Result
from referee.games import get_game
from referee.matchlog import MatchLog
from referee.record import ActionSource, MatchRecord, MatchStatus, deal_json, options_dict
from referee.seats import (
    DEFAULT_INDEX,
    Aborted,
    Answered,
    Fault,
    Gone,
    MatchPhase,
    Outcome,
    ProtocolError,
    Rejoined,
    ReportedError,
    Seat,
    SeatClock,
    SeatLink,
    TimedOut,
    default_action,
    pick_answer,
    worse,
)
from referee.walltime import PLAYOUT_S, WRITE_S, cap_s
from referee.watchdog import Watchdog
from referee.wire import answer_head
from rummyarena.v1 import bot_pb2, common_pb2

log = logging.getLogger(__name__)

#: Events kept before the runner drops those every seat has been sent.
EVENTS_KEPT = 256


class _Pause:
    """What Match._next returns after many moves of the referee's own in a row."""


_PAUSE = _Pause()

# A decision made and not yet answered: seat, decision id, legal actions, their texts,
# the message, and the future of what it comes to.
Pending: TypeAlias = tuple[
    Seat, int, list[Action], Sequence[str], bytes, "asyncio.Future[Resolution]"
]
#: What Match._next returns: the next decision, a pause, or None when the match is over.
Next: TypeAlias = Pending | _Pause | None
#: What a pending decision's future resolves to: an outcome for the match task to handle,
#: or the next decision when the seat's reader applied the answer itself (Match._take),
#: the common case, which costs no object of its own.
Resolution: TypeAlias = Outcome | Next


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
        measure: bool = False,
        seat_faults: Sequence[str] = (),
        deal: Mapping[str, Any] | None = None,
        max_match_s: float | None = None,
    ) -> None:
        spec = get_game(game)
        self.id = match_id
        self.game = game
        self.seed = seed
        self.clock = clock
        # a chosen deal (``referee.scenario``) deals the first hand; else the seed does
        self.deal = deal_json(deal) if deal is not None else ""
        self.state: GameState = (
            scenario.deal(game, deal, options=options, seats=len(seat_names), seed=seed)
            if deal is not None
            else spec.new_match(seed, seats=len(seat_names), options=options)
        )
        self.options = options_dict(self.state.options)
        #: its wall-clock cap, in seconds; ``max_match_s`` (default: the platform's
        #: ARENA_MAX_MATCH_S) is the most it may be
        self.cap_s = cap_s(
            game,
            self.state.options,
            len(seat_names),
            clock,
            settings.load().max_match_s if max_match_s is None else max_match_s,
        )
        self._overtime = False  # the cap has passed: the referee plays every seat
        self.seats = [
            Seat(i, name, secrets.token_urlsafe(24), SeatClock(clock))
            for i, name in enumerate(seat_names)
        ]
        for seat, fault in zip(self.seats, seat_faults, strict=False):
            if fault:  # its bot cannot play: it forfeits before the deal
                log.info("match %s: seat %d forfeits: %s", match_id, seat.index, fault)
                seat.status, seat.forfeited = "crashed", True
        self.phase = MatchPhase.WAITING
        self.log = MatchLog(self.state)  # the actions taken, compact; events; watchers
        self.record_bytes: bytes | None = None  # the record, once finished
        self.result_pb: common_pb2.MatchResult | None = None
        self.error: str | None = None  # the referee fault that aborted the match, if any
        self.done = asyncio.Event()
        # the referee's own time per decision, when measured (`arena bench referee`): from
        # taking an answer to the next message being ready to send, without the transport
        self.referee_ns: list[int] | None = [] if measure else None
        self._all_joined = asyncio.Event()
        if all(seat.forfeited for seat in self.seats):
            self._all_joined.set()
        self._started_ms = 0
        self._welcome: list[bytes] | None = None  # each seat's, made when the match starts
        self._abort: str | None = None  # why the match is being aborted
        self._decision_id = 0
        self._encoder = wire.DecisionEncoder(clock.decision_ms)
        # the decision being made or waited on, and when it was sent (perf_counter_ns)
        self._pending: Pending | None = None
        self._sent = 0
        self._t0 = 0  # when the referee took the last answer (its own time runs from there)
        self._watchdog = Watchdog()  # times the pending decision out

    @property
    def actions_taken(self) -> int:
        """How many actions have been taken so far."""
        return len(self.log.index)

    @property
    def decisions(self) -> int:
        """How many decisions have been sent to the seats so far (each a round trip; the
        moves the referee makes itself are not decisions)."""
        return self._decision_id

    @property
    def record(self) -> MatchRecord | None:
        """The finished match's record (decoded from its bytes: the engine re-runs it)."""
        return None if self.record_bytes is None else wire.decode_record(self.record_bytes)

    @property
    def status(self) -> MatchStatus | Literal[""]:
        """``completed`` or ``aborted`` once finished; ``""`` before."""
        if self.phase is not MatchPhase.FINISHED:
            return ""
        return "aborted" if self._abort is not None else "completed"

    # -- joining -----------------------------------------------------------------------------

    def attach(self, seat: Seat, link: SeatLink, agent: str) -> bool:
        """Connect a bot stream to ``seat`` (its token checked by the caller); True when
        the seat had joined before (a rejoin: a stream it still holds is closed, and a
        pending decision is sent again on the new one)."""
        if self.phase is MatchPhase.FINISHED:
            raise ProtocolError("FAILED_PRECONDITION", f"match {self.id} is already over")
        if seat.forfeited:
            raise ProtocolError("FAILED_PRECONDITION", f"seat {seat.index} has forfeited")
        rejoin = seat.joined
        old = seat.link
        seat.joined = True
        seat.link = link
        seat.agent = agent[:200]
        if old is not None:
            old.closed = True
            old.finished.set()  # its stream ends; the new one takes the seat
        if rejoin:
            self._resolve(seat, Rejoined())
        elif all(s.joined or s.forfeited for s in self.seats):
            self._all_joined.set()
        return rejoin

    def detach(self, seat: Seat, link: SeatLink, reason: str) -> None:
        """A stream of the seat ended. Before the end of the match the seat is away: it
        may rejoin while its clock runs; its decision's time up, it forfeits."""
        link.closed = True
        if seat.link is not link:
            return  # a stream the seat has replaced
        seat.link = None
        if self.phase is not MatchPhase.FINISHED and not seat.forfeited:
            log.info("match %s: seat %d is away (%s)", self.id, seat.index, reason)

    def protocol_fault(self, seat: Seat, link: SeatLink, message: str) -> None:
        """The seat sent something unreadable: it is invalid and forfeits."""
        link.closed = True
        if seat.link is not link:
            return
        seat.link = None
        if self.phase is not MatchPhase.FINISHED and not seat.forfeited:
            seat.status = worse(seat.status, "invalid")
            seat.strikes += 1
            seat.forfeited = True
        self._resolve(seat, Gone(message))

    def _cut_off(self, seat: Seat, link: SeatLink, problem: str) -> None:
        """The seat's stream took no bytes by a write's deadline: it times out and
        forfeits (a stream that cannot be written to cannot be played), and the stream
        is ended."""
        link.closed = True
        link.finished.set()
        if seat.link is not link:
            return
        seat.link = None
        if self.phase is not MatchPhase.FINISHED and not seat.forfeited:
            log.info("match %s: seat %d cut off: %s", self.id, seat.index, problem)
            seat.status = worse(seat.status, "timeout")
            seat.strikes += 1
            seat.forfeited = True
        self._resolve(seat, Gone(problem))

    def abort(self, reason: str) -> None:
        """End the match as aborted, with ``reason``, as soon as its task can: at once if
        it waits for seats or an answer, else after the write in flight."""
        if self.phase is MatchPhase.FINISHED or self._abort is not None:
            return
        self._abort = reason
        self._all_joined.set()
        pending = self._pending
        if pending is not None and not pending[5].done():
            pending[5].set_result(Aborted(reason))

    # -- answers -----------------------------------------------------------------------------

    def on_answer(self, seat: Seat, answer: bot_pb2.Answer) -> None:
        """An Answer from the seat's stream; raises ProtocolError when out of turn.

        An answer to a decision already settled (answered or timed out) is ignored: a
        retry, or an answer sent again after rejoining, costs nothing."""
        did = answer.decision_id
        if seat.pending is not None and did == seat.pending_id:
            self._take(seat, answer)
        elif did in seat.settled:
            return
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
        its bytes against ``seat.answer_head``)."""
        self._take(seat, index)

    def _take(self, seat: Seat, answer: bot_pb2.Answer | int) -> None:
        """The one way an answer to the seat's pending decision is taken. It is read
        here, in the stream's reader (:func:`referee.seats.pick_answer`). The common
        case, a legal action within the decision limit, is applied here too and the
        next decision made at once: the match task then only writes it, one pass of the
        event loop later, beside the decisions the other matches made in the same pass
        (docs/performance.md). An answer that names no legal action, or that came past
        the decision limit (the bank is drawn on), goes to the match task with what was
        read."""
        fut = seat.pending
        if fut is None or fut.done():
            return
        t0 = time.perf_counter_ns()
        elapsed_ms = (t0 - self._sent) / 1e6
        pending = self._pending
        assert pending is not None  # made in _next together with seat.pending
        _, did, legal, texts, _, current = pending
        index, problem = pick_answer(self.state, answer, legal, texts)
        if current is not fut or index is None or elapsed_ms > self.clock.decision_ms:
            fut.set_result(Answered(index, problem))  # the match task settles it
            return
        try:
            self._t0 = t0
            seat.pending = None
            seat.answer_head = b""
            seat.settled.append(did)
            seat.clock.charge(elapsed_ms)
            self._apply(seat, legal[index], int(elapsed_ms * 1000), "bot", index)
            fut.set_result(self._next())
        except Exception as exc:  # a referee bug: the match task ends the match
            fut.set_exception(exc)

    def on_error(self, seat: Seat, error: bot_pb2.BotError) -> None:
        """A BotError from the seat: the bot failed to decide."""
        if seat.pending is not None and error.decision_id == seat.pending_id:
            self._resolve(seat, ReportedError(error.message[:500]))
        elif error.decision_id not in seat.settled:
            raise ProtocolError(
                "FAILED_PRECONDITION", f"error report for decision {error.decision_id} out of turn"
            )

    def _resolve(self, seat: Seat, outcome: Outcome) -> None:
        fut = seat.pending
        if fut is not None and not fut.done():
            fut.set_result(outcome)

    # -- the match ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Wait for the seats, play the match to its end, and make the record. A fault of
        the referee's own aborts the match with the fault as its reason. The match's time
        is up at its cap (:meth:`_time_up`); one it cannot play out by
        :data:`~referee.walltime.PLAYOUT_S` after is aborted."""
        loop = asyncio.get_running_loop()
        timers = (
            loop.call_later(self.cap_s, self._time_up),
            loop.call_later(
                self.cap_s + PLAYOUT_S,
                self.abort,
                f"its time was up ({self.cap_s:g} s, its wall-clock cap) and the referee "
                f"could not play the rest out within {PLAYOUT_S:g} s",
            ),
        )
        try:
            await self._wait_for_seats()
            await self._play()
        except Exception as exc:  # a referee bug must not take the process down
            log.exception("match %s failed", self.id)
            self.error = f"{type(exc).__name__}: {exc}"
            if self._abort is None:
                self._abort = f"referee fault: {self.error}"
        finally:
            for timer in timers:
                timer.cancel()
            await self._finish()

    def _time_up(self) -> None:
        """The match's wall-clock cap has passed: no seat has time left. Seats still to
        join count as never joined; the decision pending times out now (its watchdog's
        deadline moved to now: a write in flight is cut off), and its seat forfeits
        (:meth:`_settle`); the referee plays every other move (:meth:`_next`)."""
        if self.phase is MatchPhase.FINISHED or self._abort is not None:
            return
        log.warning(
            "match %s: its time is up (%g s, its wall-clock cap): the referee plays the rest",
            self.id,
            self.cap_s,
        )
        self._overtime = True
        self._all_joined.set()
        pending = self._pending
        if pending is not None and not pending[5].done():
            loop = asyncio.get_running_loop()
            self._watchdog.arm(loop, pending[5], loop.time())

    async def _wait_for_seats(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._all_joined.wait(), self.clock.join_ms / 1000)
        if self._abort is not None:
            return
        for seat in self.seats:
            if not seat.joined and not seat.forfeited:
                seat.status, seat.forfeited = "disconnected", True
        self.phase = MatchPhase.RUNNING
        self._started_ms = int(time.time() * 1000)
        names = [seat.name for seat in self.seats]
        self._welcome = [
            wire.welcome_bytes(self.id, self.game, self.options, names, self.clock, seat.index)
            for seat in self.seats
        ]
        await asyncio.gather(*(self._send(seat, None) for seat in self.seats))

    async def _send(self, seat: Seat, data: bytes | None) -> bool:
        """Write ``data`` (a welcome, notice or end of match) to the seat's stream; False
        when the seat is away or its stream broke, or took no bytes within
        :data:`WRITE_S`, which cuts the seat off."""
        try:
            async with asyncio.timeout(WRITE_S):
                return await self._write(seat, data)
        except TimeoutError:
            link = seat.link
            if link is not None:
                self._cut_off(seat, link, "the stream took no message in time (a write timed out)")
            return False

    async def _send_decision(self, seat: Seat, msg: bytes) -> bool:
        """Write a decision to the seat's stream; its deadline is the decision's own,
        kept by the match's watchdog (armed before the write: the clock covers delivery),
        which interrupts a write still in flight at the deadline and cuts the seat off."""
        watchdog = self._watchdog
        watchdog.writing = True
        try:
            return await self._write(seat, msg)
        except asyncio.CancelledError:
            if not watchdog.take_expiry():  # the watchdog's cancel is taken back
                raise
            link = seat.link
            if link is not None:
                self._cut_off(seat, link, "the stream took no decision in time (a write timed out)")
            return False
        finally:
            watchdog.writing = False

    async def _write(self, seat: Seat, data: bytes | None) -> bool:
        """Write ``data`` to the seat's stream, after the Welcome if that stream has not
        had it; False when the seat is away or its stream broke (it is then away)."""
        link = seat.link
        if link is None or link.closed:
            return False
        link.writing = True
        try:
            if not link.welcomed and self._welcome is not None:
                link.welcomed = True
                await link.write(self._welcome[seat.index])
            if data is not None:
                await link.write(data)
        except Exception as exc:  # the stream broke under us: the seat is away
            self.detach(seat, link, f"write failed: {exc}")
            return False
        finally:
            link.writing = False
        return True

    async def _play(self) -> None:
        loop = asyncio.get_running_loop()
        loop_time, watchdog = loop.time, self._watchdog
        self._create_future = loop.create_future
        watchdog.start(asyncio.current_task())
        perf = time.perf_counter_ns
        self._t0 = perf()
        pending = self._next()
        while pending is not None and self._abort is None:
            if isinstance(pending, _Pause):
                await asyncio.sleep(0)  # a played-out seat must not hold up other matches
                pending = self._next()
                continue
            seat, did, legal, texts, msg, fut = pending
            sent = self._sent = perf()
            # the clock covers delivery: the watchdog is armed before the write, which it
            # interrupts if still in flight at the deadline (_send_decision); a decision
            # made just before the match's time was up has none left
            allowance = 0.0 if self._overtime else seat.clock.allowance_s()
            watchdog.arm(loop, fut, loop_time() + allowance)
            if seat.link is not None:
                await self._send_decision(seat, msg)
            # the answer, or the seat coming back if it is away
            outcome = await fut
            while isinstance(outcome, Rejoined):  # send the decision again on the new stream
                fut = self._create_future()
                seat.pending = fut
                watchdog.waiting = fut
                self._pending = (seat, did, legal, texts, msg, fut)
                await self._send_decision(seat, msg)
                outcome = await fut
            watchdog.waiting = None
            # isinstance, the common case first: a match statement tests each case's
            # classes in turn, and this runs once per decision
            if isinstance(outcome, tuple) or outcome is None or isinstance(outcome, _Pause):
                pending = outcome  # _take applied the answer and made the next decision
                continue
            if isinstance(outcome, Aborted):
                break
            t0 = self._t0 = perf()
            elapsed_ms = (t0 - sent) / 1e6
            seat.pending = None
            seat.answer_head = b""
            await self._settle(seat, did, legal, outcome, elapsed_ms)
            pending = self._next()

    def _next(self) -> Next:
        """Play the referee's own moves up to the next decision of a bot and make that
        decision: its message, and the future its outcome will resolve. None when the
        match is over; ``_PAUSE`` after many moves of the referee's own in a row.

        The referee's own moves: one that is no choice (C7: the only legal action; the
        seat gets no decision for it), every move of a seat that has forfeited, and every
        move once the match's time is up (the source ``timeout``)."""
        state = self.state
        seats = self.seats
        played = 0
        overtime = self._overtime
        while (turn := state.to_act()) is not None:
            seat = seats[turn]
            legal = state.legal_actions()
            if len(legal) < 2 or seat.forfeited or overtime:  # the referee's: the default
                if not legal:  # an engine fault, not the seat's: abort, never ask it
                    raise RuntimeError(
                        f"seat {turn} is to act but {self.game} offers it no legal action"
                    )
                source: ActionSource = (
                    "forced" if len(legal) == 1 else "forfeited" if seat.forfeited else "timeout"
                )
                self._apply(seat, default_action(legal), 0, source)
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
            if fast is not None:  # Hollywood Gin: the message straight from the state
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
                msg = encoder.decision(did, view, texts, events, bank)
            if len(state.events) > EVENTS_KEPT:
                self.log.drop_sent(seats)
            fut: asyncio.Future[Resolution] = self._create_future()
            seat.pending, seat.pending_id = fut, did
            seat.answer_head = answer_head(did)
            if self.referee_ns is not None:
                self.referee_ns.append(time.perf_counter_ns() - self._t0)
            pending = self._pending = (seat, did, legal, texts, msg, fut)
            return pending
        return None

    async def _settle(
        self,
        seat: Seat,
        did: int,
        legal: list[Action],
        outcome: Answered | ReportedError | TimedOut | Gone,
        elapsed_ms: float,
    ) -> None:
        """Apply the seat's answer as :meth:`_take` read it (one it did not apply: past
        the decision limit, or naming no legal action), or the default action with a
        strike."""
        think_us = int(elapsed_ms * 1000)
        seat.settled.append(did)
        fault: Fault
        match outcome:
            case Answered(index, problem):
                if not seat.clock.charge(elapsed_ms):
                    fault, problem = "timeout", f"answered after {elapsed_ms:.0f} ms, out of time"
                elif index is not None:
                    self._apply(seat, legal[index], think_us, "bot", index)
                    return
                else:
                    fault = "invalid"
            case TimedOut():
                seat.clock.charge(elapsed_ms)
                if seat.link is None:  # away, and did not come back in time: it forfeits
                    seat.status = worse(seat.status, "disconnected")
                    seat.forfeited = True
                    self._apply(seat, default_action(legal), think_us, "forfeited")
                    return
                fault, problem = "timeout", f"no answer within {elapsed_ms:.0f} ms"
                if self._overtime:
                    problem += f", when the match's time was up ({self.cap_s:g} s, its cap)"
            case ReportedError(reported):
                seat.clock.charge(elapsed_ms)
                fault, problem = "crashed", f"the bot reported an error: {reported}"
            case Gone():  # the seat was marked when it went
                self._apply(seat, default_action(legal), think_us, "forfeited")
                return
        seat.strikes += 1
        seat.status = worse(seat.status, fault)
        action = default_action(legal)
        # once the match's time is up a seat that timed out has no time to play on in
        forfeits = seat.strikes > self.clock.strike_limit or (fault == "timeout" and self._overtime)
        if forfeits:
            seat.forfeited = True
        message = problem + (
            f"; strike {seat.strikes} of {self.clock.strike_limit} allowed"
            + (": the seat forfeits and the referee plays it from now on" if forfeits else "")
        )
        notice_kind: wire.NoticeKind = "forfeited" if forfeits else fault
        notice = wire.notice_bytes(did, notice_kind, message, str(action), seat.strikes)
        await self._send(seat, notice)
        self._apply(seat, action, think_us, fault)

    def _apply(
        self,
        seat: Seat,
        action: Action,
        think_us: int,
        source: ActionSource,
        index: int = DEFAULT_INDEX,
    ) -> None:
        """Apply ``action`` (the ``index``-th legal action) and log it."""
        self.state.apply(action)
        self.log.add(index, think_us, source)
        seat.think_us += think_us

    def public_events(self) -> list[common_pb2.Event]:
        """The public events published so far, for a new watcher."""
        return self.log.public_events(self.game, self.seed, len(self.seats), self.options)

    async def _finish(self) -> None:
        self._watchdog.stop()
        state = self.state
        result: Result | None = None
        if self._abort is None:
            result = state.result()
            if result is None:  # the play ended before the match did: a referee fault
                self._abort = f"referee fault: the match stopped after {self.actions_taken} actions"
        self.phase = MatchPhase.FINISHED
        if self.log.watchers:
            self.log.publish()
        head = MatchRecord(
            game=self.game,
            options=self.options,
            seed=self.seed,
            seats=tuple(s.entry() for s in self.seats),
            actions=(),
            result=result,
            match_id=self.id,
            clock=self.clock,
            started_unix_ms=self._started_ms,
            status="completed" if self._abort is None else "aborted",
            reason=self._abort or "",
            deal=self.deal,
        )
        msg = self.log.record(head, self.seats)
        self.record_bytes = msg.SerializeToString(deterministic=True)
        result_pb = self.result_pb = msg.result
        ends = [
            wire.match_end_bytes(result_pb, state.events_for(seat.index, seat.seen))
            for seat in self.seats
        ]
        await asyncio.gather(
            *(self._send(seat, data) for seat, data in zip(self.seats, ends, strict=True))
        )
        for seat in self.seats:
            if seat.link is not None:
                seat.link.finished.set()
            seat.pending = None
        for q in self.log.watchers:
            q.put_nowait(self.result_pb)
            q.put_nowait(None)
        self.done.set()
