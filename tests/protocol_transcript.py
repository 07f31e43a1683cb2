"""The transcript of one short match in docs/protocol.md, played for real.

A referee process and two seats over raw streams; every message each way is
written in protobuf text format, one per line. ``test_protocol_transcript``
checks that the document shows what the referee sends today. After a change
to the protocol, rewrite the document's transcript with::

    .venv/bin/python -m tests.protocol_transcript --write
"""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

import grpc
from google.protobuf import text_format

from rummyarena.v1 import bot_pb2
from tests.referee_support import PLAY, ROOT, RefereeProcess

DOC = ROOT / "docs" / "protocol.md"
#: The heading of the transcript's section; its first ``` block is the transcript.
HEADING = "## Transcript of one short match"

MATCH_ID = "transcript"
SEED = 3
OPTIONS = {"max_hands": 1, "max_turns": 3}
NAMES = ["alice", "bob"]
CLOCK = {"decision_ms": 1000, "bank_ms": 10_000, "strike_limit": 3, "join_ms": 5000}
#: Seat 1 answers by the action's text, seat 0 by its index.
BY_TEXT = 1

#: Timings vary from run to run (and a zero is not written): they are left out of the
#: comparison.
_TIMING = re.compile(r" think_ms: \d+")


def _choose(legal: list[str]) -> str:
    """The seats' play: pass the upcard, alternate the draws, discard the last card
    offered (a short match where the referee also makes a move itself, C7)."""
    if "pass" in legal:
        return "pass"
    if "draw discard" in legal and "draw stock" in legal:
        return "draw discard" if len(legal) % 2 == 0 else "draw stock"
    return legal[-1]


def _line(sender: str, receiver: str, msg: Any) -> str:
    return f"{sender} -> {receiver}: {text_format.MessageToString(msg, as_one_line=True)}"


async def _play(address: str, tokens: list[str]) -> list[str]:
    lines: list[str] = []
    async with grpc.aio.insecure_channel(address) as channel:
        calls = [channel.stream_stream(PLAY)() for _ in tokens]
        for seat in (1, 0):  # any order: the match starts once both have joined
            join = bot_pb2.BotMessage(join=bot_pb2.Join(token=tokens[seat], agent="transcript"))
            await calls[seat].write(join.SerializeToString())
            join.join.token = f"<seat {seat} token>"
            lines.append(_line(f"seat {seat}", "referee", join))

        async def receive(seat: int) -> bot_pb2.RefereeMessage:
            raw = await calls[seat].read()
            assert raw is not grpc.aio.EOF, f"seat {seat}'s stream ended early"
            return bot_pb2.RefereeMessage.FromString(raw)

        for seat in range(len(tokens)):  # the welcomes, in seat order
            lines.append(_line("referee", f"seat {seat}", await receive(seat)))
        reads = {seat: asyncio.ensure_future(receive(seat)) for seat in range(len(tokens))}
        while True:
            done, _ = await asyncio.wait(reads.values(), return_when=asyncio.FIRST_COMPLETED)
            seat = min(s for s, task in reads.items() if task in done)
            msg = reads[seat].result()
            if msg.HasField("match_end"):  # every seat gets one: show them in seat order
                ends = [await reads[s] for s in range(len(tokens))]
                lines += [_line("referee", f"seat {s}", end) for s, end in enumerate(ends)]
                for call in calls:
                    await call.done_writing()
                return lines
            lines.append(_line("referee", f"seat {seat}", msg))
            assert msg.HasField("decision"), msg
            d = msg.decision
            text = _choose(list(d.legal_actions))
            answer = bot_pb2.Answer(decision_id=d.decision_id)
            if seat == BY_TEXT:
                answer.text = text
            else:
                answer.index = list(d.legal_actions).index(text)
            reply = bot_pb2.BotMessage(answer=answer)
            await calls[seat].write(reply.SerializeToString())
            lines.append(_line(f"seat {seat}", "referee", reply))
            reads[seat] = asyncio.ensure_future(receive(seat))


def play_transcript(ref: RefereeProcess) -> list[str]:
    """Play the transcript's match on ``ref``; every message, one line each."""
    created = ref.create(
        "hollywood-gin",
        len(NAMES),
        seed=SEED,
        options=OPTIONS,
        names=NAMES,
        match_id=MATCH_ID,
        **CLOCK,
    )
    return asyncio.run(_play(ref.address, list(created.tokens)))


def _doc() -> tuple[list[str], int, int]:
    """docs/protocol.md's lines, and where the transcript's lines start and end."""
    lines = DOC.read_text().splitlines()
    try:
        first = lines.index("```", lines.index(HEADING)) + 1
        return lines, first, lines.index("```", first)
    except ValueError:
        raise ValueError(
            f"{DOC} has no section {HEADING!r} with a ``` block: restore it, then rewrite "
            "the transcript with `python -m tests.protocol_transcript --write`"
        ) from None


def documented() -> list[str]:
    """The transcript in docs/protocol.md."""
    lines, first, last = _doc()
    return lines[first:last]


def comparable(lines: list[str]) -> list[str]:
    """The lines without their timings."""
    return [_TIMING.sub("", line) for line in lines]


def main(argv: list[str]) -> int:
    """Print the transcript, or with ``--write`` put it in docs/protocol.md."""
    ref = RefereeProcess()
    try:
        lines = play_transcript(ref)
    finally:
        ref.close()
    if "--write" in argv:
        doc, first, last = _doc()
        DOC.write_text("\n".join(doc[:first] + lines + doc[last:]) + "\n")
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
