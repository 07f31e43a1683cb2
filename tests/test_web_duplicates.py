"""Duplicate deals (docs/architecture.md, decisions 8 and 13) in everything a spectator
sees: while a match of a deal is queued or running, the other matches of the deal show
nothing of the cards or the results: no live events, no replay or record, no score in a
list, no share of the standings (docs/viewer.md, docs/tournaments.md). Two siblings played
at once by real workers with slow bots, and the pages over a set with one match finished."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.bench.web import add_bots, store_played_match
from arena.web.app import create_app
from tests.platform_support import EXAMPLES, PLATFORM_BOTS, PlatformEnv
from tests.store_fixtures import finished_match
from tests.test_web_live import use_platform
from worker import broker, tasks
from worker.app import configure
from worker.store import ScheduledMatch, Store

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

SEED = 424242


def duplicate_pair(env: PlatformEnv, options: dict[str, Any]) -> tuple[int, list[int]]:
    """A duplicate tournament of a slow bot and a random one: one deal, both rotations."""
    slow = env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", "hollywood-gin")
    rnd = env.submit(EXAMPLES / "random_bot.py", "random", "hollywood-gin")
    tid = env.store.create_tournament("dup live", "hollywood-gin", [slow, rnd], duplicate=True)
    ids = env.store.schedule_matches(
        tid,
        "hollywood-gin",
        options,
        [ScheduledMatch((slow, rnd), SEED, 0, 0), ScheduledMatch((rnd, slow), SEED, 0, 1)],
    )
    return tid, ids


def test_two_siblings_running_at_once_show_nothing_live(
    platform_env: PlatformEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = platform_env
    redis_url = use_platform(env, monkeypatch)
    tid, ids = duplicate_pair(env, {"max_hands": 3})
    env.start_worker(concurrency=1)
    env.start_worker(concurrency=1)
    configure(redis_url, env.env[broker.REDIS_PREFIX_ENV])

    def both_live() -> bool:
        return all(env.store.live_location(i) is not None for i in ids)

    with TestClient(create_app(env.store)) as web:
        for i in ids:
            tasks.play_match.delay(i)
        env.wait_for(both_live, 90, "both siblings to run at once")
        seen_running = 0

        def running() -> bool:
            return all((m := env.store.match(j)) is not None and m.state == "running" for j in ids)

        for i in ids:
            before = running()
            stream = web.get(f"/matches/{i}/live/events")
            page = web.get(f"/matches/{i}/live")
            listing = web.get("/matches", params={"tournament": tid}).text
            if before and running():  # both ran the whole time
                seen_running += 1
                assert stream.status_code == 403, stream.text[:500]
                assert "event:" not in stream.text and "held back" in stream.text
                assert page.status_code == 403 and "held back" in page.text
                assert "duplicate deal" in page.text
                assert f"/matches/{i}/live" not in listing
                assert f'href="/matches/{i}"' not in listing
        assert seen_running, "the siblings did not run at the same time"
        env.wait_for(
            lambda: all((m := env.store.match(i)) is not None and m.state == "done" for i in ids),
            120,
            "both siblings to finish\n" + env.worker_log(),
        )
        for i in ids:  # the whole set has finished: everything opens
            assert web.get(f"/matches/{i}").status_code == 200
            assert web.get(f"/api/matches/{i}/steps/1").status_code == 200
            events = web.get(f"/matches/{i}/live/events").text  # ended: it says so at once
            assert 'event: end\ndata: {"state": "done"}' in events
        listing = web.get("/matches", params={"tournament": tid}).text
        assert all(f'href="/matches/{i}"' in listing for i in ids)


def test_a_stream_stops_when_a_sibling_is_queued_again(
    platform_env: PlatformEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = platform_env
    redis_url = use_platform(env, monkeypatch)
    tid, (first, second) = duplicate_pair(env, {"max_hands": 4})
    # the second match failed for good: the first is the only one left to play
    assert env.store.claim_match("t", match_id=second) is not None
    assert env.store.fail_match(second, "t", "gone", retry=False) == "failed"
    env.start_worker(concurrency=1)
    configure(redis_url, env.env[broker.REDIS_PREFIX_ENV])
    tasks.play_match.delay(first)
    env.wait_for(lambda: env.store.live_location(first) is not None, 90, "the match to run")
    streamed: list[str] = []
    with TestClient(create_app(env.store)) as web:
        follow = threading.Thread(
            target=lambda: streamed.append(web.get(f"/matches/{first}/live/events").text)
        )
        follow.start()
        time.sleep(2.0)  # it streams for a while
        assert env.store.retry_failed(tid) == [second]  # the deal is being played again
        follow.join(60)
        assert not follow.is_alive()
    (text,) = streamed
    assert "event: held" in text, text[-1000:]
    after = text.split("event: held", 1)[1]
    assert "event: event" not in after and "event: end" not in after
    # the worker still plays it; its events stopped at the hold
    m = env.store.match(first)
    assert m is not None and m.state == "running"
    assert text.count("event: event") < 400


def test_pages_show_no_result_of_a_set_still_being_played(store: Store) -> None:
    a, b = add_bots(store, "hollywood-gin", 2, prefix="dup")
    tid = store.create_tournament("dup pages", "hollywood-gin", [a, b], duplicate=True)
    options = {"max_hands": 1}
    alone = store_played_match(store, "hollywood-gin", [a, b], seed=5, tournament_id=tid)
    held = store_played_match(
        store,
        "hollywood-gin",
        [a, b],
        seed=SEED,
        tournament_id=tid,
        duplicate_set=3,
        rotation=0,
        options=options,
    )
    (sibling,) = store.schedule_matches(
        tid, "hollywood-gin", options, [ScheduledMatch((b, a), SEED, 3, 1)]
    )
    with TestClient(create_app(store)) as web:
        listing = web.get("/matches", params={"tournament": tid}).text
        assert f'href="/matches/{alone}"' in listing
        assert f'href="/matches/{held}"' not in listing and "held back" in listing
        front = web.get("/").text
        assert f'href="/matches/{held}"' not in front
        bot = web.get("/bots/dup-0").text
        rows = re.findall(r"<tr[^>]*>(.*?)</tr>", bot.split("Recent matches", 1)[1], re.S)
        row = next(r for r in rows if f"<td>{held}</td>" in r)
        # no rank, score or status: one cell says why
        assert "held back" in row and row.count("<td") == 6, row
        shown = next(r for r in rows if f">{alone}</a></td>" in r)
        assert shown.count("<td") == 8
        page = web.get(f"/tournaments/{tid}").text
        assert "1 finished match is not counted yet" in page
        standings = page.split('id="standings"', 1)[1].split("</table>", 1)[0]
        # each bot played two finished matches; only the one of no duplicate set counts
        assert re.findall(r"</a></td>\s*<td>(\d+)</td>", standings) == ["1", "1"]
        for url in (f"/api/matches/{held}", f"/api/matches/{held}/export"):
            assert web.get(url).status_code == 403
        # the deal's last match finishes: the held one opens
        assert store.claim_match("t", match_id=sibling) is not None
        assert store.finish_match(sibling, "t", finished_match("hollywood-gin", (0, 1), (9, 0)))
        listing = web.get("/matches", params={"tournament": tid}).text
        assert f'href="/matches/{held}"' in listing and "held back" not in listing
        page = web.get(f"/tournaments/{tid}").text
        assert "not counted yet" not in page
        standings = page.split('id="standings"', 1)[1].split("</table>", 1)[0]
        assert re.findall(r"</a></td>\s*<td>(\d+)</td>", standings) == ["3", "3"]
        assert web.get(f"/api/matches/{held}").status_code == 200
