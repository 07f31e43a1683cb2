"""The live view (docs/viewer.md): the web app dials only the referee that Postgres names
for a running match (the worker that holds its claim wrote it there), with that match's
watch credential, never the platform's secret; an address planted where an attacker
without database rights can write (Redis) is never dialled. Real Postgres, Redis,
workers, referees and bots."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import httpx
import pytest
import redis
from starlette.testclient import TestClient

from arena.bench.web import add_bots
from arena.web import app as web_app
from arena.web.app import create_app
from referee.auth import platform_secret
from tests.platform_support import EXAMPLES, PLATFORM_BOTS, PlatformEnv
from tests.test_web_inputs import served
from worker import broker, db, tasks
from worker.app import configure
from worker.store import Store

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]


class FakeReferee:
    """A gRPC server on a free loopback port that records every call made to it (its
    method and metadata) and answers none."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        calls = self.calls

        class Record(grpc.GenericRpcHandler):
            def service(self, details: grpc.HandlerCallDetails) -> None:
                calls.append((details.method, tuple(details.invocation_metadata or ())))

        self.server = grpc.server(ThreadPoolExecutor(2), handlers=[Record()])
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.address = f"127.0.0.1:{port}"
        self.server.start()

    def close(self) -> None:
        self.server.stop(0)


@pytest.fixture
def fake() -> Iterator[FakeReferee]:
    server = FakeReferee()
    try:
        yield server
    finally:
        server.close()


def use_platform(env: PlatformEnv, monkeypatch: pytest.MonkeyPatch) -> str:
    """Give this process the test platform's settings (its database, Redis prefix and
    home, where the workers' referees take the platform's secret); its Redis URL."""
    for name in (db.DATABASE_URL_ENV, broker.REDIS_URL_ENV, broker.REDIS_PREFIX_ENV, "ARENA_HOME"):
        monkeypatch.setenv(name, env.env[name])
    return env.env[broker.REDIS_URL_ENV]


def test_an_address_planted_in_redis_is_never_dialled(
    platform_env: PlatformEnv, fake: FakeReferee, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = platform_env
    redis_url = use_platform(env, monkeypatch)
    monkeypatch.setattr(web_app, "LIVE_WAIT_S", 1.0)
    a, b = (env.submit(EXAMPLES / "random_bot.py", n, "hollywood-gin") for n in ("a", "b"))
    match = env.store.create_match("hollywood-gin", [a, b])
    assert env.store.claim_match("a worker", match_id=match.id) is not None  # running
    # what a hosted bot (or anything else that reaches Redis) could write: the key
    # the worker used to keep the match's referee in
    prefix = env.env[broker.REDIS_PREFIX_ENV]
    client = redis.Redis.from_url(redis_url)
    planted = f'{{"referee": "{fake.address}", "match": "m{match.id}a1"}}'
    client.set(f"{prefix}arena:live:{match.id}", planted, ex=60)
    client.close()
    with TestClient(create_app(env.store, redis_url=redis_url)) as web:
        stream = web.get(f"/matches/{match.id}/live/events")
        page = web.get(f"/matches/{match.id}/live")
    assert fake.calls == [], "the planted address was dialled"
    assert stream.status_code == 200
    assert "event: unavailable" in stream.text and "live view is unavailable" in stream.text
    assert page.status_code == 200 and "live.js" in page.text
    assert platform_secret() not in stream.text + page.text


def test_the_live_location_is_kept_under_the_claim(platform_env: PlatformEnv) -> None:
    store = platform_env.store
    a, b = (platform_env.submit(EXAMPLES / "random_bot.py", n, "hollywood-gin") for n in ("a", "b"))
    match = store.create_match("hollywood-gin", [a, b])
    assert not store.set_live(match.id, "nobody", "127.0.0.1:1", "m1a1")  # queued
    assert store.live_location(match.id) is None
    assert store.claim_match("holder", match_id=match.id, lease_seconds=60) is not None
    assert not store.set_live(match.id, "another", "127.0.0.1:1", "m1a1")  # not its claim
    assert store.live_location(match.id) is None
    assert store.set_live(match.id, "holder", "127.0.0.1:5", "m1a1")
    assert store.live_location(match.id) == ("127.0.0.1:5", "m1a1")
    assert store.renew_lease(match.id, "holder", 60)
    assert store.live_location(match.id) == ("127.0.0.1:5", "m1a1")
    store.clear_live(match.id, "another")  # not its claim: nothing changes
    assert store.live_location(match.id) == ("127.0.0.1:5", "m1a1")
    store.clear_live(match.id, "holder")
    assert store.live_location(match.id) is None
    # leaving `running` clears it, whatever moves the match
    assert store.set_live(match.id, "holder", "127.0.0.1:5", "m1a1")
    assert store.fail_match(match.id, "holder", "gone") == "queued"
    assert store.live_location(match.id) is None
    assert store.claim_match("second", match_id=match.id, lease_seconds=60) is not None
    assert store.live_location(match.id) is None
    assert store.set_live(match.id, "second", "127.0.0.1:6", "m1a2")
    with store.pool.connection() as conn:  # its lease expires: the address is not used
        conn.execute(
            "UPDATE matches SET lease_expires = now() - interval '1 s' WHERE id = %s", (match.id,)
        )
    assert store.live_location(match.id) is None
    assert store.claim_match("third", match_id=match.id, lease_seconds=60) is not None
    with store.pool.connection() as conn:  # a new holder: the old address went with the old
        row = conn.execute("SELECT live_referee FROM matches WHERE id = %s", (match.id,))
        assert row.fetchone() == (None,)
    assert store.set_live(match.id, "third", "127.0.0.1:7", "m1a3")
    assert store.cancel_match(match.id)
    assert store.live_location(match.id) is None


def test_a_claim_records_where_its_play_runs(platform_env: PlatformEnv) -> None:
    """A claim with ``live_referee`` writes the live location itself: the referee's id of
    the play is the one the worker creates the match under (``referee_match_id``); a claim
    of the same match by another holder writes its own, and one without writes none."""
    from worker.store.matches import referee_match_id

    store = platform_env.store
    a, b = (platform_env.submit(EXAMPLES / "random_bot.py", n, "hollywood-gin") for n in ("a", "b"))
    match = store.create_match("hollywood-gin", [a, b])
    first = store.claim_match(
        "host/aaaaaa111111", match_id=match.id, lease_seconds=60, live_referee="10.0.0.2:7"
    )
    assert first is not None and first.attempts == 1
    where = ("10.0.0.2:7", referee_match_id(match.id, 1, "host/aaaaaa111111"))
    assert store.live_location(match.id) == where == ("10.0.0.2:7", f"m{match.id}a1-111111")
    with store.pool.connection() as conn:  # its lease expires: another host takes it over
        conn.execute(
            "UPDATE matches SET lease_expires = now() - interval '1 s' WHERE id = %s", (match.id,)
        )
    second = store.claim_match(
        "other/bbbbbb222222", match_id=match.id, lease_seconds=60, live_referee="10.0.0.3:9"
    )
    assert second is not None and second.attempts == 2
    assert store.live_location(match.id) == ("10.0.0.3:9", f"m{match.id}a2-222222")
    with store.pool.connection() as conn:
        conn.execute(
            "UPDATE matches SET lease_expires = now() - interval '1 s' WHERE id = %s", (match.id,)
        )
    assert store.claim_match("third/cccccc333333", match_id=match.id, lease_seconds=60)
    with store.pool.connection() as conn:  # the old play's address went with it
        row = conn.execute(
            "SELECT live_referee, live_match FROM matches WHERE id = %s", (match.id,)
        )
        assert row.fetchone() == (None, None)


def test_live_views_of_matches_played_by_two_workers(
    platform_env: PlatformEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = platform_env
    redis_url = use_platform(env, monkeypatch)
    slow = env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", "hollywood-gin")
    rnd = env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    matches = [
        env.store.create_match("hollywood-gin", [slow, rnd], options={"max_hands": 1}, seed=s)
        for s in (5, 6)
    ]
    env.start_worker(concurrency=1)
    env.start_worker(concurrency=1)
    configure(redis_url, env.env[broker.REDIS_PREFIX_ENV])
    for m in matches:
        tasks.play_match.delay(m.id)
    holders: dict[int, str] = {}
    located: dict[int, tuple[str, str]] = {}

    def both_running() -> bool:
        for m in matches:
            now = env.store.match(m.id)
            where = env.store.live_location(m.id)
            if now is not None and now.lease_holder and where is not None:
                holders[m.id] = now.lease_holder
                located[m.id] = where
        return len(located) == 2

    env.wait_for(both_running, 90, "both matches to run, each on its worker")
    # two workers, two referees (a holder is host/pid/claim)
    assert len({h.rsplit("/", 1)[0] for h in holders.values()}) == 2, holders
    assert len({where[0] for where in located.values()}) == 2, located
    streams: dict[int, str] = {}
    with TestClient(create_app(env.store, redis_url=redis_url)) as web:

        def follow(match_id: int) -> None:
            streams[match_id] = web.get(f"/matches/{match_id}/live/events").text

        threads = [threading.Thread(target=follow, args=(m.id,)) for m in matches]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    for m in matches:
        text = streams[m.id]
        assert text.count("event: event") > 10, text[:2000] + env.worker_log()
        assert 'event: end\ndata: {"state": "done"}' in text, text[-500:]
        assert env.store.live_location(m.id) is None


def test_live_streams_are_bounded_per_client(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_app, "LIVE_STREAMS_PER_CLIENT", 2)
    monkeypatch.setattr(web_app, "LIVE_WAIT_S", 3.0)
    a, b = add_bots(store, "hollywood-gin", 2)
    queued = store.create_match("hollywood-gin", [a, b])  # no worker: it never starts
    with served(create_app(store)) as port, httpx.Client(timeout=10) as http:
        url = f"http://127.0.0.1:{port}/matches/{queued.id}/live/events"
        with contextlib.ExitStack() as open_streams:
            reading = []  # kept: a body iterator let go closes its connection
            for _ in range(2):
                stream = open_streams.enter_context(http.stream("GET", url))
                assert stream.status_code == 200
                reading.append(stream.iter_text())
                assert next(reading[-1]).startswith(": waiting")
            third = http.get(url)
            assert third.status_code == 429 and "at most 2 live streams" in third.text
            assert "Retry-After" in third.headers
            assert http.get(f"http://127.0.0.1:{port}/matches").status_code == 200
        # the two were closed by the client: their places are free again
        deadline = time.monotonic() + 10
        while (again := http.get(url)).status_code == 429:
            assert time.monotonic() < deadline, "closed streams kept their places"
            time.sleep(0.1)
        # with the wait cut short, the stream that got a place ends by itself
        assert again.status_code == 200 and "event: unavailable" in again.text


def test_a_stream_waits_a_bounded_time_for_its_match_to_start(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_app, "LIVE_WAIT_S", 0.5)
    a, b = add_bots(store, "hollywood-gin", 2)
    queued = store.create_match("hollywood-gin", [a, b])
    with TestClient(create_app(store)) as web:
        text = web.get(f"/matches/{queued.id}/live/events").text
    assert text.startswith(": waiting")
    assert text.rstrip().endswith('"state": "queued"}')
    assert "event: unavailable" in text and "live view is unavailable" in text


def test_a_flood_of_live_streams_from_many_addresses_is_held_at_the_bounds(
    platform_env: PlatformEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/viewer.md, "Live": six addresses each open one stream more than their
    bound while a real match plays on a real worker; the app holds no more than its
    total of streams (each a WatchMatch stream on the referee), refuses the rest with
    429 or 503, every other page answers, and once the flood is gone a viewer follows
    the match to its end."""
    env = platform_env
    redis_url = use_platform(env, monkeypatch)
    total = 8
    monkeypatch.setattr(web_app, "LIVE_STREAMS", total)
    per_client = web_app.LIVE_STREAMS_PER_CLIENT
    slow = env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", "hollywood-gin")
    rnd = env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    match = env.store.create_match("hollywood-gin", [slow, rnd], options={"max_hands": 8}, seed=5)
    env.start_worker(concurrency=1)
    configure(redis_url, env.env[broker.REDIS_PREFIX_ENV])
    tasks.play_match.delay(match.id)
    env.wait_for(lambda: env.store.live_location(match.id) is not None, 90, "the match to run")
    answered: Counter[int] = Counter()
    with served(create_app(env.store, redis_url=redis_url)) as port:
        url = f"http://127.0.0.1:{port}/matches/{match.id}/live/events"
        with contextlib.ExitStack() as flood, httpx.Client(timeout=10) as viewer:
            reading = []  # kept: a body iterator let go closes its connection
            for n in range(2, 8):  # 127.0.0.2 to 127.0.0.7: six clients
                transport = httpx.HTTPTransport(local_address=f"127.0.0.{n}")
                client = flood.enter_context(httpx.Client(transport=transport, timeout=10))
                for _ in range(per_client + 1):
                    stream = flood.enter_context(client.stream("GET", url))
                    answered[stream.status_code] += 1
                    if stream.status_code == 200:
                        reading.append(stream.iter_text())
                        assert "event: event" in next(reading[-1])  # it follows the match
                    else:
                        assert "Retry-After" in stream.headers
            # the first two clients filled the app's streams, each to its own bound
            assert answered == {200: total, 429: 2, 503: (6 - 2) * (per_client + 1)}, answered
            full = viewer.get(url)
            assert full.status_code == 503 and "the live view is full" in full.text
            assert viewer.get(f"http://127.0.0.1:{port}/matches").status_code == 200
            live_page = viewer.get(f"http://127.0.0.1:{port}/matches/{match.id}/live")
            assert live_page.status_code == 200  # the page; its stream waits for a place
        # the flood's streams are closed: their places are free, and a viewer follows
        deadline = time.monotonic() + 10
        while (followed := viewer_text(url)) is None:
            assert time.monotonic() < deadline, "closed streams kept their places"
            time.sleep(0.1)
    assert followed.count("event: event") > 10, followed[:2000] + env.worker_log()
    assert 'event: end\ndata: {"state": "done"}' in followed, followed[-500:]


def viewer_text(url: str) -> str | None:
    """The whole live stream at ``url`` (None: refused, for now)."""
    with httpx.Client(timeout=120) as http:
        done = http.get(url)
    return done.text if done.status_code == 200 else None


def test_a_client_is_its_ipv4_address_or_its_ipv6_64() -> None:
    """The live view's bound per client counts as the referee's per-source queue does."""
    from referee.sessions import source_of_address

    assert source_of_address("192.0.2.7") == "192.0.2.7"
    assert source_of_address("::ffff:192.0.2.7") == "192.0.2.7"
    assert source_of_address("2001:db8:1:2::1") == source_of_address("2001:db8:1:2:ffff::9")
    assert source_of_address("2001:db8:1:2::1") != source_of_address("2001:db8:1:3::1")
