"""Remote bots (docs/protocol.md, "Remote bots"): a bot dials the referee's TLS port for
remote bots with its owner's API key; the referee asks the platform, which watches the
arrivals (``RefereeLink.watch_remote``) and admits the bot onto a session or refuses it.
A real referee process (``LocalReferee`` with ``--remote``), real TLS, real
``arena bot run --platform`` processes; the test plays the platform, in a thread."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from arena.commands.referee import main as arena_referee
from referee.auth import SECRET_ENV
from referee.wire import record_from_proto
from rummyarena.v1 import bot_pb2, bot_pb2_grpc, common_pb2, match_pb2
from tests.referee_support import (
    EXAMPLES,
    PY,
    ROOT,
    DroppingProxy,
    RefereeProcess,
    answer,
    join,
    start_bot,
    statuses,
    wait_all,
    write_self_signed,
)
from worker.referee_link import LocalReferee, RefereeGone, RefereeLink

RANDOM_BOT = EXAMPLES / "random_bot.py"
#: The platform's users' keys, and whose bot each name is.
KEYS = {"good": "ann"}
OWNERS = {"mine": "ann", "blip": "ann", "revoked": "ann", "theirs": "bob"}
#: How long a condition may take to come true before the test fails.
WAIT_S = 60.0


@dataclass
class Platform:
    """The worker's side, played by the test: it checks each arrival's key and bot and
    admits it onto the session opened for the bot's name, and notes every event."""

    link: RefereeLink
    sessions: dict[str, str] = field(default_factory=dict)  # bot name -> session id
    events: list[match_pb2.RemoteEvent] = field(default_factory=list)
    admitted: dict[str, str] = field(default_factory=dict)  # connection id -> session id
    changed: threading.Condition = field(default_factory=threading.Condition)

    def run(self, events: Iterator[match_pb2.RemoteEvent]) -> None:
        """Answer every arrival until the watch ends."""
        try:
            for event in events:
                if event.WhichOneof("kind") == "arrived":
                    self.answer(event.connection_id, event.arrived)
                with self.changed:
                    self.events.append(event)
                    self.changed.notify_all()
        except RefereeGone:
            pass

    def answer(self, connection_id: str, arrival: match_pb2.RemoteArrival) -> None:
        owner = KEYS.get(arrival.api_key)
        if owner is None:
            self.link.refuse_remote(connection_id, "no such key", "UNAUTHENTICATED")
        elif OWNERS.get(arrival.bot) != owner:
            self.link.refuse_remote(connection_id, f"the bot {arrival.bot!r} is not yours")
        else:
            self.link.admit_remote(connection_id, self.sessions[arrival.bot])
            self.admitted[connection_id] = self.sessions[arrival.bot]

    def wait_for(self, what: Callable[[list[match_pb2.RemoteEvent]], bool]) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: what(self.events), WAIT_S), self.events

    def arrivals(self, bot: str) -> list[match_pb2.RemoteEvent]:
        return [
            e for e in self.events if e.WhichOneof("kind") == "arrived" and e.arrived.bot == bot
        ]

    def departures(self, session_id: str) -> list[match_pb2.RemoteEvent]:
        return [e for e in self.events if e.HasField("left") and e.left.session_id == session_id]


@dataclass
class Remote:
    """The referee, its remote port, the platform's link, and the clients' CA file."""

    referee: LocalReferee
    link: RefereeLink
    platform: Platform
    ca: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.referee.remote_port}"


@pytest.fixture(scope="module")
def pem(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The certificate (also the bots' CA) and key files."""
    return write_self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def remote(pem: tuple[Path, Path]) -> Iterator[Remote]:
    """The worker's referee with a remote port, and the platform watching it."""
    cert, key = pem
    with pytest.MonkeyPatch.context() as env:
        env.setenv(SECRET_ENV, secrets.token_urlsafe(16))
        referee = LocalReferee(
            extra_args=("--remote", "127.0.0.1:0", "--tls-cert", str(cert), "--tls-key", str(key))
        )
    link = RefereeLink(referee.address, referee.secret)
    watching = RefereeLink(referee.address, referee.secret)  # closed to end the watch
    platform = Platform(link)
    thread = threading.Thread(target=platform.run, args=(watching.watch_remote(),), daemon=True)
    thread.start()
    try:
        yield Remote(referee, link, platform, cert)
    finally:
        watching.close()
        thread.join(10)
        link.close()
        referee.stop()


def remote_bot(address: str, ca: Path, api_key: str, name: str) -> subprocess.Popen[str]:
    """`arena bot run --platform` with ``api_key`` in ARENA_API_KEY."""
    return subprocess.Popen(
        [
            *(PY, "-m", "arena.commands.bot_run", "bot", "run", str(RANDOM_BOT)),
            *("--platform", address, "--name", name, "--game", "hollywood-gin"),
        ],
        env={**os.environ, "ARENA_API_KEY": api_key, "ARENA_TLS_CA": str(ca)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def create(
    remote: Remote, sessions: list[str], seed: int = 1, decision_ms: int = 3000
) -> match_pb2.CreateMatchResponse:
    """A one-hand Hollywood Gin match whose seats go to ``sessions`` (``""``: a token)."""
    request = match_pb2.CreateMatchRequest(
        game="hollywood-gin",
        seed=seed,
        seat_names=["remote", "local"],
        seat_sessions=sessions,
        clock=common_pb2.ClockRules(decision_ms=decision_ms, bank_ms=5000, join_ms=30_000),
    )
    request.options["max_hands"].int_value = 1
    reply: match_pb2.CreateMatchResponse = remote.link.stub.CreateMatch(
        request, timeout=10, metadata=remote.link.metadata
    )
    return reply


def finished_statuses(remote: Remote, match_id: str) -> tuple[str, list[tuple[str, bool]]]:
    """The finished match's status and its seats' (status, forfeited)."""
    reply = remote.link.wait(match_id, WAIT_S)
    record = match_pb2.GetMatchResponse().record
    record.MergeFromString(reply.record_data)
    parsed = record_from_proto(record)
    return parsed.status, statuses(parsed)


def started(remote: Remote, match_id: str) -> bool:
    """Whether every seat of the match has joined (it runs, or has finished already)."""
    reply = remote.link.stub.GetMatch(
        match_pb2.GetMatchRequest(match_id=match_id), timeout=10, metadata=remote.link.metadata
    )
    return bool(reply.state != match_pb2.MATCH_STATE_WAITING)


def stop(proc: subprocess.Popen[str], timeout: float = WAIT_S) -> tuple[int, str]:
    """Wait for a bot process to exit (killed after ``timeout``); its code and output."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate(timeout=10)
    return proc.returncode, out + err


def test_an_admitted_remote_bot_plays_its_match_to_the_end(remote: Remote) -> None:
    sid, _ = remote.link.open_session("remote mine")
    remote.platform.sessions["mine"] = sid
    bot = remote_bot(remote.address, remote.ca, "good", "mine")
    try:
        m = create(remote, [sid, ""])
        local = start_bot(RANDOM_BOT, remote.referee.address, m.tokens[1])
        assert finished_statuses(remote, m.match_id) == ("completed", [("ok", False)] * 2)
        assert wait_all([local])[0][0] == 0
        arrival = remote.platform.arrivals("mine")[0]
        assert arrival.arrived.api_key == "good" and arrival.arrived.game == "hollywood-gin"
        assert remote.platform.admitted[arrival.connection_id] == sid
        remote.link.close_session(sid)  # retired: the bot's session ends, status OK
        code, out = stop(bot)
        assert code == 0, out
        assert "the referee ended the session" in out
        remote.platform.wait_for(lambda _: len(remote.platform.departures(sid)) == 1)
        assert remote.platform.departures(sid)[0].connection_id == arrival.connection_id
    finally:
        stop(bot, 0)


def test_a_wrong_key_and_another_owners_bot_are_refused_while_others_play(
    remote: Remote,
) -> None:
    m = create(remote, ["", ""], seed=2)
    players = [start_bot(RANDOM_BOT, remote.referee.address, t) for t in m.tokens]
    bad_key = remote_bot(remote.address, remote.ca, "wrong", "mine")
    not_theirs = remote_bot(remote.address, remote.ca, "good", "theirs")
    code, out = stop(bad_key)
    assert code == 2 and "no such key" in out, out
    code, out = stop(not_theirs)
    assert code == 2 and "the bot 'theirs' is not yours" in out, out
    assert [c for c, _ in wait_all(players)] == [0, 0]
    assert finished_statuses(remote, m.match_id) == ("completed", [("ok", False)] * 2)
    # each refused once: a refusal is never retried
    assert len(remote.platform.arrivals("theirs")) == 1


def test_closing_with_a_reason_ends_the_remote_bot_with_it(remote: Remote) -> None:
    sid, _ = remote.link.open_session("remote revoked")
    remote.platform.sessions["revoked"] = sid
    bot = remote_bot(remote.address, remote.ca, "good", "revoked")
    try:
        m = create(remote, [sid, sid], seed=3)  # both seats: started means the bot is on
        assert _until(lambda: started(remote, m.match_id)), "the bot never joined its match"
        remote.link.close_session(sid, reason="your key was revoked")
        code, out = stop(bot)
        assert code == 2 and "your key was revoked" in out, out
        remote.platform.wait_for(lambda _: len(remote.platform.departures(sid)) == 1)
    finally:
        stop(bot, 0)


def test_a_remote_bot_whose_connection_drops_is_admitted_again_and_finishes(
    remote: Remote,
) -> None:
    sid, _ = remote.link.open_session("remote blip")
    remote.platform.sessions["blip"] = sid

    async def main() -> bot_pb2.MatchEnd:
        proxy = DroppingProxy(remote.address)
        address = await proxy.start()
        bot = remote_bot(address, remote.ca, "good", "blip")
        try:
            # time enough to dial in again and be admitted again on a loaded machine
            m = create(remote, [sid, ""], seed=4, decision_ms=60_000)
            # the local seat is played here, so that the drop comes in mid-match
            async with grpc.aio.insecure_channel(remote.referee.address) as channel:
                call = channel.stream_stream("/rummyarena.v1.Referee/Play")()
                await call.write(join(m.tokens[1]))
                rng, decisions = random.Random(4), 0
                while (raw := await call.read()) is not grpc.aio.EOF:
                    msg = bot_pb2.RefereeMessage.FromString(raw)
                    if msg.HasField("decision"):
                        decisions += 1
                        if decisions == 2:
                            proxy.drop_all()
                        d = msg.decision
                        await call.write(answer(d.decision_id, rng.randrange(len(d.legal_actions))))
                    elif msg.HasField("match_end"):
                        await call.done_writing()
                        end = msg.match_end
            remote.link.close_session(sid)
            code, out = await asyncio.to_thread(stop, bot)
            assert code == 0, out
            return end
        finally:
            await proxy.close()
            stop(bot, 0)

    end = asyncio.run(main())
    assert [s.status for s in end.result.seats] == [common_pb2.SEAT_STATUS_OK] * 2
    arrivals = remote.platform.arrivals("blip")
    assert len(arrivals) >= 2
    assert {remote.platform.admitted[a.connection_id] for a in arrivals} == {sid}
    remote.platform.wait_for(lambda _: len(remote.platform.departures(sid)) == len(arrivals))


def _until(condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` came true within :data:`WAIT_S` (polled)."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_referee_nobody_watches_refuses_remote_bots_and_a_watch_ends_with_it(
    pem: tuple[Path, Path],
) -> None:
    cert, key = pem
    ref = RefereeProcess("--remote", "127.0.0.1:0", "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert ref.proc.stdout is not None
        port = ref.proc.stdout.readline().split()[-1].rsplit(":", 1)[1]
        credentials = grpc.ssl_channel_credentials(cert.read_bytes())
        with grpc.secure_channel(f"127.0.0.1:{port}", credentials) as channel:
            request = bot_pb2.ServeRequest(api_key="good", bot="mine", game="hollywood-gin")
            call = bot_pb2_grpc.RefereeStub(channel).Serve(request, timeout=10)
            with pytest.raises(grpc.RpcError) as refused:
                next(iter(call))
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "this referee takes no remote bots" in refused.value.details()
        link = RefereeLink(ref.address, ref.secret)
        events = link.watch_remote()
        ref.close()  # a graceful stop ends the watch
        with pytest.raises(RefereeGone):
            next(events)
        link.close()
    finally:
        ref.close()


def test_remote_needs_tls(capsys: pytest.CaptureFixture[str]) -> None:
    assert arena_referee(["referee", "--port", "0", "--remote", "127.0.0.1:0"]) == 2
    assert "--remote needs --tls-cert and --tls-key" in capsys.readouterr().err
