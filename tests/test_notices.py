"""A worker's notices to a tournament's watchers (worker/notices.py), on a real Redis: a
watcher subscribed hears every notice, in order; notices nobody hears are not sent for a
moment, and a watcher that subscribes then hears the next ones all the same."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator

import pytest
import redis

from worker import broker, notices

pytest_plugins = ["tests.platform_support"]


@pytest.fixture
def client(redis_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[redis.Redis]:
    monkeypatch.setenv(broker.REDIS_PREFIX_ENV, f"arena-test-{secrets.token_hex(4)}:")
    made = redis.Redis.from_url(redis_server)
    yield made
    made.close()


def _heard(pubsub: redis.client.PubSub, count: int, deadline_s: float = 30.0) -> list[dict]:
    out: list[dict] = []
    deadline = time.monotonic() + deadline_s
    while len(out) < count and time.monotonic() < deadline:
        message = pubsub.get_message(timeout=0.5)
        if message is not None:
            out.append(json.loads(message["data"]))
    return out


def test_a_watcher_hears_every_notice_in_order(client: redis.Redis) -> None:
    tournament = 10_000 + secrets.randbelow(10_000)
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(notices.tournament_channel(tournament))
    _heard(pubsub, 0)
    assert pubsub.get_message(timeout=1.0) is None  # the subscription is settled
    for match_id in range(20):
        notices.publish(client, tournament, match_id=match_id, state="done")
    assert [n["match_id"] for n in _heard(pubsub, 20)] == list(range(20))
    pubsub.close()


def test_a_watcher_who_comes_late_hears_the_next_notices(client: redis.Redis) -> None:
    tournament = 20_000 + secrets.randbelow(10_000)
    notices.publish(client, tournament, match_id=1, state="done")  # nobody listens
    assert notices.tournament_channel(tournament) in notices._unheard
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(notices.tournament_channel(tournament))
    assert pubsub.get_message(timeout=1.0) is None
    heard: list[dict] = []
    match_id = 1
    deadline = time.monotonic() + 30
    while not heard and time.monotonic() < deadline:  # within UNHEARD_S, or a little after
        match_id += 1
        notices.publish(client, tournament, match_id=match_id, state="done")
        heard = _heard(pubsub, 1, 0.2)
    assert heard and heard[0]["match_id"] > 1
    notices.publish(client, tournament, match_id=match_id + 1, state="done")
    assert [n["match_id"] for n in _heard(pubsub, 1)] == [match_id + 1]  # and each after
    pubsub.close()
