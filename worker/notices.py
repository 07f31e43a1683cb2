"""What the workers tell watchers as it happens: a notice each time a match of a
tournament ends, on the channel of its tournament (Redis publish/subscribe), and where a
running match is played, for the live view (in the match's row: Postgres, not Redis, is
trusted with an address the web app dials). A notice is only a nudge: the watcher reads
the truth from Postgres, so a notice lost (no one listening, a dropped connection) loses
nothing."""

from __future__ import annotations

import json
import logging
import time
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


#: After a notice that no watcher heard, how long this process sends none on that
#: channel: a notice only wakes a watcher, which also reads the store on its own, so one
#: that subscribes meanwhile hears the next within this time. Most tournaments have no
#: watcher, and a publish is a round trip to Redis for every match.
UNHEARD_S = 1.0
_UNHEARD_MAX = 1024
_unheard: dict[str, float] = {}


def publish(client: redis.Redis, tournament_id: int | None, **notice: Any) -> None:
    """Publish ``notice`` (JSON) on the tournament's channel, unless the last one this
    process sent there within :data:`UNHEARD_S` reached nobody; quiet if Redis is away."""
    if tournament_id is None:
        return
    channel = tournament_channel(tournament_id)
    now = time.monotonic()
    if _unheard.get(channel, 0.0) > now:
        return
    try:
        heard = client.publish(channel, json.dumps(notice))
    except redis.RedisError:
        return
    if heard:
        _unheard.pop(channel, None)
        return
    if len(_unheard) >= _UNHEARD_MAX:
        _unheard.clear()
    _unheard[channel] = now + UNHEARD_S
