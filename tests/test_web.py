"""The web viewer and the terminal replay (docs/viewer.md): every page on a real database,
replay frames checked against the engine re-run here, seat views checked against the other
seats' hands (docs/architecture.md, decision 13; C9), the duplicate-deal hold-back, and
missing and corrupt matches."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.app.replay import frame, load, to_json
from arena.bench.web import add_bots, store_played_match
from arena.cli import main
from arena.web import app as web_app
from arena.web.app import create_app
from referee.cards import Card
from referee.engine import GameState
from referee.games import game_names, get_game
from referee.wire import decode_record
from tests.knowledge import NEW_HAND, Knowledge
from tests.store_fixtures import finished_match
from worker.duel import Settings as DuelSettings
from worker.ratings import ELO_PER_NAT, INITIAL_RATING
from worker.sprt import Sprt
from worker.store import ScheduledMatch, Store

pytest_plugins = ["tests.store_fixtures"]

CARD = re.compile(r"(?<![A-Za-z0-9=])(?:JK=)?([A2-9TJQK][CDHS])(?![A-Za-z0-9])")
#: Seats, options and seed of each game's match (a few hundred actions at most).
SEATS = {"hollywood-gin": 2, "gin-three": 3, "rummy-500": 4, "flip-flop": 4}
OPTIONS: dict[str, dict[str, Any]] = {
    "hollywood-gin": {"max_hands": 2},
    "gin-three": {"max_hands": 2},
    "rummy-500": {"max_hands": 2},
    "flip-flop": {"max_rounds": 3},
}
SEEDS = {"hollywood-gin": 11, "gin-three": 11, "rummy-500": 11, "flip-flop": 15}


@dataclass
class World:
    """Stored matches of every game, a tournament and its bots."""

    store: Store
    matches: dict[str, int] = field(default_factory=dict)
    versions: dict[str, list[int]] = field(default_factory=dict)
    tournament: int = 0


def build(store: Store) -> World:
    world = World(store)
    for game in game_names():
        versions = add_bots(store, game, SEATS[game], prefix=f"{game}-bot")
        world.versions[game] = versions
        world.matches[game] = store_played_match(
            store, game, versions, seed=SEEDS[game], options=OPTIONS[game]
        )
    hg = world.versions["hollywood-gin"]
    world.tournament = store.create_tournament("web cup", "hollywood-gin", hg)
    for i in range(3):
        seats = hg if i % 2 == 0 else hg[::-1]
        store_played_match(
            store,
            "hollywood-gin",
            seats,
            seed=20 + i,
            tournament_id=world.tournament,
            options={"max_hands": 2},
        )
    return world


@pytest.fixture
def world(store: Store) -> World:
    return build(store)


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:
    with TestClient(create_app(world.store)) as c:
        yield c


def engine_at(world: World, match_id: int, step: int) -> GameState:
    """The match re-run here from its record's game, options, seed and action texts."""
    record = decode_record(world.store.record(match_id))
    state = get_game(record.game).new_match(
        record.seed, seats=len(record.seats), options=dict(record.options)
    )
    for entry in record.actions[:step]:
        assert state.to_act() == entry.seat
        state.apply_checked(entry.text)
    return state


def hand_of(view: Any) -> list[str]:
    """The cards in the hand of the seat whose view this is (none for a sitter)."""
    hand = view.hand
    if hand is None:
        return []
    cards = hand if isinstance(hand, tuple) else hand.hand
    return [str(c) for c in cards]


# -- pages ---------------------------------------------------------------------------------


def test_every_page_answers_with_its_content(world: World, client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "web cup" in page.text
    for game in game_names():
        page = client.get(f"/leaderboard/{game}")
        assert page.status_code == 200, game
        bot = f"{game}-bot-0@v1"
        assert bot in page.text and 'id="leaderboard"' in page.text
    page = client.get("/tournaments")
    assert page.status_code == 200 and "web cup" in page.text
    page = client.get(f"/tournaments/{world.tournament}")
    assert page.status_code == 200
    assert "3 done" in page.text and "batch (95%)" in page.text
    assert "background:hsl(" in page.text  # the cross-table's heat map
    page = client.get("/bots")
    assert page.status_code == 200 and "rummy-500-bot-3" in page.text
    page = client.get("/bots/hollywood-gin-bot-0")
    assert page.status_code == 200
    assert "<polyline" in page.text and "Elo updates" in page.text
    assert "Health of hollywood-gin-bot-0@v1" in page.text and "ok 4" in page.text
    page = client.get("/matches")
    assert page.status_code == 200
    assert all(f'href="/matches/{m}"' in page.text for m in world.matches.values())
    page = client.get("/matches", params={"game": "flip-flop"})
    ids = set(re.findall(r'href="/matches/(\d+)"', page.text))
    assert ids == {str(world.matches["flip-flop"])}
    page = client.get("/matches", params={"bot": "gin-three-bot-1"})
    assert set(re.findall(r'href="/matches/(\d+)"', page.text)) == {str(world.matches["gin-three"])}
    page = client.get("/matches", params={"tournament": world.tournament})
    assert len(set(re.findall(r'href="/matches/(\d+)"', page.text))) == 3
    page = client.get("/matches", params={"state": "done"})  # every stored match is done
    assert all(f'href="/matches/{m}"' in page.text for m in world.matches.values())
    page = client.get("/matches", params={"state": "failed"})
    assert not re.findall(r'href="/matches/(\d+)"', page.text)
    for game, match_id in world.matches.items():
        page = client.get(f"/matches/{match_id}")
        assert page.status_code == 200, game
        assert 'id="replay"' in page.text and "/static/replay.js" in page.text
        assert 'id="hand-jump"' in page.text and "the deal (step 0)" in page.text  # any hand
        assert f"{game}-bot-0@v1" in page.text
    assert client.get("/static/replay.js").status_code == 200
    assert client.get("/static/arena.css").status_code == 200


def test_every_page_links_the_favicon_and_favicon_ico_leads_to_it(client: TestClient) -> None:
    page = client.get("/")
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page.text
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.lstrip().startswith("<svg")
    moved = client.get("/favicon.ico", follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == "/static/favicon.svg"
    assert client.get("/favicon.ico").content == icon.content


def test_leaderboard_shows_a_ladder_rating_with_its_interval(
    world: World, client: TestClient
) -> None:
    store = world.store
    ladder = store.start_ladder("hollywood-gin", "hollywood-gin", {"table_size": 2})
    for v in world.versions["hollywood-gin"]:
        store.join_ladder(ladder.id, v)
    page = client.get("/leaderboard/hollywood-gin")
    assert page.status_code == 200
    assert "Ladder <strong>hollywood-gin</strong>" in page.text and "95%" in page.text


def cells_of(page: str, table_id: str) -> list[list[str]]:
    """The text of each body row's cells of the table with id ``table_id``."""
    body = page.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0].split("<tbody>", 1)[1]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
        for r in rows
    ]


def decided(store: Store, seats: list[int], ranks: tuple[int, ...], tid: int | None = None) -> int:
    """A finished, rated Hollywood Gin match of ``seats`` with the given ranks (no actions)."""
    match = store.create_match("hollywood-gin", seats, seed=1, tournament_id=tid)
    assert store.claim_match("t", match_id=match.id) is not None
    scores = [100 if r == 0 else 0 for r in ranks]
    assert store.finish_match(match.id, "t", finished_match("hollywood-gin", ranks, scores))
    return match.id


def test_leaderboard_trend_is_the_elo_change_over_the_last_rated_matches(
    world: World, client: TestClient
) -> None:
    store = world.store
    hg = world.versions["hollywood-gin"]
    for i in range(12):  # bot 0 wins three in four: 16 rated matches in all
        decided(store, hg, (0, 1) if i % 4 != 3 else (1, 0))
    page = client.get("/leaderboard/hollywood-gin").text
    rows = {row[1]: row for row in cells_of(page, "leaderboard")}
    arrows = []
    for v in hg:
        history = store.rating_history("hollywood-gin", v)
        assert len(history) == 16
        change = round(history[-1][3] - history[-10][2])
        assert change != round(history[-1][3] - history[0][2])  # the window is ten matches
        arrow = "▲" if change > 0 else "▼" if change < 0 else "▶"
        arrows.append(arrow)
        label = store.labels([v])[v]
        assert rows[label][3] == f"{arrow} {change:+d}", rows[label]
        # a shorter window looks back over the newest updates only
        last_two = history[-2:]
        assert store.rating_trends("hollywood-gin", 2)[v] == pytest.approx(
            (last_two[-1][3] - last_two[0][2], 2)
        )
    assert arrows == ["▲", "▼"]
    assert "trend" in client.get("/leaderboard/flip-flop").text


def test_tournament_shows_how_likely_each_bot_is_stronger_than_each_other(
    world: World, client: TestClient
) -> None:
    store = world.store
    hg = world.versions["hollywood-gin"]
    for i in range(5):
        decided(store, hg, (0, 1) if i else (1, 0), world.tournament)
    page = client.get(f"/tournaments/{world.tournament}").text
    fit = store.bradley_terry_fit(tournament_id=world.tournament)
    # the fit is the standings' own: the same strengths on the Elo scale
    standings = {s.player: s.rating for s in store.standings(tournament_id=world.tournament)}
    index = {p: i for i, p in enumerate(fit.players)}
    for player, rating in standings.items():
        assert rating == pytest.approx(INITIAL_RATING + ELO_PER_NAT * fit.strength[index[player]])
    labels = store.labels(list(fit.players))
    rows = {row[1]: row[2:] for row in cells_of(page, "likelihoods")}
    order = [re.sub(r"<[^>]+>", "", r[1]) for r in cells_of(page, "standings")]
    by_label = {labels[p]: p for p in fit.players}
    assert set(rows) == set(by_label) and len(order) == 2
    for a_label, cells in rows.items():
        for b_label, text in zip(order, cells, strict=True):
            if a_label == b_label:
                assert text == "·"
                continue
            i, j = index[by_label[a_label]], index[by_label[b_label]]
            diff = float(fit.strength[i] - fit.strength[j])
            expected = NormalDist().cdf(diff / fit.difference_sd(i, j))
            assert text == f"{expected:.2f}", (a_label, b_label)
    a, b = order
    assert float(rows[a][1]) + float(rows[b][0]) == pytest.approx(1.0, abs=0.011)
    assert a == "hollywood-gin-bot-0@v1" and 0.5 < float(rows[a][1]) < 1.0
    assert "stronger than" in page and page.count("background:hsl(") >= 4


def test_tournament_progress_counts_failed_and_cancelled_matches_as_finished(
    world: World, client: TestClient
) -> None:
    store = world.store
    tid = world.tournament  # three done
    hg = world.versions["hollywood-gin"]
    queued = store.schedule_matches(
        tid, "hollywood-gin", {}, [ScheduledMatch(tuple(hg), 40 + i) for i in range(3)]
    )
    assert store.cancel_match(queued[0])
    assert store.claim_match("t", match_id=queued[1]) is not None
    assert store.fail_match(queued[1], "t", "the referee is gone", retry=False) == "failed"

    def bar(page: str) -> dict[str, float]:
        cells = re.findall(r'class="bar bar-(\w+)" style="width:([\d.]+)%"', page)
        return {state: float(width) for state, width in cells}

    page = client.get(f"/tournaments/{tid}").text
    assert bar(page) == pytest.approx({"done": 50.0, "failed": 100 / 6, "cancelled": 100 / 6})
    assert "5 of 6 matches finished: 3 done, 1 failed, 1 cancelled; 0 running, 1 queued" in page
    assert store.cancel_match(queued[2])  # the last one: the bar is full
    page = client.get(f"/tournaments/{tid}").text
    assert sum(bar(page).values()) == pytest.approx(100.0)
    assert "6 of 6 matches finished" in page
    listing = client.get("/tournaments").text
    assert "<th>cancelled</th>" in listing


def duel(store: Store, a: int, b: int, *, duplicate: bool = False) -> int:
    """A duel of A against B as ``arena duel --elo0 0 --elo1 50`` makes it: a tournament
    of format duel with its settings and its test's starting state."""
    return store.create_tournament(
        "duel",
        "hollywood-gin",
        [a, b],
        format="duel",
        options={
            "options": {"max_hands": 1},
            "clock": {},
            "seed": 7,
            "sprt": Sprt(0.0, 50.0, pentanomial=duplicate).as_dict(),
        },
        duplicate=duplicate,
    )


def test_duel_page_shows_its_settings_and_its_sprt_verdict(
    world: World, client: TestClient
) -> None:
    store = world.store
    a, b = world.versions["hollywood-gin"]
    labels = store.labels([a, b])
    tid = duel(store, a, b)
    page = client.get(f"/tournaments/{tid}").text
    assert "{&#39;" not in page and "{'" not in page  # no Python dict printed
    settings = re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page)
    secret = ("seed", "kept secret until the tournament ends (its deals come from it)")
    assert settings == [("game options", "max_hands=1"), ("clock", "the defaults"), secret]
    assert "H0: A is at most +0 Elo stronger; H1: A is at least +50 Elo stronger" in page
    assert "<strong>Still running</strong>" in page
    expected = Sprt(0.0, 50.0)
    decided_at = None
    for i in range(30):  # A wins every match, the seats alternating
        seats, ranks = ([a, b], (0, 1)) if i % 2 == 0 else ([b, a], (1, 0))
        decided(store, seats, ranks, tid)
        expected.add_game(1.0)
        if decided_at is None and expected.status() == "H1":
            decided_at = expected.games
    assert decided_at is not None and decided_at < 30
    page = client.get(f"/tournaments/{tid}").text
    assert (
        f"<strong>H1 accepted</strong>: {labels[a]} is stronger than {labels[b]} by at least"
        f" 50 Elo (decided after {decided_at} games)" in page
    )
    lower, upper = expected.bounds()
    assert (
        f"LLR {expected.llr():+.2f} in [{lower:.2f}, {upper:.2f}] over 30 games"
        " (A lost 0, drew 0, won 30)" in page
    )
    # a duel that ended undecided says so
    other = duel(store, a, b)
    decided(store, [a, b], (0, 0), other)
    store.set_tournament_state(other, "done")
    page = client.get(f"/tournaments/{other}").text
    assert "<strong>No verdict</strong>" in page and "A lost 0, drew 1, won 0" in page
    assert ("seed", "7") in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page)  # it has ended
    # a tournament that is no duel has no test
    assert 'id="duel"' not in client.get(f"/tournaments/{world.tournament}").text


def test_duplicate_duel_counts_a_pair_once_both_its_games_are_done(
    world: World, client: TestClient
) -> None:
    store = world.store
    a, b = world.versions["hollywood-gin"]
    tid = duel(store, a, b, duplicate=True)
    for deal, games in ((1, 2), (2, 1)):  # the second deal's second game is still queued
        for rotation in range(2):
            seats = [a, b] if rotation == 0 else [b, a]
            match = store.create_match(
                "hollywood-gin",
                seats,
                seed=deal,
                tournament_id=tid,
                duplicate_set=deal,
                rotation=rotation,
            )
            if rotation < games:
                assert store.claim_match("t", match_id=match.id) is not None
                ranks = (0, 1) if rotation == 0 else (1, 0)
                finish = finished_match(
                    "hollywood-gin", ranks, [100 if r == 0 else 0 for r in ranks]
                )
                assert store.finish_match(match.id, "t", finish)
    page = client.get(f"/tournaments/{tid}").text
    expected = Sprt(0.0, 50.0, pentanomial=True)
    expected.add_pair(1.0, 1.0)
    assert f"LLR {expected.llr():+.2f}" in page and expected.llr() > 0
    assert "over 2 games (1 pair, A LL 0, LD 0, DD/WL 0, WD 0, WW 1)" in page
    assert "each deal played twice with the seats swapped" in page


def test_a_bots_chart_draws_its_newest_elo_updates_and_says_how_many_it_has(
    world: World, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.app import pages

    monkeypatch.setattr(pages, "CHART_UPDATES", 2)
    page = client.get("/bots/hollywood-gin-bot-0").text
    caption = re.search(r"(\d+) Elo updates \(the newest 2 drawn\)", page)
    assert caption is not None and int(caption[1]) > 2
    drawn = re.search(r'<polyline points="([^"]*)"', page)
    assert drawn is not None and len(drawn[1].split()) == 3  # the rating before, two after


def test_bot_page_counts_faults_and_decision_time_percentiles(
    world: World, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = world.store
    version = world.versions["hollywood-gin"][0]
    played = store.recent_matches(version, limit=200)
    assert len(played) == 4
    timed_out, crashed = played[0], played[1]
    with store.pool.connection() as conn:
        for m, status in ((timed_out, "timeout"), (crashed, "crashed")):
            conn.execute(
                "UPDATE match_seats SET status = %s WHERE match_id = %s AND seat = %s",
                (status, m.match_id, m.seat),
            )
    page = client.get("/bots/hollywood-gin-bot-0").text
    assert cells_of(page, "health") == [["1", "0", "1", "0"]]
    assert (
        "<th>timeouts</th><th>illegal actions</th><th>crashes</th><th>disconnections</th>" in page
    )

    def expected(matches: list[Any]) -> list[str]:
        times = sorted(
            a.think_us
            for m in matches
            for a in decode_record(store.record(m.match_id)).actions
            if a.seat == m.seat and a.source not in ("forced", "forfeited")
        )
        ranks = [times[math.ceil(q * len(times)) - 1] for q in (0.5, 0.9, 0.99)]
        return [str(len(times)), str(len(matches))] + [f"{t / 1000:.1f} ms" for t in ranks]

    assert cells_of(page, "decision-times") == [expected(played)]
    monkeypatch.setattr(web_app, "DECISION_MATCHES", 2)  # only the newest two are read
    page = client.get("/bots/hollywood-gin-bot-0").text
    assert cells_of(page, "decision-times") == [expected(played[:2])]


# -- replay frames against the engine ------------------------------------------------------


@pytest.mark.parametrize("game", game_names())
def test_replay_frames_match_the_engine(world: World, client: TestClient, game: str) -> None:
    match_id = world.matches[game]
    summary = client.get(f"/api/matches/{match_id}").json()
    steps = summary["steps"]
    assert steps > 5 and len(summary["moves"]) == steps
    record = decode_record(world.store.record(match_id))
    for step in sorted({0, 1, 2, steps // 3, steps // 2, steps - 1, steps}):
        data = client.get(f"/api/matches/{match_id}/steps/{step}").json()
        state = engine_at(world, match_id, step)
        assert data["step"] == step and data["to_act"] == state.to_act()
        for s, seat in enumerate(data["table"]["seats"]):
            view = state.view(s)
            if seat["hand"] is not None:
                assert seat["hand"] == hand_of(view), (game, step, s)
            elif state.to_act() is not None and game != "gin-three":
                pytest.fail(f"{game} step {step}: the all-seeing view lacks seat {s}'s hand")
        if step < steps:
            entry = record.actions[step]
            decision = data["decision"]
            assert decision["seat"] == entry.seat and decision["action"] == entry.text
            assert decision["legal"] == [str(a) for a in state.legal_actions()]
            assert decision["legal"][decision["chosen"]] == entry.text
            assert decision["think_ms"] == round(entry.think_us / 1000, 3)
        else:
            assert data["decision"] is None and state.to_act() is None
        for s in range(SEATS[game]):
            seat_data = client.get(f"/api/matches/{match_id}/steps/{step}?seat={s}").json()
            assert seat_data["view"] == to_json(state.view(s))
            if step < steps and record.actions[step].seat != s:
                assert "legal" not in seat_data["decision"]


def test_hollywood_score_sheet_has_three_columns(world: World, client: TestClient) -> None:
    match_id = world.matches["hollywood-gin"]
    steps = client.get(f"/api/matches/{match_id}").json()["steps"]
    table = client.get(f"/api/matches/{match_id}/steps/{steps}").json()["table"]
    assert table["scores"]["head"][1:4] == ["column 1", "column 2", "column 3"]
    state = engine_at(world, match_id, steps)
    columns = state.view(0).columns
    assert [int(c.split()[0]) for c in table["scores"]["rows"][0][1:4]] == [
        col.points[0] for col in columns
    ]


def course_totals(game: str, view: Any) -> list[dict[str, int]]:
    """What the course of a match charts, read here from a seat's view of the engine."""
    if game == "hollywood-gin":
        return [{f"seat {s}": x for s, x in enumerate(col.points)} for col in view.columns]
    if game == "flip-flop":
        return [
            {f"seat {p.seat}": p.bankroll for p in view.players},
            dict(zip(("game", "flip", "flop"), view.pots, strict=True)),
        ]
    return [{f"seat {s}": x for s, x in enumerate(view.scores)}]


@pytest.mark.parametrize("game", game_names())
def test_replay_charts_the_course_hand_by_hand(world: World, client: TestClient, game: str) -> None:
    match_id = world.matches[game]
    summary = client.get(f"/api/matches/{match_id}").json()
    course = summary["course"]
    points = course["points"]
    assert points[0] == {"step": 0, "label": "deal"} and points[-1]["step"] == summary["steps"]
    unit = "round" if game == "flip-flop" else "hand"
    assert [p["label"] for p in points[1:]] == [f"{unit} {k}" for k in range(1, len(points))]
    end = engine_at(world, match_id, summary["steps"])
    view = end.view(0)
    hands = {"flip-flop": "round", "rummy-500": "hands_played"}.get(game, "hand_number")
    assert len(points) - 1 == getattr(view, hands)
    for k, point in enumerate(points):
        totals = course_totals(game, engine_at(world, match_id, point["step"]).view(0))
        charted = [
            {series["name"]: series["values"][k] for series in panel["series"]}
            for panel in course["panels"]
        ]
        assert charted == totals, (game, point)
    assert client.get(f"/api/matches/{match_id}?seat=0").json()["course"] == course
    page = client.get(f"/matches/{match_id}?step=5").text
    assert 'id="course"' in page
    assert page.count('class="series series-') == sum(len(p["series"]) for p in course["panels"])
    cursor = 5 / summary["steps"] * 320
    assert f'class="now" x1="{cursor:.1f}"' in page
    assert 'id="play"' in page and "space: play/pause" in page
    assert re.findall(r'<option value="([\d.]+)"', page.split('id="speed"')[1]) == [
        "0.5",
        "1",
        "2",
        "4",
    ]


def test_course_lines_of_equal_totals_lie_apart_and_each_is_named_at_its_end(
    world: World, client: TestClient
) -> None:
    for game, match_id in world.matches.items():
        page = client.get(f"/matches/{match_id}").text
        course = page.split('id="course"', 1)[1].split("</section>", 1)[0]
        for figure in course.split("<figure")[1:]:
            names = re.findall(r"■ ([^<]+)</span>", figure)
            lines = re.findall(r'<polyline points="([^"]+)" class="series series-\d+"', figure)
            assert len(lines) == len(names) >= 2, game
            ys = [[float(p.split(",")[1]) for p in line.split()] for line in lines]
            for k, at_point in enumerate(zip(*ys, strict=True)):
                assert len(set(at_point)) == len(at_point), (game, names, k)  # none hidden
            labels = re.findall(
                r'<text x="[\d.]+" y="([\d.]+)" class="end-label series-\d+">([^<]+)</text>',
                figure,
            )
            assert [name for _, name in labels] == names, game
            heights = sorted(float(y) for y, _ in labels)
            assert heights[0] >= 0 and heights[-1] <= 100, (game, heights)
            assert all(
                b - a >= web_app.COURSE_LABEL_GAP - 0.11 for a, b in itertools.pairwise(heights)
            )
    page = client.get(f"/matches/{world.matches['flip-flop']}").text
    pots = page.split("<figcaption>pots", 1)[1].split("</figure>", 1)[0]
    assert re.findall(r'class="end-label series-\d+">([^<]+)<', pots) == ["game", "flip", "flop"]


# -- seat views keep other seats' cards hidden ---------------------------------------------


def frame_cards(data: dict[str, Any]) -> set[str]:
    """Card codes in a seat frame, leaving out the summary of earlier hands (cards that
    may since have been dealt again) and the events before this step's new deal."""
    table = dict(data["table"], previous=[])
    view = {k: v for k, v in data.get("view", {}).items() if k not in ("last_hand", "last_round")}
    events = data["events"]
    starts = [i for i, e in enumerate(events) if NEW_HAND.search(e["text"])]
    if starts:
        events = events[starts[-1] :]
    text = json.dumps([table, view, events, data["decision"]])
    return set(CARD.findall(text))


@pytest.mark.parametrize("game", game_names())
def test_seat_view_holds_no_hidden_card_of_another_seat(world: World, game: str) -> None:
    match_id = world.matches[game]
    stored = load(world.store, match_id)
    record = stored.record
    n = len(record.seats)
    state = get_game(game).new_match(record.seed, seats=n, options=dict(record.options))
    model = Knowledge(range(n))
    model.follow(state)
    checked = 0
    for step in range(len(record.actions) + 1):
        if step:
            state.apply_checked(record.actions[step - 1].text)
            model.follow(state)
        if step % 3 and step != len(record.actions):
            continue
        hands = {s: set(hand_of(state.view(s))) for s in range(n)}
        for seat in range(n):
            told = {str(Card(c)) for c in model[seat].seen}
            hidden = set().union(*(hands[t] for t in range(n) if t != seat)) - told
            shown = frame_cards(frame(stored, step, seat))
            assert not shown & hidden, (game, step, seat, sorted(shown & hidden))
            checked += 1
    assert checked > 10


def test_seat_page_names_no_action_beyond_its_step(world: World, client: TestClient) -> None:
    match_id = world.matches["rummy-500"]
    record = decode_record(world.store.record(match_id))
    page = client.get(f"/matches/{match_id}?seat=1").text
    assert "Seat 1&#39;s view" in page or "Seat 1's view" in page
    # the move list names who acted; even seat 1's own later actions would name cards
    # it had not drawn yet, so no action text is on the page (each step's frame has it)
    for entry in record.actions[:60]:
        assert f"seat {entry.seat}: {entry.text}</a>" not in page
    full = client.get(f"/matches/{match_id}").text
    assert f"seat {record.actions[0].seat}: {record.actions[0].text}</a>" in full


# -- privacy and failures ------------------------------------------------------------------


def test_duplicate_deal_is_held_back_until_its_set_finishes(
    world: World,
    client: TestClient,
    store_db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = world.store
    hg = world.versions["hollywood-gin"]
    tid = store.create_tournament("dup", "hollywood-gin", hg, duplicate=True)
    done = store_played_match(
        store,
        "hollywood-gin",
        hg,
        seed=987654321,
        tournament_id=tid,
        duplicate_set=1,
        rotation=0,
        options={"max_hands": 1},
    )
    store.schedule_matches(
        tid, "hollywood-gin", {"max_hands": 1}, [ScheduledMatch(tuple(hg[::-1]), 987654321, 1, 1)]
    )
    page = client.get(f"/matches/{done}")
    assert page.status_code == 403
    assert "held back" in page.text and "duplicate deal" in page.text
    assert "Traceback" not in page.text and 'id="replay"' not in page.text
    api = client.get(f"/api/matches/{done}/steps/0")
    assert api.status_code == 403 and api.json()["error"] == "held"
    monkeypatch.setenv("ARENA_DATABASE_URL", store_db_url)
    for argv in (["replay", str(done)], ["export", str(done)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "held back" in err and len(err.strip().splitlines()) == 1
    other = next(m for m in store.list_matches(tournament_id=tid) if m.id != done)
    claimed = store.claim_match("t", match_id=other.id)
    assert claimed is not None
    page = client.get(f"/matches/{other.id}", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].endswith("/live")
    live = client.get(f"/matches/{other.id}/live")
    assert live.status_code == 200 and "Only public information" in live.text
    assert "987654321" not in live.text
    monkeypatch.setattr(web_app, "LIVE_WAIT_S", 0.5)
    events = client.get(f"/matches/{other.id}/live/events").text  # no worker: it says so
    assert "event: unavailable" in events


def test_missing_and_corrupt_matches_give_clear_pages(world: World, client: TestClient) -> None:
    page = client.get("/matches/999999")
    assert page.status_code == 404 and "there is no match 999999" in page.text
    assert client.get("/api/matches/999999/steps/0").json()["error"] == "missing"
    assert client.get("/nowhere").status_code == 404
    assert client.get("/bots/nobody").status_code == 404
    assert client.get("/tournaments/4242").status_code == 404
    bad_bytes, bad_actions = world.matches["flip-flop"], world.matches["gin-three"]
    with world.store.pool.connection() as conn:
        conn.execute(
            "UPDATE match_records SET record = 'garbage'::bytea, record_sha256 ="
            " sha256('garbage'::bytea) WHERE match_id = %s",
            (bad_bytes,),
        )
        conn.execute(
            "UPDATE match_records SET record = overlay(record placing '\\x00'::bytea from 3)"
            " WHERE match_id = %s",
            (bad_actions,),
        )
    for match_id in (bad_bytes, bad_actions):
        page = client.get(f"/matches/{match_id}")
        assert page.status_code == 422, match_id
        assert "cannot be read" in page.text and "Traceback" not in page.text
        assert client.get(f"/api/matches/{match_id}/steps/0").status_code == 422
    assert client.get("/matches").status_code == 200  # a listing never reads records


# -- the terminal --------------------------------------------------------------------------


def test_replay_and_export_commands(
    world: World,
    store_db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", store_db_url)
    match_id = world.matches["hollywood-gin"]
    record = decode_record(world.store.record(match_id))
    assert main(["replay", str(match_id)]) == 0
    out = capsys.readouterr().out
    assert f"match {match_id}: hollywood-gin" in out
    assert f"seat 0 {'hollywood-gin-bot-0@v1'}" in out
    assert (
        f"{len(record.actions):>4}. seat {record.actions[-1].seat}: {record.actions[-1].text}"
        in out
    )
    assert "the match is over" in out
    assert main(["replay", str(match_id), "--seat", "1"]) == 0
    out = capsys.readouterr().out
    state = engine_at(world, match_id, 0)
    assert "seat 0 holds " + " ".join(hand_of(state.view(0))) not in out
    assert main(["export", str(match_id)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "rummy-arena-match/1"
    assert data["game"] == "hollywood-gin" and data["seed"] == record.seed
    assert [a["text"] for a in data["actions"]] == [a.text for a in record.actions]
    assert {"seat", "text", "think_us", "source"} <= set(data["actions"][0])
    assert data["seats"][0]["bot"] == "hollywood-gin-bot-0@v1"
    assert data["result"]["scores"] == list(record.result.scores)  # type: ignore[union-attr]
    assert main(["export", "999999"]) == 2
    assert "there is no match 999999" in capsys.readouterr().err


def test_every_bot_page_says_loudly_when_hosted_bots_run_unconfined(
    client: TestClient,
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/sandbox.md: a platform whose workers host bots with ``ARENA_SANDBOX=off``
    says so on every bot's page, in the API and in ``arena bot show``; a confined one
    does not."""
    from arena.app import reads
    from arena.app.actors import Actor, ActorKind
    from arena.commands.bot import UNCONFINED, print_bot

    anyone = Actor(ActorKind.ANONYMOUS, None)
    confined = client.get("/bots/hollywood-gin-bot-0").text
    assert "run unconfined" not in confined
    assert reads.bot(world.store, anyone, "hollywood-gin-bot-0")["sandbox"] == "on"
    monkeypatch.setenv("ARENA_SANDBOX", "off")
    for name in ("hollywood-gin-bot-0", "rummy-500-bot-3"):
        page = client.get(f"/bots/{name}").text
        assert "Hosted bots run unconfined here." in page and "ARENA_SANDBOX=off" in page
    shown = reads.bot(world.store, anyone, "hollywood-gin-bot-0")
    assert shown["sandbox"] == "off"
    capsys.readouterr()
    print_bot(shown, json_out=False)
    assert UNCONFINED in capsys.readouterr().out


def duel_settings(a: int, b: int, *, seats: int, duplicate: bool) -> DuelSettings:
    """A duel's settings as ``arena duel --elo0 0 --elo1 50`` makes them."""
    return DuelSettings(a, b, 0.0, 50.0, 0.05, 0.05, duplicate, seed=7, seats=seats)


def test_a_duel_at_a_table_of_three_names_its_outcomes_by_score(
    world: World, client: TestClient
) -> None:
    """A duplicate duel in Gin for three (A in one seat, B in the two others): the page
    says so, counts a set of three games once all are done, and names each outcome by
    A's mean score (its mean against B's seats)."""
    store = world.store
    a, b = world.versions["gin-three"][:2]
    settings = duel_settings(a, b, seats=3, duplicate=True)
    tid = store.create_tournament(
        "duel", "gin-three", [a, b], format="duel", duplicate=True,
        options={"options": {"max_hands": 1}, "clock": {}, **settings.as_options()},
    )  # fmt: skip
    for place in range(3):  # one deal with A in each seat: A first, second, last
        seats = [a if s == place else b for s in range(3)]
        others = iter(r for r in range(3) if r != place)  # A's rank is ``place``
        ranks = tuple(place if s == place else next(others) for s in range(3))
        match = store.create_match(
            "gin-three", seats, seed=1, tournament_id=tid, duplicate_set=0, rotation=place
        )
        assert store.claim_match("t", match_id=match.id) is not None
        finish = finished_match("gin-three", ranks, [30 - 10 * r for r in ranks])
        assert store.finish_match(match.id, "t", finish)
    page = client.get(f"/tournaments/{tid}").text
    assert "A in one of 3 seats and B in the others" in page
    assert "each deal played once with A in each seat, a set counted as one outcome" in page
    expected = settings.sprt()
    expected.add_set([1.0, 0.5, 0.0])
    assert f"LLR {expected.llr():+.2f}" in page
    assert "over 3 games (1 set, A score 0 0, score 1/12 0," in page
    assert "score 1/2 1, score 7/12 0" in page  # the set's mean: first, second, last
