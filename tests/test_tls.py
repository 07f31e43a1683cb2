"""Remote bots (docs/bots.md, "Connecting over TLS"; docs/protocol.md, "Sessions"): the
referee's TCP port speaks TLS when given a certificate, a client without the right CA
is told so plainly, and a session's stream carries heartbeats, so that a connection
that dies silently is found on both ends. Real referees, real sockets; a TCP proxy
that can freeze stands for a connection that a NAT has dropped."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from arena.commands.referee import main as arena_referee
from bots.examples.random_bot import RandomBot
from bots.sdk import Bot
from bots.sdk.client import TlsMismatch, play, serve
from referee.matches import FinishedMatch, Referee
from referee.record import MatchRecord
from referee.service import HEARTBEAT_HEADER, start_server
from referee.wire import record_from_proto
from rummyarena.v1 import bot_pb2, match_pb2, match_pb2_grpc
from tests.referee_support import (
    EXAMPLES,
    PY,
    ROOT,
    DroppingProxy,
    RefereeProcess,
    self_signed,
    start_bot,
    statuses,
    wait_all,
    write_self_signed,
)
from tests.test_referee_sessions import completed_ok, create, open_session, start_session_bot, stop

RANDOM_BOT = EXAMPLES / "random_bot.py"
SERVE = "/rummyarena.v1.Referee/Serve"
#: The heartbeat of the in-process referees: short, so that a silence is found soon.
BEAT_S = 0.5


@pytest.fixture(scope="module")
def pem(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The certificate (also the clients' CA) and key files."""
    return write_self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def ref(pem: tuple[Path, Path]) -> Iterator[RefereeProcess]:
    """`arena referee --tls-cert --tls-key`; the platform's channel trusts its certificate."""
    cert, key = pem
    own = RefereeProcess("--tls-cert", str(cert), "--tls-key", str(key))
    own.channel.close()
    own.channel = grpc.secure_channel(own.address, grpc.ssl_channel_credentials(cert.read_bytes()))
    own.matches = match_pb2_grpc.MatchesStub(own.channel)
    try:
        yield own
    finally:
        own.close()


def test_a_bot_plays_a_whole_match_over_tls_with_the_ca(
    ref: RefereeProcess, pem: tuple[Path, Path]
) -> None:
    m = ref.create("hollywood-gin", 2, options={"max_hands": 1})
    by_setting = start_bot(RANDOM_BOT, ref.address, m.tokens[0], ARENA_TLS_CA=str(pem[0]))
    by_flags = subprocess.Popen(
        [
            *(PY, "-m", "arena.commands.bot_run", "bot", "run", str(RANDOM_BOT)),
            *("--referee", ref.address, "--token", m.tokens[1], "--tls", "--tls-ca", str(pem[0])),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    for code, out in wait_all([by_setting, by_flags]):
        assert code == 0, out
    record = ref.record(m.match_id)
    assert record.status == "completed" and statuses(record) == [("ok", False)] * 2


def test_a_session_plays_over_tls(ref: RefereeProcess, pem: tuple[Path, Path]) -> None:
    session = open_session(ref)
    proc = start_session_bot(RANDOM_BOT, ref.address, session.key, ARENA_TLS_CA=str(pem[0]))
    try:
        m = create(ref, [session.session_id] * 2)
        assert completed_ok(ref, m.match_id)
    finally:
        _, out = stop(proc)
    assert "Traceback" not in out, out


def test_a_client_without_the_ca_or_in_plain_text_is_told_what_to_pass(
    ref: RefereeProcess, pem: tuple[Path, Path]
) -> None:
    """Neither a TLS client that does not trust the certificate nor a plain one gets a
    traceback or "no referee answers": each is told what to check; the referee serves
    the next bot as before."""
    m = ref.create("hollywood-gin", 2, options={"max_hands": 1})
    untrusting = start_bot(RANDOM_BOT, ref.address, m.tokens[0], ARENA_TLS="1")
    plain = start_bot(RANDOM_BOT, ref.address, m.tokens[0])
    (code_untrusting, untrusting_out), (code_plain, plain_out) = wait_all([untrusting, plain])
    assert code_untrusting != 0 and "Traceback" not in untrusting_out, untrusting_out
    assert f"TLS handshake with the referee at {ref.address} failed" in untrusting_out
    assert "--tls-ca FILE" in untrusting_out
    assert code_plain != 0 and "Traceback" not in plain_out, plain_out
    assert f"the referee at {ref.address} closed the plain connection" in plain_out
    assert "--tls" in plain_out
    session = open_session(ref)
    with pytest.raises(TlsMismatch, match="closed the plain connection"):
        asyncio.run(asyncio.wait_for(serve(RandomBot, ref.address, session.key), 30))

    async def both_seats() -> None:
        seats = [play(RandomBot(), ref.address, t, ca=pem[0]) for t in m.tokens]
        await asyncio.wait_for(asyncio.gather(*seats), 40)

    asyncio.run(both_seats())
    record = ref.record(m.match_id)
    assert statuses(record) == [("ok", False)] * 2


def test_arena_referee_takes_a_certificate_and_its_key_or_neither(
    pem: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert, key = pem
    assert arena_referee(["referee", "--port", "0", "--tls-cert", str(cert)]) != 0
    assert "--tls-cert needs --tls-key" in capsys.readouterr().err
    assert arena_referee(["referee", "--port", "0", "--tls-key", str(key)]) != 0
    assert "--tls-key needs --tls-cert" in capsys.readouterr().err
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    assert arena_referee(["referee", "--tls-cert", str(garbage), "--tls-key", str(key)]) != 0
    assert f"the TLS certificate {garbage} is not a PEM certificate" in capsys.readouterr().err
    missing = tmp_path / "missing.pem"
    assert arena_referee(["referee", "--tls-cert", str(cert), "--tls-key", str(missing)]) != 0
    assert f"cannot read the TLS private key {missing}" in capsys.readouterr().err
    other_key = tmp_path / "other-key.pem"
    other_key.write_bytes(self_signed()[1])
    assert arena_referee(["referee", "--tls-cert", str(cert), "--tls-key", str(other_key)]) != 0
    assert "do not make a pair" in capsys.readouterr().err


class FreezingProxy(DroppingProxy):
    """A TCP proxy to the referee whose connections can be frozen: it stops forwarding
    bytes either way but keeps every socket open, as a connection looks that a NAT has
    dropped; thawed, it forwards what it held back."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.flowing = asyncio.Event()
        self.flowing.set()

    async def forwarding(self, down: bool) -> bool:
        await self.flowing.wait()  # frozen: nothing more is read either
        return True


async def until(condition: Callable[[], bool], seconds: float = 30) -> bool:
    """Wait for ``condition``, for up to ``seconds``; whether it came."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def record_of(referee: Referee, match_id: str) -> MatchRecord:
    """The record of a finished match of an in-process referee."""
    finished = referee.get(match_id)
    assert isinstance(finished, FinishedMatch), f"match {match_id} has not finished"
    record = match_pb2.GetMatchResponse().record
    record.MergeFromString(finished.record)
    return record_from_proto(record)


async def play_session_match(referee: Referee, session_id: str) -> MatchRecord:
    """A one-hand match whose two seats go to the session, once it has finished."""
    match = referee.create(
        "hollywood-gin", {"max_hands": 1}, 1, ["a", "b"], None, "", [session_id] * 2
    )
    await asyncio.wait_for(match.done.wait(), 60)
    assert await until(lambda: isinstance(referee.get(match.id), FinishedMatch))
    return record_of(referee, match.id)


class Heard(logging.Handler):
    """The messages a logger writes."""

    def __init__(self, name: str) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []
        self.logger = logging.getLogger(name)

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> Heard:
        self.logger.addHandler(self)
        return self

    def __exit__(self, *_: object) -> None:
        self.logger.removeHandler(self)


def test_a_session_hears_heartbeats_and_never_plays_them() -> None:
    made: list[Bot] = []

    def make_bot() -> Bot:
        made.append(RandomBot())
        return made[-1]

    async def main() -> tuple[grpc.aio.Metadata, list[bot_pb2.Assignment], MatchRecord]:
        server, referee, port = await start_server(0, secret="s", heartbeat_s=BEAT_S)
        address = f"127.0.0.1:{port}"
        try:
            session = referee.open_session("heartbeat test")
            async with grpc.aio.insecure_channel(address) as channel:
                request = bot_pb2.ServeRequest(key=session.key).SerializeToString()
                call = channel.unary_stream(
                    SERVE, response_deserializer=bot_pb2.Assignment.FromString
                )(request)
                headers = await asyncio.wait_for(call.initial_metadata(), 20)
                beats = [await asyncio.wait_for(call.read(), 20) for _ in range(3)]
                call.cancel()
            task = asyncio.ensure_future(serve(make_bot, address, session.key))
            assert await until(lambda: referee.sessions.connected(session.id))
            await asyncio.sleep(5 * BEAT_S)  # five heartbeats come meanwhile
            assert not made, "a heartbeat was taken for a match"
            record = await play_session_match(referee, session.id)
            referee.close_session(session.id)
            await asyncio.wait_for(task, 20)
            return headers, beats, record
        finally:
            await referee.close()
            await server.stop(0)

    headers, beats, record = asyncio.run(main())
    assert dict(headers)[HEARTBEAT_HEADER] == str(round(BEAT_S * 1000))
    assert beats == [bot_pb2.Assignment(heartbeat=True)] * 3
    assert record.status == "completed" and statuses(record) == [("ok", False)] * 2
    assert len(made) == 2


def test_a_silent_stream_is_found_on_both_ends_and_the_session_plays_on() -> None:
    """The proxy between the bot and the referee freezes: the bot hears no heartbeat for
    its silence deadline and reconnects; the referee's heartbeat is not delivered and
    the session counts as disconnected. A match created meanwhile waits for the
    session, and once the proxy thaws the bot plays it to the end."""

    async def main() -> tuple[bool, bool, MatchRecord]:
        server, referee, port = await start_server(0, secret="s", heartbeat_s=BEAT_S)
        proxy = FreezingProxy(f"127.0.0.1:{port}")
        address = await proxy.start()
        try:
            session = referee.open_session("frozen")
            with Heard("bots.sdk.client") as heard:
                task = asyncio.ensure_future(serve(RandomBot, address, session.key))
                assert await until(lambda: referee.sessions.connected(session.id))
                proxy.flowing.clear()
                referee_found = await until(lambda: not referee.sessions.connected(session.id))
                bot_found = await until(
                    lambda: any("not even a heartbeat" in m for m in heard.messages)
                )
                proxy.flowing.set()
                record = await play_session_match(referee, session.id)
            referee.close_session(session.id)
            await asyncio.wait_for(task, 20)
            return referee_found, bot_found, record
        finally:
            await proxy.close()
            await referee.close()
            await server.stop(0)

    referee_found, bot_found, record = asyncio.run(main())
    assert referee_found, "the referee still counts the frozen session as connected"
    assert bot_found, "the bot never found its stream silent"
    assert record.status == "completed" and statuses(record) == [("ok", False)] * 2
