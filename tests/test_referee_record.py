"""Match records: bytes round trip through the codec, and `verify` re-runs them
(ARCHITECTURE decisions 2 and 7)."""

from __future__ import annotations

import random

from referee.clock import ClockRules
from referee.codec import decode_record, encode_record
from referee.engine import get_game
from referee.record import ActionEntry, MatchRecord, SeatEntry, options_dict, verify


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
    record = played_record("hollywood-gin", 3, {"max_hands": 1})
    assert len(encode_record(record)) < 40 * len(record.actions) + 400
