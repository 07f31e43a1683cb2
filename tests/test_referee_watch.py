"""The per-match watch credential (docs/architecture.md, decision 13; ``referee.auth``):
it lets WatchMatch follow the one match it was made for, and nothing else; the
platform's secret still watches any match."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from referee.auth import watch_credential, watch_metadata
from rummyarena.v1 import match_pb2
from tests.referee_support import RefereeProcess, play_raw_seat, referee_fixture


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def finished_match(ref: RefereeProcess, match_id: str) -> None:
    """A short Hollywood Gin match played to its end on ``ref`` under ``match_id``."""
    m = ref.create("hollywood-gin", 2, seed=3, options={"max_hands": 1}, match_id=match_id)

    async def both() -> None:
        await asyncio.gather(
            *(play_raw_seat(ref.address, t, random.Random(i)) for i, t in enumerate(m.tokens))
        )

    asyncio.run(both())
    assert ref.finished(match_id).state == match_pb2.MATCH_STATE_FINISHED


def watch(ref: RefereeProcess, match_id: str, metadata: Any) -> list[match_pb2.MatchUpdate]:
    request = match_pb2.WatchMatchRequest(match_id=match_id)
    return list(ref.matches.WatchMatch(request, metadata=metadata, timeout=10))


def test_a_watch_credential_follows_its_own_match(ref: RefereeProcess) -> None:
    finished_match(ref, "watched")
    updates = watch(ref, "watched", watch_metadata(ref.secret, "watched"))
    assert updates[-1].HasField("result")
    assert sum(u.HasField("event") for u in updates) > 10
    # the same updates as the platform's secret gets
    assert updates == watch(ref, "watched", ref.metadata)
    # the credential is a function of the secret and the match id, and of nothing else
    assert watch_credential(ref.secret, "watched") == watch_credential(ref.secret, "watched")
    assert watch_credential(ref.secret, "watched") != watch_credential(ref.secret, "other")
    assert watch_credential(ref.secret, "watched") != watch_credential("another", "watched")
    assert ref.secret not in watch_credential(ref.secret, "watched")


def test_a_watch_credential_is_refused_for_another_match(ref: RefereeProcess) -> None:
    finished_match(ref, "first")
    finished_match(ref, "second")
    for metadata in (
        watch_metadata(ref.secret, "first"),
        watch_metadata("a wrong secret", "second"),
        (("authorization", "Watch " + "0" * 64),),
    ):
        with pytest.raises(grpc.RpcError) as caught:
            watch(ref, "second", metadata)
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED, metadata
        assert "watch credential" in (caught.value.details() or "")


def test_a_watch_credential_makes_no_other_call(ref: RefereeProcess) -> None:
    md = watch_metadata(ref.secret, "m1")
    calls: dict[str, Callable[[], Any]] = {
        "CreateMatch": lambda: ref.matches.CreateMatch(
            match_pb2.CreateMatchRequest(
                game="hollywood-gin", seat_names=["a", "b"], match_id="m1"
            ),
            metadata=md,
        ),
        "GetMatch": lambda: ref.matches.GetMatch(
            match_pb2.GetMatchRequest(match_id="m1"), metadata=md
        ),
        "ReleaseMatch": lambda: ref.matches.ReleaseMatch(
            match_pb2.ReleaseMatchRequest(match_id="m1"), metadata=md
        ),
        "OpenSession": lambda: ref.matches.OpenSession(
            match_pb2.OpenSessionRequest(name="m1"), metadata=md
        ),
        "CloseSession": lambda: ref.matches.CloseSession(
            match_pb2.CloseSessionRequest(session_id="m1"), metadata=md
        ),
    }
    for name, call in calls.items():
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED, name
    # nothing was made under the name: the platform may still create it
    ref.create("hollywood-gin", 2, match_id="m1")
