"""``arena bench referee``: decisions per second through the referee, against a
bare grpc.aio bidirectional ping-pong measured in the same run.

Each repeat measures the ping-pong, then the referee; the figures reported are
the medians over the repeats (this machine is noisy, and the two phases never
run at the same moment). The referee runs in this process; the bots run in
``processes`` separate
processes (``python -m arena.bench.referee play ...``), each playing many seats over its
own channels, and the bench keeps that many matches running, a new one (the next
seed) as one ends, so games whose matches are short are measured too. The
ping-pong phase uses the same processes and as many
concurrent streams as there are matches (a match has one decision in flight
at a time, so it is one ping-pong chain).

``python -m arena.bench.referee inproc N`` plays N decisions of the same matches in
this process, without gRPC (:func:`in_process`): the runner's and the game's work per
decision, for a profiler or an instruction counter (docs/performance.md).
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import secrets
import statistics
import subprocess
import sys
import time
from typing import Any

import grpc
import psutil

from bots.examples.random_bot import RandomBot
from bots.sdk.client import play
from referee.clock import ClockRules
from referee.matches import Referee
from referee.runner import Match
from referee.seats import Seat, SeatLink
from referee.service import start_server
from referee.wire import answer_bytes, read_index

PING = "/bench.PingPong/Echo"
PAYLOAD = b"x" * 64


def _ping_handler(count: list[int]) -> grpc.GenericRpcHandler:
    """The echo service; ``count[0]`` counts the messages echoed."""

    async def echo(_requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        while (msg := await context.read()) is not grpc.aio.EOF:
            await context.write(msg)
            count[0] += 1

    handler = grpc.stream_stream_rpc_method_handler(echo)
    return grpc.method_handlers_generic_handler("bench.PingPong", {"Echo": handler})


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system, every thread) process ``pid`` has used; None where
    that cannot be read (the process is gone, or not ours to see)."""
    try:
        used = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return None
    return float(used.user + used.system)


class _CpuWindow:
    """CPU used by this process and by ``procs`` between :meth:`start` and :meth:`stop`."""

    def __init__(self, procs: list[subprocess.Popen[str]]) -> None:
        self.procs = procs
        self.own = 0.0
        self.others: float | None = 0.0

    def _others(self) -> float | None:
        used = [cpu_seconds(p.pid) for p in self.procs]
        return None if any(u is None for u in used) else sum(u for u in used if u is not None)

    def start(self) -> None:
        self.own, self.others = time.process_time(), self._others()

    def stop(self, round_trips: int) -> tuple[float | None, float | None]:
        """CPU µs per round trip: (this process, the others); None when not measurable."""
        own, others = time.process_time() - self.own, self._others()
        if round_trips <= 0:
            return None, None
        per = 1e6 / round_trips
        if others is None or self.others is None:
            return own * per, None
        return own * per, (others - self.others) * per


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.bench.referee", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


async def _wait(procs: list[subprocess.Popen[str]]) -> list[str]:
    out = []
    for p in procs:
        stdout, _ = await asyncio.to_thread(p.communicate)
        out.append(stdout)
    return out


async def _pingpong(streams: int, seconds: float, processes: int) -> dict[str, Any]:
    count = [0]
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((_ping_handler(count),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        shares = [streams // processes + (i < streams % processes) for i in range(processes)]
        procs = [_spawn("ping", f"127.0.0.1:{port}", str(n), str(seconds)) for n in shares if n]
        # CPU is read over the middle of the clients' run (they start after their imports)
        await asyncio.sleep(min(1.0, seconds / 4))
        window = _CpuWindow(procs)
        window.start()
        before = count[0]
        await asyncio.sleep(seconds / 2)
        server_cpu, clients_cpu = window.stop(count[0] - before)
        outs = await _wait(procs)
        return {
            "pingpong_per_s": sum(json.loads(o)["round_trips_per_s"] for o in outs),
            "echo_server_cpu_us": server_cpu,
            "echo_clients_cpu_us": clients_cpu,
        }
    finally:
        await server.stop(0)


async def _referee(matches: int, seconds: float, game: str, processes: int) -> dict[str, Any]:
    """``matches`` matches kept running (a new one, with the next seed, as one ends), their
    seats spread over ``processes`` bot processes that take seat tokens on stdin."""
    clock = ClockRules(decision_ms=5000, bank_ms=30_000, strike_limit=3, join_ms=30_000)
    seats = ["a", "b"] if game == "hollywood-gin" else ["a", "b", "c"]
    # the bench creates its matches in process: the match service's secret is unused
    server, referee, port = await start_server(
        0, default_clock=clock, secret=secrets.token_urlsafe(16), measure=True
    )
    procs = [_spawn("play", f"127.0.0.1:{port}") for _ in range(processes)]
    created: list[Match] = []
    refilling = True

    def start(seed: int) -> None:
        match = referee.create(game, None, seed, seats)
        created.append(match)
        for k, seat in enumerate(match.seats):  # a match's seats in different processes
            stdin = procs[(seed + k) % processes].stdin
            assert stdin is not None
            stdin.write(seat.token + "\n")
            stdin.flush()

        def refill(_: asyncio.Task[Any]) -> None:
            if refilling:
                start(len(created))

        asyncio.ensure_future(match.done.wait()).add_done_callback(refill)

    try:
        for seed in range(matches):
            start(seed)
        while not all(m.decisions for m in created[:matches]):  # every bot plays
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # warm
        window = _CpuWindow(procs)
        window.start()
        # decisions sent, each a round trip (not the moves the referee makes itself, C7)
        n0 = sum(m.decisions for m in created)
        r0 = {id(m): len(m.referee_ns or ()) for m in created}
        played0 = sum(m.done.is_set() for m in created)
        t0 = time.perf_counter()
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - t0
        n1 = sum(m.decisions for m in created)
        referee_cpu, bots_cpu = window.stop(n1 - n0)
        samples = [ns for m in created for ns in (m.referee_ns or ())[r0.get(id(m), 0) :]]
        played = sum(m.done.is_set() for m in created) - played0
        refilling = False
        await referee.close()
        for p in procs:
            p.kill()
        await _wait(procs)
    finally:
        await server.stop(0)
    samples.sort()
    return {
        "decisions_per_s": (n1 - n0) / elapsed,
        "referee_us_p50": statistics.median(samples) / 1000 if samples else 0.0,
        "referee_us_p99": samples[int(0.99 * (len(samples) - 1))] / 1000 if samples else 0.0,
        "matches_ended": played,
        "referee_cpu_us": referee_cpu,
        "bots_cpu_us": bots_cpu,
    }


def run_bench(
    matches: int, seconds: float, game: str, processes: int, repeats: int = 1
) -> dict[str, Any]:
    """Measure both phases ``repeats`` times, alternating, and return the medians
    (and every run's figures under ``runs``)."""

    async def main() -> list[dict[str, Any]]:
        runs = []
        for _ in range(repeats):
            echo = await _pingpong(matches, seconds, processes)
            figures = await _referee(matches, seconds, game, processes)
            ping = echo["pingpong_per_s"]
            runs.append(
                {
                    **echo,
                    **figures,
                    "ratio": figures["decisions_per_s"] / ping if ping else 0.0,
                }
            )
        return runs

    runs = asyncio.run(main())

    def median(key: str) -> float:
        return float(statistics.median(r[key] for r in runs))

    def median_of_known(key: str) -> float | None:
        known = [r[key] for r in runs if r[key] is not None]
        return float(statistics.median(known)) if known else None

    return {
        "game": game,
        "matches": matches,
        "bot_processes": processes,
        "seconds": seconds,
        "repeats": repeats,
        "streams": matches,
        "pingpong_per_s": median("pingpong_per_s"),
        "decisions_per_s": median("decisions_per_s"),
        "referee_us_p50": median("referee_us_p50"),
        "referee_us_p99": median("referee_us_p99"),
        "ratio": median("ratio"),
        "matches_ended": median("matches_ended"),
        "ratio_min": min(r["ratio"] for r in runs),
        "ratio_max": max(r["ratio"] for r in runs),
        # CPU per round trip of each side (None where /proc cannot be read)
        "referee_cpu_us": median_of_known("referee_cpu_us"),
        "bots_cpu_us": median_of_known("bots_cpu_us"),
        "echo_server_cpu_us": median_of_known("echo_server_cpu_us"),
        "echo_clients_cpu_us": median_of_known("echo_clients_cpu_us"),
        "runs": runs,
    }


# -- the worker processes ------------------------------------------------------------------


async def _ping_worker(address: str, streams: int, seconds: float) -> None:
    counts = [0] * streams
    stop = time.perf_counter() + seconds

    async def one(i: int) -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            call = channel.stream_stream(PING)()
            while time.perf_counter() < stop:
                await call.write(PAYLOAD)
                await call.read()
                counts[i] += 1
            await call.done_writing()

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(streams)))
    print(json.dumps({"round_trips_per_s": sum(counts) / (time.perf_counter() - t0)}))


async def _play_worker(address: str) -> None:
    """Play a seat, with the random bot, for each token read from stdin."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    seats: set[asyncio.Task[Any]] = set()
    while line := await reader.readline():
        bot = RandomBot(len(seats))
        task = asyncio.ensure_future(play(bot, address, line.decode().strip()))
        seats.add(task)
        task.add_done_callback(seats.discard)
    await asyncio.gather(*seats, return_exceptions=True)


# -- in process ------------------------------------------------------------------------------


async def in_process(decisions: int, matches: int = 16) -> dict[str, float]:
    """Play ``decisions`` decisions of ``matches`` Hollywood Gin matches kept running (as
    the bench does) with the referee's runner and no transport: each seat's write
    completes one pass of the event loop later, as a gRPC write does, and a random
    answer by index goes through a reader task as the service's does (``read_index``,
    then ``Match.on_index``). Returns the wall time per decision and the referee's own
    time (p50), in µs."""
    loop = asyncio.get_running_loop()
    referee = Referee(ClockRules(5000, 30_000, 3, 30_000), measure=True)
    rng, done, count = random.Random(1), asyncio.Event(), [0]
    created: list[Match] = []
    readers: list[asyncio.Task[None]] = []

    def start(seed: int) -> None:
        match = referee.create("hollywood-gin", None, seed, ["a", "b"])
        created.append(match)
        for seat in match.seats:
            inbox: asyncio.Queue[bytes] = asyncio.Queue()

            async def write(
                data: bytes, seat: Seat = seat, inbox: asyncio.Queue[bytes] = inbox
            ) -> None:
                written = loop.create_future()
                loop.call_soon(written.set_result, None)
                await written
                if seat.pending is not None and not seat.pending.done():
                    count[0] += 1
                    if count[0] >= decisions:
                        done.set()
                        return
                    legal = len(match.state.legal_actions())
                    inbox.put_nowait(answer_bytes(seat.pending_id, rng.randrange(legal)))

            async def read(seat: Seat = seat, inbox: asyncio.Queue[bytes] = inbox) -> None:
                while True:
                    index = read_index(await inbox.get(), seat.answer_head)
                    if index >= 0:
                        match.on_index(seat, index)

            readers.append(asyncio.ensure_future(read()))
            match.attach(seat, SeatLink(write), "in-process")

        def refill(_: asyncio.Task[Any]) -> None:
            if not done.is_set():
                start(len(created))

        asyncio.ensure_future(match.done.wait()).add_done_callback(refill)

    for seed in range(matches):
        start(seed)
    gc.freeze()  # as the service does once it is up
    t0 = time.perf_counter()
    await done.wait()
    elapsed = time.perf_counter() - t0
    for reader in readers:
        reader.cancel()
    await referee.close()
    samples = [ns for m in created for ns in (m.referee_ns or ())]
    return {
        "us_per_decision": elapsed / decisions * 1e6,
        "referee_us_p50": statistics.median(samples) / 1000 if samples else 0.0,
    }


def main(argv: list[str]) -> None:
    """Worker entry point: ``ping ADDRESS STREAMS SECONDS``, or ``play ADDRESS`` with a
    seat token a line on stdin; or ``inproc DECISIONS`` (:func:`in_process`)."""
    if argv[0] == "ping":
        asyncio.run(_ping_worker(argv[1], int(argv[2]), float(argv[3])))
    elif argv[0] == "play":
        asyncio.run(_play_worker(argv[1]))
    elif argv[0] == "inproc":
        print(json.dumps(asyncio.run(in_process(int(argv[1])))))


if __name__ == "__main__":
    main(sys.argv[1:])
