"""Playing a bot over the referee's gRPC stream (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import logging
import os
import traceback

import grpc

from bots.sdk.bot import Bot, MatchOver, Request
from referee import codec
from rummyarena.v1 import bot_pb2, bot_pb2_grpc

log = logging.getLogger(__name__)

_NOTICE_NAMES = {
    v.number: v.name.removeprefix("NOTICE_KIND_").lower()
    for v in bot_pb2.NoticeKind.DESCRIPTOR.values
}


class BotSessionError(RuntimeError):
    """The referee ended the session with an error status."""


async def play(
    bot: Bot, referee: str, token: str, channel: grpc.aio.Channel | None = None
) -> MatchOver:
    """Join the referee at ``referee`` (host:port) with ``token`` and play to the end."""
    own = channel is None
    chan = channel or grpc.aio.insecure_channel(referee)
    try:
        call = bot_pb2_grpc.RefereeStub(chan).Play()
        await call.write(bot_pb2.BotMessage(join=bot_pb2.Join(token=token, agent=bot.name)))
        return await _session(bot, call)
    except grpc.aio.AioRpcError as exc:
        raise BotSessionError(f"{exc.code().name}: {exc.details()}") from exc
    finally:
        if own:
            await chan.close()


async def _session(bot: Bot, call: grpc.aio.StreamStreamCall) -> MatchOver:
    game, seat = "", -1
    BotMessage, Answer = bot_pb2.BotMessage, bot_pb2.Answer
    while True:
        msg = await call.read()
        if msg is grpc.aio.EOF:
            raise BotSessionError("the referee closed the stream before the match ended")
        kind = msg.WhichOneof("kind")
        if kind == "decision":
            d = msg.decision
            request = Request.from_message(d, game)
            try:
                choice = bot.decide(request)
            except Exception as exc:  # report the crash; the referee plays a default
                log.error("decide failed: %s", traceback.format_exc())
                err = bot_pb2.BotError(
                    decision_id=d.decision_id, message=f"{type(exc).__name__}: {exc}"
                )
                await call.write(BotMessage(error=err))
                continue
            if isinstance(choice, int):
                answer = Answer(decision_id=d.decision_id, index=choice)
            else:
                answer = Answer(decision_id=d.decision_id, text=str(choice))
            await call.write(BotMessage(answer=answer))
        elif kind == "welcome":
            w = msg.welcome
            game, seat = w.game, w.your_seat
            bot.on_start(game, seat, len(w.seats), codec.options_from_proto(w.options))
        elif kind == "notice":
            n = msg.notice
            bot.on_notice(_NOTICE_NAMES.get(n.kind, "unknown"), n.message, n.played)
        elif kind == "match_end":
            end = msg.match_end
            seats = sorted(end.result.seats, key=lambda s: s.seat)
            over = MatchOver(
                seat=seat,
                ranks=tuple(s.rank for s in seats),
                scores=tuple(s.score for s in seats),
                statuses=tuple(codec.status_from_proto(s.status) for s in seats),
                detail_json=end.result.detail_json,
                events=tuple(codec.event_from_proto(e) for e in end.events),
            )
            bot.on_end(over)
            await call.done_writing()
            return over


def run(bot: Bot, referee: str | None = None, token: str | None = None) -> MatchOver:
    """Play one match; the address and token default to ``ARENA_REFEREE`` and ``ARENA_TOKEN``."""
    referee = referee or os.environ.get("ARENA_REFEREE")
    token = token or os.environ.get("ARENA_TOKEN")
    if not referee or not token:
        raise BotSessionError(
            "give the referee address and token, or set ARENA_REFEREE and ARENA_TOKEN"
        )
    return asyncio.run(play(bot, referee, token))
