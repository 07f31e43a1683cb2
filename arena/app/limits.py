"""How many writes a user may make per hour (``docs/api.md``, "Rate limits"): bot
versions submitted and tournaments created, each counted from the store over the last
hour, so every web process and command line sees the same count. Operators and the
platform are not limited.

:func:`check` refuses early, before a write's work is done; :func:`counted` gives the
write its :class:`~worker.store.Allowance`, which the store counts and spends in the
write's own transaction under a lock: however many arrive at once, no more than the
allowance are made."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Literal

from arena.app.actors import Actor
from arena.app.errors import RateLimited
from referee import settings
from worker.store import Allowance, AllowanceSpent, Store

#: What is counted: bot versions submitted; tournaments, gauntlets and duels created.
Kind = Literal["submissions", "tournaments"]
WINDOW = timedelta(hours=1)
_WHAT = {
    "submissions": "bot versions submitted",
    "tournaments": "tournaments, gauntlets and duels created",
}
_VARIABLE = {
    "submissions": settings.SUBMISSIONS_PER_HOUR,
    "tournaments": settings.TOURNAMENTS_PER_HOUR,
}


def allowance(kind: Kind) -> int:
    """How many writes of ``kind`` a user may make per hour (the platform's setting)."""
    found = settings.load()
    return found.submissions_per_hour if kind == "submissions" else found.tournaments_per_hour


def check(store: Store, actor: Actor, kind: Kind, *, now: datetime | None = None) -> None:
    """:class:`RateLimited` when ``actor`` (a user, not an operator) has made their
    allowance of writes of ``kind`` within the last hour, saying when the next is
    allowed (an early refusal: the write itself is counted by :func:`counted`)."""
    if actor.is_operator or actor.name is None:
        return
    limit = allowance(kind)
    now = now or datetime.now(UTC)
    made = store.writes_since(actor.name, kind, now - WINDOW)
    if len(made) >= limit:
        raise _refusal(actor, kind, limit, made, now)


@contextmanager
def counted(actor: Actor, kind: Kind, *, now: datetime | None = None) -> Iterator[Allowance | None]:
    """The allowance to give a store write of ``kind`` by ``actor`` (None for operators
    and the platform); the store's :class:`AllowanceSpent` becomes :class:`RateLimited`."""
    if actor.is_operator or actor.name is None:
        yield None
        return
    now = now or datetime.now(UTC)
    limit = allowance(kind)
    try:
        yield Allowance(actor.name, kind, limit, now - WINDOW)
    except AllowanceSpent as spent:
        raise _refusal(actor, kind, limit, spent.made, now) from None


def _refusal(
    actor: Actor, kind: Kind, limit: int, made: list[datetime], now: datetime
) -> RateLimited:
    # the next write is allowed once the oldest that counts is an hour old
    oldest = made[len(made) - limit] if limit else now
    retry = max(1, math.ceil((oldest + WINDOW - now).total_seconds())) if limit else 3600
    return RateLimited(
        f"{actor} has {len(made)} {_WHAT[kind]} in the last hour, the most allowed "
        f"({limit}, set by {_VARIABLE[kind]}): try again in {retry} s",
        retry,
    )
