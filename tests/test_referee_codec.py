"""The codec carries every game's view exactly (C9 is the engine's; the wire
must neither add nor lose anything): view -> protobuf -> view is the identity."""

from __future__ import annotations

import random

import pytest

from referee import wire
from referee.games import game_names, get_game
from referee.wire import hollywood_fast
from rummyarena.v1 import bot_pb2, views_pb2


@pytest.mark.parametrize("game", game_names())
def test_c9_every_view_round_trips_through_protobuf(game: str) -> None:
    spec = get_game(game)
    for seats in range(spec.min_seats, spec.max_seats + 1):
        state = spec.new_match(seats * 13, seats=seats, options=spec.test_variants[0])
        rng = random.Random(seats)
        steps = 0
        while True:
            over = state.to_act() is None
            for seat in range(seats) if over or steps % 5 == 0 else ():
                view = state.view(seat)
                msg = views_pb2.PlayerView.FromString(wire.view_to_proto(view).SerializeToString())
                assert wire.view_game(msg) == game
                assert wire.view_from_proto(msg, view.legal_actions) == view
            if over:
                break
            state.apply(rng.choice(state.legal_actions()))
            steps += 1


@pytest.mark.parametrize("game", game_names())
def test_decision_bytes_equal_the_protobuf_encoding(game: str) -> None:
    """The referee writes decisions as bytes straight from the views; they must be the
    very bytes the protobuf library makes of the same Decision (C9 carried exactly)."""
    spec = get_game(game)
    for seats in range(spec.min_seats, spec.max_seats + 1):
        state = spec.new_match(seats * 7, seats=seats, options=spec.test_variants[0])
        encoder = wire.DecisionEncoder(5000)
        rng = random.Random(seats)
        seen = [0] * seats
        did = 0
        while (turn := state.to_act()) is not None and did < 600:
            legal = [str(a) for a in state.legal_actions()]
            events = state.events_for(turn, seen[turn])
            seen[turn] = len(state.events)
            view = state.view(turn)
            bank = rng.choice((0, 90, 30_000))
            fast = encoder.decision(did * 37, view, legal, events, bank)
            slow = wire.decision_message(did * 37, view, legal, events, 5000, bank)
            assert fast == slow.SerializeToString(), (game, did)
            state.apply(rng.choice(state.legal_actions()))
            did += 1


def test_answer_bytes_equal_the_protobuf_encoding() -> None:
    for did in (0, 1, 127, 128, 300, 2**40):
        for index in (0, 1, 127, 128, 2**32 - 1):
            msg = bot_pb2.BotMessage(answer=bot_pb2.Answer(decision_id=did, index=index))
            assert wire.answer_bytes(did, index) == msg.SerializeToString()


def test_answer_head_is_what_an_answer_by_index_holds_before_the_index() -> None:
    """The service reads answers of the form 0x12 LEN answer_head(id) INDEX without
    parsing them: that must be exactly the canonical encoding of an Answer by index."""
    for did in (0, 1, 127, 128, 300, 2**40):
        head = wire.answer_head(did)
        for index in (0, 1, 127):
            raw = wire.answer_bytes(did, index)
            assert raw == b"\x12" + bytes((len(head) + 1,)) + head + bytes((index,))
        assert wire.answer_bytes(did, 128)[2:-2] == head  # two bytes: parsed, not read


@pytest.mark.parametrize("game", ["hollywood-gin", "gin-three"])
def test_gin_decisions_through_whole_matches_equal_the_protobuf_encoding(game: str) -> None:
    """Through whole Gin matches (hands, showdowns, closed columns, large decision ids
    and banks), with two matches written in turn by one encoder each but by the same
    compiled writers: each decision is byte for byte the protobuf library's encoding.
    The writers keep the bytes of the last showdown and score columns they wrote and
    reuse them for the same object; that must never outlive the hand or leak across
    matches."""
    spec = get_game(game)
    for variant, options in enumerate(spec.test_variants):
        states = [spec.new_match(seed + 10 * variant, options=options) for seed in range(2)]
        encoders = [wire.DecisionEncoder(5000), wire.DecisionEncoder(5000)]
        rngs = [random.Random(seed) for seed in range(2)]
        seen = [[0] * 3, [0] * 3]
        dids = [0, 0]
        hands = 0
        while any(s.to_act() is not None for s in states):
            for m, state in enumerate(states):
                turn = state.to_act()
                if turn is None:
                    continue
                rng = rngs[m]
                bank = rng.choice((0, 90, 30_000, 2**20))
                view = state.view(turn)
                events = state.events_for(turn, seen[m][turn])
                seen[m][turn] = len(state.events)
                got = encoders[m].decision(dids[m], view, view.legal_actions, events, bank)
                want = wire.decision_message(dids[m], view, view.legal_actions, events, 5000, bank)
                assert got == want.SerializeToString(), (variant, m, dids[m])
                assert list(view.legal_actions) == [str(a) for a in state.legal_actions()]
                hands = max(hands, view.hand_number)
                state.apply(rng.choice(state.legal_actions()))
                dids[m] += rng.choice((1, 1, 20_000))
        assert hands > 2  # the showdowns and columns changed along the way


@pytest.mark.parametrize("variant", range(len(get_game("hollywood-gin").test_variants)))
def test_hollywood_decision_from_state_equals_the_one_writer(variant: int) -> None:
    """Hollywood Gin's decisions are written in one pass straight from the engine state
    on the referee's hot path (referee/wire/hollywood_fast.py); each must be byte for
    byte the compiled writer's and the protobuf library's encoding of the same
    Decision (the view, the legal actions, the events the seat may see, the clock),
    through whole matches: hands, showdowns, closed columns, large ids and banks."""
    spec = get_game("hollywood-gin")
    options = spec.test_variants[variant]
    for seed in range(6):
        state = spec.new_match(seed, options=options)
        fast, plain = wire.DecisionEncoder(5000), wire.DecisionEncoder(5000)
        rng = random.Random(seed)
        seen = [0, 0]
        did = 0
        while (turn := state.to_act()) is not None:
            bank = rng.choice((0, 90, 30_000, 2**20))
            got = fast.decision_from_state(state, turn, did, seen[turn], bank)
            assert got is not None
            message, texts, seen_after = got
            view = state.view(turn)
            events = state.events_for(turn, seen[turn])
            assert message == plain.decision(did, view, view.legal_actions, events, bank)
            want = wire.decision_message(did, view, view.legal_actions, events, 5000, bank)
            assert message == want.SerializeToString(), (seed, did)
            assert list(texts) == [str(a) for a in state.legal_actions()], (seed, did)
            assert seen_after == len(state.events)
            seen[turn] = seen_after
            state.apply(rng.choice(state.legal_actions()))
            did += rng.choice((1, 1, 20_000))
        assert fast.decision_from_state(state, 0, did, 0, 0) is None  # the match is over
    # the legal blocks kept are the fixed draw and upcard lists, never the arrangements
    assert set(hollywood_fast._LEGAL_BLOCKS) <= {
        ("draw stock", "draw discard"),
        ("draw discard", "pass"),
        ("draw stock",),
    }


@pytest.mark.parametrize("game", [g for g in game_names() if g != "hollywood-gin"])
def test_decision_from_state_is_only_for_hollywood_gin(game: str) -> None:
    state = get_game(game).new_match(1)
    assert wire.DecisionEncoder(5000).decision_from_state(state, 0, 0, 0, 0) is None


def test_mapped_views_keep_protobufs_presence_rules() -> None:
    """The views that map by field name are written to bytes from a plan; a nested
    value whose fields are all defaults is still present (a field was set), one whose
    fields are all unset is absent, exactly as the protobuf library encodes them."""
    import dataclasses

    from referee.games.flip_flop import RoundSummary

    spec = get_game("flip-flop")
    state = spec.new_match(5, seats=3)
    view = state.view(state.to_act())
    defaults = {"int": 0, "str": ""}  # set, but to the default: nothing to write
    blank = RoundSummary(
        **{f.name: defaults.get(str(f.type)) for f in dataclasses.fields(RoundSummary)}
    )
    empty = RoundSummary(**{f.name: None for f in dataclasses.fields(RoundSummary)})
    encoder = wire.DecisionEncoder(5000)
    for last in (blank, empty):
        changed = dataclasses.replace(view, last_round=last)
        want = wire.view_to_proto(changed).SerializeToString()
        assert encoder.view_bytes(changed) == want
    present = views_pb2.PlayerView.FromString(
        encoder.view_bytes(dataclasses.replace(view, last_round=blank))
    )
    absent = views_pb2.PlayerView.FromString(
        encoder.view_bytes(dataclasses.replace(view, last_round=empty))
    )
    assert present.flip_flop.HasField("last_round")
    assert not absent.flip_flop.HasField("last_round")


def test_the_compiled_writer_is_only_for_values() -> None:
    """It keeps bytes by object, so a dataclass that can change after it was written
    gets no writer (views are frozen)."""
    import dataclasses

    from referee.wire.protobytes import compiled_writer

    @dataclasses.dataclass
    class Changing:
        kind: str

    @dataclasses.dataclass(frozen=True)
    class Fixed:
        kind: str

    outcome = views_pb2.GinOutcome.DESCRIPTOR
    assert compiled_writer(Changing, outcome) is None
    writer = compiled_writer(Fixed, outcome)
    assert writer is not None and writer(Fixed("gin")) == b"\x0a\x03gin"
