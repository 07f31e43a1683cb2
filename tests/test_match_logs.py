"""What a hosted bot writes (its standard output and error) is kept with each match it
plays, a bounded tail per seat, for its owner and operators only (docs/sandbox.md):
`arena match log MATCH --seat N` and ``GET /api/v1/matches/{id}/seats/{seat}/log``.
Real worker, sandboxed bots, Postgres and Redis."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from starlette.testclient import TestClient

from arena.site import create_site
from arena.web.app import SESSION_COOKIE
from tests.platform_support import EXAMPLES, ROOT, PlatformEnv
from worker.pool import MATCH_LOG

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
TALKER = """
import sys
from bots.sdk import Bot, Request, run


class Talker(Bot):
    def decide(self, request: Request) -> int:
        print(f"thinking about {len(request.legal_actions)} actions", file=sys.stderr)
        print("x" * 3000, file=sys.stderr)  # a chatty bot: only the newest bytes are kept
        return 0


if __name__ == "__main__":
    run(Talker())
"""


def _as(env: PlatformEnv, key: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *argv],
        env={**env.env, "ARENA_API_KEY": key},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_a_bots_log_of_a_match_is_its_owners_and_the_operators(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    ann = json.loads(env.arena("user", "create", "ann", "--json").stdout)["key"]
    bob = json.loads(env.arena("user", "create", "bob", "--json").stdout)["key"]
    talker = tmp_path / "talker.py"
    talker.write_text(TALKER)
    for path, name, key in ((talker, "talker", ann), (EXAMPLES / "random_bot.py", "bobs", bob)):
        done = _as(env, key, "bot", "submit", str(path), "--name", name, "--game", GAME)
        assert done.returncode == 0, done.stderr
    made = env.arena(
        "tournament", "create", "--game", GAME, "--bots", "talker,bobs", "--games", "1",
        "--option", "max_hands=1", "--json",
    )  # fmt: skip
    tournament = json.loads(made.stdout)["tournament"]
    env.start_worker()
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 0, run.stderr + env.worker_log()
    (match,) = env.store.list_matches(tournament_id=tournament)
    seat = [env.store.labels([v])[v] for v in match.seats].index("talker@v1")

    shown = _as(env, ann, "match", "log", str(match.id), "--seat", str(seat))
    assert shown.returncode == 0, shown.stderr
    assert "thinking about" in shown.stdout
    assert len(shown.stdout.encode()) <= MATCH_LOG + 1  # the newest bytes only
    out = json.loads(
        _as(env, ann, "match", "log", str(match.id), "--seat", str(seat), "--json").stdout
    )
    assert out["bot"] == "talker@v1" and "thinking about" in out["log"]
    operator = env.arena("match", "log", str(match.id), "--seat", str(seat))  # the operator
    assert operator.returncode == 0 and operator.stdout == shown.stdout

    refused = _as(env, bob, "match", "log", str(match.id), "--seat", str(seat))
    assert refused.returncode == 2 and refused.stdout == ""
    assert "user bob may not read the log of talker@v1" in refused.stderr
    assert "thinking" not in refused.stderr
    quiet = _as(env, bob, "match", "log", str(match.id), "--seat", str(1 - seat))
    assert quiet.returncode == 0 and "wrote nothing" in quiet.stdout  # random_bot is silent

    # the same through the API
    with TestClient(create_site(env.store)) as api:
        path = f"/api/v1/matches/{match.id}/seats/{seat}/log"
        assert api.get(path).status_code == 401
        assert api.get(path, headers={"authorization": f"Bearer {bob}"}).status_code == 403
        mine = api.get(path, headers={"authorization": f"Bearer {ann}"})
        assert mine.status_code == 200 and mine.json()["log"] == out["log"]
        assert api.get(f"/api/v1/matches/{match.id}").json()["seats"]  # the match is public
        page = api.get(f"/matches/{match.id}").text
        assert "thinking about" not in page  # nor on its page, to anyone without a key

    # signed in to the pages, its owner (and an operator) sees it on the match's page
    with TestClient(create_site(env.store)) as web:
        wrong = web.post("/signin", data={"key": "0123456789ab." + "x" * 43})
        assert wrong.status_code == 401 and "no key of this platform" in wrong.text
        assert SESSION_COOKIE not in web.cookies
        done = web.post("/signin", data={"key": ann}, follow_redirects=False)
        assert done.status_code == 303 and SESSION_COOKIE in web.cookies
        assert "httponly" in done.headers["set-cookie"].lower()
        page = web.get(f"/matches/{match.id}").text
        assert "ann" in page and "Sign out" in page
        assert f'id="log-seat-{seat}"' in page and "thinking about" in page
        assert f'id="log-seat-{1 - seat}"' not in page  # bob's bot: not hers
        web.post("/signout")
        assert "thinking about" not in web.get(f"/matches/{match.id}").text
    with TestClient(create_site(env.store)) as web:
        web.post("/signin", data={"key": bob})
        page = web.get(f"/matches/{match.id}").text
        assert "bob" in page and "thinking about" not in page
    with TestClient(create_site(env.store)) as web:  # a revoked key ends its session
        web.post("/signin", data={"key": ann})
        assert "thinking about" in web.get(f"/matches/{match.id}").text
        assert env.arena("user", "key", "revoke", ann.split(".", 1)[0]).returncode == 0
        page = web.get(f"/matches/{match.id}").text
        assert "thinking about" not in page and "Sign in" in page
