"""Complete matches over loopback: a referee process, bot processes, `arena verify` on
every record, two matches at once, and the spectators' stream (docs/architecture.md,
decisions 4 and 5)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from referee.games import game_names
from rummyarena.v1 import match_pb2
from tests.referee_support import EXAMPLES, RefereeProcess, referee_fixture, start_bot, wait_all

HEURISTIC = EXAMPLES / "heuristic_bot.py"
RANDOM = EXAMPLES / "random_bot.py"
SEATS = {"hollywood-gin": 2, "gin-three": 3, "rummy-500": 3, "flip-flop": 3}
CAPS = {
    "hollywood-gin": {"max_hands": 2},
    "gin-three": {"max_hands": 2},
    "rummy-500": {"max_hands": 1},
    "flip-flop": {"max_rounds": 1},
}


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def play_hollywood(ref: RefereeProcess, seed: int) -> list[str]:
    match = ref.create("hollywood-gin", 2, seed=seed, options={"max_hands": 2})
    procs = [
        start_bot(HEURISTIC, ref.address, match.tokens[0]),
        start_bot(RANDOM, ref.address, match.tokens[1], ARENA_BOT_SEED="7"),
    ]
    for code, out in wait_all(procs):
        assert code == 0, out
    record = ref.record(match.match_id)
    assert [s.status for s in record.seats] == ["ok", "ok"]
    return [a.text for a in record.actions]


def test_two_matches_at_once_do_not_disturb_each_other(ref: RefereeProcess) -> None:
    alone = play_hollywood(ref, 21)
    # The same deterministic bots on the same seed, now beside a second match of every
    # other registered game, each seat a separate process.
    others = [g for g in game_names() if g != "hollywood-gin" and g in SEATS]
    created = [(g, ref.create(g, SEATS[g], seed=5, options=CAPS[g])) for g in others]
    procs = [
        start_bot(RANDOM if i else HEURISTIC, ref.address, tok, ARENA_BOT_SEED=str(i + 1))
        for _, m in created
        for i, tok in enumerate(m.tokens)
    ]
    beside = play_hollywood(ref, 21)
    for code, out in wait_all(procs):
        assert code == 0, out
    assert beside == alone
    for game, m in created:
        record = ref.record(m.match_id)
        assert record.game == game and record.result is not None
        assert all(s.status == "ok" for s in record.seats), record.seats


def test_watch_streams_public_events_then_the_result(ref: RefereeProcess) -> None:
    match = ref.create("gin-three", 3, seed=9, options={"max_hands": 1})
    stream = ref.matches.WatchMatch(
        match_pb2.WatchMatchRequest(match_id=match.match_id), metadata=ref.metadata
    )
    procs = [
        start_bot(RANDOM, ref.address, tok, ARENA_BOT_SEED=str(i))
        for i, tok in enumerate(match.tokens)
    ]
    updates = list(stream)
    for code, out in wait_all(procs):
        assert code == 0, out
    events = [u.event for u in updates if u.HasField("event")]
    assert updates[-1].HasField("result")
    assert len(updates[-1].result.seats) == 3
    texts = [e.text for e in events]
    assert any(t.startswith("upcard") for t in texts)
    # C9: a spectator never sees dealt hands, stock draws or the sitter's advice
    assert not any(t.startswith(("dealt", "drew", "advise", "no advice")) for t in texts)
    # a watcher of the finished match gets the same history, re-run from the record
    again = list(
        ref.matches.WatchMatch(
            match_pb2.WatchMatchRequest(match_id=match.match_id), metadata=ref.metadata
        )
    )
    assert [u.event for u in again if u.HasField("event")] == events
    assert again[-1].result == updates[-1].result
    ref.record(match.match_id)


def test_get_match_with_wait_answers_once_the_match_has_finished(ref: RefereeProcess) -> None:
    match = ref.create("hollywood-gin", 2, seed=4, options={"max_hands": 1})
    request = match_pb2.GetMatchRequest(match_id=match.match_id, wait=True)
    waiting = ref.matches.GetMatch.future(request, metadata=ref.metadata, timeout=60)
    now = ref.matches.GetMatch(
        match_pb2.GetMatchRequest(match_id=match.match_id), metadata=ref.metadata
    )
    assert now.state == match_pb2.MATCH_STATE_WAITING and not now.HasField("record")
    assert not waiting.done()  # still waiting: no seat has joined
    procs = [
        start_bot(RANDOM, ref.address, tok, ARENA_BOT_SEED=str(i))
        for i, tok in enumerate(match.tokens)
    ]
    reply = waiting.result()
    for code, out in wait_all(procs):
        assert code == 0, out
    assert reply.state == match_pb2.MATCH_STATE_FINISHED
    assert len(reply.result.seats) == 2 and len(reply.record.action_index) > 0
    ref.record(match.match_id)


def test_unknown_game_and_bad_options_are_invalid_argument(ref: RefereeProcess) -> None:
    with pytest.raises(grpc.RpcError) as err:
        ref.create("chess", 2)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "chess" in err.value.details()
    with pytest.raises(grpc.RpcError) as err:
        ref.create("hollywood-gin", 2, options={"max_hands": 0})
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "max_hands" in err.value.details()
    with pytest.raises(grpc.RpcError) as err:
        ref.create("hollywood-gin", 3)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_health_checking_and_reflection_are_on(ref: RefereeProcess) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    health = health_pb2_grpc.HealthStub(ref.channel)
    for service in ("", "rummyarena.v1.Referee", "rummyarena.v1.Matches"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(ref.channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    [reply] = list(stub.ServerReflectionInfo(iter([request]), timeout=5))
    names = {s.name for s in reply.list_services_response.service}
    assert {"rummyarena.v1.Referee", "rummyarena.v1.Matches"} <= names
