"""Faults of the platform's own never strand a tournament, and a bot's never fails a match
(docs/architecture.md, decision 6): a worker whose referee dies starts a new one and goes
on, a broker lost past every task's budget and restarted empty loses no match, a bot that
cannot start forfeits its seats, and failed matches are reported and can be put back. Real
Postgres, real Redis (one this test kills), real ``arena worker`` and ``arena scheduler``
processes, real referees and bot processes."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import psycopg
import pytest

from tests.platform_support import EXAMPLES, PLATFORM_BOTS, ROOT, PlatformEnv, bot_folders
from tests.test_platform import _counted_once
from worker import broker, host, tasks
from worker.app import configure
from worker.referee_link import RefereeGone

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
FAST = ["--option", "max_hands=1"]


def _create(env: PlatformEnv, bots: str, games: int) -> int:
    made = env.arena(
        "tournament", "create", "--game", GAME, "--bots", bots, "--games", str(games),
        *FAST, "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return int(json.loads(made.stdout)["tournament"])


def _referees(worker: subprocess.Popen[bytes]) -> list[psutil.Process]:
    """The worker's living ``arena referee`` children."""
    found = []
    for child in psutil.Process(worker.pid).children(recursive=True):
        try:
            if "referee" in child.cmdline() and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def test_d6_worker_whose_referee_dies_starts_a_new_one_and_the_tournament_completes(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", GAME)
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    worker = env.start_worker()
    tournament = _create(env, "slow,random", 8)
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(tournament), "--quiet",
         "--local-workers", "0"],
        env=env.env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        env.wait_for(
            lambda: env.store.tournament_progress(tournament)["running"] > 0, 60, "a match"
        )
        (referee,) = _referees(worker)
        referee.kill()  # in the middle of the running matches
        _, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
    progress = env.store.tournament_progress(tournament)
    assert run.returncode == 0, err + env.worker_log()
    assert progress["done"] == 8 and progress["failed"] == 0, (progress, env.worker_log())
    assert worker.poll() is None  # the worker stayed up
    (new,) = _referees(worker)
    assert new.pid != referee.pid
    assert "starting a new one" in env.worker_log()
    # the matches it was playing when its referee died were played again, each once
    _counted_once(env, tournament)


def test_d6_matches_outliving_their_lease_stay_their_workers_and_are_played_once(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.env["ARENA_LEASE_S"] = "1"  # renewed every third of a second by the worker
    env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", GAME)
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    env.start_worker()  # two slots: the one that is free would claim an expired lease
    tournament = _create(env, "slow,random", 6)
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 0, run.stderr + env.worker_log()
    with psycopg.connect(env.store.url) as conn:
        played = conn.execute(
            "SELECT m.state, m.attempts, r.duration_ms FROM matches m"
            " JOIN match_records r ON r.match_id = m.id WHERE m.tournament_id = %s",
            (tournament,),
        ).fetchall()
    assert len(played) == 6
    # the premise: the slow bot's 50 ms a decision makes matches last several leases
    assert max(d for _, _, d in played) > 3000, played
    assert [(state, attempts) for state, attempts, _ in played] == [("done", 1)] * 6, (
        played,
        env.worker_log(),
    )
    assert "lease is no longer ours" not in env.worker_log()
    _counted_once(env, tournament)


class TcpRedis:
    """A Redis server of the test's own on a free TCP port (the deployment's transport),
    which the test may kill and start again, empty, on the same port."""

    def __init__(self, folder: Path) -> None:
        binary = broker.redis_binary()
        assert binary is not None, "redis-server (the embedded extra bundles one)"
        self.binary, self.folder = binary, folder
        folder.mkdir(parents=True, exist_ok=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not broker.answers(self.url, timeout=0.5):
            assert time.monotonic() < deadline, "the test's Redis did not start"
            time.sleep(0.05)
        return self.url

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def test_d6_broker_lost_past_every_task_budget_and_restarted_empty_loses_no_match(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    own = TcpRedis(tmp_path / "own-redis")
    url = own.start()
    try:
        env.env.update({broker.REDIS_URL_ENV: url, "ARENA_DRAIN_S": "1", "ARENA_STALL_S": "3"})
        env.submit(PLATFORM_BOTS / "slow_bot.py", "slow", GAME)
        env.submit(EXAMPLES / "random_bot.py", "random", GAME)
        tournament = _create(env, "slow,random", 12)
        env.start_worker()
        env.start_worker()
        env.start_scheduler()
        configure(url, env.env[broker.REDIS_PREFIX_ENV])
        tasks.start_drains(env.store, tournament, 12, 2)  # as `arena tournament run` does
        env.wait_for(
            lambda: env.store.tournament_progress(tournament)["done"] >= 2, 90, "two matches"
        )
        own.kill()
        time.sleep(4.0)  # past every drain task's budget: each fails to enqueue its next
        assert env.store.tournament_progress(tournament)["queued"] > 0
        own.start()  # the same address, empty
        workers = env.workers[:2]

        def finished() -> bool:
            # as its supervisor (systemd, compose) does: a worker whose Celery consumer
            # gave up on the lost connection and exited is started again
            for i, worker in enumerate(workers):
                if worker.poll() is not None:
                    workers[i] = env.start_worker()
            progress = env.store.tournament_progress(tournament)
            return progress["done"] + progress["failed"] == 12

        try:
            env.wait_for(finished, 180, "the tournament to finish by itself")
        except AssertionError as exc:
            progress = env.store.tournament_progress(tournament)
            raise AssertionError(f"{exc}: {progress}\n{env.worker_log()[-6000:]}") from None
    finally:
        own.kill()
    progress = env.store.tournament_progress(tournament)
    assert progress["done"] == 12, (progress, env.worker_log())
    _counted_once(env, tournament)


def test_d6_bot_that_cannot_start_forfeits_and_its_opponents_wins_count(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    env = platform_env
    folder = tmp_path / "ghost"
    folder.mkdir()
    (folder / "arena-bot.toml").write_text('command = ["no-such-program-of-rummy-arena"]\n')
    (folder / "README").write_text("a bot whose program is missing\n")
    env.submit(folder, "ghost", GAME)
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    env.start_worker()
    tournament = _create(env, "ghost,random", 2)
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 0, run.stderr + env.worker_log()
    progress = env.store.tournament_progress(tournament)
    assert progress["done"] == 2 and progress["failed"] == 0, progress
    ghost = env.store.bot_by_name("ghost")
    assert ghost is not None
    ghost_version = env.store.bot_versions(ghost.id)[0].version.id
    for table in env.store.tournament_results(tournament):
        for seat in table.seats:
            if seat.version == ghost_version:
                assert seat.forfeit and seat.status == "crashed"
            else:
                assert seat.rank == 0 and not seat.forfeit
    match = env.store.list_matches(tournament_id=tournament, limit=1)[0]
    assert match.attempts == 1
    assert "no-such-program-of-rummy-arena" in (match.error or "")
    shown = env.arena("match", "show", str(match.id))
    assert "could not start" in shown.stdout, shown.stdout
    _counted_once(env, tournament)


def test_d6_bot_that_dies_before_joining_forfeits_and_the_match_says_why(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    """A bot process that starts and exits before it joins: its seat forfeits when the
    join time is up, the match is done, and its line says the exit code and the last
    line the bot wrote."""
    env = platform_env
    quitter = tmp_path / "quitter.py"
    quitter.write_text(
        "import sys\nprint('cannot find my weights file', file=sys.stderr)\nsys.exit(7)\n"
    )
    env.submit(quitter, "quitter", GAME)
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    env.start_worker()
    made = env.arena(
        "tournament", "create", "--game", GAME, "--bots", "quitter,random", "--games", "1",
        *FAST, "--clock", "join_ms=3000", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tournament = int(json.loads(made.stdout)["tournament"])
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 0, run.stderr + env.worker_log()
    _assert_the_quitter_is_noted(env, tournament)


def _assert_the_quitter_is_noted(env: PlatformEnv, tournament: int) -> None:
    """The quitter's one match is done, its seat forfeited as disconnected, and the
    match's line gives its exit code and the last line it wrote."""
    (match,) = env.store.list_matches(tournament_id=tournament)
    assert match.state == "done" and match.attempts == 1
    (table,) = env.store.tournament_results(tournament)
    quitter_seat = next(s for s in table.seats if s.status != "ok")
    assert quitter_seat.forfeit and quitter_seat.status == "disconnected"
    assert "quitter@v1): its bot process exited with code 7" in (match.error or ""), match.error
    assert "cannot find my weights file" in (match.error or "")


HELD_QUITTER = """\
import sys, time
from pathlib import Path
while not Path(__file__).with_name("go").exists():  # held until the test lets it go
    time.sleep(0.05)
print("cannot find my weights file", file=sys.stderr)
sys.exit(7)
"""


def test_d6_bot_that_dies_only_after_its_join_time_forfeits_and_the_match_says_why(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    """The other order: the join time is up, the referee has finished the match, and only
    then does the bot's process exit. The match's line still says its exit code and last
    line (the worker waits for the process of a seat that never joined)."""
    env = platform_env
    quitter = tmp_path / "held_quitter.py"
    quitter.write_text(HELD_QUITTER)
    env.submit(quitter, "quitter", GAME)
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    worker = env.start_worker()
    made = env.arena(
        "tournament", "create", "--game", GAME, "--bots", "quitter,random", "--games", "1",
        *FAST, "--clock", "join_ms=1000", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tournament = int(json.loads(made.stdout)["tournament"])
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(tournament), "--quiet",
         "--local-workers", "0"],
        env=env.env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:

        def folder() -> Path | None:  # the bot's, in the worker's pool (tests run as root)
            found = bot_folders(worker.pid, quitter.name)
            return next((path.parent for path in found), None)

        env.wait_for(lambda: folder() is not None, 120, "the bot's folder")

        def over_at_the_referee() -> bool:
            (match,) = env.store.list_matches(tournament_id=tournament)
            return "waiting up to" in env.worker_log() or match.state == "done"

        # the referee has answered: the worker waits for the process, or (unmended) has
        # noted the match without it
        env.wait_for(over_at_the_referee, 120, "the match to be over at the referee")
        (folder() or tmp_path).joinpath("go").touch()  # the bot may exit now
        _, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err + env.worker_log()
    _assert_the_quitter_is_noted(env, tournament)


def test_d6_failed_matches_fail_the_run_and_retry_puts_them_back_once(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.submit(EXAMPLES / "random_bot.py", "random", GAME)
    env.submit(EXAMPLES / "minimal_bot.py", "minimal", GAME)
    tournament = _create(env, "random,minimal", 3)
    # a worker handed in a record that did not fit its match: failed, never retried
    claimed = env.store.claim_match("a worker", tournament_id=tournament)
    assert claimed is not None
    env.store.fail_match(claimed.id, "a worker", "the record does not fit", retry=False)
    env.start_worker()
    run = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert run.returncode == 1, run.stderr
    assert f"1 match of tournament {tournament} failed" in run.stderr
    assert "the record does not fit" in run.stderr
    assert f"arena tournament retry {tournament}" in run.stderr
    again = env.arena("tournament", "retry", str(tournament))
    assert again.returncode == 0, again.stderr
    assert f"1 failed match queued again ({claimed.id})" in again.stdout
    twice = env.arena("tournament", "retry", str(tournament), "--json")
    assert json.loads(twice.stdout) == {"tournament": tournament, "queued_again": []}
    rerun = env.arena("tournament", "run", str(tournament), "--quiet", "--local-workers", "0")
    assert rerun.returncode == 0, rerun.stderr
    progress = env.store.tournament_progress(tournament)
    assert progress["done"] == 3 and progress["failed"] == 0
    _counted_once(env, tournament)


def test_d6_worker_stops_saying_why_when_no_referee_will_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_referee(**_: object) -> None:
        raise RefereeGone("the worker's referee did not start (it said 'port in use')")

    signals: list[int] = []
    monkeypatch.setattr(host, "LocalReferee", no_referee)
    monkeypatch.setattr(host, "RESTART_WAITS_S", (0.01, 0.01, 0.01))
    monkeypatch.setattr(host.os, "kill", lambda pid, sig: signals.append(sig))
    sandboxed = SimpleNamespace(sandbox=SimpleNamespace(on=True))  # a pool's, for its referee
    worker = host.Host(None, None, None, sandboxed, None)  # type: ignore[arg-type]
    worker.ready.clear()  # its referee has just died
    assert worker._restart_referee() is False
    assert worker.fatal is not None and "did not start again after 3 tries" in worker.fatal
    assert "port in use" in worker.fatal
    assert signals == [signal.SIGTERM]  # a warm shutdown, for its supervisor to act on
    assert worker._wait_ready() is False  # the tasks waiting for a referee give up


PLANTED_CONSUMER_FAULT = """
import celery.worker.consumer.consumer as consumer

def start(self):
    raise RuntimeError("planted consumer fault")

consumer.Consumer.start = start
"""


def test_d6_worker_whose_celery_consumer_fails_exits_non_zero(
    platform_env: PlatformEnv, tmp_path: Path
) -> None:
    """A Celery worker that stops on its own (an unrecoverable error: here a consumer that
    cannot start, as kombu's lost connections sometimes end) exits 1, so that a supervisor
    with ``Restart=on-failure`` starts it again; a clean stop exits 0."""
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "sitecustomize.py").write_text(PLANTED_CONSUMER_FAULT)
    env = {**platform_env.env, "PYTHONPATH": f"{planted}:{ROOT}"}
    failed = subprocess.run(
        [sys.executable, "-m", "arena", "worker", "--concurrency", "1"],
        env=env, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert failed.returncode == 1, failed.stderr
    assert "planted consumer fault" in failed.stderr
    assert "the Celery worker stopped" in failed.stderr

    clean = platform_env.start_worker(1, "--loglevel", "info")
    platform_env.wait_for(
        lambda: " ready." in platform_env.worker_log(), 60, "the worker to be ready"
    )
    clean.send_signal(signal.SIGTERM)
    assert clean.wait(60) == 0, platform_env.worker_log()
