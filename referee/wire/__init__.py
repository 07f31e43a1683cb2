"""The one translation between domain values and the protobuf messages of
``proto/rummyarena/v1`` (docs/architecture.md, decision 16), by audience:

- :mod:`~referee.wire.values`: cards, options, clock rules, events, and the values of
  the enums (seat status, action source, match status);
- :mod:`~referee.wire.records`: match results and records, and a record's bytes;
- :mod:`~referee.wire.views`: each game's view dataclass as ``PlayerView`` and back;
- :mod:`~referee.wire.decisions`: the decision message, as protobuf and written
  straight to bytes (the referee's hot path);
- :mod:`~referee.wire.answers`: the answer by index, written and read as bytes;
- :mod:`~referee.wire.messages`: the referee's other messages to a seat (welcome,
  notice, end of match);
- :mod:`~referee.wire.protobytes`: the canonical encoding written by hand, which
  the decisions and answers use.

Cards travel as their C2 text, actions as their text form. Besides this package,
the service reads the bots' messages other than answers by index and builds the
match service's replies, and the bot SDK reads the referee's messages.
"""

from referee.wire.answers import answer_bytes, answer_head, read_index
from referee.wire.decisions import DecisionEncoder, decision_message
from referee.wire.messages import (
    NOTICE_KINDS,
    NoticeKind,
    match_end_bytes,
    notice_bytes,
    welcome_bytes,
)
from referee.wire.records import (
    action_indexes,
    compact_record_to_proto,
    decode_record,
    encode_record,
    record_from_proto,
    record_to_proto,
    result_from_proto,
    result_message,
    result_to_proto,
)
from referee.wire.values import (
    CARD_TEXT,
    CodecError,
    cards_from,
    cards_text,
    clock_from_proto,
    clock_to_proto,
    event_from_proto,
    event_to_proto,
    match_status_from_proto,
    match_status_to_proto,
    options_from_proto,
    options_to_proto,
    source_from_proto,
    source_to_proto,
    status_from_proto,
    status_to_proto,
)
from referee.wire.views import (
    advice_of,
    dataclass_from_proto,
    dataclass_to_proto,
    view_from_proto,
    view_game,
    view_to_proto,
)

__all__ = [
    "CARD_TEXT",
    "NOTICE_KINDS",
    "CodecError",
    "DecisionEncoder",
    "NoticeKind",
    "action_indexes",
    "advice_of",
    "answer_bytes",
    "answer_head",
    "cards_from",
    "cards_text",
    "clock_from_proto",
    "clock_to_proto",
    "compact_record_to_proto",
    "dataclass_from_proto",
    "dataclass_to_proto",
    "decision_message",
    "decode_record",
    "encode_record",
    "event_from_proto",
    "event_to_proto",
    "match_end_bytes",
    "match_status_from_proto",
    "match_status_to_proto",
    "notice_bytes",
    "options_from_proto",
    "options_to_proto",
    "read_index",
    "record_from_proto",
    "record_to_proto",
    "result_from_proto",
    "result_message",
    "result_to_proto",
    "source_from_proto",
    "source_to_proto",
    "status_from_proto",
    "status_to_proto",
    "view_from_proto",
    "view_game",
    "view_to_proto",
    "welcome_bytes",
]
