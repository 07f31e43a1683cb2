"""`arena match create` and `arena match get` against a real referee process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from referee.auth import SECRET_ENV
from tests.referee_support import EXAMPLES, RefereeProcess, referee_fixture, start_bot, wait_all


@pytest.fixture(scope="module")
def referee() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


@pytest.fixture(autouse=True)
def platform_secret(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands carry the referee's secret, as the platform's own would."""
    if "referee" in request.fixturenames:
        ref = request.getfixturevalue("referee")
        monkeypatch.setenv(SECRET_ENV, ref.secret)


def test_create_play_get_and_verify(
    referee: RefereeProcess, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["match", "create", "--referee", referee.address, "--game", "hollywood-gin"]
    assert main([*args, "--seed", "9", "--option", "max_hands=1", "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["seed"] == 9 and len(created["tokens"]) == 2
    bots = [start_bot(EXAMPLES / "heuristic_bot.py", referee.address, t) for t in created["tokens"]]
    assert [code for code, _ in wait_all(bots)] == [0, 0]
    record = tmp_path / "match.record"
    get = ["match", "get", created["match_id"], "--referee", referee.address]
    assert main([*get, "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "finished" in out and "1st, score" in out and "seat 0 (" not in out
    assert main(["verify", str(record)]) == 0
    assert ": ok:" in capsys.readouterr().out


def test_bad_option_is_named_before_anything_is_sent(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["match", "create", "--game", "hollywood-gin", "--option", "knock_limt=3"])
    assert code == 2
    assert "unknown option 'knock_limt'" in capsys.readouterr().err


def test_unknown_match_and_missing_referee_are_clear(
    referee: RefereeProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", "get", "nope", "--referee", referee.address]) == 2
    assert "no match 'nope'" in capsys.readouterr().err
    assert main(["match", "get", "x", "--referee", "127.0.0.1:1"]) == 3
    assert "no referee answers at 127.0.0.1:1" in capsys.readouterr().err


def test_a_wrong_secret_is_refused_with_what_to_do(
    referee: RefereeProcess, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, "not-the-secret")
    assert main(["match", "get", "nope", "--referee", referee.address]) == 2
    err = capsys.readouterr().err
    assert "refused the platform's credential" in err and "ARENA_REFEREE_SECRET" in err


def test_referee_limits_out_of_range_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in (["--grace", "-1"], ["--keep-mb", "-5"], ["--max-waiting", "0"]):
        assert main(["referee", "--port", "0", *bad]) == 2
        assert "must be 0 or more, --max-waiting at least 1" in capsys.readouterr().err
