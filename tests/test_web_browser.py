"""The web viewer in a real browser (Playwright driving Debian's Chromium): pages render,
a replay of each game steps with the keys and shows the engine's hands, and a seat's
view puts no hidden card of another seat in the page (docs/viewer.md)."""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from arena.web.app import create_app
from referee.cards import Card
from referee.games import game_names, get_game
from referee.wire import decode_record
from tests.knowledge import NEW_HAND, Knowledge
from tests.test_web import CARD, SEATS, World, build, engine_at, hand_of
from worker.store import Store

pytest_plugins = ["tests.store_fixtures"]

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed: the browser tests did not run (apt-get install -y chromium)",
)


@pytest.fixture
def world(store: Store) -> World:
    return build(store)


@pytest.fixture
def server(world: World) -> Iterator[str]:
    """The viewer served over HTTP on a free port, in a thread of this process."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(world.store), host="127.0.0.1", port=port, log_level="error")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


@pytest.fixture
def page(server: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser.new_page(viewport={"width": 1300, "height": 1000})
        finally:
            browser.close()


def shot(page: Any, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


def wait_step(page: Any, step: int) -> None:
    page.wait_for_selector(f"#replay[data-shown='{step}']", timeout=10_000)


def shown_hands(page: Any) -> dict[int, list[str]]:
    """The cards drawn in each seat's hand (hidden hands: the known cards only)."""
    out = {}
    for box in page.query_selector_all("#table .seat"):
        seat = int(box.get_attribute("data-seat"))
        out[seat] = [c.get_attribute("data-card") for c in box.query_selector_all(".hand .card")]
    return out


def test_leaderboard_and_tournament_pages(
    world: World, server: str, page: Any, tmp_path: Path
) -> None:
    page.goto(f"{server}/leaderboard/hollywood-gin")
    assert "hollywood-gin-bot-0@v1" in page.inner_text("#leaderboard")
    shot(page, tmp_path, "leaderboard")
    page.goto(f"{server}/tournaments/{world.tournament}")
    assert "web cup" in page.inner_text("h1")
    assert page.query_selector_all("td.heat[style*='hsl']")
    shot(page, tmp_path, "tournament")


@pytest.mark.parametrize("game", game_names())
def test_replay_steps_show_the_engine_state(
    world: World, server: str, page: Any, tmp_path: Path, game: str
) -> None:
    match_id = world.matches[game]
    page.goto(f"{server}/matches/{match_id}")
    wait_step(page, 0)
    for step in range(1, 6):
        page.keyboard.press("ArrowRight")
        wait_step(page, step)
    page.keyboard.press("ArrowLeft")
    wait_step(page, 4)
    assert page.url.endswith("step=4")
    state = engine_at(world, match_id, 4)
    hands = shown_hands(page)
    for s in range(SEATS[game]):
        if hand_of(state.view(s)):
            assert hands[s] == hand_of(state.view(s)), (game, s)
    record = decode_record(world.store.record(match_id))
    assert record.actions[4].text in page.inner_text("#decision")
    shot(page, tmp_path, f"replay-{game}")
    steps = len(record.actions)
    page.goto(f"{server}/matches/{match_id}?step={steps}")
    wait_step(page, steps)
    assert "The match is over" in page.inner_text("#decision")


@pytest.mark.parametrize("game", ["hollywood-gin", "rummy-500", "gin-three", "flip-flop"])
def test_seat_view_page_holds_no_hidden_card(
    world: World, server: str, page: Any, tmp_path: Path, game: str
) -> None:
    match_id = world.matches[game]
    record = decode_record(world.store.record(match_id))
    n, seat = len(record.seats), 1
    state = get_game(game).new_match(record.seed, seats=n, options=dict(record.options))
    model = Knowledge(range(n))
    model.follow(state)
    page.goto(f"{server}/matches/{match_id}")
    wait_step(page, 0)
    page.keyboard.press(str(seat))  # the key to seat 1's view
    page.wait_for_url(re.compile(rf"seat={seat}"))
    wait_step(page, 0)
    for step in range(0, 12):
        if step:
            page.keyboard.press("ArrowRight")
            wait_step(page, step)
            state.apply_checked(record.actions[step - 1].text)
            model.follow(state)
        told = {str(Card(c)) for c in model[seat].seen}
        hidden = set().union(*(set(hand_of(state.view(t))) for t in range(n) if t != seat))
        hidden -= told
        # the page less the summary of earlier hands (#previous: cards since dealt again)
        # and the events before this step's new deal, if any
        events = page.inner_text("#events").splitlines()
        starts = [i for i, line in enumerate(events) if NEW_HAND.search(line)]
        text = "\n".join(
            [page.inner_text(s) for s in ("#table", "#decision", "#moves", ".meta")]
            + events[starts[-1] if starts else 0 :]
        )
        shown = set(CARD.findall(text))
        shown |= {
            c.get_attribute("data-card")
            for c in page.query_selector_all("#table [data-card], #decision [data-card]")
        }
        assert not shown & hidden, (game, step, sorted(shown & hidden))
        assert hand_of(state.view(seat)) == shown_hands(page)[seat] or not hand_of(state.view(seat))
    shot(page, tmp_path, f"seat-view-{game}")
