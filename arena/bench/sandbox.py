"""``arena bench sandbox``: what the sandbox of hosted bots costs (``docs/performance.md``),
measured against the same bots unconfined in the same run.

A bot pool with a real referee starts random bots and plays one-hand Hollywood Gin
matches between them, once sandboxed (``on``) and once unconfined (``off``), the two
alternating over ``repeats`` rounds. Figures, medians over the rounds:

- ``start_ms``: from the pool starting a bot's process to its session's first match
  seated (the bot has imported the SDK and connected), per bot;
- ``decision_us``: a match's wall time divided by its decisions, with the bots warm;
- the ratios ``on / off`` of both, each round's ratio from the same round.
"""

from __future__ import annotations

import io
import statistics
import tarfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

GAME = "hollywood-gin"
OPTIONS = {"max_hands": 1}
RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"


@dataclass
class SandboxBench:
    """The figures of one run (medians over its rounds)."""

    repeats: int
    matches: int
    start_ms_on: float
    start_ms_off: float
    start_ratio: float
    decision_us_on: float
    decision_us_off: float
    decision_ratio: float
    decision_ratios: list[float]
    sandbox: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Version:
    label: str
    manifest: dict[str, Any]


class _Versions:
    """Bot versions, each the random bot's file."""

    def __init__(self) -> None:
        data = RANDOM_BOT.read_bytes()
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w") as tar:
            info = tarfile.TarInfo(RANDOM_BOT.name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
        self.archive = out.getvalue()

    def bot_version(self, version_id: int) -> _Version:
        command = ["python", "-m", "arena", "bot", "run", RANDOM_BOT.name]
        return _Version(f"random@v{version_id}", {"command": command})

    def bot_archive(self, version_id: int) -> bytes:
        return self.archive


def _round(mode: str, matches: int, first_version: int) -> tuple[float, float]:
    """One round in ``mode``: (ms to start a bot, µs per decision)."""
    from referee.wire import decode_record
    from worker import sandbox
    from worker.pool import BotPool
    from worker.referee_link import LocalReferee, RefereeLink

    box = sandbox.configure("on") if mode == "on" else sandbox.Sandbox("off")
    referee = LocalReferee(tcp_sessions=not box.on)  # unconfined bots dial its TCP port
    link = RefereeLink(referee.address, referee.secret, referee.socket)
    pool = BotPool(_Versions(), link, sandbox=box)
    try:
        a, b = first_version, first_version + 1
        began = time.perf_counter()
        sessions = [pool.session(a), pool.session(b)]
        link.create_match("start", GAME, OPTIONS, 1, ["a", "b"], sessions)
        link.wait("start", 120)  # both bots imported the SDK, connected and played
        start_ms = (time.perf_counter() - began) * 1000 / 2
        link.release("start")
        per_decision = []
        for k in range(matches):
            match_id = f"m{k}"
            began = time.perf_counter()
            link.create_match(match_id, GAME, OPTIONS, 100 + k, ["a", "b"], sessions)
            reply = link.wait(match_id, 120)
            took = time.perf_counter() - began
            decisions = len(decode_record(reply.record_data).actions)
            link.release(match_id)
            per_decision.append(took / max(1, decisions) * 1e6)
        return start_ms, statistics.median(per_decision)
    finally:
        pool.close()
        link.close()
        referee.stop()


def run_bench(*, repeats: int = 5, matches: int = 20) -> SandboxBench:
    """Alternate sandboxed and unconfined rounds and report the medians."""
    from worker import sandbox

    box = sandbox.configure("on")
    on: list[tuple[float, float]] = []
    off: list[tuple[float, float]] = []
    for r in range(repeats):
        on.append(_round("on", matches, 10 * r + 1))
        off.append(_round("off", matches, 10 * r + 5))
    start_on = statistics.median(x[0] for x in on)
    start_off = statistics.median(x[0] for x in off)
    ratios = [a[1] / b[1] for a, b in zip(on, off, strict=True)]
    return SandboxBench(
        repeats=repeats,
        matches=matches,
        start_ms_on=round(start_on, 1),
        start_ms_off=round(start_off, 1),
        start_ratio=round(statistics.median(a[0] / b[0] for a, b in zip(on, off, strict=True)), 2),
        decision_us_on=round(statistics.median(x[1] for x in on), 1),
        decision_us_off=round(statistics.median(x[1] for x in off), 1),
        decision_ratio=round(statistics.median(ratios), 3),
        decision_ratios=[round(x, 3) for x in ratios],
        sandbox=box.describe(),
    )
