"""The starter bot `arena bot new` writes plays on the platform as documented: written,
submitted as its hint says, it plays a tournament against house bots, sandboxed, with
every seat ``ok``. Real worker, referee, Postgres and Redis."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from tests.platform_support import EXAMPLES, PlatformEnv

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]


NODE_RUNTIME = Path(__file__).resolve().parent.parent / "runtimes" / "node" / "node_modules"


@pytest.mark.parametrize(
    ("game", "lang"),
    [("hollywood-gin", "python"), ("gin-three", "python"), ("hollywood-gin", "javascript")],
)
def test_the_starter_bot_plays_a_tournament_against_the_house_bots(
    platform_env: PlatformEnv, tmp_path: Path, game: str, lang: str
) -> None:
    if lang == "javascript":
        assert shutil.which("node"), "node is needed for the JavaScript starter"
        assert (NODE_RUNTIME / "@grpc" / "grpc-js").is_dir(), "run make node-runtime first"
    env = platform_env
    folder = tmp_path / "starter"
    made = env.arena("bot", "new", str(folder), "--game", game, "--lang", lang)
    assert made.returncode == 0, made.stderr
    *_, check_hint, submit_hint = made.stdout.strip().splitlines()
    check = shlex.split(check_hint.removeprefix("check it with: "))[1:]  # without the program
    checked = env.arena(*check)
    assert checked.returncode == 0 and "qualified for" in checked.stdout, checked.stdout
    submit = shlex.split(submit_hint.removeprefix("submit it with: "))[1:]  # as printed
    done = env.arena(*submit, key=env.user("ann"))  # a user's: it qualifies first
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("starter@v1: qualified: it plays\n"), done.stdout
    house = []
    for name in ("random_bot", "heuristic_bot"):
        label = f"house-{name}"
        done = env.arena("bot", "submit", str(EXAMPLES / f"{name}.py"), "--name", label,
                         "--owner", "arena", "--game", game)  # fmt: skip
        assert done.returncode == 0, done.stderr
        house.append(label)
    results = env.play_tournament(game, ["starter", *house])
    assert results and all(seat.status == "ok" for r in results for seat in r.seats), results
