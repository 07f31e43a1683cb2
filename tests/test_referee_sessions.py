"""Bot sessions (docs/architecture.md, decision 12; docs/protocol.md, "Sessions"): one bot process
connects once with its session key and plays every match it is seated in, each on its
own Play stream. Real referee processes and real `arena bot run --session-key`
processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.commands.bot_run import main as arena_bot_run
from bots.examples.random_bot import RandomBot
from bots.sdk import client
from bots.sdk.client import BotSessionError, serve
from referee.matches import Referee
from referee.seats import ProtocolError
from rummyarena.v1 import bot_pb2, bot_pb2_grpc, common_pb2, match_pb2
from tests.referee_support import (
    EXAMPLES,
    PY,
    ROOT,
    TEST_BOTS,
    RefereeProcess,
    referee_fixture,
    start_bot,
    statuses,
)

RANDOM_BOT = EXAMPLES / "random_bot.py"


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def open_session(ref: RefereeProcess, name: str = "test bot v1") -> match_pb2.OpenSessionResponse:
    return ref.matches.OpenSession(
        match_pb2.OpenSessionRequest(name=name), timeout=10, metadata=ref.metadata
    )


def close_session(ref: RefereeProcess, session_id: str) -> bool:
    reply = ref.matches.CloseSession(
        match_pb2.CloseSessionRequest(session_id=session_id), timeout=10, metadata=ref.metadata
    )
    return reply.closed


def create(
    ref: RefereeProcess,
    seat_sessions: list[str],
    seed: int = 1,
    *,
    seats: int = 2,
    match_id: str = "",
    decision_ms: int = 3000,
    bank_ms: int = 5000,
    join_ms: int = 20_000,
) -> match_pb2.CreateMatchResponse:
    """A one-hand Hollywood Gin match whose seats go to ``seat_sessions``."""
    req = match_pb2.CreateMatchRequest(
        game="hollywood-gin",
        seed=seed,
        seat_names=[f"seat{i}" for i in range(seats)],
        match_id=match_id,
        seat_sessions=seat_sessions,
        clock=common_pb2.ClockRules(decision_ms=decision_ms, bank_ms=bank_ms, join_ms=join_ms),
    )
    req.options["max_hands"].int_value = 1
    return ref.matches.CreateMatch(req, timeout=10, metadata=ref.metadata)


def start_session_bot(path: Path, address: str, key: str, **env: str) -> subprocess.Popen[str]:
    """A bot process serving a session through `arena bot run --session-key`."""
    return subprocess.Popen(
        [PY, "-m", "arena.commands.bot_run", "bot", "run", str(path), "--referee", address],
        env={**os.environ, "ARENA_SESSION_KEY": key, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """End a bot process (if it still runs); its exit code and output."""
    if proc.poll() is None:
        proc.kill()
    out, err = proc.communicate(timeout=10)
    return proc.returncode, out + err


def stop_after(proc: subprocess.Popen[str], seconds: float) -> tuple[int, str]:
    """Wait for a bot process to exit by itself; its exit code and output."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(seconds)
    return stop(proc)


def completed_ok(ref: RefereeProcess, match_id: str) -> bool:
    record = ref.record(match_id)
    return record.status == "completed" and statuses(record) == [("ok", False)] * 2


def finished_within(ref: RefereeProcess, match_id: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        reply = ref.matches.GetMatch(
            match_pb2.GetMatchRequest(match_id=match_id), timeout=10, metadata=ref.metadata
        )
        if reply.state == match_pb2.MATCH_STATE_FINISHED:
            return True
        time.sleep(0.05)
    return False


def serve_call(ref: RefereeProcess, key: str) -> grpc.Future:
    """A raw Serve stream (a bot process's session) on its own channel."""
    channel = grpc.insecure_channel(ref.address)
    return bot_pb2_grpc.RefereeStub(channel).Serve(
        bot_pb2.ServeRequest(key=key, agent="test"), timeout=10
    )


def test_one_process_plays_matches_in_turn_and_at_once(ref: RefereeProcess) -> None:
    session = open_session(ref)
    proc = start_session_bot(RANDOM_BOT, ref.address, session.key)
    sid = session.session_id
    try:
        # in turn; the first with both seats in the one process
        for seed in (1, 2):
            m = create(ref, [sid, sid], seed=seed)
            assert completed_ok(ref, m.match_id)
            assert proc.poll() is None, "the session's process must play on"
        # at once: four matches, eight seats, one process
        many = [create(ref, [sid, sid], seed=seed) for seed in range(3, 7)]
        for m in many:
            assert completed_ok(ref, m.match_id)
        # CloseSession ends the process's serve loop: it exits
        assert close_session(ref, sid)
        code, out = stop_after(proc, 10)
        assert code == 0, out
        assert "the referee ended the session" in out
        assert not close_session(ref, sid), "a closed session is no longer known"
    finally:
        stop(proc)


BOT_COUNTING = """
from bots.sdk import Bot


class CountingBot(Bot):
    made = 0

    def __init__(self):
        CountingBot.made += 1
        self.number = CountingBot.made

    def on_start(self, game, seat, seats, options):
        with open({out!r}, "a") as f:
            f.write(f"{{self.number}}\\n")

    def decide(self, request):
        return 0
"""


@pytest.mark.parametrize(
    ("tail", "instances"),
    [("", 4), ("\nbot = CountingBot()\n", 1), ("\ndef make_bot():\n    return CountingBot()\n", 4)],
    ids=["class: a new bot per match", "bot instance: reused", "make_bot: called per match"],
)
def test_a_session_makes_its_bots_as_the_file_says(
    ref: RefereeProcess, tmp_path: Path, tail: str, instances: int
) -> None:
    out = tmp_path / "starts.txt"
    path = tmp_path / "counting_bot.py"
    path.write_text(BOT_COUNTING.format(out=str(out)) + tail)
    session = open_session(ref)
    proc = start_session_bot(path, ref.address, session.key)
    try:
        ids = [create(ref, [session.session_id] * 2, seed=s).match_id for s in (1, 2)]
        for match_id in ids:
            assert finished_within(ref, match_id, 20)
        assert len(out.read_text().split()) == 4  # four seats started
        assert len(set(out.read_text().split())) == instances
    finally:
        close_session(ref, session.session_id)
        stop_after(proc, 10)


BOT_FAILING_ONCE = """
from bots.examples.random_bot import RandomBot

made = 0


def make_bot():
    global made
    made += 1
    if made == 1:
        raise RuntimeError("deliberate failure making the first bot")
    return RandomBot()
"""


def test_a_match_that_fails_to_play_is_logged_and_the_session_plays_on(
    ref: RefereeProcess, tmp_path: Path
) -> None:
    path = tmp_path / "failing_bot.py"
    path.write_text(BOT_FAILING_ONCE)
    session = open_session(ref)
    proc = start_session_bot(path, ref.address, session.key)
    sid = session.session_id
    failed = create(ref, [sid, ""], seed=14, join_ms=8000)
    token_bot = start_bot(RANDOM_BOT, ref.address, failed.tokens[1])
    try:
        record = ref.record(failed.match_id)  # its seat 0 never joined
        assert statuses(record) == [("disconnected", True), ("ok", False)]
        m = create(ref, [sid, sid], seed=15)
        assert completed_ok(ref, m.match_id)
        assert proc.poll() is None
        assert close_session(ref, sid)
        code, out = stop_after(proc, 10)
        assert code == 0 and "deliberate failure making the first bot" in out, out
    finally:
        stop(proc)
        stop_after(token_bot, 10)


def test_assignments_made_before_the_process_connects_are_delivered(
    ref: RefereeProcess,
) -> None:
    session = open_session(ref)
    m = create(ref, [session.session_id] * 2, seed=8)
    time.sleep(0.5)  # no stream connected all along
    # each seat of the match, with its token, on the first stream that connects
    call = serve_call(ref, session.key)
    got = [next(call), next(call)]
    call.cancel()
    assert [(a.match_id, a.game, a.seat, a.token, a.seat_name) for a in got] == [
        (m.match_id, "hollywood-gin", seat, m.tokens[seat], f"seat{seat}") for seat in (0, 1)
    ]
    # and a bot process started only now plays them
    proc = start_session_bot(RANDOM_BOT, ref.address, session.key)
    try:
        assert completed_ok(ref, m.match_id)
    finally:
        close_session(ref, session.session_id)
        stop_after(proc, 10)


def test_a_second_serve_takes_over_and_gets_the_seats_not_yet_joined(ref: RefereeProcess) -> None:
    session = open_session(ref)
    sid = session.session_id
    first = serve_call(ref, session.key)
    m = create(ref, [sid, ""], seed=9, join_ms=1000)
    assert next(first).token == m.tokens[0]
    second = serve_call(ref, session.key)
    # the older stream ends (OK); the new one gets the seat again: it has not joined
    assert next(second).token == m.tokens[0]
    assert list(first) == []
    assert first.code() == grpc.StatusCode.OK
    # later seats go to the stream that holds the session
    later = create(ref, ["", sid], seed=10, join_ms=1000)
    assert next(second).token == later.tokens[1]
    assert close_session(ref, sid)
    assert list(second) == []
    assert second.code() == grpc.StatusCode.OK


def test_serve_with_a_wrong_key_is_unauthenticated(ref: RefereeProcess) -> None:
    call = serve_call(ref, "not-a-key")
    with pytest.raises(grpc.RpcError) as caught:
        next(call)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "OpenSession" in caught.value.details()
    # the bot process says so in one line and exits
    proc = start_session_bot(RANDOM_BOT, ref.address, "not-a-key")
    code, out = stop_after(proc, 10)
    assert code == 2
    assert out.strip().count("\n") == 0 and "session key" in out, out


def test_create_match_naming_an_unknown_session_is_refused_and_creates_nothing(
    ref: RefereeProcess,
) -> None:
    session = open_session(ref)
    sid = session.session_id
    closed = open_session(ref)
    assert close_session(ref, closed.session_id)
    cases = {
        "unknown": (["no-such-session", ""], "no-such-session"),
        "closed": (["", closed.session_id], closed.session_id),
        "too few": ([sid], "1 entries for 2 seats"),
        "too many": ([sid, sid, sid], "3 entries for 2 seats"),
    }
    for name, (seat_sessions, said) in cases.items():
        with pytest.raises(grpc.RpcError) as caught:
            create(ref, seat_sessions, match_id=f"refused-{name.replace(' ', '-')}")
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, name
        assert said in caught.value.details(), (name, caught.value.details())
        with pytest.raises(grpc.RpcError) as missing:
            ref.matches.GetMatch(
                match_pb2.GetMatchRequest(match_id=f"refused-{name.replace(' ', '-')}"),
                timeout=10,
                metadata=ref.metadata,
            )
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND, name
    # nor was the open session told of a seat
    call = serve_call(ref, session.key)
    call.initial_metadata()  # the stream is on (closing first would refuse the key)
    close_session(ref, sid)
    assert list(call) == []


def test_a_bot_process_killed_mid_match_forfeits_its_seat_and_the_match_completes(
    ref: RefereeProcess,
) -> None:
    doomed, other = open_session(ref, "hang"), open_session(ref, "random")
    killed = start_session_bot(
        TEST_BOTS / "hang_bot.py", ref.address, doomed.key, ARENA_HANG_AFTER="2"
    )
    survivor = start_session_bot(RANDOM_BOT, ref.address, other.key)
    try:
        m = create(ref, [doomed.session_id, other.session_id], decision_ms=1000, bank_ms=2000)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            reply = ref.matches.GetMatch(
                match_pb2.GetMatchRequest(match_id=m.match_id), timeout=10, metadata=ref.metadata
            )
            if reply.state == match_pb2.MATCH_STATE_RUNNING:
                break
            time.sleep(0.02)
        time.sleep(0.3)
        killed.send_signal(signal.SIGKILL)
        record = ref.record(m.match_id)
        assert record.status == "completed"
        assert statuses(record) == [("disconnected", True), ("ok", False)]
        assert survivor.poll() is None, "the other session plays on"
        # SIGTERM stops a session's process promptly, with status 0
        survivor.send_signal(signal.SIGTERM)
        code, out = stop_after(survivor, 5)
        assert code == 0 and "stopped by SIGTERM" in out, out
    finally:
        close_session(ref, doomed.session_id)
        close_session(ref, other.session_id)
        stop(killed)
        stop(survivor)


def test_closing_a_session_makes_its_unjoined_seats_never_joined_at_once(
    ref: RefereeProcess,
) -> None:
    session = open_session(ref)
    m = create(ref, [session.session_id, ""], seed=11, join_ms=120_000)
    token_bot = start_bot(RANDOM_BOT, ref.address, m.tokens[1])
    try:
        time.sleep(1.0)  # the token's bot joins; seat 0's session has no process at all
        started = time.monotonic()
        assert close_session(ref, session.session_id)
        assert finished_within(ref, m.match_id, 15), "the match waited for the closed session"
        assert time.monotonic() - started < 15
        record = ref.record(m.match_id)
        assert record.status == "completed"
        assert statuses(record) == [("disconnected", True), ("ok", False)]
    finally:
        stop_after(token_bot, 10)


def test_the_token_flow_still_works_beside_sessions(ref: RefereeProcess) -> None:
    m = create(ref, [], seed=12)
    bots = [start_bot(RANDOM_BOT, ref.address, token) for token in m.tokens]
    try:
        assert completed_ok(ref, m.match_id)
        assert [stop_after(b, 10)[0] for b in bots] == [0, 0]
    finally:
        for b in bots:
            stop(b)
    # one seat by a session's process, the other by a token handed out
    session = open_session(ref)
    mixed = create(ref, [session.session_id, ""], seed=13)
    proc = start_session_bot(RANDOM_BOT, ref.address, session.key)
    token_bot = start_bot(RANDOM_BOT, ref.address, mixed.tokens[1])
    try:
        assert completed_ok(ref, mixed.match_id)
    finally:
        close_session(ref, session.session_id)
        stop_after(proc, 10)
        stop_after(token_bot, 10)


@pytest.mark.parametrize(
    "args",
    [[], ["--token", "T", "--session-key", "K"]],
    ids=["neither token nor key", "both"],
)
def test_bot_run_takes_a_token_or_a_session_key(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_SESSION_KEY", raising=False)
    code = arena_bot_run(["bot", "run", str(RANDOM_BOT), "--referee", "127.0.0.1:1", *args])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "--session-key" in err and "--token" in err, err


def test_referee_shutdown_ends_every_session() -> None:
    own = RefereeProcess()
    session = open_session(own)
    proc = start_session_bot(RANDOM_BOT, own.address, session.key)
    try:
        m = create(own, [session.session_id] * 2)
        assert completed_ok(own, m.match_id)
        own.close()  # SIGTERM: a graceful stop
        code, out = stop_after(proc, 10)
        assert code == 0 and "the referee ended the session" in out, out
    finally:
        own.close()
        stop(proc)


def test_the_sdk_gives_up_on_an_unknown_key_at_once_and_on_a_lost_referee_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    own = RefereeProcess()
    try:
        started = time.monotonic()
        with pytest.raises(BotSessionError, match="refused the session key"):
            asyncio.run(serve(RandomBot, own.address, "wrong"))
        assert time.monotonic() - started < 5
        session = open_session(own)
        monkeypatch.setattr(client, "RECONNECT_S", 1.0)

        async def lose_the_referee() -> None:
            task = asyncio.ensure_future(serve(RandomBot, own.address, session.key))
            await asyncio.sleep(0.5)
            assert not task.done(), "the session is on"
            own.proc.kill()
            await asyncio.wait_for(task, 10)

        with pytest.raises(BotSessionError, match="reconnecting failed"):
            asyncio.run(lose_the_referee())
    finally:
        own.close()


def test_open_sessions_are_limited() -> None:
    referee = Referee(max_sessions=2)
    first, _ = referee.open_session("a"), referee.open_session("b")
    with pytest.raises(ProtocolError) as caught:
        referee.open_session("c")
    assert caught.value.code == "RESOURCE_EXHAUSTED"
    assert referee.close_session(first.id)
    assert referee.open_session("c").key not in (first.key,)
