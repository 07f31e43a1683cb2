"""Remote bots (docs/bots.md, "Running your bot from home"): a bot on its author's machine
dials a worker host over TLS with its owner's API key; the worker checks the key, plays
its qualification over the connection, and while it is online the ladder pairs it and
that host plays its matches; it drops, reconnects and finishes them; its seats are
marked remote; a wrong key, another owner's bot and a revoked key end it with the reason.
Real Postgres, Redis, Celery worker and scheduler, referee, TLS and bot processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.wire import decode_record
from rummyarena.v1 import bot_pb2, bot_pb2_grpc
from tests.platform_support import EXAMPLES, ROOT, PlatformEnv
from tests.referee_support import DroppingProxy, write_self_signed
from worker import broker, db

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
RANDOM = str(EXAMPLES / "random_bot.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThreadProxy:
    """:class:`DroppingProxy` on a loop of its own thread, for a test that is not async."""

    def __init__(self, target: str, source: str | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.proxy = DroppingProxy(target, source)
        self.address = asyncio.run_coroutine_threadsafe(self.proxy.start(), self.loop).result(10)

    def drop_all(self) -> None:
        self.loop.call_soon_threadsafe(self.proxy.drop_all)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def remote_worker(platform_env: PlatformEnv, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A worker that takes remote bots on a TLS address: that address and its CA file."""
    cert, key = write_self_signed(tmp_path)
    address = f"127.0.0.1:{_free_port()}"
    platform_env.start_worker(
        2, *("--remote", address), *("--tls-cert", str(cert), "--tls-key", str(key))
    )
    yield address, cert


def _run_remote(
    env: PlatformEnv, tmp_path: Path, address: str, ca: Path, key: str, name: str
) -> subprocess.Popen[str]:
    """``arena bot run --platform`` on the author's machine: the key, the address and the
    platform's CA only, no database, no broker."""
    far = {
        k: v
        for k, v in env.env.items()
        if k not in (db.DATABASE_URL_ENV, broker.REDIS_URL_ENV, broker.REDIS_PREFIX_ENV)
    }
    far.update(ARENA_API_KEY=key, ARENA_HOME=str(tmp_path / f"home-{name}"))
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "arena", "bot", "run", RANDOM),
            *("--platform", address, "--name", name, "--game", GAME, "--tls-ca", str(ca)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=far,
        cwd=ROOT,
    )


def _stop(process: subprocess.Popen[str]) -> str:
    if process.poll() is None:
        process.terminate()
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    return err


def _version_id(env: PlatformEnv, name: str) -> int | None:
    bot = env.store.bot_by_name(name)
    if bot is None:
        return None
    versions = env.store.bot_versions(bot.id)
    return versions[-1].version.id if versions else None


def test_a_remote_bot_plays_a_ladder_over_tls_drops_reconnects_and_finishes(
    platform_env: PlatformEnv, remote_worker: tuple[str, Path], tmp_path: Path
) -> None:
    env = platform_env
    address, ca = remote_worker
    ann = env.user("ann")
    house = env.arena(
        "bot", "submit", RANDOM, "--name", "house", "--owner", "arena", "--game", GAME
    )
    assert house.returncode == 0, house.stderr
    proxy = ThreadProxy(address)
    bot = _run_remote(env, tmp_path, proxy.address, ca, ann, "annr")
    try:
        # it connects, qualifies over its connection, and is online
        env.wait_for(lambda: _version_id(env, "annr") is not None, 120, "the bot to dial in")
        version = _version_id(env, "annr")
        assert version is not None
        env.wait_for(
            lambda: env.store.bot_version(version).qualification == "qualified",
            120,
            "its qualification over its connection:\n" + env.worker_log(),
        )
        assert env.store.bot_version(version).manifest["runtime"] == "remote"
        env.wait_for(lambda: version in env.store.remote_online([version]), 60, "it to be online")
        shown = json.loads(env.arena("bot", "show", "annr", "--json").stdout)
        assert shown["owner"] == "ann" and shown["versions"][0]["qualification"] == "qualified"

        # the ladder pairs it with the house bot; the worker it dialled plays its matches,
        # never another worker (which would find no session of it)
        env.start_worker()
        ladder = env.store.start_ladder(GAME, GAME, {"in_flight": 2})
        env.start_scheduler()

        def done_with_it() -> list[int]:  # the ladder's: qualification matches are not stored
            return [m.id for m in env.store.list_matches(bot_version_id=version, state="done")]

        env.wait_for(lambda: len(done_with_it()) >= 2, 180, "two ladder matches played")
        before = set(done_with_it())
        proxy.drop_all()  # a network blip: every connection of the bot cut at once
        env.wait_for(
            lambda: len(set(done_with_it()) - before) >= 3,
            180,
            "three more matches after it reconnected:\n" + env.worker_log(),
        )
        assert bot.poll() is None, bot.stderr.read() if bot.stderr else ""
        matches = env.store.list_matches(bot_version_id=version)
        assert not [m.id for m in matches if m.state == "failed"]
        # it played every match itself, to the end (but for the ones the blip cut)
        for match_id in sorted(before) + sorted(set(done_with_it()) - before)[-2:]:
            record = decode_record(env.store.record(match_id))
            names = [seat.name for seat in record.seats]
            assert "annr@v1 (remote)" in names, names
            seat = names.index("annr@v1 (remote)")
            assert record.seats[seat].status == "ok"

        # offline, it is paired no more
        _stop(bot)
        env.wait_for(
            lambda: version not in env.store.remote_online([version]), 60, "it to be offline"
        )
        pool = {line.label for line in env.store.ladder_standings(ladder)}
        assert pool == {"house@v1"}, pool
    finally:
        _stop(bot)
        proxy.close()


def test_a_wrong_key_another_owners_bot_and_a_revoked_key_end_a_remote_bot_with_why(
    platform_env: PlatformEnv, remote_worker: tuple[str, Path], tmp_path: Path
) -> None:
    env = platform_env
    address, ca = remote_worker
    ann, bob = env.user("ann"), env.user("bob")
    env.arena("bot", "submit", RANDOM, "--name", "anns", "--game", GAME, "--owner", "ann")

    wrong = _run_remote(env, tmp_path, address, ca, "0123456789ab." + "x" * 43, "annr")
    assert wrong.wait(120) == 2
    assert "no key of this platform" in _stop(wrong)
    theirs = _run_remote(env, tmp_path, address, ca, bob, "anns")
    assert theirs.wait(120) == 2
    err = _stop(theirs)
    assert "user bob may not play bot 'anns', which belongs to ann" in err, err

    # her own bot plays; when her key is revoked, its session ends with the reason
    mine = _run_remote(env, tmp_path, address, ca, ann, "annr")
    try:
        env.wait_for(lambda: _version_id(env, "annr") is not None, 120, "the bot to dial in")
        version = _version_id(env, "annr")
        assert version is not None
        env.wait_for(lambda: version in env.store.remote_online([version]), 60, "it to be online")
        prefix = ann.split(".", 1)[0]
        revoked = env.arena("user", "key", "revoke", prefix)
        assert revoked.returncode == 0, revoked.stderr
        assert mine.wait(120) == 2
        err = _stop(mine)
        assert "was revoked" in err, err
        env.wait_for(
            lambda: version not in env.store.remote_online([version]), 60, "it to be offline"
        )
    finally:
        with contextlib.suppress(Exception):
            _stop(mine)
    assert os.environ.get("ARENA_API_KEY") is None  # the test run itself holds no key


#: Remote bots dialling at once with made-up keys, and the channels (connections) they
#: share.
FLOOD = 300
FLOOD_CHANNELS = 10


def _listening(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError:
        return False
    return True


def _flood(address: str, ca: Path, stop: threading.Event, ended: Counter[str]) -> None:
    """:data:`FLOOD` remote bots at once, each dialling again with a new made-up key as
    soon as it is refused, until ``stop``; ``ended`` counts the refusals by status."""

    async def flood() -> None:
        credentials = grpc.ssl_channel_credentials(ca.read_bytes())
        channels = [grpc.aio.secure_channel(address, credentials) for _ in range(FLOOD_CHANNELS)]

        async def dial(channel: grpc.aio.Channel) -> None:
            while not stop.is_set():
                fake = f"{secrets.token_hex(6)}.{secrets.token_urlsafe(32)}"
                request = bot_pb2.ServeRequest(api_key=fake, bot="annr", game=GAME, agent="flood")
                call = bot_pb2_grpc.RefereeStub(channel).Serve(request, timeout=30)
                try:
                    async for _ in call:
                        pass
                except grpc.aio.AioRpcError as exc:
                    ended[exc.code().name] += 1

        try:
            await asyncio.gather(*(dial(channels[i % FLOOD_CHANNELS]) for i in range(FLOOD)))
        finally:
            for channel in channels:
                await channel.close()

    asyncio.run(flood())


def test_a_genuine_remote_bot_is_admitted_during_a_flood_of_made_up_keys(
    platform_env: PlatformEnv, remote_worker: tuple[str, Path], tmp_path: Path
) -> None:
    """docs/protocol.md, "Listeners": a flood of arrivals with made-up keys from another
    address (127.0.0.2, through a proxy) neither fills the platform's queue nor delays
    the answer to a genuine key dialling beside it."""
    env = platform_env
    address, ca = remote_worker
    ann = env.user("ann")
    env.wait_for(lambda: _listening(address), 120, "the worker's remote port")
    elsewhere = ThreadProxy(address, source="127.0.0.2")
    stop, ended = threading.Event(), Counter[str]()
    flood = threading.Thread(target=_flood, args=(elsewhere.address, ca, stop, ended))
    flood.start()
    mine, said = None, ""
    try:
        # the platform answers the flood (its keys unknown): it is taking remote bots
        env.wait_for(lambda: ended["UNAUTHENTICATED"] >= FLOOD, 120, "the flood's refusals")
        mine = _run_remote(env, tmp_path, address, ca, ann, "annr")
        env.wait_for(lambda: _version_id(env, "annr") is not None, 120, "the bot to be admitted")
        version = _version_id(env, "annr")
        assert version is not None
        env.wait_for(lambda: version in env.store.remote_online([version]), 60, "it to be online")
        assert mine.poll() is None, _stop(mine)
        assert flood.is_alive(), "the flood went on all along"
    finally:
        stop.set()
        flood.join(60)
        elsewhere.close()
        if mine is not None:
            said = _stop(mine)
    # the genuine bot was admitted at its first dial: it never had to dial again
    assert "reconnecting" not in said, said
    # every made-up key was refused: as unknown, at once for its address's queue, or (on
    # a loaded machine, past the referee's wait for the platform's answer) to try again
    assert set(ended) <= {"UNAUTHENTICATED", "RESOURCE_EXHAUSTED", "UNAVAILABLE"}, ended
    assert ended["UNAUTHENTICATED"] > 0, ended


def test_bench_admission_times_a_genuine_bot_alone_and_during_both_floods(
    platform_env: PlatformEnv,
) -> None:
    """``arena bench admission`` (docs/performance.md, "Admission during a flood"): every
    dial of the genuine bot is admitted in each condition, and each flood was refused
    (unknown keys, or their address's full queue; API keys on a bot's socket)."""
    done = platform_env.arena("bench", "admission", "--dials", "3", "--flood", "20", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for condition in ("alone", "key_flood", "socket_flood"):
        assert len(figures[f"{condition}_ms"]) == 3, figures
        assert figures[f"{condition}_median_ms"] > 0, figures
    assert set(figures["key_flood_refusals"]) <= {"UNAUTHENTICATED", "RESOURCE_EXHAUSTED"}
    assert figures["key_flood_refusals"].get("UNAUTHENTICATED", 0) > 0, figures
    assert figures["socket_flood_refusals"].get("PERMISSION_DENIED", 0) > 0, figures
