"""The replay's kept engine states (``arena.app.replay.Checkpoints``) against the plain
re-run from the deal: every frame made from a kept state, for every game, at every step
and seat, in any order and from several threads at once, equals the frame replayed from
the start; and the bound on replay work done at once (docs/performance.md, "The web
app")."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.app import replay
from arena.bench.web import add_bots, store_played_match
from arena.web import app as web_app
from arena.web.app import create_app
from referee.games import game_names
from tests.test_web import OPTIONS, SEATS, SEEDS, World, build
from worker.store import Store

pytest_plugins = ["tests.store_fixtures"]


class Plain:
    """What :func:`replay.checkpoints` gives, made by the plain re-run from the deal."""

    def __init__(self, record: Any) -> None:
        self.record = record

    def state_at(self, step: int) -> Any:
        return replay.state_at(self.record, step)


@pytest.fixture
def world(store: Store, monkeypatch: pytest.MonkeyPatch) -> World:
    # a kept state every few steps: the matches have dozens of them
    monkeypatch.setattr(replay, "CHECKPOINT_STEPS", 7)
    replay._CHECKPOINTS.clear()
    return build(store)


def plain_frame(stored: replay.StoredMatch, step: int, seat: int | None) -> dict[str, Any]:
    original = replay.checkpoints
    replay.checkpoints = lambda s: Plain(s.record)  # type: ignore[assignment,return-value]
    try:
        return replay.frame(stored, step, seat)
    finally:
        replay.checkpoints = original


@pytest.mark.parametrize("game", game_names())
def test_kept_states_give_the_frames_of_the_plain_replay(world: World, game: str) -> None:
    stored = replay.load(world.store, world.matches[game])
    steps = len(stored.record.actions)
    order = list(range(steps + 1))
    random.Random(game).shuffle(order)  # kept states are made out of order
    seats: list[int | None] = [None, *range(SEATS[game])]
    for step in order:
        for seat in seats:
            assert replay.frame(stored, step, seat) == plain_frame(stored, step, seat), (
                game,
                step,
                seat,
            )
    kept = replay.checkpoints(stored)
    assert len(kept.states) == 1 + (steps - 1) // 7


def test_kept_states_are_shared_by_threads(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "CHECKPOINT_STEPS", 16)
    replay._CHECKPOINTS.clear()
    game = "rummy-500"
    versions = add_bots(store, game, SEATS[game])
    match = store_played_match(
        store, game, versions, seed=SEEDS[game], options={**OPTIONS[game], "max_hands": 6}
    )
    stored = replay.load(store, match)
    steps = len(stored.record.actions)
    assert steps > 300
    wanted = [random.Random(i).randrange(steps + 1) for i in range(400)]
    expected = {step: plain_frame(stored, step, None) for step in set(wanted)}
    with ThreadPoolExecutor(8) as pool:
        frames = list(pool.map(lambda step: replay.frame(stored, step, None), wanted))
    for step, got in zip(wanted, frames, strict=True):
        assert got == expected[step], step
    # the deal's state was never changed by the frames made from it
    assert replay.frame(stored, 0, 1) == plain_frame(stored, 0, 1)


def test_replay_work_is_refused_when_no_slot_frees(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_app, "REPLAY_WAIT_S", 0.05)
    app = create_app(world.store)
    slots = app.state.viewer.replay_slots
    match = world.matches["hollywood-gin"]
    with TestClient(app) as client:
        taken = 0
        while slots.acquire(blocking=False):  # every slot busy
            taken += 1
        assert taken == web_app.REPLAY_SLOTS
        for url in (f"/api/matches/{match}/steps/1", f"/api/matches/{match}", f"/matches/{match}"):
            busy = client.get(url)
            assert busy.status_code == 503 and busy.headers["Retry-After"] == "1", url
        assert client.get(f"/api/matches/{match}/export").json()["error"] == "busy"
        assert client.get("/matches").status_code == 200  # a listing re-runs nothing
        slots.release()
        assert client.get(f"/api/matches/{match}/steps/1").status_code == 200
        for _ in range(taken - 1):
            slots.release()
