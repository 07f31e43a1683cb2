"""The store's side of a platform that never strands a match (docs/architecture.md,
decision 6): attempts count only plays that started, a retry waits out its back-off,
failed matches go back to the queue once, and queued matches that no task works on are
found from Postgres alone."""

from __future__ import annotations

import psycopg

from tests.store_fixtures import make_bots
from worker.store import ScheduledMatch, Store

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"


def _tournament(store: Store, n: int) -> tuple[int, list[int]]:
    a, b = make_bots(store, 2)
    tournament = store.create_tournament("t", GAME, [a, b])
    ids = store.schedule_matches(
        tournament, GAME, {}, [ScheduledMatch((a, b), seed) for seed in range(n)]
    )
    return tournament, ids


def _age(store: Store, seconds: int) -> None:
    """Move every timestamp of matches and tournaments ``seconds`` into the past (what
    the sweep reads as time gone by without any activity)."""
    with psycopg.connect(store.url, autocommit=True) as conn:
        for column in ("created_at", "started_at", "finished_at", "dispatched_at", "not_before"):
            conn.execute(
                f"UPDATE matches SET {column} = {column} - %s * interval '1 second'", (seconds,)
            )
        conn.execute(
            "UPDATE tournaments SET dispatched_at = dispatched_at - %s * interval '1 second'",
            (seconds,),
        )


def test_d6_a_play_that_never_started_gives_its_attempt_back(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b], max_attempts=2)
    for _ in range(5):  # a platform fault before the deal, again and again
        claimed = store.claim_match("w")
        assert claimed is not None and claimed.attempts == 1
        assert store.fail_match(match.id, "w", "RefereeGone", started=False) == "queued"
    again = store.match(match.id)
    assert again is not None and again.attempts == 0 and again.state == "queued"
    store.claim_match("w")
    assert store.fail_match(match.id, "w", "aborted") == "queued"  # a play that started
    store.claim_match("w")
    assert store.fail_match(match.id, "w", "aborted") == "failed"


def test_d6_a_retry_waits_out_its_back_off(store: Store) -> None:
    a, b = make_bots(store, 2)
    match = store.create_match(GAME, [a, b])
    store.claim_match("w")
    assert store.fail_match(match.id, "w", "aborted", wait_s=30) == "queued"
    assert store.claim_match("w") is None  # not before its back-off has passed
    wait = store.next_claim_in(match_id=match.id)
    assert wait is not None and 20 < wait <= 30
    _age(store, 31)
    assert store.next_claim_in(match_id=match.id) == 0
    claimed = store.claim_match("w")
    assert claimed is not None and claimed.id == match.id
    assert store.next_claim_in(match_id=match.id) is None  # none queued


def test_d6_retry_failed_requeues_once_with_fresh_attempts(store: Store) -> None:
    tournament, ids = _tournament(store, 3)
    for match_id in ids[:2]:
        store.claim_match("w", match_id=match_id)
        store.fail_match(match_id, "w", "the record does not fit", retry=False)
    assert store.tournament_progress(tournament)["failed"] == 2
    assert store.retry_failed(tournament) == ids[:2]
    assert store.retry_failed(tournament) == []  # idempotent: nothing failed is left
    progress = store.tournament_progress(tournament)
    assert progress["failed"] == 0 and progress["queued"] == 3
    claimed = store.claim_match("w", match_id=ids[0])
    assert claimed is not None and claimed.attempts == 2  # its history is kept
    again = store.match(ids[0])
    assert again is not None and again.max_attempts > again.attempts


def test_d6_stranded_finds_queued_work_no_task_touches(store: Store) -> None:
    tournament, ids = _tournament(store, 3)
    a, b = make_bots(store, 2)
    lone = store.create_match(GAME, [a, b])
    # a tournament nobody has asked to run yet is not stranded, only waiting
    _age(store, 100)
    assert store.stranded(30) == ({}, [lone.id])
    assert store.stranded(30) == ({}, [])  # sent for: not again within the idle time
    store.mark_dispatched(tournament)
    assert store.stranded(30) == ({}, [])  # work was just sent
    _age(store, 100)
    assert store.stranded(30) == ({tournament: 3}, [lone.id])
    assert store.stranded(30) == ({}, [])
    # a tournament with a running match is being worked on, however old
    _age(store, 100)
    store.claim_match("w", match_id=ids[0])
    _age(store, 100)
    tournaments, _ = store.stranded(30)
    assert tournament not in tournaments
    # matches waiting out a back-off are not claimable, so not stranded yet
    store.fail_match(ids[0], "w", "aborted", wait_s=1000)
    for match_id in ids[1:]:
        store.claim_match("w", match_id=match_id)
        store.fail_match(match_id, "w", "aborted", wait_s=1000)
    _age(store, 100)
    assert store.stranded(30) == ({}, [lone.id])
