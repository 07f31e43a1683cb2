"""What the workers tell watchers as it happens (Redis publish/subscribe): a notice each
time a match of a tournament ends, on the channel of its tournament. A notice is only a
nudge: the watcher reads the truth from Postgres, so a notice lost (no one listening, a
dropped connection) loses nothing."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import redis

from worker.broker import key_prefix


def tournament_channel(tournament_id: int) -> str:
    """The channel of a tournament's notices."""
    return f"{key_prefix()}arena:tournament:{tournament_id}"


def live_key(match_id: int) -> str:
    """The Redis key naming where a running match is played: ``{"referee": HOST:PORT,
    "match": referee match id}``, set by its worker while it runs (the web app's live
    view follows the referee's watch stream there)."""
    return f"{key_prefix()}arena:live:{match_id}"


def set_live(
    client: redis.Redis, match_id: int, referee: str, referee_match: str, ttl: float
) -> None:
    """Say where a running match is played (quiet if Redis is away)."""
    with contextlib.suppress(redis.RedisError):
        client.set(
            live_key(match_id),
            json.dumps({"referee": referee, "match": referee_match}),
            ex=max(1, int(ttl)),
        )


def clear_live(client: redis.Redis, match_id: int) -> None:
    """The match no longer runs (quiet if Redis is away)."""
    with contextlib.suppress(redis.RedisError):
        client.delete(live_key(match_id))


def publish(client: redis.Redis, tournament_id: int | None, **notice: Any) -> None:
    """Publish ``notice`` (JSON) on the tournament's channel; quiet if Redis is away."""
    if tournament_id is None:
        return
    with contextlib.suppress(redis.RedisError):
        client.publish(tournament_channel(tournament_id), json.dumps(notice))
