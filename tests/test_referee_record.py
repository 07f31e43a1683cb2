"""Match records: bytes round trip through the wire package, and `verify` re-runs them
(docs/architecture.md, decisions 2 and 7)."""

from __future__ import annotations

import random

import pytest

from referee.clock import ClockRules
from referee.games import get_game
from referee.record import ActionEntry, MatchRecord, SeatEntry, options_dict, verify
from referee.wire import CodecError, decode_record, encode_record, record_to_proto


def played_record(game: str, seed: int, options: dict[str, int]) -> MatchRecord:
    """A record of a random playout."""
    spec = get_game(game)
    state = spec.new_match(seed, options=options)
    rng = random.Random(seed)
    actions = []
    while (seat := state.to_act()) is not None:
        action = rng.choice(state.legal_actions())
        actions.append(ActionEntry(seat, str(action), rng.randrange(5000)))
        state.apply(action)
    seats = tuple(SeatEntry(f"bot{i}") for i in range(state.num_seats))
    seats = (*seats[:-1], SeatEntry("late", "timeout", 1, False))
    return MatchRecord(
        game=game,
        options=options_dict(spec.options(options)),
        seed=seed,
        seats=seats,
        actions=tuple(actions),
        result=state.result(),
        match_id="m1",
        clock=ClockRules(500, 2000, 2, 1000),
        started_unix_ms=1_700_000_000_000,
    )


def test_c6_record_round_trips_and_verifies() -> None:
    for game in ("hollywood-gin", "gin-three"):
        record = played_record(game, 7, {"max_hands": 2})
        data = encode_record(record)
        back = decode_record(data)
        assert back == record
        assert encode_record(back) == data
        assert verify(back).ok, verify(back).message


def test_verify_names_the_diverging_action() -> None:
    record = played_record("hollywood-gin", 11, {"max_hands": 1})
    actions = list(record.actions)
    i = next(k for k, a in enumerate(actions) if a.text.startswith("discard"))
    actions[i] = ActionEntry(actions[i].seat, "discard JK", 0)
    bad = MatchRecord(**{**record.__dict__, "actions": tuple(actions)})
    verdict = verify(bad)
    assert not verdict.ok and verdict.index == i
    assert "discard JK" in verdict.got


def test_verify_spots_a_changed_result() -> None:
    record = played_record("hollywood-gin", 12, {"max_hands": 1})
    assert record.result is not None
    changed = record.result.__class__(record.result.ranks, (999, 0), record.result.detail)
    verdict = verify(MatchRecord(**{**record.__dict__, "result": changed}))
    assert not verdict.ok and "result differs" in verdict.message


def test_gin_record_is_small() -> None:
    """A Hollywood Gin hand's record is under 1 KB (docs/architecture.md, decision 7), even a
    hand of random play, which is far longer than a hand between sensible players."""
    for seed in range(20):
        record = played_record("hollywood-gin", seed, {"max_hands": 1})
        assert len(encode_record(record)) < 1024, (seed, len(record.actions))


def test_every_game_round_trips_with_sources_and_indexes() -> None:
    for game in ("hollywood-gin", "gin-three", "rummy-500", "flip-flop"):
        record = played_record(game, 4, {"max_hands": 1} if "gin" in game else {})
        marked = list(record.actions)
        marked[2] = ActionEntry(marked[2].seat, marked[2].text, 7, "timeout")
        record = MatchRecord(**{**record.__dict__, "actions": tuple(marked)})
        back = decode_record(encode_record(record))
        assert back == record
        assert [a.index for a in back.actions] == [
            a.index for a in decode_record(encode_record(back)).actions
        ]


def test_a_record_whose_index_is_out_of_range_names_the_action() -> None:
    msg = record_to_proto(played_record("hollywood-gin", 5, {"max_hands": 1}))
    msg.action_index[3] = 200
    with pytest.raises(CodecError, match=r"action 3: index 200 out of range"):
        decode_record(msg.SerializeToString())


def test_format_1_records_of_action_texts_are_still_read() -> None:
    record = played_record("hollywood-gin", 6, {"max_hands": 1})
    msg = record_to_proto(record)
    del msg.action_index[:]
    del msg.think_us[:]
    del msg.sources[:]
    msg.format_version = 1
    for entry in record.actions:
        msg.actions.add(seat=entry.seat, text=entry.text, think_us=entry.think_us)
    assert decode_record(msg.SerializeToString()) == record


def test_garbage_is_not_a_record() -> None:
    with pytest.raises(CodecError, match="not a match record"):
        decode_record(b"\xff\xff\xff garbage")
