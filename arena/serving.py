"""How the viewer is served: uvicorn over h11, answering requests too large to read with
a status rather than a reset connection. h11 keeps at most 16 KiB of a request line and
headers that have not ended; past that, uvicorn writes 400 and closes while the client
is still sending, and the kernel resets the connection, so the client often sees no
answer at all. :class:`Protocol` answers 414 (request line) or 431 (headers) instead,
then reads and drops what the client still sends (at most :data:`DRAIN_BYTES`, for at
most :data:`DRAIN_S`) before it closes, so the answer arrives. A shorter address over
:data:`arena.web.inputs.MAX_URL_BYTES` reaches the app, which answers 414 itself."""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

#: The most of a request line and headers kept before they end (h11's default, given
#: to it explicitly so that a refusal can tell "too large" from "malformed").
HEAD_BYTES = 16 * 1024
#: The most a refused request may still send before its connection is closed.
DRAIN_BYTES = 64 * 1024 * 1024
#: The longest a refused request is read for (seconds).
DRAIN_S = 10.0


class Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering a request whose line or headers outgrow h11's
    buffer with 414 or 431 (and a graceful close) instead of 400 and a reset."""

    _drained: int | None = None
    _drain_timer: asyncio.TimerHandle | None = None

    def data_received(self, data: bytes) -> None:
        if self._drained is not None:  # refused: drop it, and close once it is enough
            self._drained += len(data)
            if self._drained > DRAIN_BYTES:
                self.transport.close()
            return
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        buffered = self.conn.trailing_data[0]
        if len(buffered) <= HEAD_BYTES:  # a request that is wrong, not too large
            super().send_400_response(msg)
            return
        line_ends = buffered.find(b"\r\n", 0, HEAD_BYTES + 2) != -1
        status, text = (
            (431, "the request's headers are too large")
            if line_ends
            else (414, "the address is too long")
        )
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
        reason = b"URI Too Long" if status == 414 else b"Request Header Fields Too Large"
        for event in (
            h11.Response(status_code=status, headers=headers, reason=reason),
            h11.Data(data=f"{text}\n".encode()),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self._drained = 0
        if self.transport.can_write_eof():
            self.transport.write_eof()  # the client reads the answer, then an end
        self._drain_timer = self.loop.call_later(DRAIN_S, self.transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._drain_timer is not None:
            self._drain_timer.cancel()
        super().connection_lost(exc)


def config(app: Any, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration that serves ``app`` with :class:`Protocol` (``options``
    as for :class:`uvicorn.Config`: host, port, log level)."""
    return uvicorn.Config(app, http=Protocol, h11_max_incomplete_event_size=HEAD_BYTES, **options)
