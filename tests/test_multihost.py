"""The platform over five hosts made of network namespaces (``arena.bench.hosts``;
docs/architecture.md, decisions 6 and 15): ``db`` runs Postgres and Redis, ``w1`` and
``w2`` each an ``arena worker`` with its referee and sandboxed bots (``w1`` also takes
remote bots over TLS), ``web`` the web app and the scheduler, and ``bot`` a remote bot
that dials ``w1`` with its owner's API key. Every client runs in a host and uses only the
hosts' addresses; the machine's own namespace cannot reach them (an ``unreachable``
route), and inside a host 127.0.0.1 has nothing of the platform's.

A tournament is played across both worker hosts. In its middle ``w2`` loses every
process at once (SIGKILL); its supervisor starts its worker again; later ``w2``'s link is
cut while it plays a match, for longer than its lease, until another host has played that
match again and committed it, and then restored: the worker that comes back is a zombie
whose finish the store refuses. The tournament completes, every match is counted exactly
once, the ratings equal a replay of the stored results (and ``arena ratings recompute``
changes nothing), and the standings the remote bot's owner reads through the web host's
API are the platform's.

It needs root and ``ip``; where the machine does not allow it the test is skipped and the
run's summary says so in a line of its own (``tests/conftest.py``).
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from arena.bench.hosts import HostedPlatform, Hosts, HostsUnavailable, Servers
from referee.wire import decode_record
from tests.platform_support import EXAMPLES, PLATFORM_BOTS
from worker.ratings import SeatResult, replay_elo
from worker.store import Store

pytestmark = pytest.mark.multihost

GAME = "hollywood-gin"
HOSTS = ("db", "w1", "w2", "web", "bot")
#: Games per pair of the round robin of four bots: 36 one-hand matches.
GAMES = 6
REMOTE_PORT = 50443
WEB_PORT = 8000
#: Short leases and sweeps, so that a lost host's matches come back quickly; short drain
#: tasks, so that the sweep's task finds a free worker thread soon.
SETTINGS = {
    "ARENA_LEASE_S": "3",
    "ARENA_SWEEP_S": "1",
    "ARENA_DRAIN_S": "5",
    # one secret for every host, as deploy/README.md asks: the web host's live view
    # calls the worker hosts' referees with it
    "ARENA_REFEREE_SECRET": "the-multi-host-test-s-own-secret",
}
#: The skip reason's start, which the summary line of tests/conftest.py repeats.
DID_NOT_RUN = "multi-host test did not run"


@pytest.fixture
def hosts() -> Iterator[Hosts]:
    """The five hosts, removed at the end however the test ends."""
    made = Hosts(HOSTS)
    try:
        made.start()
    except HostsUnavailable as exc:
        pytest.skip(f"{DID_NOT_RUN}: {exc}")
    try:
        yield made
    finally:
        made.close()


def _certificate(folder: Path, address: str) -> tuple[Path, Path]:
    """A certificate for ``address`` that is its own CA, and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, address)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(address))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return folder / "cert.pem", folder / "key.pem"


class Notices:
    """Every notice published on a tournament's channel, heard from a host, in order."""

    def __init__(self, hosts: Hosts, name: str, url: str, channel: str) -> None:
        self.heard: list[dict[str, Any]] = []
        self.stop = threading.Event()
        ready = threading.Event()

        def listen() -> None:
            with hosts.entered(name):
                client = redis.Redis.from_url(url)
                pubsub = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
                pubsub.subscribe(channel)
            ready.set()
            try:
                while not self.stop.is_set():
                    message = pubsub.get_message(timeout=0.5)
                    if message is not None:
                        self.heard.append(json.loads(message["data"]))
            finally:
                pubsub.close()
                client.close()

        self.thread = threading.Thread(target=listen, daemon=True)
        self.thread.start()
        assert ready.wait(30), "the notice listener did not subscribe"

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)


def _wait(predicate: Callable[[], Any], timeout: float, what: str, logs: Callable[[], str]) -> Any:
    """Poll ``predicate()`` until it gives something true, and give that; fail naming
    ``what``, with the tail of every host's logs."""
    deadline = time.monotonic() + timeout
    while not (found := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout} s waiting for {what}\n{logs()[-8000:]}"
            )
        time.sleep(0.1)
    return found


def _running(store: Store, tournament: int) -> list[tuple[int, str, int, list[int], bool]]:
    """The tournament's running matches: id, holder, attempts, seats, whether its play
    has begun on its referee (its live location is stored)."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT m.id, m.lease_holder, m.attempts,"
            " array_agg(s.bot_version_id ORDER BY s.seat), m.live_referee IS NOT NULL"
            " FROM matches m JOIN match_seats s ON s.match_id = m.id"
            " WHERE m.tournament_id = %s AND m.state = 'running'"
            " GROUP BY m.id ORDER BY m.id",
            (tournament,),
        ).fetchall()
    return [(int(i), str(h), int(a), [int(v) for v in s], bool(live)) for i, h, a, s, live in rows]


def _version(store: Store, name: str) -> int | None:
    bot = store.bot_by_name(name)
    if bot is None:
        return None
    versions = store.bot_versions(bot.id)
    return versions[-1].version.id if versions else None


def _counted_once(store: Store, tournament: int) -> None:
    """Every match of the tournament is done with one record and its seat results; each
    rated seat has one history row; each bot's games in the ratings table equal its seats
    in done matches; no match outside ``done`` has a record."""
    with store.pool.connection() as conn:
        states = conn.execute(
            "SELECT state, count(*) FROM matches WHERE tournament_id = %s GROUP BY state",
            (tournament,),
        ).fetchall()
        assert dict(states) == {"done": 4 * 3 // 2 * GAMES}, states
        unrecorded = conn.execute(
            "SELECT m.id FROM matches m LEFT JOIN match_records r ON r.match_id = m.id"
            " WHERE m.state = 'done' AND r.match_id IS NULL"
        ).fetchall()
        assert unrecorded == []
        stray = conn.execute(
            "SELECT r.match_id FROM match_records r JOIN matches m ON m.id = r.match_id"
            " WHERE m.state <> 'done'"
        ).fetchall()
        assert stray == []
        unranked = conn.execute(
            "SELECT s.match_id FROM match_seats s JOIN matches m ON m.id = s.match_id"
            " WHERE m.state = 'done' AND s.rank IS NULL"
        ).fetchall()
        assert unranked == []
        doubled = conn.execute(
            "SELECT match_id, bot_version_id, count(*) FROM match_seats"
            " WHERE rating_after IS NOT NULL GROUP BY match_id, bot_version_id"
            " HAVING count(*) > 1"
        ).fetchall()
        assert doubled == []
        history = conn.execute(
            "SELECT count(*) FROM match_seats WHERE rating_after IS NOT NULL"
        ).fetchone()
        seats = conn.execute(
            "SELECT count(*) FROM match_seats s JOIN matches m ON m.id = s.match_id"
            " WHERE m.state = 'done'"
        ).fetchone()
        assert history == seats
        games: dict[int, int] = dict(
            conn.execute("SELECT bot_version_id, games FROM ratings").fetchall()
        )
        played: dict[int, int] = dict(
            conn.execute(
                "SELECT s.bot_version_id, count(DISTINCT s.match_id) FROM match_seats s"
                " JOIN matches m ON m.id = s.match_id WHERE m.state = 'done'"
                " GROUP BY s.bot_version_id"
            ).fetchall()
        )
        assert games == played


def _replayed_ratings(store: Store) -> dict[Any, float]:
    """The Elo table replayed from the stored results, in completion order."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT m.id, array_agg(s.bot_version_id ORDER BY s.seat),"
            " array_agg(s.rank ORDER BY s.seat), array_agg(s.forfeit ORDER BY s.seat)"
            " FROM matches m JOIN match_seats s ON s.match_id = m.id"
            " WHERE m.game = %s AND m.finish_seq IS NOT NULL"
            " GROUP BY m.id, m.finish_seq ORDER BY m.finish_seq",
            (GAME,),
        ).fetchall()
    results = [
        [SeatResult(p, r, f) for p, r, f in zip(players, ranks, forfeits, strict=True)]
        for _, players, ranks, forfeits in rows
    ]
    return replay_elo(results, k=store.elo_k)


def test_d6_tournament_over_two_worker_hosts_survives_a_killed_host_and_a_cut_link(
    hosts: Hosts, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers = Servers(hosts, "db", durable=False).start()
    platform = HostedPlatform(hosts, servers, settings=dict(SETTINGS))
    logs = platform.logs
    store = platform.open_store("web")
    w1, w2, web = hosts["w1"], hosts["w2"], hosts["web"]
    try:
        for name, path in (
            ("slow", PLATFORM_BOTS / "slow_bot.py"),
            ("random", EXAMPLES / "random_bot.py"),
            ("minimal", EXAMPLES / "minimal_bot.py"),
        ):
            done = platform.arena("web", "bot", "submit", str(path), "--name", name,
                                  "--game", GAME, "--json")  # fmt: skip
            assert done.returncode == 0, done.stderr
        made = platform.arena("web", "user", "create", "ann", "--json")
        assert made.returncode == 0, made.stderr
        key = str(json.loads(made.stdout)["key"])
        cert, cert_key = _certificate(platform.home("w1"), w1.address)

        remote = f"{w1.address}:{REMOTE_PORT}"
        w1_worker = platform.start(
            "w1", "worker", "--concurrency", "2", "--node-name", "w1@%h", "--remote", remote,
            "--tls-cert", str(cert), "--tls-key", str(cert_key), "--referee-host", w1.address,
        )  # fmt: skip
        first_w2 = platform.start(
            "w2", "worker", "--concurrency", "1", "--node-name", "w2@%h",
            "--referee-host", w2.address,
        )  # fmt: skip
        platform.start("web", "web", "--host", web.address, "--port", str(WEB_PORT))
        platform.start("web", "scheduler")
        platform.start(
            "bot", "bot", "run", str(EXAMPLES / "random_bot.py"), "--platform", remote,
            "--name", "annr", "--game", GAME, "--tls-ca", str(cert),
            servers=False, ARENA_API_KEY=key,
        )  # fmt: skip
        version = _wait(lambda: _version(store, "annr"), 120, "the remote bot to dial in", logs)
        _wait(
            lambda: store.bot_version(version).qualification == "qualified",
            180,
            "the remote bot's qualification over its connection",
            logs,
        )
        _wait(lambda: store.remote_online([version]), 60, "the remote bot online", logs)

        made = platform.arena(
            "web", "tournament", "create", "--game", GAME, "--bots", "slow,random,minimal,annr",
            "--games", str(GAMES), "--option", "max_hands=1", "--json",
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        tournament = int(json.loads(made.stdout)["tournament"])
        monkeypatch.setenv("ARENA_REDIS_PREFIX", platform.prefix)
        from worker.notices import tournament_channel

        notices = Notices(hosts, "web", servers.redis_url, tournament_channel(tournament))
        try:
            run = platform.start(
                "web", "tournament", "run", str(tournament), "--quiet", "--local-workers", "0"
            )
            players = _play_through_faults(
                hosts, platform, store, tournament, (w1_worker.pid, first_w2.pid), notices, version
            )
            _wait(lambda: run.poll() is not None, 300, "the tournament run to end", logs)
        finally:
            notices.close()
        assert run.returncode == 0, logs()[-8000:]

        # every match counted once; the ratings are the stored results replayed
        _counted_once(store, tournament)
        online = {r.bot_version_id: r.rating for r in store.ratings(GAME)}
        assert online == _replayed_ratings(store)  # exactly, not approximately
        redone = platform.arena("web", "ratings", "recompute", "--game", GAME, "--json")
        assert redone.returncode == 0, redone.stderr
        assert {r.bot_version_id: r.rating for r in store.ratings(GAME)} == online
        # both worker hosts played: the remote bot's matches on w1, others on w2
        assert {w1.name, w2.name} <= players, players
        remote_seats = [
            seat.status
            for table in store.tournament_results(tournament)
            for seat in table.seats
            if seat.version == version
        ]
        assert len(remote_seats) == 3 * GAMES
        # what the remote bot's owner reads through the web host's API is the platform's
        here = platform.arena("web", "tournament", "standings", str(tournament), "--json")
        far = platform.arena(
            "bot", "tournament", "standings", str(tournament), "--json", servers=False,
            ARENA_PLATFORM=f"http://{web.address}:{WEB_PORT}", ARENA_API_KEY=key,
        )  # fmt: skip
        assert here.returncode == 0 and far.returncode == 0, here.stderr + far.stderr
        assert json.loads(far.stdout) == json.loads(here.stdout)
    finally:
        store.close()


def _first_live_event(hosts: Hosts, page: str) -> str:
    """The kind of the first event the live view at ``page`` sends (``event``: one of
    the match's; ``error`` or ``unavailable``: it could not follow it), read from the
    web host as a browser there would."""
    import urllib.request

    with hosts.entered("web"), urllib.request.urlopen(f"{page}/live/events", timeout=60) as sent:
        for raw in sent:
            line = raw.decode().strip()
            if line.startswith("event: "):
                return line.removeprefix("event: ")
    return "nothing"


def _play_through_faults(
    hosts: Hosts,
    platform: HostedPlatform,
    store: Store,
    tournament: int,
    workers: tuple[int, int],
    notices: Notices,
    remote_version: int,
) -> set[str]:
    """Kill ``w2`` in the middle of a match, start its worker again, cut its link while it
    plays another until that match is played again elsewhere, restore it, and see the
    zombie's finish refused. Returns the hosts seen holding matches."""
    logs = platform.logs
    hostname = socket.gethostname()
    owners = {"w1": workers[0], "w2": workers[1]}
    seen: set[str] = set()

    def holder_host(holder: str) -> str | None:
        for name, pid in owners.items():
            if holder.startswith(f"{hostname}/{pid}/"):
                return name
        return None

    def running_on(name: str, *, slow: int | None = None) -> tuple[int, str, int] | None:
        for match_id, holder, attempts, seats, live in _running(store, tournament):
            host = holder_host(holder)
            if host is not None:
                seen.add(host)
            if host == name and live and (slow is None or slow in seats):
                return match_id, holder, attempts
        return None

    slow = _version(store, "slow")
    assert slow is not None

    # 0. the web host shows a match played on w1 as it is played: its live view dials
    # w1's referee at the address the match's row records
    found = _wait(lambda: running_on("w1", slow=slow), 120, "a slow match on w1", logs)
    web = hosts["web"]
    first = _first_live_event(hosts, f"http://{web.address}:{WEB_PORT}/matches/{found[0]}")
    assert first == "event", (
        f"the live view of match {found[0]} began with {first}\n" + logs()[-4000:]
    )

    # 1. w2 loses every process at once while it plays a match
    found = _wait(lambda: running_on("w2"), 120, "a match played on w2", logs)
    killed_match, _, killed_attempts = found
    killed = hosts.kill("w2")
    assert workers[1] in killed and not hosts.pids("w2"), killed
    _wait(
        lambda: (
            (m := store.match(killed_match)) is not None
            and m.state == "done"
            and m.attempts > killed_attempts
        ),
        180,
        f"match {killed_match}, lost with w2, played again",
        logs,
    )
    # its supervisor starts its worker again
    again = platform.start("w2", "worker", "--concurrency", "1", "--node-name", "w2@%h")
    owners["w2"] = again.pid

    # 2. w2's link is cut while it plays a match with the slow bot (seconds long, so
    # not in the middle of its commit), until another host has played it again
    found = _wait(lambda: running_on("w2", slow=slow), 180, "a slow match on w2 again", logs)
    zombie_match, zombie_holder, zombie_attempts = found
    heard_before = len(notices.heard)
    hosts.cut("w2")
    try:
        replayed = _wait(
            lambda: (m := store.match(zombie_match)) is not None and m.state == "done" and m,
            180,
            f"match {zombie_match}, held by the cut-off w2, played again elsewhere",
            logs,
        )
        assert replayed.attempts == zombie_attempts + 1
        record = decode_record(store.record(zombie_match))
        assert record.match_id.startswith(f"m{zombie_match}a{zombie_attempts + 1}-")
        assert not record.match_id.endswith(zombie_holder[-6:])
    finally:
        hosts.restore("w2")

    # 3. the zombie comes back and hands the match in: the host that played it again
    # said "done"; the zombie's notice says "lost" (the store found the claim no longer
    # its attempt's), and nothing of the match changed
    def about_it() -> list[str]:
        heard = notices.heard[heard_before:]
        return [n["state"] for n in heard if n["match_id"] == zombie_match]

    _wait(lambda: len(about_it()) >= 2, 240, f"the zombie's finish of match {zombie_match}", logs)
    assert sorted(about_it()) == ["done", "lost"], about_it()
    after = store.match(zombie_match)
    assert after is not None and after.state == "done"
    assert after.finish_seq == replayed.finish_seq and after.attempts == replayed.attempts
    assert decode_record(store.record(zombie_match)).match_id == record.match_id
    assert store.remote_online([remote_version])  # the remote bot is on w1 still
    return seen
