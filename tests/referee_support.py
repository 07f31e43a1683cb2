"""Shared helpers of the referee tests: a referee process, matches, bot processes."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import grpc

from arena.bench.admission import self_signed, write_self_signed  # noqa: F401 - for the TLS tests
from arena.commands.verify import main as arena_verify
from referee.auth import SECRET_ENV, call_metadata
from referee.record import MatchRecord
from referee.wire import record_from_proto
from rummyarena.v1 import bot_pb2, common_pb2, match_pb2, match_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
TEST_BOTS = Path(__file__).resolve().parent / "bots"
PY = sys.executable
PLAY = "/rummyarena.v1.Referee/Play"


#: Run as ``python -c LOW_LIMIT N ARGS...``: lower the soft open-file limit to N, then
#: become ``python ARGS...`` (same process). Set in the child itself: Python code run
#: between fork and exec (``preexec_fn``) can hang a child of a process with threads.
LOW_LIMIT = (
    "import os, resource, sys\n"
    "hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]\n"
    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), hard))\n"
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n"
)


class RefereeProcess:
    """A referee server in its own process, on a free loopback port, with a secret of its
    own for the match service (``metadata`` carries it); ``soft_open_files`` starts it
    with that soft limit of open files."""

    def __init__(self, *args: str, soft_open_files: int | None = None, **popen: Any) -> None:
        self.secret = secrets.token_urlsafe(16)
        self.metadata = call_metadata(self.secret)
        command = [PY, "-m", "arena.commands.referee", "referee", "--port", "0", *args]
        if soft_open_files is not None:
            command = [PY, "-c", LOW_LIMIT, str(soft_open_files), *command[1:]]
        self.proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=popen.pop("stderr", subprocess.DEVNULL),
            env={**os.environ, SECRET_ENV: self.secret},
            text=True,
            cwd=ROOT,
            **popen,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "listening on" in line, f"referee did not start: {line!r}"
        self.address = line.split()[-1]
        self.channel = grpc.insecure_channel(self.address)
        self.matches = match_pb2_grpc.MatchesStub(self.channel)

    def create(
        self,
        game: str,
        seats: int,
        seed: int = 1,
        options: Mapping[str, int] | None = None,
        decision_ms: int = 3000,
        bank_ms: int = 5000,
        strike_limit: int = 3,
        join_ms: int = 10_000,
        names: list[str] | None = None,
        match_id: str = "",
    ) -> match_pb2.CreateMatchResponse:
        """Create a match with short clocks (seats named ``seat0``… unless ``names``)."""
        req = match_pb2.CreateMatchRequest(
            game=game,
            seed=seed,
            seat_names=names or [f"seat{i}" for i in range(seats)],
            match_id=match_id,
            clock=common_pb2.ClockRules(
                decision_ms=decision_ms,
                bank_ms=bank_ms,
                strike_limit=strike_limit,
                join_ms=join_ms,
            ),
        )
        for key, value in (options or {}).items():
            req.options[key].int_value = value
        return self.matches.CreateMatch(req, timeout=10, metadata=self.metadata)

    def finished(self, match_id: str) -> match_pb2.GetMatchResponse:
        """The match's GetMatch reply once it has finished (waits up to 30 s)."""
        deadline = time.monotonic() + 30
        while True:
            reply = self.matches.GetMatch(
                match_pb2.GetMatchRequest(match_id=match_id), timeout=10, metadata=self.metadata
            )
            if reply.state == match_pb2.MATCH_STATE_FINISHED or time.monotonic() > deadline:
                return reply
            time.sleep(0.05)

    def record(self, match_id: str) -> MatchRecord:
        """The finished match's record, checked with `arena verify` on a file."""
        reply = self.finished(match_id)
        assert reply.state == match_pb2.MATCH_STATE_FINISHED, reply.state
        fd, name = tempfile.mkstemp(prefix="arena-test-", suffix=".record")
        path = Path(name)
        with os.fdopen(fd, "wb") as f:
            f.write(reply.record.SerializeToString())
        try:
            assert arena_verify(["verify", str(path)]) == 0, f"arena verify failed on {match_id}"
        finally:
            path.unlink()
        return record_from_proto(reply.record)

    def close(self) -> None:
        """Stop the referee."""
        self.channel.close()
        self.proc.terminate()  # a graceful stop: matches still running end aborted
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def start_bot(path: Path, address: str, token: str, **env: str) -> subprocess.Popen[str]:
    """A bot process playing one seat through `arena bot run`."""
    return subprocess.Popen(
        [PY, "-m", "arena.commands.bot_run", "bot", "run", str(path)],
        env={**os.environ, "ARENA_REFEREE": address, "ARENA_TOKEN": token, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def wait_all(procs: list[subprocess.Popen[str]], timeout: float = 40) -> list[tuple[int, str]]:
    """Wait for bot processes; their exit codes and outputs."""
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        out.append((p.returncode, stdout + stderr))
    return out


def referee_fixture() -> Iterator[RefereeProcess]:
    """Body of a module-scoped referee fixture."""
    ref = RefereeProcess()
    try:
        yield ref
    finally:
        ref.close()


def statuses(record: MatchRecord) -> list[tuple[str, bool]]:
    """Each seat's (status, forfeited)."""
    return [(s.status, s.forfeited) for s in record.seats]


def bot_env(**kw: Any) -> dict[str, str]:
    """Environment variables for the test bots."""
    return {k: str(v) for k, v in kw.items()}


#: Seats and small caps per game for quick loopback matches (games as they are registered).
SEATS_FOR_TESTS = {"hollywood-gin": 2, "gin-three": 3, "rummy-500": 3, "flip-flop": 3}
CAPS_FOR_TESTS: dict[str, dict[str, int]] = {
    "hollywood-gin": {"max_hands": 2},
    "gin-three": {"max_hands": 2},
    "rummy-500": {"max_hands": 1},
    "flip-flop": {"max_rounds": 1},
}


async def play_raw_seat(address: str, token: str, rng: random.Random) -> list[bytes]:
    """Play one seat over a raw stream, answering with random indices, and return every
    message the referee sent it, as bytes."""
    got: list[bytes] = []
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(PLAY)()
        await call.write(bot_pb2.BotMessage(join=bot_pb2.Join(token=token)).SerializeToString())
        while (raw := await call.read()) is not grpc.aio.EOF:
            got.append(raw)
            msg = bot_pb2.RefereeMessage.FromString(raw)
            if msg.HasField("decision"):
                d = msg.decision
                answer = bot_pb2.Answer(
                    decision_id=d.decision_id, index=rng.randrange(len(d.legal_actions))
                )
                await call.write(bot_pb2.BotMessage(answer=answer).SerializeToString())
            elif msg.HasField("match_end"):
                await call.done_writing()
    return got


def join(token: str) -> bytes:
    """A raw ``Join`` message, as a bot's stream sends it."""
    return bot_pb2.BotMessage(join=bot_pb2.Join(token=token)).SerializeToString()


def answer(decision_id: int, index: int) -> bytes:
    """A raw ``Answer`` message by index."""
    msg = bot_pb2.BotMessage(answer=bot_pb2.Answer(decision_id=decision_id, index=index))
    return msg.SerializeToString()


class DroppingProxy:
    """A TCP proxy to the referee whose connections can all be dropped at once (a
    network blip); it keeps accepting new ones. With ``source`` (a loopback address such
    as 127.0.0.2) its connections to the referee come from there: another machine, as
    the referee sees it."""

    def __init__(self, target: str, source: str | None = None) -> None:
        self.host, port = target.rsplit(":", 1)
        self.port = int(port)
        self.source = None if source is None else (source, 0)
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(
            self.host, self.port, local_addr=self.source
        )
        self.writers += [writer, up_writer]

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, down: bool) -> None:
            try:
                while data := await src.read(65536):
                    if await self.forwarding(down):
                        dst.write(data)
                        await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pump(reader, up_writer, False), pump(up_reader, writer, True))

    async def forwarding(self, down: bool) -> bool:
        """Awaited before each chunk is passed on (``down``: from the referee); whether to
        pass it on. A subclass may hold it back, or drop it."""
        return True

    def drop_all(self) -> None:
        for w in self.writers:
            w.transport.abort()
        self.writers.clear()

    async def close(self) -> None:
        self.drop_all()
        if self.server is not None:
            self.server.close()
