"""Session keys against the other users of a worker's host (docs/sandbox.md, "What a
bot is given"): after a real tournament on a real worker with the sandbox on, the keys
of the hosted bots' sessions are on no command line (``ps``), the referee's Unix socket
is in a folder no other user can enter, its TCP port (which every local user can reach)
takes no session key, and the socket takes no API key. Judged from outside: the keys
are read from the bot processes' environments as root, the listeners from the referee
process's command line and sockets. Each bot's socket is its session's own, and
refuses every other session's key."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterator

import grpc
import psutil
import pytest

from rummyarena.v1 import bot_pb2, bot_pb2_grpc
from tests.platform_support import EXAMPLES, PlatformEnv
from worker.sandbox import SOCKET

pytest_plugins = ["tests.store_fixtures", "tests.platform_support"]

GAME = "hollywood-gin"
#: Another user of the machine.
NOBODY = 65534


def _processes(root: psutil.Process) -> Iterator[psutil.Process]:
    for child in root.children(recursive=True):
        if child.status() != psutil.STATUS_ZOMBIE:
            yield child


def _session_keys(worker: psutil.Process) -> set[str]:
    """The session keys of the processes under the worker: each one's ARENA_SESSION_KEY,
    in its environment or (as ``bwrap --setenv`` would give it) on its command line."""
    keys = set()
    for process in _processes(worker):
        try:
            environ, args = process.environ(), process.cmdline()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        keys.add(environ.get("ARENA_SESSION_KEY", ""))
        keys.update(b for a, b in itertools.pairwise(args) if a == "ARENA_SESSION_KEY")
    return keys - {""}


def _own_sockets(worker: psutil.Process) -> dict[str, str]:
    """The socket each sandboxed bot is given (from its bubblewrap's command line), and
    the session key of the bot it is given to (from the bot's environment)."""
    given = {}
    for process in _processes(worker):
        args = process.cmdline()
        if SOCKET not in args or not args[0].endswith("bwrap"):
            continue
        if process.parent().cmdline() == args:
            continue  # bubblewrap's own child, in the sandbox (its root is the bot's)
        # bubblewrap runs in the sandboxes' mount namespace (worker.stage): its root
        # there is where the host reaches the socket it binds
        socket = f"/proc/{process.pid}/root{args[args.index(SOCKET) - 1]}"
        given[socket] = _session_keys(process).pop()
    return given


def _referee(worker: psutil.Process) -> tuple[str, int]:
    """The worker's referee: its Unix socket's path and its TCP port."""
    for process in _processes(worker):
        args = process.cmdline()
        if "referee" in args and "--unix" in args:
            ports = [
                c.laddr.port
                for c in process.net_connections("tcp")
                if c.status == psutil.CONN_LISTEN
            ]
            assert len(ports) == 1, ports
            return args[args.index("--unix") + 1], ports[0]
    raise AssertionError("the worker runs no referee with a Unix socket")


def _serve(target: str, request: bot_pb2.ServeRequest) -> grpc.RpcError:
    """The error a ``Serve`` call on ``target`` ends with (it must end with one)."""
    with grpc.insecure_channel(target) as channel:
        stream = bot_pb2_grpc.RefereeStub(channel).Serve(request, timeout=10)
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(stream))
    return refused.value


def test_session_keys_are_on_no_command_line_and_no_other_user_reaches_a_session(
    platform_env: PlatformEnv,
) -> None:
    env = platform_env
    env.submit(EXAMPLES / "random_bot.py", "ann", GAME)
    env.submit(EXAMPLES / "random_bot.py", "bob", GAME)
    env.play_tournament(GAME, ["ann", "bob"])
    # the pool keeps the bots' processes, with their sessions, after the tournament
    worker = psutil.Process(env.workers[0].pid)
    keys = _session_keys(worker)
    assert len(keys) >= 2, env.worker_log()

    # ps of every process on the host, its whole command lines, shows no key
    shown = subprocess.run(["ps", "-ww", "-eo", "args"], capture_output=True, text=True, check=True)
    for key in keys:
        assert key not in shown.stdout

    socket_path, port = _referee(worker)
    # another user cannot reach the socket: its folder is the worker's alone
    reach = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        "    s.connect(sys.argv[1])\n"
        "except OSError as exc:\n"
        "    print(type(exc).__name__)\n"
        "else:\n"
        "    print('connected')\n"
    )
    nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    as_nobody = subprocess.run(
        [*nobody, "/usr/bin/python3", "-c", reach, socket_path],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert as_nobody.stdout.strip() == "PermissionError", as_nobody
    # the TCP port, which every local user reaches, takes no session key
    for key in keys:
        refused = _serve(f"127.0.0.1:{port}", bot_pb2.ServeRequest(key=key, agent="thief"))
        assert refused.code() is grpc.StatusCode.PERMISSION_DENIED, refused
        assert "takes no session keys" in str(refused.details())
    # and the hosted bots' socket takes no API key (a remote bot's way in)
    refused = _serve(
        f"unix:{socket_path}",
        bot_pb2.ServeRequest(api_key="ak_made_up", bot="ann", game=GAME, agent="flood"),
    )
    assert refused.code() is grpc.StatusCode.PERMISSION_DENIED, refused
    assert "takes no API keys" in str(refused.details())
    # each hosted bot is given a socket of its session's own, which serves no other
    sockets = _own_sockets(worker)
    assert len(sockets) >= 2 and set(sockets.values()) == keys, (sockets, keys)
    assert socket_path not in sockets  # the referee's own socket is given to no bot
    for (path, _), (_, other) in itertools.permutations(sockets.items(), 2):
        refused = _serve(f"unix:{path}", bot_pb2.ServeRequest(key=other, agent="thief"))
        assert refused.code() is grpc.StatusCode.PERMISSION_DENIED, refused
        assert "serves one session alone" in str(refused.details())
    # the bots keep their sessions: none was taken over
    assert _session_keys(worker) == keys
