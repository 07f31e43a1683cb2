"""The clock of a match's pending decision, as the runner keeps it (docs/architecture.md,
decision 4): one timer per match that times the decision out at its deadline, or
interrupts the decision's write when the seat has not even taken it by then.

The timer is moved only when it would fire too late: a match makes a decision every
few hundred microseconds, and a timer made and cancelled for each would cost more
than the decision. A timer that fires early (the deadline moved later since it was
set) just sets itself again for the current deadline.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from referee.seats import TimedOut


class Watchdog:
    """Times out one match's pending decision (:mod:`referee.runner` holds one)."""

    __slots__ = ("_deadline", "_expired", "_task", "_timer", "_timer_at", "waiting", "writing")

    def __init__(self) -> None:
        self._task: asyncio.Task[Any] | None = None  # the match task, which it interrupts
        #: the outcome of the decision being timed (None once it has one); the runner
        #: sets it again when the decision is sent again to a seat that rejoined
        self.waiting: asyncio.Future[Any] | None = None
        self._deadline = 0.0  # its deadline, in the event loop's time
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf  # when the timer fires (inf: no timer), kept to save a call
        #: the decision is being written (a write the deadline then interrupts)
        self.writing = False
        self._expired = False  # the deadline interrupted the write

    def start(self, task: asyncio.Task[Any] | None) -> None:
        """Watch the decisions of the match ``task`` (the one a late write interrupts)."""
        self._task = task

    def arm(
        self, loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], deadline: float
    ) -> None:
        """Time ``fut`` (the pending decision's outcome) out at ``deadline`` (the loop's
        time). The clock covers delivery: armed before the decision is written."""
        self._deadline = deadline
        self.waiting = fut
        if self._timer_at > deadline:  # one timer per match, moved only when it would
            if self._timer is not None:  # fire too late
                self._timer.cancel()
            self._set(loop, deadline)

    def _set(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        self._timer = loop.call_at(deadline, self._fire)
        self._timer_at = deadline

    def stop(self) -> None:
        """The match is over: cancel the timer."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer, self._timer_at = None, math.inf
        self.waiting = None

    def take_expiry(self) -> bool:
        """Whether a cancellation of the match task was this watchdog interrupting a late
        write; if so it is taken back (``uncancel``), so the match goes on."""
        if not self._expired:
            return False
        task = asyncio.current_task()
        assert task is not None
        task.uncancel()
        self._expired = False
        return True

    def _fire(self) -> None:
        """Time out the pending decision if its deadline has passed, else wait on until it
        does (an answer in time clears ``waiting``)."""
        self._timer, self._timer_at = None, math.inf
        fut = self.waiting
        if fut is None or fut.done():
            return  # nothing pending: the next decision sets the timer again
        loop = asyncio.get_running_loop()
        if loop.time() >= self._deadline:
            if self.writing:  # the decision is not even delivered: cut it off
                self._expired = True
                assert self._task is not None
                self._task.cancel()
            else:
                fut.set_result(TimedOut())
        else:
            self._set(loop, self._deadline)
