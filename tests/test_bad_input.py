"""Bad input from bots that the other fault tests leave out (docs/protocol.md, "Errors";
docs/sandbox.md): a seat token replayed after its match is over, a bot that floods its
stream with answers it was not asked for, and a hosted bot that writes megabytes to its
standard error. Each gets a clear status, and harms nothing else: a match played beside
it on the same referee finishes with every seat ``ok``. Real referee over gRPC, real
bot processes, a real (sandboxed) bot pool."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.referee_support import (
    EXAMPLES,
    RefereeProcess,
    answer,
    join,
    referee_fixture,
    start_bot,
    statuses,
    wait_all,
)
from tests.test_sandbox import Versions, pool, report_of  # noqa: F401  (the fixture)
from worker.pool import LOG_TAIL, BotPool

PLAY = "/rummyarena.v1.Referee/Play"
RANDOM = EXAMPLES / "random_bot.py"
FLOOD = 5000


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


async def stream(address: str, *messages: bytes) -> tuple[grpc.StatusCode, str]:
    """Send ``messages`` on one Play stream, as fast as it takes them (gRPC stops
    sending once the referee has ended the stream), read until it ends, and give the
    status it ended with."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(PLAY)(iter(messages))
        try:
            async for _ in call:
                pass
        except grpc.aio.AioRpcError as exc:
            return exc.code(), exc.details() or ""
        return await call.code(), await call.details()


def good_match(ref: RefereeProcess) -> tuple[str, list[object]]:
    """A match beside the faulty one, played by two well-behaved bots."""
    m = ref.create("hollywood-gin", 2, seed=21, options={"max_hands": 1})
    bots = [
        start_bot(RANDOM, ref.address, t, ARENA_BOT_SEED=str(i)) for i, t in enumerate(m.tokens)
    ]
    return m.match_id, bots


def test_a_seat_token_replayed_after_its_match_is_refused(ref: RefereeProcess) -> None:
    m = ref.create("hollywood-gin", 2, seed=5, options={"max_hands": 1})
    played = [start_bot(RANDOM, ref.address, t) for t in m.tokens]
    assert [code for code, _ in wait_all(played)] == [0, 0]
    ref.record(m.match_id)
    code, details = asyncio.run(stream(ref.address, join(m.tokens[0])))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "already over" in details, details


def test_a_bot_that_floods_its_stream_is_cut_off_and_the_match_beside_it_plays_on(
    ref: RefereeProcess,
) -> None:
    flooded = ref.create("hollywood-gin", 2, seed=9, options={"max_hands": 1}, join_ms=5000)
    beside, bots = good_match(ref)
    other = start_bot(RANDOM, ref.address, flooded.tokens[1])
    messages = [join(flooded.tokens[0]), *(answer(n, 0) for n in range(FLOOD))]
    code, details = asyncio.run(stream(ref.address, *messages))
    # the referee ends the stream at the first answer out of turn (FAILED_PRECONDITION,
    # as test_referee_faults shows for one); a flooding client's next write then fails
    # on its own side first, and gRPC may report that (INTERNAL) instead
    assert code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INTERNAL), code
    if code == grpc.StatusCode.FAILED_PRECONDITION:
        assert "out of turn" in details, details
    assert [code for code, _ in wait_all([other, *bots])] == [0, 0, 0]  # type: ignore[list-item]
    record = ref.record(flooded.match_id)
    assert statuses(record)[0] == ("invalid", True), statuses(record)
    assert statuses(ref.record(beside)) == [("ok", False), ("ok", False)]


def test_a_hosted_bot_that_writes_megabytes_to_stderr_is_kept_to_its_tail(
    pool: tuple[BotPool, Versions],  # noqa: F811
) -> None:
    bots, versions = pool
    version = versions.add(
        """
        import json, sys, time
        for _ in range(20 * 1024):  # 20 MiB
            sys.stderr.write("x" * 1023 + "\\n")
        sys.stderr.flush()
        print(json.dumps({"wrote": 20 * 2**20}), flush=True)
        time.sleep(600)
        """
    )
    bots.session(version)
    assert report_of(bots, version) == {"wrote": 20 * 2**20}
    tail = bots.log_tail(version) or ""
    assert len(tail.encode()) <= LOG_TAIL, len(tail)
    log = bots.processes[version].log
    assert log.written > 20 * 2**20 and log.held <= 2 * LOG_TAIL, (log.written, log.held)
    quiet = versions.add(
        'import json, time\nprint(json.dumps({"quiet": 1}), flush=True)\ntime.sleep(600)\n'
    )
    bots.session(quiet)  # the pool goes on starting bots
    assert report_of(bots, quiet) == {"quiet": 1}
    assert bots.processes[version].alive


def test_a_node_bot_on_a_host_without_the_nodejs_runtime_is_refused_saying_what_to_run(
    pool: tuple[BotPool, Versions],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Its seat forfeits with the reason (the host's fault, named), not a crash of the
    bot on its first ``require``; a Python bot on the same host still starts."""
    from worker import pool as pool_module
    from worker.pool import BotStartError

    bots, versions = pool
    node_bot = versions.add("print('never run')\n")
    python_bot = versions.add(
        'import json, time\nprint(json.dumps({"up": 1}), flush=True)\ntime.sleep(600)\n'
    )
    plain = versions.bot_version

    def with_runtime(version_id: int) -> Any:
        found = plain(version_id)
        if version_id == node_bot:
            found.manifest = {"command": ["node", "bot.js"], "runtime": "node"}
        return found

    monkeypatch.setattr(versions, "bot_version", with_runtime)
    monkeypatch.setattr(pool_module, "HOST_NODE", tmp_path / "no-runtime")
    with pytest.raises(BotStartError, match="run make node-runtime"):
        bots.session(node_bot)
    bots.session(python_bot)
    assert report_of(bots, python_bot) == {"up": 1}
