"""The entries of a Decision message that recur from one decision to the next,
encoded once and kept: a legal action's text, an event, the clock."""

from __future__ import annotations

from referee.engine import Event
from referee.tables import BoundedCache
from referee.wire.protobytes import delimited, string_field, uint_field, varint

#: Encoded Decision.legal_actions entries by text.
LEGAL: BoundedCache[str, bytes] = BoundedCache(lambda text: string_field(b"\x1a", text), 20_000)
legal_entry = LEGAL.__getitem__


def _new_event_entry(e: Event) -> bytes:
    said = string_field(b"\x12", e.text) if e.text else b""
    if e.seat is None:
        return delimited(b"\x2a", said)
    return delimited(b"\x2a", b"\x08" + varint(e.seat) + said)


#: Encoded Decision.events entries by event. Short events recur (a draw, a discard,
#: a column won) and are kept; the long ones name a whole hand (a deal, an
#: arrangement) and would only crowd the others out.
_EVENTS: BoundedCache[Event, bytes] = BoundedCache(_new_event_entry, 20_000)
_EVENT_TEXT_KEPT = 24


def event_entry(e: Event) -> bytes:
    """The Decision.events entry of ``e``."""
    return _EVENTS[e] if len(e.text) <= _EVENT_TEXT_KEPT else _new_event_entry(e)


class Clock:
    """A match's Decision.clock entry, written again only when the bank changes (a
    seat ran over its decision time)."""

    __slots__ = ("_bank_ms", "_decision_ms", "entry")

    def __init__(self, decision_ms: int) -> None:
        self._decision_ms = uint_field(b"\x08", decision_ms)
        self._bank_ms = -1
        self.entry = b""

    def with_bank(self, bank_ms: int) -> bytes:
        """The clock entry of a decision with ``bank_ms`` left in the bank."""
        if bank_ms != self._bank_ms:
            self._bank_ms = bank_ms
            self.entry = delimited(b"\x32", self._decision_ms + uint_field(b"\x10", bank_ms))
        return self.entry
