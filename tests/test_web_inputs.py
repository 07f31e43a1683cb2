"""The web viewer's inputs (docs/viewer.md, "Inputs"): a path or query value that cannot
be a name or a number answers 400 or 404 on every route, never 500 (one check of the
request before any page sees it, and one parser per kind of value); an address or
headers too long to read answer 414 or 431 over a raw socket, never a reset."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import uvicorn
from starlette.testclient import TestClient

from arena import serving
from arena.bench.web import add_bots, store_played_match
from arena.web.app import create_app
from worker.store import Store

pytest_plugins = ["tests.store_fixtures"]

#: Text that is no name and no number (percent-encoded as sent): refused by the check of
#: the whole request, whatever it stands for.
NO_TEXT = (
    "%00",  # NUL: Postgres refuses it in text (it was a 500)
    "a%00b",
    "%ff",  # not UTF-8
    "%c0%80",  # an overlong NUL
    "%ed%a0%80",  # an encoded surrogate
    "%0a",
    "a%0db",
    "%1b%5b31m",  # an ANSI escape
    "%7f",
    "%e2%80%ae",  # right-to-left override
    "%ef%bb%bf",  # byte order mark
    "%e2%80%8b",  # zero-width space
)
#: Text that may be a name, but no number.
NO_NUMBER = (
    "%ef%bc%91",  # a full-width digit one
    "99999999999999999999999",  # past bigint
    "-1",
    "1e3",
    "0x10",
    "%201",
    "a" * 3000,
)
#: Routes with a value in their path, ``{}`` standing for it.
PATHS = (
    "/leaderboard/{}",
    "/tournaments/{}",
    "/bots/{}",
    "/matches/{}",
    "/matches/{}/live",
    "/matches/{}/live/events",
    "/api/matches/{}",
    "/api/matches/{}/export",
    "/api/matches/{}/steps/0",
    "/api/matches/MATCH/steps/{}",
    "/static/{}",
)
#: Routes with query values: the route and the names it reads.
QUERIES = (
    ("/matches", ("game", "bot", "tournament", "state")),
    ("/matches/MATCH", ("seat", "step")),
    ("/api/matches/MATCH", ("seat",)),
    ("/api/matches/MATCH/steps/1", ("seat",)),
)


@pytest.fixture
def web(store: Store) -> Iterator[tuple[TestClient, int]]:
    versions = add_bots(store, "hollywood-gin", 2)
    match = store_played_match(store, "hollywood-gin", versions, seed=3, options={"max_hands": 1})
    store.create_tournament("t", "hollywood-gin", versions)
    with TestClient(create_app(store), raise_server_exceptions=False) as client:
        yield client, match


@pytest.mark.parametrize("value", NO_TEXT + NO_NUMBER)
def test_a_value_that_is_no_name_or_number_answers_400_or_404(
    web: tuple[TestClient, int], value: str
) -> None:
    client, match = web
    asked = []
    for path in PATHS:
        asked.append(path.replace("MATCH", str(match)).format(value))
    for path, names in QUERIES:
        for name in names:
            asked.append(f"{path.replace('MATCH', str(match))}?{name}={value}")
    asked.append(f"/matches?bot=bot-0@v{value}")
    if value in NO_TEXT:  # as the name of a value no page reads: the same check
        asked.append(f"/matches?{value}=1")
    for url in asked:
        answer = client.get(url)
        assert answer.status_code in (400, 404), (url[:80], answer.status_code, answer.text[:300])
        assert "the page failed" not in answer.text and "Traceback" not in answer.text


def test_the_same_routes_answer_good_values(web: tuple[TestClient, int]) -> None:
    client, match = web
    for url in (
        "/leaderboard/hollywood-gin",
        "/tournaments/1",
        "/bots/bot-0",
        f"/matches/{match}?seat=1&step=3",
        f"/api/matches/{match}?seat=0",
        f"/api/matches/{match}/steps/2?seat=1",
        f"/api/matches/{match}/export",
        "/matches?game=hollywood-gin&bot=bot-1@v1&tournament=&state=done",
        "/matches?tournament=1&state=",
        "/matches?game=&bot=&tournament=all",
        "/static/replay.js",
    ):
        assert client.get(url).status_code == 200, url
    # a name or number of nothing: 404 with what is missing
    for url, words in (
        ("/bots/nobody", "no bot"),
        ("/matches?bot=nobody", "no bot"),
        ("/matches?game=chess", "no game"),
        ("/matches?tournament=77", "no tournament"),
        (f"/matches/{match}?seat=7", "no seat"),
        (f"/api/matches/{match}/steps/1?seat=7", "seat 7"),
    ):
        answer = client.get(url)
        assert answer.status_code == 404 and words in answer.text, (url, answer.text[:300])
    bad = client.get("/api/matches/1?seat=x")
    assert bad.status_code == 400 and bad.json()["error"] == "bad"


@contextlib.contextmanager
def served(app: Any) -> Iterator[int]:
    """``app`` served as ``arena web`` serves it (``arena.serving``) on a free port,
    in a thread of this process: the port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(serving.config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


CLOSE = b"Connection: close\r\n\r\n"


def exchange(port: int, request: bytes) -> bytes:
    """Send ``request`` whole over a raw socket and read the answer to its end; a reset
    connection fails the test."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def test_a_long_address_or_headers_answer_414_or_431(store: Store) -> None:
    app = create_app(store)
    with served(app) as port:
        for size in (10_000, 100_000, 1_000_000, 4_000_000):
            answer = exchange(
                port, b"GET /matches?bot=" + b"a" * size + b" HTTP/1.1\r\nHost: x\r\n" + CLOSE
            )
            assert answer.startswith(b"HTTP/1.1 414 "), (size, answer[:200])
        header = b"X-Big: " + b"b" * 1_000_000 + b"\r\n"
        answer = exchange(port, b"GET / HTTP/1.1\r\nHost: x\r\n" + header + CLOSE)
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        # a request that is merely wrong is still 400, and the server still answers
        assert exchange(port, b"NOT HTTP\r\n\r\n").startswith(b"HTTP/1.1 400 ")
        ok = exchange(
            port, b"GET /static/arena.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        assert ok.startswith(b"HTTP/1.1 200 ")


def test_arena_web_itself_answers_414_to_a_1_mb_address(store: Store, tmp_path: Path) -> None:
    """The command serves with the same protocol as the tests above (not a plain uvicorn
    configuration, which resets the connection); stopped with SIGTERM, it exits 0 and
    stops the private Redis it started."""
    import os
    import re
    import subprocess
    import sys

    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "ARENA_REDIS_URL"}
    web = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--port", "0"],
        env={**env, "ARENA_DATABASE_URL": store.url, "ARENA_HOME": str(home)},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert web.stderr is not None
        line = web.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found is not None, line
        answer = exchange(
            int(found.group(1)),
            b"GET /matches?bot=" + b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n" + CLOSE,
        )
        assert answer.startswith(b"HTTP/1.1 414 "), answer[:200]
        private = [
            p
            for p in psutil.process_iter(["cmdline"])
            if str(home) in " ".join(p.info["cmdline"] or [])
        ]
        assert private, "arena web started no private Redis under its ARENA_HOME"
        web.terminate()
        assert web.wait(20) == 0
        assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in private)
    finally:
        if web.poll() is None:
            web.kill()
            web.wait(20)


def test_a_1_gib_upload_is_answered_413_over_a_socket_without_being_sent(store: Store) -> None:
    """The API refuses a body over its limit from its Content-Length: the answer comes
    before the body is sent (here it never is), and the server answers the next request."""
    from arena.site import create_site

    with served(create_site(store)) as port:
        head = (
            b"POST /api/v1/bots/big/versions HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n"
        )
        answer = exchange(port, head + b'{"game": "hollywood-gin"')
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert b'"too_large"' in answer and b"1,073,741,824 bytes" in answer, answer[-400:]
        ok = exchange(port, b"GET /api/v1/bots HTTP/1.1\r\nHost: x\r\n" + CLOSE)
        assert ok.startswith(b"HTTP/1.1 200 "), ok[:200]
    assert store.bot_by_name("big") is None
