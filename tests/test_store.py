"""The Postgres store (docs/architecture.md, decisions 6 and 7): the match state machine, claiming
and finishing under concurrency, records, ratings kept in the same transaction."""

from __future__ import annotations

import contextlib
import dataclasses
import random
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from referee.wire import decode_record, encode_record
from rummyarena.v1 import record_pb2
from tests.store_fixtures import finished_match, make_bots
from worker import db
from worker.ratings import SeatResult, replay_elo
from worker.store import (
    MATCH_STATES,
    TOURNAMENT_STATES,
    CorruptRecord,
    FinishedMatch,
    InvalidResult,
    SeatOutcome,
    Store,
    StoreError,
    UnknownMatch,
    seed_commitment,
)

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"


def two_player(winner: int = 0) -> FinishedMatch:
    """A Hollywood Gin finish that ``winner`` won 10 to 0."""
    ranks = [0 if seat == winner else 1 for seat in (0, 1)]
    return finished_match(GAME, ranks, [10 if rank == 0 else 0 for rank in ranks])


def run_together(n: int, target: Callable[[int], Any]) -> list[Any]:
    """Call ``target(i)`` in ``n`` threads released at once; their results in order."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n
    errors: list[BaseException] = []

    def body(i: int) -> None:
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_bot_versions_are_content_addressed(store: Store) -> None:
    bot = store.add_bot("alice", owner="ann")
    manifest = {"game": GAME, "command": ["python", "bot.py"]}
    v1 = store.add_bot_version(bot, b"zip one", manifest, "ann")
    again = store.add_bot_version(bot, b"zip one", manifest, "ann")
    v2 = store.add_bot_version(bot, b"zip two", manifest, "ann")
    assert again.id == v1.id and (v1.version, v2.version) == (1, 2)
    assert v2.label == "alice@v2" and v2.game == GAME and v2.manifest == manifest
    assert store.bot_archive(v2.id) == b"zip two"
    assert len(v1.content_hash) == 64
    with pytest.raises(StoreError, match="another owner"):
        store.add_bot("alice", owner="bob")
    with pytest.raises(StoreError, match="command"):
        store.add_bot_version(bot, b"x", {"game": GAME}, "ann")


def test_d2_match_commits_to_its_seed_before_play(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b], seed=2**64 - 1, options={"target": 100})
    assert match.state == "queued" and match.seats == (a, b) and match.attempts == 0
    assert match.seed == 2**64 - 1 and match.options == {"target": 100}
    assert match.seed_commitment == seed_commitment(match.seed, match.seed_salt)
    assert len(match.seed_salt) == 16
    other = store.create_match(GAME, [a, b])
    assert 0 <= other.seed < 2**64 and other.seed_commitment != match.seed_commitment


def test_d6_the_states_are_what_the_columns_allow(store: Store) -> None:
    """The store's MatchState and TournamentState are the values the ``state`` columns'
    CHECK constraints allow, no more and no fewer."""
    allowed = {}
    with store.pool.connection() as conn:
        for table in ("matches", "tournaments"):
            for (definition,) in conn.execute(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
                " WHERE conrelid = %s::regclass AND contype = 'c'",
                (table,),
            ):
                if definition.startswith("CHECK ((state = ANY"):
                    allowed[table] = re.findall(r"'(\w+)'::text", definition)
    assert allowed == {"matches": list(MATCH_STATES), "tournaments": list(TOURNAMENT_STATES)}


def test_d6_claim_is_won_by_exactly_one_of_many_callers(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b])
    claims = run_together(8, lambda i: store.claim_match(f"worker-{i}"))
    winners = [c for c in claims if c is not None]
    assert len(winners) == 1
    assert winners[0].id == match.id and winners[0].state == "running"
    assert winners[0].attempts == 1 and winners[0].seats == (a, b)


def test_d6_concurrent_claimers_share_a_queue_without_overlap(store: Store) -> None:
    a, b = make_bots(store, 2)
    ids = {store.create_match(GAME, [a, b]).id for _ in range(30)}

    def drain(i: int) -> list[int]:
        got = []
        while (m := store.claim_match(f"w{i}")) is not None:
            got.append(m.id)
        return got

    taken = run_together(4, drain)
    flat = [m for got in taken for m in got]
    assert sorted(flat) == sorted(ids)


def test_d6_expired_lease_is_reclaimed_by_exactly_one(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b])
    first = store.claim_match("slow", lease_seconds=60)
    assert first is not None and store.claim_match("other") is None
    assert store.renew_lease(match.id, "slow", lease_seconds=-1)  # the lease runs out
    claims = run_together(6, lambda i: store.claim_match(f"w{i}"))
    winners = [c for c in claims if c is not None]
    assert len(winners) == 1 and winners[0].attempts == 2
    # The worker that lost its lease can no longer finish or renew the match.
    assert not store.finish_match(match.id, "slow", two_player())
    assert not store.renew_lease(match.id, "slow")
    assert store.finish_match(match.id, winners[0].lease_holder or "", two_player())


def test_d6_claim_a_given_match(store: Store) -> None:
    a, b = make_bots(store, 2)
    first = store.create_match(GAME, [a, b])
    second = store.create_match(GAME, [a, b])
    claimed = store.claim_match("w", match_id=second.id)
    assert claimed is not None and claimed.id == second.id
    assert store.claim_match("w", match_id=second.id) is None
    assert store.match(first.id).state == "queued"  # type: ignore[union-attr]


def test_d6_failed_attempts_requeue_then_fail(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b], max_attempts=2)
    store.claim_match("w")
    assert store.fail_match(match.id, "w", "referee crashed") == "queued"
    store.claim_match("w")
    assert store.fail_match(match.id, "w", "referee crashed again") == "failed"
    final = store.match(match.id)
    assert final is not None and final.state == "failed" and final.attempts == 2
    assert final.error == "referee crashed again"
    assert store.claim_match("w") is None


def test_d6_sweep_requeues_expired_leases(store: Store) -> None:
    a, b = make_bots(store, 2)
    m1 = store.create_match(GAME, [a, b], max_attempts=1)
    m2 = store.create_match(GAME, [a, b])
    store.claim_match("w", lease_seconds=-1)
    store.claim_match("w", lease_seconds=-1)
    assert store.requeue_expired() == {m1.id: "failed", m2.id: "queued"}
    assert "lease expired" in (store.match(m1.id).error or "")  # type: ignore[union-attr]


def test_d6_cancel(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b])
    assert store.cancel_match(match.id)
    assert not store.cancel_match(match.id)
    assert store.claim_match("w") is None


def test_d6_finish_stores_record_results_and_ratings(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b])
    store.claim_match("w")
    finished = finished_match(GAME, [1, 0], [0, 61], statuses=["timeout", "ok"], duration_ms=7)
    assert store.finish_match(match.id, "w", finished)
    done = store.match(match.id)
    assert done is not None and done.state == "done" and done.lease_holder is None
    assert done.finish_seq == 1
    assert store.record(match.id) == finished.record
    assert store.seat_results(match.id) == [
        SeatOutcome(0, 1, 0, "timeout", False),
        SeatOutcome(1, 0, 61, "ok", False),
    ]
    table = {r.bot_version_id: (r.rating, r.games) for r in store.ratings(GAME)}
    assert table == {b: (1512.0, 1), a: (1488.0, 1)}
    assert store.rating_history(GAME, b) == [(1, match.id, 1500.0, 1512.0)]


def test_d6_concurrent_finishes_of_one_match_commit_once(store: Store) -> None:
    a, b = make_bots(store, 2)
    for _ in range(5):
        match_id = store.create_match(GAME, [a, b]).id
        store.claim_match("w")

        def finish(i: int, match_id: int = match_id) -> bool:
            return store.finish_match(match_id, "w", two_player())

        outcomes = run_together(4, finish)
        assert sorted(outcomes) == [False, False, False, True]
    table = {r.bot_version_id: r.games for r in store.ratings(GAME)}
    assert table == {a: 5, b: 5}
    assert len(store.rating_history(GAME, a)) == 5
    assert store.rating_history(GAME, a, last=2) == store.rating_history(GAME, a)[-2:]


def test_d6_second_finish_changes_nothing(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b])
    store.claim_match("w")
    assert store.finish_match(match.id, "w", two_player(winner=0))
    before = (store.ratings(GAME), store.record(match.id), store.seat_results(match.id))
    assert not store.finish_match(match.id, "w", two_player(winner=1))
    assert (store.ratings(GAME), store.record(match.id), store.seat_results(match.id)) == before


def _spoil(
    finished: FinishedMatch, change: Callable[[record_pb2.MatchRecord], None]
) -> FinishedMatch:
    """``finished`` with its record changed by ``change`` (on the protobuf message)."""
    message = record_pb2.MatchRecord.FromString(finished.record)
    change(message)
    return dataclasses.replace(finished, record=message.SerializeToString())


def _set_result(seat: int, **changes: Any) -> Callable[[record_pb2.MatchRecord], None]:
    def change(message: record_pb2.MatchRecord) -> None:
        for name, value in changes.items():
            setattr(message.result.seats[seat], name, value)

    return change


def _without_result(finished: FinishedMatch) -> FinishedMatch:
    record = dataclasses.replace(decode_record(finished.record), result=None)
    return dataclasses.replace(finished, record=encode_record(record))


#: Finishes of a two-seat rummy-500 match that the store refuses, and what the error says
#: after "match <id>: ".
INVALID_FINISHES: dict[str, tuple[Callable[[FinishedMatch], FinishedMatch], str]] = {
    "garbage record bytes": (
        lambda f: dataclasses.replace(f, record=b"garbage"),
        "the record does not decode",
    ),
    "rank 5 of two seats": (
        lambda f: _spoil(f, _set_result(1, rank=5)),
        "seat 1 rank 5 is out of range 0..1",
    ),
    "status out of the enum": (
        lambda f: _spoil(f, _set_result(1, status=99)),
        "the record's result seat 1 status 99 is not a seat status",
    ),
    "score beyond the column": (
        lambda f: _spoil(f, _set_result(0, score=2**31)),
        r"seat 0 score 2147483648 does not fit the score column \(-2147483648..2147483647\)",
    ),
    "record of another game": (
        lambda f: finished_match("hollywood-gin", [0, 1], [10, 0]),
        "the record is of game 'hollywood-gin', the match of 'rummy-500'",
    ),
    "record with another number of seats": (
        lambda f: finished_match("rummy-500", [0, 1, 2], [10, 5, 0]),
        "the record has 3 seats, the match 2",
    ),
    "a result for one seat of two": (
        lambda f: _spoil(f, lambda m: m.result.seats.pop()),
        "the record has 2 seats but a result for 1",
    ),
    "a result that disagrees with the seat list": (
        lambda f: _spoil(f, _set_result(0, forfeited=True)),
        "seat 0: the record's seat list .* differs from its result",
    ),
    "record without a result": (
        _without_result,
        "the record has no result",
    ),
    "record of an aborted match": (
        lambda f: finished_match("rummy-500", [0, 1], [10, 0], aborted="the referee shut down"),
        r"the match was aborted \(the referee shut down\): there is no result to store; "
        "play it again",
    ),
    "negative duration": (
        lambda f: dataclasses.replace(f, duration_ms=-1),
        r"duration_ms -1 is out of range 0..2147483647",
    ),
}


@pytest.mark.parametrize("case", list(INVALID_FINISHES))
def test_d6_invalid_finish_is_refused_and_changes_nothing(store: Store, case: str) -> None:
    game = "rummy-500"
    a, b = make_bots(store, 2, game)
    earlier = store.create_match(game, [a, b])
    store.claim_match("w")
    assert store.finish_match(earlier.id, "w", finished_match(game, [0, 1], [10, 0]))
    match = store.create_match(game, [a, b])
    store.claim_match("w")
    before = (store.match(match.id), store.ratings(game), store.rating_history(game, a))
    valid = finished_match(game, [0, 1], [10, 0])
    spoil, message = INVALID_FINISHES[case]
    with pytest.raises(InvalidResult, match=f"^match {match.id}: {message}"):
        store.finish_match(match.id, "w", spoil(valid))
    after = (store.match(match.id), store.ratings(game), store.rating_history(game, a))
    assert after == before
    assert after[0] is not None and after[0].state == "running" and after[0].finish_seq is None
    assert store.seat_results(match.id) == []
    assert "no stored record" in (store.records([match.id])[0].error or "")
    assert store.finish_match(match.id, "w", valid)  # still running, still the holder's


def test_d6_finish_of_an_unknown_match_is_an_error(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b])
    store.claim_match("w")
    assert store.finish_match(match.id, "w", two_player())
    before = (store.match(match.id), store.ratings(GAME), store.rating_history(GAME, a))
    with pytest.raises(UnknownMatch, match=r"^no match 999$"):
        store.finish_match(999, "w", two_player())
    assert (store.match(match.id), store.ratings(GAME), store.rating_history(GAME, a)) == before
    # A known match that is not the caller's to finish is still a plain False.
    assert store.finish_match(match.id, "w", two_player()) is False


def test_corrupt_record_is_reported_and_never_breaks_a_listing(store: Store) -> None:
    a, b = make_bots(store, 2)
    ids, records = [], []
    for seed in range(3):
        m = store.create_match(GAME, [a, b])
        store.claim_match("w")
        finished = finished_match(GAME, [0, 1], [10, 0], seed=seed)
        store.finish_match(m.id, "w", finished)
        ids.append(m.id)
        records.append(finished.record)
    with store.pool.connection() as conn:
        conn.execute("UPDATE match_records SET record = 'garbage' WHERE match_id = %s", (ids[1],))
    with pytest.raises(CorruptRecord, match=f"match {ids[1]}"):
        store.record(ids[1])
    entries = store.records(ids, decode=lambda data: decode_record(data).seed)
    assert [e.value for e in entries] == [0, None, 2]
    assert f"match {ids[1]}" in (entries[1].error or "")

    def picky(data: bytes) -> int:
        if data == records[2]:
            raise ValueError("truncated message")
        return decode_record(data).seed

    entries = store.records([*ids, 999], decode=picky)
    assert [e.error is None for e in entries] == [True, False, False, False]
    assert "truncated message" in (entries[2].error or "")
    assert "no stored record" in (entries[3].error or "")
    assert [m.id for m in store.list_matches(game=GAME)] == sorted(ids, reverse=True)
    assert [m.id for m in store.list_matches(bot_version_id=a, state="done")] == ids[::-1]


def test_d9_online_elo_in_completion_order_and_recompute_reproduces_it(store: Store) -> None:
    game = "rummy-500"  # two or three seats
    bots = make_bots(store, 5, game)
    rng = random.Random(7)
    matches = []
    for _ in range(40):
        n = rng.choice([2, 2, 3])
        seats = rng.sample(bots, n)
        matches.append(store.create_match(game, seats))
    expected_order = []

    def play(i: int) -> None:
        local = random.Random(i)
        while (m := store.claim_match(f"w{i}")) is not None:
            n = len(m.seats)
            ranks = [local.randrange(n) for _ in range(n)]
            scores = [local.randrange(50) for _ in range(n)]
            forfeits = [local.random() < 0.1 for _ in range(n)]
            finished = finished_match(game, ranks, scores, forfeits=forfeits)
            assert store.finish_match(m.id, f"w{i}", finished)

    run_together(3, play)
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT m.id, array_agg(s.bot_version_id ORDER BY s.seat),"
            " array_agg(s.rank ORDER BY s.seat), array_agg(s.forfeit ORDER BY s.seat)"
            " FROM matches m JOIN match_seats s ON s.match_id = m.id"
            " GROUP BY m.id, m.finish_seq ORDER BY m.finish_seq"
        ).fetchall()
    for _, players, ranks, forfeits in rows:
        expected_order.append(
            [SeatResult(p, r, f) for p, r, f in zip(players, ranks, forfeits, strict=True)]
        )
    online = {r.bot_version_id: r.rating for r in store.ratings(game)}
    assert online == replay_elo(expected_order, k=24)  # exact, not approximately
    history = {b: store.rating_history(game, b) for b in bots}
    stats = store.recompute_ratings(game)
    assert stats.matches == 40 and stats.players == 5
    assert {r.bot_version_id: r.rating for r in store.ratings(game)} == online
    assert {b: store.rating_history(game, b) for b in bots} == history
    games = {r.bot_version_id: r.games for r in store.ratings(game)}
    assert sum(games.values()) == sum(len(m.seats) for m in matches)


def test_d9_recompute_with_another_k_changes_the_numbers(store: Store) -> None:
    a, b = make_bots(store, 2)
    m = store.create_match(GAME, [a, b])
    store.claim_match("w")
    store.finish_match(m.id, "w", two_player())
    stats = store.recompute_ratings(GAME, k=32)
    assert stats.ratings == {a: 1516.0, b: 1484.0}


def test_d9_batch_standings_and_duplicate_sets(store: Store) -> None:
    a, b, c = make_bots(store, 3)
    tournament = store.create_tournament("cup", GAME, [a, b, c], duplicate=True)
    # Each set: the same deal twice with the seats rotated; the scores per seat.
    sets = {
        1: [((a, b), (30, 0)), ((b, a), (5, 0))],  # a 30, b 5: a wins the set
        2: [((a, c), (20, 0)), ((c, a), (10, 0))],  # a 20, c 10: a wins the set
        3: [((b, c), (10, 0)), ((c, b), (10, 0))],  # 10 each: a drawn set
    }
    for set_no, deals in sets.items():
        for rotation, (seats, scores) in enumerate(deals):
            m = store.create_match(
                GAME, seats, tournament_id=tournament, duplicate_set=set_no, rotation=rotation
            )
            store.claim_match("w")
            ranks = [0 if s == max(scores) else 1 for s in scores]
            assert store.finish_match(m.id, "w", finished_match(GAME, ranks, list(scores)))
    standings = store.standings(tournament_id=tournament)
    assert standings[0].player == a
    assert all(s.low < s.rating < s.high for s in standings)
    dup = {d.player: d for d in store.duplicate_standings(tournament_id=tournament)}
    assert (dup[a].sets, dup[a].set_points, dup[a].total_score) == (2, 2.0, 50)
    assert (dup[b].sets, dup[b].set_points, dup[b].total_score) == (2, 0.5, 15)
    assert (dup[c].sets, dup[c].set_points, dup[c].total_score) == (2, 0.5, 20)


def test_tournament_results_leave_out_the_matches_a_reader_knows(store: Store) -> None:
    a, b = make_bots(store, 2)
    tournament = store.create_tournament("cup", GAME, [a, b])
    ids = []
    for seats in ((a, b), (b, a), (a, b)):
        m = store.create_match(GAME, seats, tournament_id=tournament)
        store.claim_match("w")
        assert store.finish_match(m.id, "w", two_player())
        ids.append(m.id)
    store.create_match(GAME, (a, b), tournament_id=tournament)  # queued: never a result
    assert [t.match_id for t in store.tournament_results(tournament)] == ids
    left = store.tournament_results(tournament, known={ids[0], ids[2]})
    assert [t.match_id for t in left] == [ids[1]]
    assert [s.version for s in left[0].seats] == [b, a]
    assert store.tournament_results(tournament, known=set(ids)) == []


def test_lost_connections_are_retried(store: Store, store_db_url: str) -> None:
    a, b = make_bots(store, 2)
    with psycopg.connect(store_db_url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert killed is not None and killed[0] >= 1
    match = store.create_match(GAME, [a, b])
    assert store.match(match.id) == match


def test_lost_connections_are_retried_when_the_pool_holds_more_than_the_attempts(
    store: Store, store_db_url: str
) -> None:
    a, b = make_bots(store, 2)
    with contextlib.ExitStack() as held:
        for _ in range(store.retry_attempts + 3):
            held.enter_context(store.pool.connection())
    with psycopg.connect(store_db_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    match = store.create_match(GAME, [a, b])
    assert store.match(match.id) == match


def test_retry_backs_off_then_succeeds() -> None:
    calls = []

    def flaky() -> str:
        calls.append(time.monotonic())
        if len(calls) < 3:
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return "ok"

    assert db.with_retry("postgresql://u:pw@h/d", flaky, attempts=4, delay=0.05) == "ok"
    assert len(calls) == 3 and calls[2] - calls[1] >= calls[1] - calls[0] >= 0.05


def test_server_that_stays_down_is_reported_clearly() -> None:
    url = "postgresql://arena:s3cret@127.0.0.1:9/arena"
    started = time.monotonic()
    with pytest.raises(db.StoreUnavailable) as caught:
        Store.open(url, attempts=3)
    message = str(caught.value)
    assert "postgresql://arena:***@127.0.0.1:9/arena" in message
    assert "s3cret" not in message
    assert "ARENA_DATABASE_URL" in message and "running" in message
    assert time.monotonic() - started >= 0.3  # backed off between the attempts


def test_redact_url_forms() -> None:
    assert db.redact_url("postgresql://u:p@h:5/d?sslmode=require") == (
        "postgresql://u:***@h:5/d?sslmode=require"
    )
    assert db.redact_url("host=h password=p dbname=d") == "host=h password=*** dbname=d"
    assert db.redact_url("postgresql://u@h/d?password=p") == "postgresql://u@h/d?password=***"
