"""What the workers tell watchers as it happens: a notice each time a match of a
tournament ends, on the channel of its tournament (Redis publish/subscribe), and where a
running match is played, for the live view (in the match's row: Postgres, not Redis, is
trusted with an address the web app dials). A notice is only a nudge: the watcher reads
the truth from Postgres, so a notice lost (no one listening, a dropped connection) loses
nothing."""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

import redis

from worker import db
from worker.broker import key_prefix
from worker.store import Store, StoreError

log = logging.getLogger(__name__)


def tournament_channel(tournament_id: int) -> str:
    """The channel of a tournament's notices."""
    return f"{key_prefix()}arena:tournament:{tournament_id}"


def set_live(store: Store, match_id: int, holder: str, referee: str, referee_match: str) -> None:
    """Say where the running match held by ``holder`` is played: in its row, under the
    claim (the web app dials only what Postgres names, never an address from Redis,
    which more than the platform can write); quiet if the store is away (the live view
    is not worth failing a match for)."""
    try:
        store.set_live(match_id, holder, referee, referee_match)
    except (StoreError, db.StoreUnavailable):
        log.warning("match %d: its live location could not be stored", match_id)


def clear_live(store: Store, match_id: int, holder: str) -> None:
    """The match no longer plays there (quiet if the store is away: the row's address
    goes anyway when the match leaves ``running``)."""
    with contextlib.suppress(StoreError, db.StoreUnavailable):
        store.clear_live(match_id, holder)


def publish(client: redis.Redis, tournament_id: int | None, **notice: Any) -> None:
    """Publish ``notice`` (JSON) on the tournament's channel; quiet if Redis is away."""
    if tournament_id is None:
        return
    with contextlib.suppress(redis.RedisError):
        client.publish(tournament_channel(tournament_id), json.dumps(notice))
