"""``arena duel`` on the real platform: an SPRT duel of the heuristic bot against the random
bot stops early with H1, at a table of two and of three; a bot against a copy of itself does
not accept H1; the matches still queued when the test stops are cancelled; mistakes are one
line."""

from __future__ import annotations

import json

from tests.platform_support import EXAMPLES, PlatformEnv

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]


def test_duel_heuristic_against_random_stops_early_with_h1(platform_env: PlatformEnv) -> None:
    env = platform_env
    env.submit(EXAMPLES / "heuristic_bot.py", "heur", "hollywood-gin")
    env.submit(EXAMPLES / "random_bot.py", "rnd", "hollywood-gin")
    env.start_worker()
    done = env.arena(
        "duel", "heur", "rnd", "--game", "hollywood-gin", "--elo0", "0", "--elo1", "50",
        "--option", "max_hands=1", "--local-workers", "0", "--seed", "3", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + env.worker_log()
    out = json.loads(done.stdout)
    assert out["verdict"] == "H1" and out["status"] == "H1"
    assert out["llr"] >= out["upper"]
    assert out["games"] < 60  # early: a fixed-length test would play hundreds
    assert "LLR" in done.stderr  # reported as it went
    progress = env.store.tournament_progress(out["tournament"])
    assert progress["queued"] == 0 and progress["done"] >= out["games"]


def test_duel_against_a_copy_of_itself_does_not_accept_h1(platform_env: PlatformEnv) -> None:
    env = platform_env
    env.submit(EXAMPLES / "random_bot.py", "rnd", "hollywood-gin")
    env.submit(EXAMPLES / "random_bot.py", "twin", "hollywood-gin")
    env.start_worker()
    done = env.arena(
        "duel", "rnd", "twin", "--game", "hollywood-gin", "--elo0", "0", "--elo1", "300",
        "--option", "max_hands=1", "--local-workers", "0", "--seed", "5", "--duplicate",
        "--max-games", "60", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + env.worker_log()
    out = json.loads(done.stdout)
    assert out["verdict"] in ("H0", "continue") and out["pentanomial"] is True
    assert out["games"] <= 60 and out["games"] % 2 == 0  # whole pairs


def test_a_duel_at_a_table_of_three_plays_a_against_two_seats_of_b(
    platform_env: PlatformEnv,
) -> None:
    """Gin for three is played by three: A takes one seat and B the other two, A goes
    round the seats of each deal (duplicate sets), and A's score is its mean against B's
    seats: the heuristic bot is accepted stronger than the random bot."""
    env = platform_env
    env.submit(EXAMPLES / "heuristic_bot.py", "heur", "gin-three")
    env.submit(EXAMPLES / "random_bot.py", "rnd", "gin-three")
    env.start_worker()
    done = env.arena(
        "duel", "heur", "rnd", "--game", "gin-three", "--elo0", "0", "--elo1", "50",
        "--option", "max_hands=1", "--local-workers", "0", "--seed", "4", "--duplicate",
        "--batch", "6", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + env.worker_log()
    out = json.loads(done.stdout)
    assert out["verdict"] == "H1" and out["opponents"] == 2 and out["pentanomial"] is True
    assert out["games"] % 3 == 0 and len(out["counts"]) == 13  # whole sets, in twelfths
    assert "3 seats, duplicate sets" in done.stderr
    seats = {m.seats for m in env.store.list_matches(tournament_id=out["tournament"])}
    heur, rnd = sorted({v for s in seats for v in s})  # submitted first: the heuristic
    assert seats == {(heur, rnd, rnd), (rnd, heur, rnd), (rnd, rnd, heur)}


def test_duel_mistakes_are_one_line(platform_env: PlatformEnv) -> None:
    env = platform_env
    env.submit(EXAMPLES / "random_bot.py", "rnd", "gin-three")
    for args, expected in (
        (["rnd", "x", "--game", "gin-three", "--seats", "2"], "gin-three is played by 3–3, not 2"),
        (["a", "b", "--game", "hollywood-gin", "--elo0", "5", "--elo1", "5"], "must be below"),
        (["a", "b", "--game", "hollywood-gin"], "no bot named 'a'"),
    ):
        done = env.arena("duel", *args, "--local-workers", "0")
        assert done.returncode == 2, done.stderr
        assert expected in done.stderr and len(done.stderr.strip().splitlines()) == 1
