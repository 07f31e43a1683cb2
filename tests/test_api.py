"""The HTTP API (docs/api.md): every cell of who may do what through ``/api/v1`` — allowed
does it, refused gets 401 (no key, a bad key) or 403 (a key that may not) as JSON with a
stable code, and changes nothing; errors name the field; lists are paged; writes are
rate-limited per user with 429 and Retry-After; the OpenAPI description is served."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.app.limits import WINDOW
from arena.app.matches import HELD
from arena.app.packaging import package
from arena.bench.web import add_bots, store_played_match
from arena.site import create_site
from worker import archive as archives
from worker import qualify
from worker.archive import Member
from worker.store import PLATFORM_USER, ScheduledMatch, Store

pytest_plugins = ["tests.store_fixtures"]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"
GAME = "hollywood-gin"
API = "/api/v1"


@pytest.fixture
def api(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The site over an emptied store (users and keys too, but the platform's user)."""
    with store.pool.connection() as conn:
        conn.execute("DELETE FROM users WHERE name <> %s", (PLATFORM_USER,))
    for name in ("ARENA_SUBMISSIONS_PER_HOUR", "ARENA_TOURNAMENTS_PER_HOUR"):
        monkeypatch.delenv(name, raising=False)
    # a new version is qualified at once, here (the platform's workers do it)
    with TestClient(create_site(store, qualify=lambda v: qualify.run(store, v))) as client:
        yield client


def user(store: Store, name: str, operator: bool = False) -> dict[str, str]:
    """The headers of a new user's key."""
    store.create_user(name, operator=operator)
    return {"authorization": f"Bearer {store.create_key(name).text}"}


def submission(file: str = "random_bot.py") -> dict[str, Any]:
    bot = package(EXAMPLES / file)
    return {"game": GAME, "command": bot.command, "archive": base64.b64encode(bot.archive).decode()}


def refused(reply: Any, status: int, code: str, *words: str) -> dict[str, Any]:
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert error["code"] == code
    for word in words:
        assert word in error["message"], error["message"]
    return dict(error)


def versions(store: Store, name: str) -> list[str]:
    bot = store.bot_by_name(name)
    return [] if bot is None else [v.version.label for v in store.bot_versions(bot.id)]


def test_anyone_reads_without_a_key_and_may_not_write(api: TestClient, store: Store) -> None:
    ann = user(store, "ann")
    assert api.post(f"{API}/bots/anns/versions", json=submission(), headers=ann).status_code == 201
    assert api.get(f"{API}/me").json() == {"kind": "anonymous", "name": None}
    assert [b["name"] for b in api.get(f"{API}/bots").json()["items"]] == ["anns"]
    assert api.get(f"{API}/bots/anns").json()["owner"] == "ann"
    assert api.get(f"{API}/tournaments").json()["items"] == []
    reply = api.post(f"{API}/bots/mine/versions", json=submission())
    refused(reply, 401, "unauthorized", "needs an API key", "Authorization: Bearer KEY")
    assert reply.headers["www-authenticate"] == "Bearer"
    refused(api.post(f"{API}/bots/anns/retire"), 401, "unauthorized")
    body = {"game": GAME, "bots": ["anns", "anns"]}
    refused(api.post(f"{API}/tournaments", json=body), 401, "unauthorized")
    duel = {"a": "anns", "b": "anns", "game": GAME}
    refused(api.post(f"{API}/duels", json=duel), 401, "unauthorized")
    refused(api.get(f"{API}/users"), 401, "unauthorized")
    refused(api.post(f"{API}/keys", json={}), 401, "unauthorized")
    assert store.bot_by_name("mine") is None and versions(store, "anns") == ["anns@v1"]
    anns = store.bot_by_name("anns")
    assert anns is not None and anns.retired_at is None


def test_a_bad_key_is_refused_with_401_and_says_what_to_do(api: TestClient, store: Store) -> None:
    ann = user(store, "ann")
    prefix = ann["authorization"].split()[1].partition(".")[0]
    wrong = {"authorization": f"Bearer {prefix}.{'x' * 43}"}
    refused(api.get(f"{API}/me", headers=wrong), 401, "unauthorized", "no key of this platform")
    malformed = {"authorization": "Bearer nonsense"}
    refused(api.get(f"{API}/me", headers=malformed), 401, "unauthorized", "PREFIX.SECRET")
    basic = {"authorization": "Basic YTpi"}
    refused(api.get(f"{API}/me", headers=basic), 401, "unauthorized", "not a bearer key")
    store.revoke_key(prefix)
    refused(api.get(f"{API}/me", headers=ann), 401, "unauthorized", "was revoked")


def test_an_owner_submits_and_retires_their_own_bots_only(api: TestClient, store: Store) -> None:
    ann, bob = user(store, "ann"), user(store, "bob")
    assert api.get(f"{API}/me", headers=ann).json() == {"kind": "owner", "name": "ann"}
    made = api.post(f"{API}/bots/bobs/versions", json=submission(), headers=bob)
    assert made.status_code == 201 and made.json()["label"] == "bobs@v1" and made.json()["new"]
    again = api.post(f"{API}/bots/bobs/versions", json=submission(), headers=bob)
    assert again.status_code == 200 and again.json()["new"] is False  # the same version
    reply = api.post(f"{API}/bots/bobs/versions", json=submission("minimal_bot.py"), headers=ann)
    refused(reply, 403, "forbidden", "user ann may not submit a version of bot 'bobs'")
    refused(api.post(f"{API}/bots/bobs/retire", headers=ann), 403, "forbidden", "retire bot 'bobs'")
    owner = {**submission(), "owner": "bob"}
    refused(
        api.post(f"{API}/bots/x/versions", json=owner, headers=ann), 403, "forbidden", "for bob"
    )
    assert versions(store, "bobs") == ["bobs@v1"] and store.bot_by_name("x") is None
    bobs = store.bot_by_name("bobs")
    assert bobs is not None and bobs.retired_at is None
    retired = api.post(f"{API}/bots/bobs/retire", headers=bob).json()
    assert retired["name"] == "bobs" and retired["already"] is False
    # an operator submits a version of anyone's bot, which stays theirs
    ops = user(store, "ops", operator=True)
    reply = api.post(f"{API}/bots/bobs/versions", json=submission("minimal_bot.py"), headers=ops)
    assert reply.status_code == 201 and reply.json()["submitted_by"] == "ops"
    bobs = store.bot_by_name("bobs")
    assert bobs is not None and bobs.owner == "bob"


def test_tournaments_take_an_owners_own_bots_and_the_house_bots(
    api: TestClient, store: Store
) -> None:
    ann, bob = user(store, "ann"), user(store, "bob")
    ops = user(store, "ops", operator=True)
    api.post(f"{API}/bots/anns/versions", json=submission(), headers=ann)
    api.post(f"{API}/bots/bobs/versions", json=submission(), headers=bob)
    house = {**submission("minimal_bot.py"), "owner": PLATFORM_USER}
    assert api.post(f"{API}/bots/house/versions", json=house, headers=ops).status_code == 201
    body = {"game": GAME, "bots": ["anns", "bobs"], "options": {"max_hands": 1}}
    reply = api.post(f"{API}/tournaments", json=body, headers=ann)
    refused(reply, 403, "forbidden", "may not enter bot 'bobs', which belongs to bob", "house bots")
    assert store.list_tournaments() == []
    made = api.post(f"{API}/tournaments", json={**body, "bots": ["anns", "house"]}, headers=ann)
    assert made.status_code == 201, made.text
    tournament = made.json()["tournament"]
    shown = api.get(f"{API}/tournaments/{tournament}").json()
    assert shown["created_by"] == "ann" and shown["progress"]["queued"] == made.json()["matches"]
    assert {line["bot"] for line in shown["standings"]} == {"anns@v1", "house@v1"}
    everyone = api.post(
        f"{API}/tournaments", json={**body, "bots": ["anns", "bobs", "house"]}, headers=ops
    )
    assert everyone.status_code == 201  # an operator enters anyone's
    # a duel likewise, and anyone reads it
    duel = {"a": "anns", "b": "bobs", "game": GAME, "elo1": 50, "options": {"max_hands": 1}}
    before = len(store.list_tournaments())
    reply = api.post(f"{API}/duels", json=duel, headers=ann)
    refused(reply, 403, "forbidden", "may not enter bot 'bobs', which belongs to bob")
    assert len(store.list_tournaments()) == before
    made = api.post(f"{API}/duels", json={**duel, "b": "house"}, headers=ann)
    assert made.status_code == 201, made.text
    assert made.json()["a"] == "anns@v1" and made.json()["b"] == "house@v1"
    shown = api.get(f"{API}/duels/{made.json()['tournament']}").json()
    assert shown["state"] == "running" and shown["verdict"] == "continue"
    assert shown["progress"]["queued"] == made.json()["matches"] > 0
    assert (shown["elo0"], shown["elo1"], shown["games"], shown["result"]) == (0, 50, 0, None)
    assert store.tournament(made.json()["tournament"]).created_by == "ann"
    assert api.post(f"{API}/duels", json={**duel, "b": "house"}, headers=ops).status_code == 201
    refused(api.get(f"{API}/duels/{tournament}"), 404, "not_found", "is not a duel")


def test_a_seed_is_chosen_by_an_operator_and_kept_secret_until_the_tournament_ends(
    api: TestClient, store: Store
) -> None:
    """Every deal of a tournament comes from its seed: whoever knows it before the
    matches are played knows the cards."""
    ann, ops = user(store, "ann"), user(store, "ops", operator=True)
    api.post(f"{API}/bots/a1/versions", json=submission(), headers=ann)
    api.post(f"{API}/bots/a2/versions", json=submission("minimal_bot.py"), headers=ann)
    body = {"game": GAME, "bots": ["a1", "a2"], "seed": 5}
    refused(api.post(f"{API}/tournaments", json=body, headers=ann), 403, "forbidden", "seed")
    duel = {"a": "a1", "b": "a2", "game": GAME, "seed": 5}
    refused(api.post(f"{API}/duels", json=duel, headers=ann), 403, "forbidden", "seed")
    assert store.list_tournaments() == []
    mine = api.post(f"{API}/tournaments", json={**body, "seed": None}, headers=ann).json()
    chosen = api.post(f"{API}/tournaments", json=body, headers=ops).json()
    for made in (mine, chosen):
        shown = api.get(f"{API}/tournaments/{made['tournament']}").json()
        assert shown["settings"]["seed"] is None  # running: secret, even to its creator
        page = api.get(f"/tournaments/{made['tournament']}").text
        assert "kept secret until the tournament ends" in page
    store.cancel_tournament(chosen["tournament"])
    shown = api.get(f"{API}/tournaments/{chosen['tournament']}").json()
    assert shown["settings"]["seed"] == 5


def test_a_users_clock_past_the_operators_bounds_is_refused_naming_them(
    api: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/tournaments.md, "How long a match may take": a user's clock stays within
    ARENA_MAX_DECISION_MS, _BANK_MS, _JOIN_MS and _STRIKES; an operator's may go past."""
    monkeypatch.setenv("ARENA_MAX_DECISION_MS", "5000")
    ann, ops = user(store, "ann"), user(store, "ops", operator=True)
    api.post(f"{API}/bots/a1/versions", json=submission(), headers=ann)
    api.post(f"{API}/bots/a2/versions", json=submission("minimal_bot.py"), headers=ann)
    long = {"decision_ms": 3_600_000, "bank_ms": 3_600_000, "strike_limit": 1000}
    body = {"game": GAME, "bots": ["a1", "a2"], "clock": long}
    reply = refused(api.post(f"{API}/tournaments", json=body, headers=ann), 400, "invalid")
    assert "clock decision_ms 3600000 is more than a user may give" in reply["message"]
    assert (
        "at most decision_ms 5000, bank_ms 60000, strike_limit 10, join_ms 120000"
        in (reply["message"])
    )
    assert "ARENA_MAX_DECISION_MS" in reply["message"]
    duel = {"a": "a1", "b": "a2", "game": GAME, "clock": {"strike_limit": 11}}
    reply = refused(api.post(f"{API}/duels", json=duel, headers=ann), 400, "invalid")
    assert "clock strike_limit 11 is more than a user may give" in reply["message"]
    assert store.list_tournaments() == []
    within = {**body, "clock": {"decision_ms": 5000, "strike_limit": 10}}
    assert api.post(f"{API}/tournaments", json=within, headers=ann).status_code == 201
    made = api.post(f"{API}/tournaments", json=body, headers=ops)
    assert made.status_code == 201, made.text  # an operator goes past them
    assert store.tournament(made.json()["tournament"]).options["clock"] == long


def test_users_are_an_operators_and_keys_their_users_own(api: TestClient, store: Store) -> None:
    ann, bob = user(store, "ann"), user(store, "bob")
    ops = user(store, "ops", operator=True)
    refused(
        api.post(f"{API}/users", json={"name": "eve"}, headers=ann),
        403,
        "forbidden",
        "make user 'eve'",
    )
    refused(api.get(f"{API}/users", headers=ann), 403, "forbidden", "list the users")
    assert store.user("eve") is None
    made = api.post(f"{API}/users", json={"name": "eve"}, headers=ops)
    assert made.status_code == 201
    eve = {"authorization": f"Bearer {made.json()['key']}"}
    assert api.get(f"{API}/me", headers=eve).json() == {"kind": "owner", "name": "eve"}
    assert {u["name"] for u in api.get(f"{API}/users", headers=ops).json()} == {
        "ann", "bob", "eve", "ops", PLATFORM_USER,
    }  # fmt: skip
    bob_prefix = bob["authorization"].split()[1].partition(".")[0]
    refused(api.get(f"{API}/keys?user=bob", headers=ann), 403, "forbidden", "the keys of bob")
    refused(api.post(f"{API}/keys", json={"user": "bob"}, headers=ann), 403, "forbidden")
    refused(api.delete(f"{API}/keys/{bob_prefix}", headers=ann), 403, "forbidden")
    assert store.keys("bob")[0].revoked_at is None and len(store.keys("bob")) == 1
    second = api.post(f"{API}/keys", json={}, headers=ann).json()
    assert second["user"] == "ann" and "." in second["key"]
    assert len(api.get(f"{API}/keys", headers=ann).json()) == 2
    revoked = api.delete(f"{API}/keys/{bob_prefix}", headers=ops).json()
    assert revoked["revoked_at"] is not None and revoked["already"] is False
    refused(api.get(f"{API}/me", headers=bob), 401, "unauthorized", "was revoked")


def test_errors_name_the_field_and_nothing_is_stored(api: TestClient, store: Store) -> None:
    ann = user(store, "ann")
    api.post(f"{API}/bots/anns/versions", json=submission(), headers=ann)
    body = {"game": GAME, "bots": ["anns", "random-hollywood-gin"]}
    error = refused(
        api.post(f"{API}/tournaments", json={**body, "games": 0}, headers=ann), 400, "invalid"
    )
    assert error["field"] == "games" and error["message"].startswith("games: ")
    error = refused(
        api.post(f"{API}/tournaments", json={**body, "game": "chess"}, headers=ann), 400, "invalid"
    )
    assert "chess" in error["message"]
    reply = api.post(f"{API}/tournaments", json={**body, "clock": {"speed": 3}}, headers=ann)
    refused(reply, 400, "invalid", "unknown setting 'speed'")
    reply = api.post(f"{API}/tournaments", json={**body, "bots": ["anns", "nobody"]}, headers=ann)
    refused(reply, 404, "not_found", "no bot named 'nobody'")
    bad = {**submission(), "archive": "not base64!"}
    refused(api.post(f"{API}/bots/x/versions", json=bad, headers=ann), 400, "invalid", "archive")
    junk = {**submission(), "archive": base64.b64encode(b"no tar at all").decode()}
    refused(api.post(f"{API}/bots/x/versions", json=junk, headers=ann), 400, "invalid", "not a tar")
    error = refused(
        api.post(f"{API}/bots/x/versions", json={"game": GAME}, headers=ann), 400, "invalid"
    )
    assert error["field"] == "command"
    refused(api.get(f"{API}/bots/nobody"), 404, "not_found", "no bot named 'nobody'")
    refused(api.get(f"{API}/bots/a%00b"), 400, "invalid")
    refused(api.get(f"{API}/tournaments/99999"), 404, "not_found", "no tournament 99999")
    refused(api.get(f"{API}/no-such-route"), 404, "not_found")
    assert store.list_tournaments() == [] and store.bot_by_name("x") is None


def test_every_list_is_paged(api: TestClient, store: Store) -> None:
    ann = user(store, "ann")
    for name, file in (
        ("a1", "random_bot.py"),
        ("a2", "minimal_bot.py"),
        ("a3", "heuristic_bot.py"),
    ):
        assert (
            api.post(f"{API}/bots/{name}/versions", json=submission(file), headers=ann).status_code
            == 201
        )
    first = api.get(f"{API}/bots?limit=2").json()
    assert [b["name"] for b in first["items"]] == ["a1", "a2"] and first["next_offset"] == 2
    rest = api.get(f"{API}/bots?limit=2&offset=2").json()
    assert [b["name"] for b in rest["items"]] == ["a3"] and rest["next_offset"] is None
    for _ in range(3):
        api.post(f"{API}/tournaments", json={"game": GAME, "bots": ["a1", "a2"]}, headers=ann)
    pages = [api.get(f"{API}/tournaments?limit=2&offset={o}").json() for o in (0, 2)]
    assert [len(p["items"]) for p in pages] == [2, 1] and pages[0]["next_offset"] == 2
    ids = [t["id"] for p in pages for t in p["items"]]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 3
    refused(api.get(f"{API}/bots?limit=0"), 400, "invalid", "limit")


def test_writes_are_rate_limited_per_user_with_retry_after(
    api: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_SUBMISSIONS_PER_HOUR", "2")
    monkeypatch.setenv("ARENA_TOURNAMENTS_PER_HOUR", "1")
    ann, ops = user(store, "ann"), user(store, "ops", operator=True)
    for name, file in (("a1", "random_bot.py"), ("a2", "minimal_bot.py")):
        assert (
            api.post(f"{API}/bots/{name}/versions", json=submission(file), headers=ann).status_code
            == 201
        )
    # the same content again is no new write, and is answered
    assert api.post(f"{API}/bots/a1/versions", json=submission(), headers=ann).status_code == 200
    reply = api.post(f"{API}/bots/a3/versions", json=submission("heuristic_bot.py"), headers=ann)
    refused(
        reply,
        429,
        "rate_limited",
        "2 bot versions submitted in the last hour",
        "ARENA_SUBMISSIONS_PER_HOUR",
    )
    assert 0 < int(reply.headers["retry-after"]) <= WINDOW.total_seconds()
    assert store.bot_by_name("a3") is None
    body = {"game": GAME, "bots": ["a1", "a2"]}
    assert api.post(f"{API}/tournaments", json=body, headers=ann).status_code == 201
    refused(
        api.post(f"{API}/tournaments", json=body, headers=ann),
        429,
        "rate_limited",
        "tournaments, gauntlets and duels created",
    )
    duel = {"a": "a1", "b": "a2", "game": GAME}
    refused(api.post(f"{API}/duels", json=duel, headers=ann), 429, "rate_limited")
    assert len(store.list_tournaments()) == 1
    # an operator is not limited
    assert (
        api.post(
            f"{API}/bots/a3/versions", json=submission("heuristic_bot.py"), headers=ops
        ).status_code
        == 201
    )
    assert api.post(f"{API}/tournaments", json=body, headers=ops).status_code == 201


def test_parallel_submissions_past_the_limit_are_accepted_exactly_to_it(
    api: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit is counted and the version written in one transaction: 16 submissions
    of one user at once, with a limit of 5, make exactly 5 versions."""
    monkeypatch.setenv("ARENA_SUBMISSIONS_PER_HOUR", "5")
    ann = user(store, "ann")
    bot = package(EXAMPLES / "random_bot.py")
    bodies = []
    for i in range(16):  # each a new content
        archive = archives.pack([*archives.read(bot.archive), Member("n.txt", b"%d" % i)])
        bodies.append(
            {"game": GAME, "command": bot.command, "archive": base64.b64encode(archive).decode()}
        )
    names = [f"racer{i % 3}" for i in range(16)]
    with ThreadPoolExecutor(16) as pool:
        codes = list(
            pool.map(
                lambda n, b: api.post(f"{API}/bots/{n}/versions", json=b, headers=ann).status_code,
                names,
                bodies,
            )
        )
    assert sorted(codes) == [201] * 5 + [429] * 11, codes
    racers = [b for b in map(store.bot_by_name, sorted(set(names))) if b is not None]
    assert sum(len(store.bot_versions(b.id)) for b in racers) == 5
    assert all(store.bot_versions(b.id) for b in racers)  # no name left without a version


def test_the_openapi_description_is_generated_and_served(api: TestClient) -> None:
    spec = api.get(f"{API}/openapi.json").json()
    assert spec["info"]["title"] == "Rummy Arena" and spec["servers"] == [{"url": API}]
    assert {"/bots", "/bots/{name}/versions", "/tournaments", "/keys"} <= set(spec["paths"])
    assert "HTTPBearer" in spec["components"]["securitySchemes"]


def test_matches_and_the_leaderboard_are_read_and_a_held_match_shows_nothing(
    api: TestClient, store: Store
) -> None:
    versions = add_bots(store, GAME, 2, prefix="m")
    done = store_played_match(store, GAME, versions, seed=3, options={"max_hands": 1})
    shown = api.get(f"{API}/matches/{done}").json()
    assert shown["state"] == "done" and shown["held"] is False
    assert {s["bot"] for s in shown["seats"]} == {"m-0@v1", "m-1@v1"}
    assert all("rank" in s for s in shown["seats"]) and shown["events"]
    record = api.get(f"{API}/matches/{done}/record").json()
    assert record["game"] == GAME and record["actions"]
    last = len(record["actions"])
    step = api.get(f"{API}/matches/{done}/steps/{last}").json()
    assert step["step"] == last
    mine = api.get(f"{API}/matches/{done}/steps/1?seat=0").json()
    assert mine["step"] == 1
    refused(api.get(f"{API}/matches/{done}/steps/{last + 1}"), 400, "invalid", f"steps 0..{last}")
    refused(api.get(f"{API}/matches/{done}/steps/1?seat=5"), 400, "invalid", "seats 0..1")
    refused(api.get(f"{API}/matches/99999"), 404, "not_found", "no match 99999")
    board = api.get(f"{API}/leaderboard/{GAME}").json()
    assert {line["bot"] for line in board} == {"m-0@v1", "m-1@v1"}
    refused(api.get(f"{API}/leaderboard/chess"), 404, "not_found", "no game 'chess'")
    # a duplicate deal with a sibling still queued: no result, no event, no record
    tournament = store.create_tournament("held", GAME, versions, duplicate=True)
    played = store_played_match(
        store, GAME, versions, seed=9, tournament_id=tournament, options={"max_hands": 1},
        duplicate_set=0, rotation=0,
    )  # fmt: skip
    store.schedule_matches(tournament, GAME, {"max_hands": 1}, [
        ScheduledMatch((versions[1], versions[0]), 9, 0, 1)
    ])  # fmt: skip
    held = api.get(f"{API}/matches/{played}").json()
    assert held["held"] is True and all("rank" not in s for s in held["seats"])
    assert [e["text"] for e in held["events"]] == [HELD]
    refused(api.get(f"{API}/matches/{played}/record"), 409, "held", "held back")
    refused(api.get(f"{API}/matches/{played}/steps/0"), 409, "held")


def test_retrying_and_cancelling_a_tournament_is_for_an_operator(
    api: TestClient, store: Store
) -> None:
    ann, ops = user(store, "ann"), user(store, "ops", operator=True)
    api.post(f"{API}/bots/a1/versions", json=submission(), headers=ann)
    api.post(f"{API}/bots/a2/versions", json=submission("minimal_bot.py"), headers=ann)
    made = api.post(
        f"{API}/tournaments", json={"game": GAME, "bots": ["a1", "a2"], "games": 2}, headers=ann
    ).json()
    tournament = made["tournament"]
    refused(
        api.post(f"{API}/tournaments/{tournament}/retry", headers=ann),
        403,
        "forbidden",
        "for an operator",
    )
    refused(
        api.post(f"{API}/tournaments/{tournament}/cancel", headers=ann), 403, "forbidden", "cancel"
    )
    refused(api.post(f"{API}/tournaments/{tournament}/cancel"), 401, "unauthorized")
    assert store.tournament_progress(tournament)["queued"] == made["matches"]
    assert (
        api.post(f"{API}/tournaments/{tournament}/retry", headers=ops).json()["queued_again"] == []
    )
    cancelled = api.post(f"{API}/tournaments/{tournament}/cancel", headers=ops).json()["cancelled"]
    assert len(cancelled) == made["matches"]
    assert store.tournament(tournament).state == "cancelled"
    assert store.tournament_progress(tournament)["cancelled"] == made["matches"]
    refused(api.post(f"{API}/tournaments/99999/cancel", headers=ops), 404, "not_found")


def test_an_owner_withdraws_their_bot_from_a_ladder_and_lets_it_join_again(
    api: TestClient, store: Store
) -> None:
    ann, bob = user(store, "ann"), user(store, "bob")
    api.post(f"{API}/bots/anns/versions", json=submission(), headers=ann)
    api.post(f"{API}/bots/bobs/versions", json=submission("minimal_bot.py"), headers=bob)
    ladder = store.start_ladder(GAME, GAME, {})

    def pool() -> set[str]:
        return {row.label for row in store.ladder_standings(ladder)}

    assert pool() == {"anns@v1", "bobs@v1"}  # every bot of the game, unless withdrawn
    path = f"{API}/ladders/{GAME}/bots/anns"
    refused(api.delete(path), 401, "unauthorized")
    refused(api.delete(path, headers=bob), 403, "forbidden", "withdraw bot 'anns' of ann")
    assert pool() == {"anns@v1", "bobs@v1"}
    gone = api.delete(path, headers=ann).json()
    assert gone == {"ladder": GAME, "bot": "anns", "member": False, "changed": True}
    assert pool() == {"bobs@v1"}
    assert api.delete(path, headers=ann).json()["changed"] is False  # withdrawn already
    refused(api.post(path, headers=bob), 403, "forbidden", "enter bot 'anns' of ann")
    assert api.post(path, headers=ann).json()["changed"] is True
    assert pool() == {"anns@v1", "bobs@v1"}
    refused(
        api.post(f"{API}/ladders/nowhere/bots/anns", headers=ann), 404, "not_found", "no ladder"
    )
    refused(api.post(f"{API}/ladders/{GAME}/bots/nobody", headers=ann), 404, "not_found", "no bot")


def test_a_body_over_the_limit_is_refused_before_it_is_read(api: TestClient, store: Store) -> None:
    """A 1 GiB upload is refused from its Content-Length alone, a body sent in chunks as
    soon as it passes the limit; nothing is stored, and the API goes on answering."""
    from arena.api.app import MAX_BODY

    headers = user(store, "ann")
    claimed = api.post(
        "/api/v1/bots/big/versions",
        content=b"{}",
        headers={**headers, "content-type": "application/json", "content-length": str(2**30)},
    )
    refused(claimed, 413, "too_large", "1,073,741,824 bytes", f"at most {MAX_BODY:,} bytes")

    def chunks() -> Iterator[bytes]:
        yield b'{"game": "hollywood-gin", "command": ["python"], "archive": "'
        for _ in range(MAX_BODY // 2**20 + 2):
            yield b"A" * 2**20
        yield b'"}'

    chunked = api.post(
        "/api/v1/bots/big/versions",
        content=chunks(),
        headers={**headers, "content-type": "application/json"},
    )
    refused(chunked, 413, "too_large", "more than that")
    assert store.bot_by_name("big") is None
    assert (
        api.post("/api/v1/bots/small/versions", json=submission(), headers=headers).status_code
        == 201
    )
