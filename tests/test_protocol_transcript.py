"""docs/protocol.md shows a transcript of one short match and one of a bot session:
they must be what the referee sends today (real referee process, real sockets)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.protocol_transcript import (
    MATCH_ID,
    SESSION_HEADING,
    SESSION_MATCH_ID,
    comparable,
    documented,
    play_session_transcript,
    play_transcript,
)
from tests.referee_support import RefereeProcess, referee_fixture


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def test_the_documented_transcript_is_what_the_referee_sends(ref: RefereeProcess) -> None:
    played = comparable(play_transcript(ref))
    shown = comparable(documented())
    for n, (doc_line, now) in enumerate(zip(shown, played, strict=False), start=1):
        assert doc_line == now, (
            f"line {n} of the transcript in docs/protocol.md differs from the match played "
            f"now:\n  doc: {doc_line}\n  now: {now}\nrewrite it with "
            "`.venv/bin/python -m tests.protocol_transcript --write` and review the diff"
        )
    assert len(shown) == len(played), (
        f"docs/protocol.md's transcript has {len(shown)} lines, the match played now "
        f"{len(played)}: rewrite it with `.venv/bin/python -m tests.protocol_transcript --write`"
    )
    # the match it shows is a match like any other: its record re-runs to its result (C6)
    record = ref.record(MATCH_ID)
    assert record.actions and all(s.status == "ok" for s in record.seats)
    # C7: the non-dealer's draw from the stock after both passed was the referee's own move
    assert [a.source for a in record.actions].count("forced") == 1


def test_the_documented_session_transcript_is_what_the_referee_sends(ref: RefereeProcess) -> None:
    played = play_session_transcript(ref)
    shown = documented(SESSION_HEADING)
    for n, (doc_line, now) in enumerate(zip(shown, played, strict=False), start=1):
        assert doc_line == now, (
            f"line {n} of the session transcript in docs/protocol.md differs from the "
            f"session played now:\n  doc: {doc_line}\n  now: {now}\nrewrite it with "
            "`.venv/bin/python -m tests.protocol_transcript --write` and review the diff"
        )
    assert len(shown) == len(played), (
        f"docs/protocol.md's session transcript has {len(shown)} lines, the session played "
        f"now {len(played)}: rewrite it with `.venv/bin/python -m tests.protocol_transcript "
        "--write`"
    )
    # the session's bot played the match it was told of to its end
    record = ref.record(SESSION_MATCH_ID)
    assert record.status == "completed" and all(s.status == "ok" for s in record.seats)
