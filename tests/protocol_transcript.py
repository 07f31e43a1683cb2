"""The transcripts in docs/protocol.md, played for real: one short match, and a bot
session.

A referee process and two seats over raw streams; every message each way is
written in protobuf text format, one per line (secrets masked). The session's
transcript shows the platform's calls, the session's Serve stream and the Joins
of its two seats. ``test_protocol_transcript`` checks that the document shows
what the referee sends today. After a change to the protocol, rewrite the
document's transcripts with::

    .venv/bin/python -m tests.protocol_transcript --write
"""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

import grpc
from google.protobuf import text_format

from rummyarena.v1 import bot_pb2, common_pb2, match_pb2
from tests.referee_support import PLAY, ROOT, RefereeProcess

DOC = ROOT / "docs" / "protocol.md"
#: The heading of the transcript's section; its first ``` block is the transcript.
HEADING = "## Transcript of one short match"
#: The heading of the session's transcript.
SESSION_HEADING = "## Transcript of a session"
SESSION_MATCH_ID = "session-transcript"

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


def _session_line(sender: str, receiver: str, msg: Any, secrets: dict[str, str]) -> str:
    """A message of the session's transcript, named by its type, secrets masked."""
    text = text_format.MessageToString(msg, as_one_line=True)
    for secret, shown in secrets.items():
        text = text.replace(f'"{secret}"', f'"{shown}"')
    return f"{sender} -> {receiver}: {type(msg).__name__} {{ {text} }}"


async def _play_out(call: Any) -> None:
    """Play a seat to its match's end with the first legal action, silently."""
    while (raw := await call.read()) is not grpc.aio.EOF:
        msg = bot_pb2.RefereeMessage.FromString(raw)
        if msg.HasField("decision"):
            answer = bot_pb2.Answer(decision_id=msg.decision.decision_id, index=0)
            await call.write(bot_pb2.BotMessage(answer=answer).SerializeToString())
        elif msg.HasField("match_end"):
            await call.done_writing()


async def _session(ref: RefereeProcess) -> list[str]:
    lines: list[str] = []
    secrets: dict[str, str] = {}

    def platform(request: Any, call: Any) -> Any:
        lines.append(_session_line("platform", "referee", request, secrets))
        reply = call(request, timeout=10, metadata=ref.metadata)
        return reply

    def answered(reply: Any) -> None:
        lines.append(_session_line("referee", "platform", reply, secrets))

    opened = platform(
        match_pb2.OpenSessionRequest(name="transcript bot v1"), ref.matches.OpenSession
    )
    secrets.update({opened.session_id: "<session id>", opened.key: "<session key>"})
    answered(opened)
    async with grpc.aio.insecure_channel(ref.address) as channel:
        serve_request = bot_pb2.ServeRequest(key=opened.key, agent="transcript")
        serve = channel.unary_stream(
            "/rummyarena.v1.Referee/Serve",
            request_serializer=bot_pb2.ServeRequest.SerializeToString,
            response_deserializer=bot_pb2.Assignment.FromString,
        )(serve_request)
        lines.append(_session_line("bot", "referee", serve_request, secrets))
        await serve.initial_metadata()  # the session's stream is on
        create = match_pb2.CreateMatchRequest(
            game="hollywood-gin",
            seed=SEED,
            seat_names=NAMES,
            clock=common_pb2.ClockRules(**CLOCK),
            match_id=SESSION_MATCH_ID,
            seat_sessions=[opened.session_id] * len(NAMES),
        )
        for key, value in OPTIONS.items():
            create.options[key].int_value = value
        created = platform(create, ref.matches.CreateMatch)
        secrets.update({token: f"<seat {i} token>" for i, token in enumerate(created.tokens)})
        answered(created)
        plays = []
        for _ in NAMES:
            assignment = await serve.read()
            lines.append(_session_line("referee", "bot", assignment, secrets))
            play = channel.stream_stream(PLAY)()
            join = bot_pb2.BotMessage(join=bot_pb2.Join(token=assignment.token, agent="transcript"))
            await play.write(join.SerializeToString())
            join.join.token = secrets[assignment.token]
            lines.append(_line(f"seat {assignment.seat}", "referee", join))
            plays.append(play)
        await asyncio.gather(*(_play_out(play) for play in plays))
        answered(
            platform(
                match_pb2.CloseSessionRequest(session_id=opened.session_id),
                ref.matches.CloseSession,
            )
        )
        assert await serve.read() is grpc.aio.EOF
        lines.append(f"referee -> bot: the Serve stream ends, status {(await serve.code()).name}")
    return lines


def play_session_transcript(ref: RefereeProcess) -> list[str]:
    """Play the session's transcript on ``ref``; every message, one line each."""
    return asyncio.run(_session(ref))


def _doc(heading: str = HEADING) -> tuple[list[str], int, int]:
    """docs/protocol.md's lines, and where the transcript under ``heading`` starts and
    ends."""
    lines = DOC.read_text().splitlines()
    try:
        first = lines.index("```", lines.index(heading)) + 1
        return lines, first, lines.index("```", first)
    except ValueError:
        raise ValueError(
            f"{DOC} has no section {heading!r} with a ``` block: restore it, then rewrite "
            "the transcript with `python -m tests.protocol_transcript --write`"
        ) from None


def documented(heading: str = HEADING) -> list[str]:
    """The transcript under ``heading`` in docs/protocol.md."""
    lines, first, last = _doc(heading)
    return lines[first:last]


def comparable(lines: list[str]) -> list[str]:
    """The lines without their timings."""
    return [_TIMING.sub("", line) for line in lines]


def main(argv: list[str]) -> int:
    """Print the transcripts, or with ``--write`` put them in docs/protocol.md."""
    ref = RefereeProcess()
    try:
        played = {HEADING: play_transcript(ref), SESSION_HEADING: play_session_transcript(ref)}
    finally:
        ref.close()
    for heading, lines in played.items():
        if "--write" in argv:
            doc, first, last = _doc(heading)
            DOC.write_text("\n".join(doc[:first] + lines + doc[last:]) + "\n")
        else:
            print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
