"""Only the platform manages matches (docs/architecture.md, decision 13), and what one client
can hold is bounded: the match service needs the platform's secret, waiting matches
are limited in number and age, names and ids in length, and idle connections cannot
lock the bots out."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import resource
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.auth import SECRET_ENV, SECRET_FILE, call_metadata
from rummyarena.v1 import common_pb2, match_pb2
from tests.referee_support import PY, ROOT, RefereeProcess, play_raw_seat, referee_fixture


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def create_request(**kw: object) -> match_pb2.CreateMatchRequest:
    req = match_pb2.CreateMatchRequest(game="hollywood-gin", seed=1, seat_names=["a", "b"])
    for key, value in kw.items():
        setattr(req, key, value)
    return req


def test_the_match_service_needs_the_platforms_secret(ref: RefereeProcess) -> None:
    calls = {
        "CreateMatch": lambda md: ref.matches.CreateMatch(create_request(), metadata=md),
        "GetMatch": lambda md: ref.matches.GetMatch(
            match_pb2.GetMatchRequest(match_id="x"), metadata=md
        ),
        "WatchMatch": lambda md: list(
            ref.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id="x"), metadata=md)
        ),
        "ReleaseMatch": lambda md: ref.matches.ReleaseMatch(
            match_pb2.ReleaseMatchRequest(match_id="x"), metadata=md
        ),
    }
    for name, call in calls.items():
        for metadata, problem in (
            ((), "no credential"),
            (call_metadata("wrong"), "a wrong credential"),
            ((("authorization", f"Bearer {ref.secret}x"),), "a wrong credential"),
        ):
            with pytest.raises(grpc.RpcError) as caught:
                call(metadata)
            err = caught.value
            assert err.code() == grpc.StatusCode.UNAUTHENTICATED, name
            assert problem in (err.details() or "") and SECRET_ENV in (err.details() or "")
    # with the secret, the same calls go through (here: an unknown match)
    with pytest.raises(grpc.RpcError) as caught:
        calls["GetMatch"](ref.metadata)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_bots_service_and_health_stay_open(ref: RefereeProcess) -> None:
    health = health_pb2_grpc.HealthStub(ref.channel)
    reply = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    m = ref.create("hollywood-gin", 2, seed=3, options={"max_hands": 1})

    async def both() -> None:
        await asyncio.gather(
            *(play_raw_seat(ref.address, t, random.Random(i)) for i, t in enumerate(m.tokens))
        )

    asyncio.run(both())
    assert ref.record(m.match_id).result is not None


def test_the_embedded_platform_keeps_its_secret_under_arena_home(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != SECRET_ENV}
    env["ARENA_HOME"] = str(tmp_path)
    proc = subprocess.Popen(
        [PY, "-m", "arena.commands.referee", "referee", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().split()[-1]
        path = tmp_path / SECRET_FILE
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        secret = path.read_text().strip()
        assert len(secret) >= 32
        # `arena match` run with the same ARENA_HOME reads the same secret
        out = subprocess.run(
            [PY, "-m", "arena", "match", "create", "--referee", address, "--game", "gin-three"],
            env=env,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert "seat 2:" in out.stdout
    finally:
        proc.terminate()
        proc.wait(15)


def _secrets_of(homes: list[str], start: float) -> list[str]:
    """In a process of its own: the platform's secret of each home, in order (every
    process starts at the same moment and walks the same homes, so they race)."""
    from referee import auth

    while time.time() < start:
        pass
    found = []
    for home in homes:
        os.environ["ARENA_HOME"] = home
        try:
            found.append(auth.platform_secret())
        except auth.SecretError as exc:
            found.append(f"error: {exc}")
    return found


def test_processes_making_the_secret_at_once_all_read_the_one_made(tmp_path: Path) -> None:
    """Two workers started together on a new home each take the secret; a reader must
    never see the file made but not yet written (it read an empty secret, and its
    referee took a fresh one the web's live view could not match)."""
    homes = [str(tmp_path / f"home{i}") for i in range(300)]
    env_secret = os.environ.pop(SECRET_ENV, None)
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(4) as pool:
            start = time.time() + 0.5
            results = pool.starmap(_secrets_of, [(homes, start)] * 4)
    finally:
        if env_secret is not None:
            os.environ[SECRET_ENV] = env_secret
    for i, home in enumerate(homes):
        seen = {found[i] for found in results}
        made = (Path(home) / SECRET_FILE).read_text().strip()
        assert seen == {made}, (home, seen)


@pytest.mark.parametrize(
    ("change", "code", "words"),
    [
        ({"match_id": "m" * 129}, "INVALID_ARGUMENT", "at most 128 characters"),
        ({"seat_names": ["a", "n" * 101]}, "INVALID_ARGUMENT", "at most 100 characters"),
        (
            {"clock": common_pb2.ClockRules(join_ms=3_600_000)},
            "INVALID_ARGUMENT",
            "over this referee's limit",
        ),
    ],
)
def test_names_ids_and_waiting_time_are_limited(
    ref: RefereeProcess, change: dict[str, object], code: str, words: str
) -> None:
    req = create_request()
    for key, value in change.items():
        if key == "seat_names":
            del req.seat_names[:]
            req.seat_names.extend(value)  # type: ignore[arg-type]
        elif key == "clock":
            req.clock.CopyFrom(value)  # type: ignore[arg-type]
        else:
            setattr(req, key, value)
    with pytest.raises(grpc.RpcError) as caught:
        ref.matches.CreateMatch(req, metadata=ref.metadata, timeout=10)
    assert caught.value.code() == grpc.StatusCode[code]
    assert words in (caught.value.details() or "")


def test_waiting_matches_are_limited_in_number() -> None:
    ref = RefereeProcess("--max-waiting", "3")
    try:
        for _ in range(3):
            ref.create("hollywood-gin", 2, join_ms=60_000)
        with pytest.raises(grpc.RpcError) as caught:
            ref.create("hollywood-gin", 2, join_ms=60_000)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "waiting for their seats" in (caught.value.details() or "")
    finally:
        ref.close()


H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def test_idle_connections_do_not_lock_the_bots_out() -> None:
    """With a soft limit of 256 open files, 300 idle connections used to take every
    descriptor; the referee raises its soft limit to the hard one at start."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1024:
        pytest.fail(f"this test needs a hard open-file limit of 1024 or more, not {hard}")
    ref = RefereeProcess(soft_open_files=256)
    idle: list[socket.socket] = []
    try:
        limits = Path(f"/proc/{ref.proc.pid}/limits").read_text()
        soft = next(line for line in limits.splitlines() if line.startswith("Max open files"))
        assert soft.split()[3] != "256", soft
        host, port = ref.address.rsplit(":", 1)
        for _ in range(300):  # HTTP/2 connections that open no stream
            conn = socket.create_connection((host, int(port)), timeout=5)
            conn.sendall(H2_PREFACE + EMPTY_SETTINGS)
            idle.append(conn)
        time.sleep(0.5)  # the referee has accepted them
        m = ref.create("hollywood-gin", 2, seed=5, options={"max_hands": 1})

        async def both() -> None:
            await asyncio.gather(
                *(play_raw_seat(ref.address, t, random.Random(i)) for i, t in enumerate(m.tokens))
            )

        asyncio.run(asyncio.wait_for(both(), 30))
        assert ref.record(m.match_id).result is not None
    finally:
        for s in idle:
            s.close()
        ref.close()
