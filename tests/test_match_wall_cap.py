"""Every match has a wall-clock cap (docs/tournaments.md, "How long a match may take";
``referee.walltime``): an operator's tournament with the longest clock there is and a
bot that goes silent only under a long clock ends at the cap, its silent seat forfeited
as the rules say for a silent seat, and the worker's slots are free for the next
tournament. Real Postgres, Redis, Celery worker, referee and bot processes."""

from __future__ import annotations

import json

from referee.clock import ClockRules
from referee.walltime import longest_s
from referee.wire import decode_record
from tests.platform_support import EXAMPLES, PLATFORM_BOTS, PlatformEnv

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
#: The platform's ceiling on any match in this test, in seconds.
MAX_MATCH_S = 10
LONGEST = {"decision_ms": 3_600_000, "bank_ms": 3_600_000, "strike_limit": 1000}


def test_a_match_with_a_silent_bot_under_the_longest_clock_ends_at_its_wall_cap(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.env["ARENA_MAX_MATCH_S"] = str(MAX_MATCH_S)  # the worker's, and its referee's
    # within the rules alone one hand of such a match could take hundreds of hours
    assert longest_s(GAME, {"max_hands": 1}, 2, ClockRules(**LONGEST)) > 100 * 3600
    sulky = env.submit(PLATFORM_BOTS / "sulky_bot.py", "sulky", GAME)
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    # under ordinary clocks it plays; and its process, kept by the worker's pool, is
    # ready: a seat still to join at the cap counts as never joined, and a loaded
    # machine can take longer than the cap to start a bot
    assert len(env.play_tournament(GAME, ["sulky", "random"])) == 2
    clock = [f"--clock={key}={value}" for key, value in LONGEST.items()]
    made = env.arena(
        "tournament", "create", "--game", GAME, "--bots", "sulky,random", "--games", "1",
        "--option", "max_hands=1", *clock, "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr  # the operator may go past the users' bounds
    tournament = int(json.loads(made.stdout)["tournament"])
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 0, run.stderr + env.worker_log()
    matches = env.store.list_matches(tournament_id=tournament)
    # one match: the silent bot blocks its process, which would leave a second match's
    # seat of it unjoined (as never joined) rather than timed out
    assert [m.state for m in matches] == ["done"], matches
    assert all(m.attempts == 1 for m in matches), matches
    for table in env.store.tournament_results(tournament):
        for seat in table.seats:
            if seat.version == sulky:  # silent past the cap: forfeited for its time
                assert seat.forfeit and seat.status == "timeout", seat
            else:
                assert not seat.forfeit and seat.status == "ok", seat
    for match in matches:
        record = decode_record(env.store.record(match.id))
        seat = next(s for s in record.seats if s.name.startswith("sulky"))
        # one strike of the thousand allowed: the cap, not the clock, ended its time
        assert seat.strikes == 1 and seat.forfeited, seat

    # the worker's slots are free: a tournament of ordinary clocks is played next
    env.submit(EXAMPLES / "random_bot.py", "plain", GAME)
    results = env.play_tournament(GAME, ["plain", "random"])
    assert len(results) == 2
