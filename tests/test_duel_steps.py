"""A duel played by the platform (docs/duels.md, "How the platform runs a duel"): each
step keeps its batch in flight, whole duplicate pairs at a time; the step that sees the
test decide cancels what is still queued and keeps the verdict; a step taken twice, or
two at once, queues nothing twice; the game limit ends it undecided; a duel is checked
before anything is stored. Real Postgres; matches are finished through the store as a
worker hands them in."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from arena.app import duels
from arena.app.actors import PLATFORM, Actor, ActorKind
from arena.app.errors import Invalid
from tests.store_fixtures import finished_match, make_bots
from worker import duel
from worker.sprt import Sprt
from worker.store import SeatResultRow, Store, TableResult, Tournament

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"


def _make(store: Store, **settings: Any) -> tuple[int, int, int, list[tuple[int, int]]]:
    """A duel of bot0 (A) against bot1 (B), made by the platform; returns (tournament, A,
    B, what its dispatch was sent)."""
    a, b = make_bots(store, 2)
    sent: list[tuple[int, int]] = []
    made = duels.create(
        store,
        PLATFORM,
        a="bot0",
        b="bot1",
        game=GAME,
        elo0=0,
        elo1=50,
        seed=11,
        dispatch=lambda t, n: sent.append((t, n)),
        **settings,
    )
    assert (made.a, made.b) == ("bot0@v1", "bot1@v1")
    return made.tournament, a, b, sent


def _play(store: Store, tournament: int, winner: int | None, limit: int = 1000) -> list[int]:
    """Claim and finish up to ``limit`` of the duel's queued matches, ``winner`` taking
    each (None: a draw); the match ids."""
    played = []
    for _ in range(limit):
        match = store.claim_match("test", tournament_id=tournament)
        if match is None:
            break
        ranks = (0, 0) if winner is None else (0, 1) if match.seats[0] == winner else (1, 0)
        scores = [100 if r == 0 else 0 for r in ranks]
        assert store.finish_match(match.id, "test", finished_match(GAME, ranks, scores))
        played.append(match.id)
    return played


def _step(store: Store, tournament: int) -> int:
    return duel.advance(store, tournament, lambda t, n: None)


def test_a_duel_queues_its_first_batch_with_alternating_seats(store: Store) -> None:
    tournament, a, b, sent = _make(store)
    queued = store.list_matches(tournament_id=tournament, state="queued")
    assert sent == [(tournament, duel.BATCH)] and len(queued) == duel.BATCH
    by_id = sorted(queued, key=lambda m: m.id)
    assert [m.seats for m in by_id[:2]] == [(a, b), (b, a)]
    assert len({m.seed for m in by_id}) == duel.BATCH  # a new deal each game
    t = store.tournament(tournament)
    assert t.format == "duel" and t.created_by == PLATFORM.name and t.state == "running"
    assert t.options["a"] == a and t.options["b"] == b and t.options["batch"] == duel.BATCH


def test_a_step_taken_again_queues_nothing_twice(store: Store) -> None:
    tournament, *_ = _make(store)
    assert _step(store, tournament) == 0
    assert store.tournament_progress(tournament)["queued"] == duel.BATCH
    _play(store, tournament, None, limit=3)  # three draws: the test goes on
    assert _step(store, tournament) == 3 and _step(store, tournament) == 0
    assert store.tournament_progress(tournament)["queued"] == duel.BATCH


def test_two_steps_at_once_keep_one_batch_in_flight(store: Store) -> None:
    """The step works under the duel's row lock: the second waits for the first and then
    sees its matches. Each step here is slowed between reading the duel and queueing, so
    without the lock both would queue the same room."""
    tournament, *_ = _make(store)
    _play(store, tournament, None, limit=duel.BATCH)
    assert store.tournament_progress(tournament)["queued"] == 0

    def slow(t: Tournament, results: list[TableResult], counts: dict[str, int]) -> Any:
        decided = duel.step(t, results, counts)
        time.sleep(0.3)
        return decided

    queued: list[int] = []
    threads = [
        threading.Thread(target=lambda: queued.extend(store.advance_duel(tournament, slow)))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    progress = store.tournament_progress(tournament)
    assert len(queued) == duel.BATCH and progress["queued"] == duel.BATCH, progress


def test_the_step_that_sees_the_test_decide_cancels_the_rest_and_keeps_the_verdict(
    store: Store,
) -> None:
    tournament, a, _, _ = _make(store)
    expected = Sprt(0, 50)
    for _ in range(100):
        played = _play(store, tournament, a, limit=1)
        assert played, store.tournament_progress(tournament)
        expected.add_game(1.0)
        _step(store, tournament)
        if store.tournament(tournament).state == "done":
            break
    assert expected.status() == "H1"
    t = store.tournament(tournament)
    result = t.options["result"]
    assert result["verdict"] == "H1" and result["games"] == expected.games
    assert result["llr"] == pytest.approx(expected.llr()) and result["llr"] >= result["upper"]
    progress = store.tournament_progress(tournament)
    assert progress["queued"] == 0 and result["cancelled"] == progress["cancelled"] > 0
    assert _step(store, tournament) == 0  # a duel that is over takes no step
    status = duels.status(store, Actor(ActorKind.ANONYMOUS), tournament)
    assert status["verdict"] == "H1" and status["result"] == result and status["state"] == "done"


def test_a_duplicate_duel_queues_whole_pairs_of_one_deal_with_the_seats_swapped(
    store: Store,
) -> None:
    tournament, a, b, _ = _make(store, duplicate=True, batch=5)
    queued = sorted(
        store.list_matches(tournament_id=tournament, state="queued"), key=lambda m: m.id
    )
    assert len(queued) == 4  # a batch of 5 holds two whole pairs
    assert [(m.duplicate_set, m.rotation, m.seats) for m in queued] == [
        (0, 0, (a, b)),
        (0, 1, (b, a)),
        (1, 0, (a, b)),
        (1, 1, (b, a)),
    ]
    assert queued[0].seed == queued[1].seed != queued[2].seed == queued[3].seed
    _play(store, tournament, None, limit=1)  # three in flight: room for a pair
    assert _step(store, tournament) == 2
    _play(store, tournament, None, limit=1)  # four: room for one game, not a pair
    assert _step(store, tournament) == 0
    assert store.tournament_progress(tournament)["queued"] == 4


def test_the_game_limit_ends_a_duel_undecided(store: Store) -> None:
    tournament, *_ = _make(store, batch=2, max_games=3)
    for _ in range(5):
        _play(store, tournament, None)
        _step(store, tournament)
    t = store.tournament(tournament)
    assert t.state == "done" and t.options["result"]["verdict"] == "continue"
    assert t.options["result"]["games"] == 3 and t.options["result"]["cancelled"] == 0
    assert store.tournament_progress(tournament)["done"] == 3


def test_a_duel_is_checked_before_anything_is_stored(store: Store) -> None:
    make_bots(store, 2)
    make_bots(store, 1, game="gin-three")
    for settings, expected in (
        ({"seats": 3}, "hollywood-gin is played by 2–2, not 3"),
        ({"elo0": 5, "elo1": 5}, "must be below"),
        ({"alpha": 0}, "alpha and beta"),
        ({"batch": 1, "duplicate": True}, "at least 2"),
        ({"max_games": 0}, "at least 1"),
        ({"elo1": 1e9}, "within ±2000"),
        ({"seed": -1}, "seed"),
        ({"b": "nobody"}, "no bot named 'nobody'"),
        ({"options": {"max_hands": "x"}}, "max_hands"),
    ):
        asked = {"a": "bot0", "b": "bot1", "game": GAME, **settings}
        with pytest.raises((Invalid, duels.NotFound)) as refused:
            duels.create(store, PLATFORM, **asked)
        assert expected in str(refused.value), (settings, refused.value)
    assert store.list_tournaments() == []


def test_a_table_of_three_puts_a_in_each_seat_in_turn_and_b_in_the_others(
    store: Store,
) -> None:
    """At a table of more than two (gin-three's only table), A goes round the seats; in a
    duplicate duel each deal is played once with A in each seat, whole sets only."""
    a, b = make_bots(store, 2, game="gin-three")
    made = duels.create(
        store, PLATFORM, a="bot0", b="bot1", game="gin-three", elo1=50, seed=3, batch=7,
        duplicate=True, dispatch=lambda t, n: None,
    )  # fmt: skip
    queued = sorted(
        store.list_matches(tournament_id=made.tournament, state="queued"), key=lambda m: m.id
    )
    assert [(m.duplicate_set, m.rotation, m.seats) for m in queued] == [
        (0, 0, (a, b, b)),
        (0, 1, (b, a, b)),
        (0, 2, (b, b, a)),
        (1, 0, (a, b, b)),
        (1, 1, (b, a, b)),
        (1, 2, (b, b, a)),
    ]  # a batch of 7 holds two whole sets
    assert len({m.seed for m in queued[:3]}) == 1 and queued[0].seed != queued[3].seed
    assert duels.status(store, PLATFORM, made.tournament)["seats"] == 3


def test_at_a_table_of_three_a_scores_its_mean_against_bs_seats(store: Store) -> None:
    """A game's score is A's pairwise score against B's seats (ratings, decision 9): first
    of three scores 1, second ½, last 0, a tie for first ¾; a duplicate set of three games
    is one outcome, its mean, counted once the set is done."""
    settings = duel.Settings(1, 2, 0, 50, 0.05, 0.05, True, 6, 600, 0, seats=3)

    def game(match: int, dup: int, place: int, ranks: tuple[int, ...]) -> TableResult:
        versions = [1 if s == place else 2 for s in range(3)]
        seats = tuple(
            SeatResultRow(v, r, 0, "ok", False) for v, r in zip(versions, ranks, strict=True)
        )
        return TableResult(match, dup, seats)

    results = [
        game(1, 0, 0, (0, 1, 2)),  # A first: 1
        game(2, 0, 1, (0, 1, 2)),  # A second: 1/2
        game(3, 1, 0, (0, 0, 1)),  # A level with one B, above the other: 3/4
        game(4, 0, 2, (0, 0, 1)),  # A last: 0; the first set is done, mean 1/2
    ]
    test = duel.run_test(settings, results)
    sprt = test.sprt
    assert sprt.opponents == 2 and sprt.games == 3 and sprt.outcomes == 1
    assert sprt.scores[sprt.counts.index(1)] == 0.5
    plain = duel.Settings(1, 2, 0, 50, 0.05, 0.05, False, 6, 600, 0, seats=3)
    sprt = duel.run_test(plain, results).sprt
    assert [sprt.scores[i] for i, c in enumerate(sprt.counts) for _ in range(c)] == [
        0.0, 0.5, 0.75, 1.0,
    ]  # fmt: skip
