"""The answer by index: a bot's most common message, written (:func:`answer_bytes`,
the bot side's hot path) and read (:func:`read_index`, the referee's) in its
canonical encoding without the protobuf library. Any other answer is parsed."""

from __future__ import annotations

from referee.wire.protobytes import VARINTS, scalar, uint_field


def answer_head(decision_id: int) -> bytes:
    """What an Answer to ``decision_id`` by index holds before the index: the referee
    reads ``BotMessage.answer`` bytes of the form ``0x12 LEN answer_head(id) INDEX``
    (the form :func:`answer_bytes` writes, index below 128) without parsing them."""
    return uint_field(b"\x08", decision_id) + b"\x10"


def answer_bytes(decision_id: int, index: int) -> bytes:
    """A BotMessage answering ``decision_id`` with legal action ``index``, serialised
    (the bot side's hot path: equal to the protobuf library's encoding)."""
    body = answer_head(decision_id) + scalar(index)
    return b"\x12" + VARINTS[len(body)] + body  # BotMessage.answer (under 128 bytes)


def read_index(raw: bytes, head: bytes) -> int:
    """The index of a BotMessage ``raw`` answering by an index below 128 the decision
    whose :func:`answer_head` is ``head``, read from the bytes; -1 when ``raw`` is not
    of that form (it is then parsed), or when no decision is pending (``head`` empty)."""
    if head and raw[2:-1] == head and raw[-1] < 0x80 and raw[0] == 0x12 and raw[1] == len(raw) - 2:
        return raw[-1]
    return -1
