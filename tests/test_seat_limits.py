"""A hosted bot stopped by a limit of the sandbox (docs/sandbox.md) forfeits its seats with
a status that says which limit, beside how it ended, in ``arena match show``, the API and
the replay page; the worker and the other seat's match carry on. Real worker, sandbox,
Postgres and Redis."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from arena.site import create_site
from tests.platform_support import EXAMPLES, PlatformEnv

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
HOG = """
from bots.sdk import Bot, Request, run


class Hog(Bot):
    def decide(self, request: Request) -> int:
        hog = []
        while True:  # allocates without end: the sandbox's memory limit stops it
            hog.append(bytearray(8 << 20))


if __name__ == "__main__":
    run(Hog())
"""


def test_a_seat_whose_bot_a_limit_stopped_says_which_limit(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    hog = tmp_path / "hog.py"
    hog.write_text(HOG)
    env.submit(hog, "hog", GAME)  # an operator's: exempt from qualification, which it fails
    env.submit(EXAMPLES / "random_bot.py", "house", GAME)
    (result,) = env.play_tournament(GAME, ["hog", "house"], games=1)
    shown = env.arena("match", "show", str(result.match_id), "--json")
    assert shown.returncode == 0, shown.stderr
    seats = {s["bot"]: s for s in json.loads(shown.stdout)["seats"]}
    assert seats["hog@v1"]["stopped_by"] == "memory", seats
    assert seats["hog@v1"]["status"] in ("crashed", "disconnected") and seats["hog@v1"]["forfeit"]
    assert seats["house@v1"]["status"] == "ok" and seats["house@v1"]["stopped_by"] is None
    text = env.arena("match", "show", str(result.match_id)).stdout
    assert "stopped by the sandbox's memory limit" in text, text
    with TestClient(create_site(env.store)) as site:
        page = site.get(f"/matches/{result.match_id}").text
        assert "stopped by the sandbox&#39;s memory limit" in page or (
            "stopped by the sandbox's memory limit" in page
        )
