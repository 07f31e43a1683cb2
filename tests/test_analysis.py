"""Where did my bot lose? (``arena.app.analysis``, ``arena analyse``): the reference bot
weighs every decision of one seat of a finished match, from that seat's knowledge only
(C9); the analysis is kept in the store and made once, for the seat's owner or an
operator, and read by anyone who may read the match."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.app import analysis
from arena.app.actors import ANONYMOUS, Actor, ActorKind
from arena.app.errors import Forbidden
from bots.examples import search_bot
from referee.cards import parse_cards
from referee.engine import GameState
from referee.games import get_game
from referee.record import (
    ActionEntry,
    MatchRecord,
    SeatEntry,
    deal_json,
    new_state,
    options_dict,
)
from referee.scenario import deal
from referee.wire import encode_record
from tests.store_fixtures import make_bots
from worker.store import FinishedMatch, Store

pytest_plugins = ["tests.store_fixtures"]

ROOT = Path(__file__).resolve().parent.parent
ONE_HAND = {"max_hands": 1}


def record_of(
    state: GameState, actions: list[str], seed: int, spec: dict | None = None
) -> MatchRecord:
    """The record of ``actions`` played on ``state`` (a new match of seed ``seed``, or of
    the chosen deal ``spec``)."""
    entries = []
    for text in actions:
        seat = state.to_act()
        action = state.parse_action(text)
        entries.append(ActionEntry(seat, text, index=state.legal_actions().index(action)))
        state.apply(action)
    return MatchRecord(
        game=state.game,
        options=options_dict(state.options),
        seed=seed,
        seats=tuple(SeatEntry(f"seat-{i}") for i in range(state.num_seats)),
        actions=tuple(entries),
        result=state.result(),
        deal=deal_json(spec) if spec is not None else "",
    )


def heuristic_match(seed: int) -> MatchRecord:
    """A one-hand Hollywood Gin match between two heuristic bots."""
    state = get_game("hollywood-gin").new_match(seed, options=ONE_HAND)
    actions = []
    while (seat := state.to_act()) is not None:
        text = search_bot.heuristic(state.view(seat))
        actions.append(text)
        state.apply(state.parse_action(text))
    return record_of(get_game("hollywood-gin").new_match(seed, options=ONE_HAND), actions, seed)


def test_every_decision_of_the_seat_and_no_other_is_weighed() -> None:
    record = heuristic_match(3)
    for seat in (0, 1):
        steps = [step for step, *_ in analysis.decisions(record, seat)]
        assert steps == [k for k, a in enumerate(record.actions) if a.seat == seat]
    made = analysis.walk(record, 0, 1, seed="x")
    assert [d["step"] for d in made["decisions"]] == steps_of(record, 0)
    for d in made["decisions"]:
        assert d["played"] == record.actions[d["step"]].text
        if not d["forced"]:
            assert d["loss"] == round(d["best_value"] - d["played_value"], 2) >= 0
    assert sum(d["flagged"] for d in made["decisions"]) <= analysis.FLAGGED


def steps_of(record: MatchRecord, seat: int) -> list[int]:
    return [k for k, a in enumerate(record.actions) if a.seat == seat]


# Seat 0 deals (its decisions: the upcard, then a draw and a discard in each of four
# turns); seat 1 holds HIDDEN_A or HIDDEN_B, the other lying deep in the stock where
# no one draws it: seat 0 never sees either. Both draw from the stock and discard the
# card drawn, the same cards in both deals.
MINE = "AC 3C 5C 7C 9C JC KC 2D 4D 6D"
HIDDEN_A = "AH 3H 5H 7H 9H JH KH 2S 4S 6S"
HIDDEN_B = "AS 3S 5S 7S 9S JS KS 2H 4H 6H"
DRAWN = ["QD", "TD", "8C", "6C", "4C", "2C", "QH", "TH"]


def knowledge_record(theirs: str, deep: str) -> MatchRecord:
    spec = {
        "dealer": 0,
        "hands": [MINE, theirs],
        "upcard": "8D",
        "stock": [*DRAWN, *deep.split()],
    }
    actions = ["pass", "pass"]
    for card in DRAWN:
        actions += ["draw stock", f"discard {card}"]
    state = deal("hollywood-gin", spec, options=ONE_HAND, seed=5)
    return record_of(state, actions, 5, spec)


def test_c9_the_analysis_of_a_seat_is_made_from_that_seats_knowledge_only() -> None:
    a = knowledge_record(HIDDEN_A, HIDDEN_B)
    b = knowledge_record(HIDDEN_B, HIDDEN_A)
    hands = [new_state(r).view(1).hand.hand for r in (a, b)]  # the hidden hands do differ
    assert set(hands[0]) == set(parse_cards(HIDDEN_A)) != set(hands[1])
    made_a = analysis.walk(a, 0, 0, seed="same")
    made_b = analysis.walk(b, 0, 0, seed="same")
    assert len(made_a["decisions"]) == 9 and not all(d["forced"] for d in made_a["decisions"])
    assert made_a == made_b
    # seat 1's own analysis sees its own hand, which differs
    assert analysis.walk(a, 1, 0, seed="same") != analysis.walk(b, 1, 0, seed="same")


class Counting:
    """The reference bot's evaluation, counted."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args, **kwargs) -> list[search_bot.ActionValue]:
        self.calls += 1
        return search_bot.evaluate(*args, **kwargs)


def stored_match(store: Store, seed: int) -> tuple[int, list[int]]:
    """A finished one-hand Hollywood Gin match in the store, its bots owned by ``tester``."""
    versions = make_bots(store, 2)
    match = store.create_match("hollywood-gin", versions, seed=seed, options=ONE_HAND)
    assert store.claim_match("t", match_id=match.id) is not None
    finished = FinishedMatch(record=encode_record(heuristic_match(seed)))
    assert store.finish_match(match.id, "t", finished)
    return match.id, versions


def test_an_analysis_is_made_once_for_the_owner_and_read_by_anyone(store: Store) -> None:
    match_id, _ = stored_match(store, 11)
    outsider = Actor(ActorKind.OWNER, "mallory")
    with pytest.raises(Forbidden, match="belongs to tester"):
        analysis.analyse(store, outsider, match_id, 0, 1)
    assert analysis.analysis(store, ANONYMOUS, match_id, 0) is None
    counting = Counting()
    owner = Actor(ActorKind.OWNER, "tester")
    made = analysis.analyse(store, owner, match_id, 0, 1, evaluate=counting)
    weighed = sum(not d["forced"] for d in made["decisions"])
    assert counting.calls == weighed > 0
    # kept: read back, not made again, whoever asks
    again = analysis.analyse(store, outsider, match_id, 0, 1, evaluate=counting)
    assert counting.calls == weighed
    assert again == made == analysis.analysis(store, ANONYMOUS, match_id, 0)
    assert made["bot"].startswith("bot0") and made["match"] == match_id


def test_arena_analyse_prints_the_table_and_the_json(store: Store, store_db_url: str) -> None:
    match_id, _ = stored_match(store, 12)
    env = {**os.environ, "ARENA_DATABASE_URL": store_db_url}
    env.pop("ARENA_API_KEY", None)

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", "analyse", str(match_id), *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )

    shown = arena("--seat", "1", "--budget-ms", "2", "--json")
    assert shown.returncode == 0, shown.stderr
    made = json.loads(shown.stdout)
    assert made["seat"] == 1 and made["budget_ms"] == 2 and made["decisions"]
    table = arena("--seat", "1")
    assert table.returncode == 0, table.stderr
    assert f"match {match_id}, seat 1" in table.stdout and "reference bot" in table.stdout
    bad = arena("--seat", "5")
    assert bad.returncode == 2
    assert "has seats 0–1, not 5" in bad.stderr


def test_an_analysis_is_reproducible_from_its_seed() -> None:
    record = heuristic_match(4)
    assert analysis.walk(record, 1, 0, seed="s") == analysis.walk(record, 1, 0, seed="s")


def test_the_replay_page_shows_a_seats_analysis_and_its_owner_can_ask_for_one(
    store: Store,
) -> None:
    from starlette.testclient import TestClient

    from arena.site import create_site

    match_id, _ = stored_match(store, 13)  # its bots belong to "tester"
    tester = store.create_key("tester").text
    store.create_user("mallory")
    mallory = store.create_key("mallory").text
    page = f"/matches/{match_id}?seat=0"
    with TestClient(create_site(store)) as web:
        assert 'id="analysis"' not in web.get(page).text
        assert "Analyse seat 0" not in web.get(page).text  # not signed in: not offered
        assert web.post(f"/matches/{match_id}/analyse?seat=0").status_code == 403
        web.post("/signin", data={"key": mallory})
        assert "Analyse seat 0" not in web.get(page).text  # not her bot
        assert web.post(f"/matches/{match_id}/analyse?seat=0").status_code == 403
        assert store.analysis(match_id, 0) is None
    with TestClient(create_site(store)) as web:
        web.post("/signin", data={"key": tester})
        assert "Analyse seat 0" in web.get(page).text
        done = web.post(f"/matches/{match_id}/analyse?seat=0", follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == page
    kept = store.analysis(match_id, 0)
    assert kept is not None
    with TestClient(create_site(store)) as web:  # anyone may read it once made
        shown = web.get(f"{page}&step={kept['decisions'][0]['step']}").text
        assert 'id="analysis"' in shown and "Where seat 0 lost" in shown
        for d in kept["decisions"]:
            assert f'id="analysis-step-{d["step"]}"' in shown
        assert 'class="current' in shown
        assert 'id="analysis"' not in web.get(f"/matches/{match_id}?seat=1").text
