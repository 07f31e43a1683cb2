"""The web viewer in a real browser (Playwright driving Debian's Chromium): pages render,
a replay of each game steps with the keys and shows the engine's hands, a seat's view
puts no hidden card of another seat in the page, and the live view of a match that a
real worker plays shows its public events as they come and nothing hidden
(docs/viewer.md)."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.app.replay import load, summary
from arena.web.app import create_app
from referee.cards import Card
from referee.engine import Event
from referee.games import game_names, get_game
from referee.wire import decode_record
from tests.knowledge import NEW_HAND, Knowledge
from tests.platform_support import EXAMPLES, PLATFORM_BOTS, PlatformEnv
from tests.test_web import CARD, SEATS, World, build, engine_at, hand_of
from tests.test_web_inputs import served as served_on_port
from worker import broker, db, tasks
from worker.app import configure
from worker.store import Store

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed: the browser tests did not run (apt-get install -y chromium)",
)


@pytest.fixture
def world(store: Store) -> World:
    return build(store)


@contextlib.contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` served as ``arena web`` serves it, on a free port in a thread of this
    process: its address."""
    with served_on_port(app) as port:
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def chromium_page() -> Iterator[Any]:
    """A page of a headless Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser.new_page(viewport={"width": 1300, "height": 1000})
        finally:
            browser.close()


@pytest.fixture
def server(world: World) -> Iterator[str]:
    """The viewer over the test's world."""
    with served(create_app(world.store)) as url:
        yield url


@pytest.fixture
def page(server: str) -> Iterator[Any]:
    with chromium_page() as p:
        yield p


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


def test_play_at_the_last_step_starts_over(world: World, server: str, page: Any) -> None:
    match_id = world.matches["hollywood-gin"]
    steps = len(decode_record(world.store.record(match_id)).actions)
    assert steps > 20
    page.goto(f"{server}/matches/{match_id}?step={steps}")
    wait_step(page, steps)
    page.select_option("#speed", "4")
    page.click("#play")
    shown = "Number(document.getElementById('replay').dataset.shown)"
    page.wait_for_function(  # back to the deal, and stepping on from it
        f"(n => n >= 2 && n < {steps - 3})({shown})", timeout=10_000
    )
    assert page.get_attribute("#replay", "data-playing") == "true"
    page.keyboard.press(" ")  # space pauses
    page.wait_for_selector("#replay[data-playing='false']", timeout=5_000)


def seats_to_act(page: Any) -> list[int]:
    """The seats the table marks as the one whose turn it is."""
    return [
        int(box.get_attribute("data-seat"))
        for box in page.query_selector_all("#table .seat.to-act")
    ]


def test_replay_marks_the_seat_to_act(world: World, server: str, page: Any) -> None:
    for game, match_id in world.matches.items():
        page.goto(f"{server}/matches/{match_id}")
        wait_step(page, 0)
        state = engine_at(world, match_id, 0)
        for step in range(8):
            if step:
                page.keyboard.press("ArrowRight")
                wait_step(page, step)
                state = engine_at(world, match_id, step)
            to_act = state.to_act()
            assert to_act is not None
            assert seats_to_act(page) == [to_act], (game, step)
            acting = page.inner_text(f"#table .seat[data-seat='{to_act}'] .seat-name")
            assert "to act" in acting, (game, step)
        page.keyboard.press("End")  # the match is over: nobody is to act
        wait_step(page, len(decode_record(world.store.record(match_id)).actions))
        assert seats_to_act(page) == [], game


def in_view(page: Any, selector: str, within: str | None = None) -> bool:
    """Whether some of ``selector``'s box shows in the window (or in ``within``'s box)."""
    return bool(
        page.evaluate(
            """([selector, within]) => {
              const r = document.querySelector(selector).getBoundingClientRect();
              const box = within
                ? document.querySelector(within).getBoundingClientRect()
                : { top: 0, bottom: window.innerHeight };
              return r.bottom > box.top && r.top < box.bottom;
            }""",
            [selector, within],
        )
    )


def test_a_link_to_a_step_opens_with_the_table_in_view(
    world: World, server: str, page: Any
) -> None:
    match_id = world.matches["hollywood-gin"]
    steps = len(decode_record(world.store.record(match_id)).actions)
    late = steps - 10
    page.goto(f"{server}/matches/{match_id}?step={late}")
    wait_step(page, late)
    assert page.evaluate("window.scrollY") == 0
    assert in_view(page, "#table") and in_view(page, "#table .seat")
    # the move list shows the step in its own box, which scrolled, not the page
    assert page.evaluate("document.getElementById('moves').scrollTop") > 0
    assert in_view(page, "#moves li.current", within="#moves")
    for step in range(late + 1, late + 4):
        page.keyboard.press("ArrowRight")
        wait_step(page, step)
        assert page.evaluate("window.scrollY") == 0, step
        assert in_view(page, "#moves li.current", within="#moves"), step
    page.keyboard.press("Home")
    wait_step(page, 0)
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("document.getElementById('moves').scrollTop") == 0


def test_score_sheets_fit_the_sidebar(world: World, server: str, page: Any) -> None:
    fits = """() => {
      const aside = document.querySelector("aside");
      const section = document.getElementById("scores");
      const sheet = section.querySelector("table");
      const doc = document.documentElement;
      return {
        sheet: sheet.getBoundingClientRect().right <= section.getBoundingClientRect().right,
        scroll: section.scrollWidth <= section.clientWidth,
        aside: aside.scrollWidth <= aside.clientWidth,
        page: doc.scrollWidth <= doc.clientWidth,
      };
    }"""
    for game, match_id in world.matches.items():
        steps = len(decode_record(world.store.record(match_id)).actions)
        for step in (5, steps):  # early in the match, and its final scores
            page.goto(f"{server}/matches/{match_id}?step={step}")
            wait_step(page, step)
            page.wait_for_selector("#scores table")
            assert page.evaluate(fits) == dict.fromkeys(
                ("sheet", "scroll", "aside", "page"), True
            ), (
                game,
                step,
            )


#: The WCAG contrast ratio of an element's text against what lies behind it: its own
#: background, or its ancestors' blended in where they are see-through.
CONTRAST = """(el) => {
  const rgba = (c) => {
    const m = c.match(/[\\d.]+/g).map(Number);
    return m.length === 3 ? [...m, 1] : m;
  };
  const over = (top, under) => {  // colour top laid over colour under
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  let back = [0, 0, 0, 0];
  for (let node = el; node && back[3] < 1; node = node.parentElement) {
    back = over(back, rgba(getComputedStyle(node).backgroundColor));
  }
  back = over(back, [255, 255, 255, 1]);
  const ink = over(rgba(getComputedStyle(el).color), back);
  const linear = (v) => (v <= 0.03928 * 255 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const lum = (c) => 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);
  const [hi, lo] = [lum(ink), lum(back)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""


def test_card_codes_on_the_felt_are_readable(world: World, server: str, page: Any) -> None:
    match_id = world.matches["flip-flop"]
    page.goto(f"{server}/matches/{match_id}?step=7")  # its flip card, a club, on the table
    wait_step(page, 7)
    codes = page.query_selector_all("#table .code")
    suits = {code.get_attribute("class").split()[1] for code in codes}
    assert "clubs" in suits
    for code in codes:
        ratio = code.evaluate(CONTRAST)
        assert ratio >= 4.5, (code.inner_text(), code.get_attribute("class"), ratio)


def test_go_to_list_follows_the_replay(world: World, server: str, page: Any) -> None:
    match_id = world.matches["hollywood-gin"]
    points = [p["step"] for p in summary(load(world.store, match_id))["course"]["points"]]
    assert len(points) >= 3
    page.goto(f"{server}/matches/{match_id}")
    wait_step(page, 0)
    assert page.input_value("#hand-jump") == "0"
    inside = points[1] + 2  # in the second hand
    page.goto(f"{server}/matches/{match_id}?step={inside}")
    wait_step(page, inside)
    assert page.input_value("#hand-jump") == str(points[1])
    page.keyboard.press("End")
    wait_step(page, points[-1])
    assert page.input_value("#hand-jump") == str(points[-1])
    page.select_option("#hand-jump", str(points[1]))
    wait_step(page, points[1])
    page.keyboard.press("ArrowLeft")  # back into the first hand
    wait_step(page, points[1] - 1)
    assert page.input_value("#hand-jump") == "0"


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


#: The seed of the live match: a number that would stand out in the page.
LIVE_SEED = 7_301_948_265_113


@dataclasses.dataclass
class LiveSnapshot:
    """The live page at one moment: the events it lists and the cards it names."""

    events: list[str]
    cards: set[str]
    phase: str
    ended: str | None


def live_snapshot(page: Any) -> LiveSnapshot:
    """What the live page shows now, read at one instant (it grows as events come); its
    cards are those of the whole page less the events of the hands before the current one
    (their cards may have been dealt again since)."""
    seen = page.evaluate(
        """(newHand) => {
          const doc = document.documentElement.cloneNode(true);
          const items = [...doc.querySelectorAll("#live-events li")];
          const events = items.map((li) => li.textContent);
          const starts = events.flatMap((text, i) => (new RegExp(newHand).test(text) ? [i] : []));
          const current = starts.length ? starts[starts.length - 1] : 0;
          items.slice(0, current).forEach((li) => li.remove());
          const phase = doc.querySelector("#live-phase").textContent;
          const ended = doc.querySelector("#live").dataset.ended;
          return {events, html: doc.outerHTML, phase, ended};
        }""",
        NEW_HAND.pattern,
    )
    cards = set(CARD.findall(seen["html"]))
    return LiveSnapshot(seen["events"], cards, seen["phase"], seen.get("ended"))


def hidden_after_public_events(events: list[Event], seats: int) -> list[set[str]]:
    """For each count k of public events a watcher has seen, every card then lying in a
    seat's hand that the public events have not placed there: from the engine's whole
    event log (private events included) through the knowledge model, not from a view."""
    watcher = -1  # a seat no private event is shown to
    model = Knowledge([watcher])
    hidden: list[set[str]] = [set()]
    for event in events:
        model.feed([event])
        if event.visible_to is None:
            hidden.append(set())
        for seat in range(seats):
            known = model[watcher].hand(seat)
            held = model.truth.get(seat, Counter())
            hidden[-1] |= {str(Card(c)) for c, n in held.items() if n > known[c]}
    return hidden


def test_live_view_follows_a_running_match_and_shows_nothing_hidden(
    platform_env: PlatformEnv, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env = platform_env
    slow = env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", "hollywood-gin")
    rnd = env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    options = {"max_hands": 3}
    match = env.store.create_match("hollywood-gin", [slow, rnd], options=options, seed=LIVE_SEED)
    # the app finds the match's referee in its row (written by the worker under its claim)
    # and watches it with that match's watch credential, made from the platform secret of
    # the test's ARENA_HOME, as the worker it starts uses
    for name in (db.DATABASE_URL_ENV, broker.REDIS_URL_ENV, broker.REDIS_PREFIX_ENV, "ARENA_HOME"):
        monkeypatch.setenv(name, env.env[name])
    redis_url = env.env[broker.REDIS_URL_ENV]
    env.start_worker(concurrency=1)
    configure(redis_url, env.env[broker.REDIS_PREFIX_ENV])
    tasks.play_match.delay(match.id)
    snapshots: list[LiveSnapshot] = []
    while_running: list[int] = []  # events listed while the store still had it running
    with served(create_app(env.store, redis_url=redis_url)) as url, chromium_page() as page:
        page.goto(f"{url}/matches/{match.id}/live")
        deadline = time.monotonic() + 120
        while (snap := live_snapshot(page)).ended is None:
            assert time.monotonic() < deadline, "the live page did not end\n" + env.worker_log()
            assert str(LIVE_SEED) not in page.content()
            # before its first event the match may be queued or already claimed (running)
            assert snap.phase in (("running",) if snap.events else ("queued", "running")), snap
            snapshots.append(snap)
            now = env.store.match(match.id)
            if now is not None and now.state == "running":
                while_running.append(len(snap.events))
            if len(snapshots) == 20:
                shot(page, tmp_path, "live")
            time.sleep(0.25)
        assert snap.ended == "done", (snap.ended, env.worker_log())
        assert "The match has ended" in page.inner_text("#live-state")
        assert page.inner_text("#live-phase") == "done"
        snapshots.append(snap)
        shot(page, tmp_path, "live-ended")
        page.click("#replay-link")
        wait_step(page, 0)  # the replay, with the seed and the hands, once it has ended
        assert str(LIVE_SEED) in page.content()
    done = env.store.match(match.id)
    assert done is not None and done.state == "done"
    record = decode_record(env.store.record(match.id))
    state = get_game("hollywood-gin").new_match(LIVE_SEED, seats=2, options=options)
    for action in record.actions:
        state.apply_checked(action.text)
    public = [str(e) for e in state.events if e.visible_to is None]
    hidden = hidden_after_public_events(list(state.events), seats=2)
    counts = [len(s.events) for s in snapshots]
    assert counts == sorted(counts), "the list of events only grows"
    growing = {c for c in while_running if 0 < c < len(public)}
    assert len(growing) >= 3, f"few updates seen while it ran: {while_running}"
    for snap in snapshots:
        k = len(snap.events)
        assert snap.events == public[:k], "the page lists the public events, in order"
        assert not snap.cards & hidden[k], (k, sorted(snap.cards & hidden[k]))
    assert len(set().union(*(hidden[k] for k in counts))) > 20, "hidden hands were checked"
    assert len(snapshots[-1].events) == len(public)
