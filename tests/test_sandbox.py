"""The sandbox of hosted bots (docs/sandbox.md): hostile bots, started by a real bot pool
with a real referee, try each escape and each one fails. A bot reports what it could do
on its standard output, which the pool keeps; the test reads that report.

Runs where the machine can confine (bubblewrap and namespaces: root here); elsewhere it
fails, saying so, rather than passing unseen."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from referee import settings
from worker import sandbox
from worker.pool import BotPool
from worker.referee_link import LocalReferee, RefereeLink
from worker.stage import ROOT

#: Limits small enough to reach quickly.
LIMITS = sandbox.Limits(memory_mb=96, processes=24, cpu_s=20, file_mb=4, tmp_mb=8)


@dataclass
class Version:
    label: str
    manifest: dict[str, Any]


class Versions:
    """Bot versions made of one file each: Python, or JavaScript run by Node.js."""

    def __init__(self) -> None:
        self.files: dict[int, tuple[str, bytes]] = {}  # by version: (file name, its bytes)

    def add(self, source: str | bytes, name: str = "bot.py") -> int:
        """A version of one file: Python source, JavaScript (``.js``) or a program."""
        version = len(self.files) + 1
        data = source if isinstance(source, bytes) else textwrap.dedent(source).encode()
        self.files[version] = (name, data)
        return version

    def bot_version(self, version_id: int) -> Version:
        name = self.files[version_id][0]
        command = (
            ["node", name]
            if name.endswith(".js")
            else ["python", name]
            if name.endswith(".py")
            else [f"./{name}"]
        )
        return Version(f"hostile@v{version_id}", {"command": command})

    def bot_archive(self, version_id: int) -> bytes:
        name, data = self.files[version_id]
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w") as tar:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644 if name.endswith((".py", ".js")) else 0o755
            tar.addfile(info, io.BytesIO(data))
        return out.getvalue()


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[tuple[BotPool, Versions]]:
    box = sandbox.configure("on", LIMITS)  # fails here, saying why, where it cannot
    referee = LocalReferee()
    link = RefereeLink(referee.address, referee.secret, referee.socket)
    versions = Versions()
    bots = BotPool(versions, link, root=tmp_path, sandbox=box)
    try:
        yield bots, versions
    finally:
        bots.close()
        link.close()
        referee.stop()


def report_of(bots: BotPool, version: int, timeout: float = 60.0) -> dict[str, Any]:
    """The JSON line the bot printed last (its report)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in reversed((bots.log_tail(version) or "").splitlines()):
            if line.startswith("{"):
                return dict(json.loads(line))
        time.sleep(0.1)
    raise AssertionError(f"no report from the bot; it wrote: {bots.log_tail(version)!r}")


PROBE = """
    import json, os, socket, sys

    found = {}

    def attempt(name, action):
        try:
            found[name] = ["done", repr(action())[:200]]
        except BaseException as exc:
            found[name] = ["refused", type(exc).__name__ + ": " + str(exc)[:200]]

    def connect(address):
        s = socket.socket()
        s.settimeout(2)
        s.connect(address)
        return "connected"

    attempt("postgres", lambda: connect(("127.0.0.1", 5432)))
    attempt("redis", lambda: connect(("127.0.0.1", 6379)))
    attempt("outside", lambda: connect(("1.1.1.1", 53)))
    attempt("worker_environ", lambda: open(f"/proc/{WORKER}/environ", "rb").read())
    attempt("home", lambda: os.listdir(ARENA_HOME))
    attempt("pool", lambda: os.listdir(POOL))
    attempt("write_code", lambda: open("/bot/planted.py", "w").write("x"))
    attempt("write_tmp", lambda: open("/tmp/scratch", "w").write("ok"))
    attempt("write_home", lambda: open(os.path.expanduser("~/scratch"), "w").write("ok"))
    found["uid"] = os.getuid()
    found["processes"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    found["environment"] = sorted(os.environ)
    found["referee"] = os.environ.get("ARENA_REFEREE")
    attempt("referee_socket", lambda: connect_unix(os.environ["ARENA_REFEREE"][5:]))
    print(json.dumps(found), flush=True)
    import time
    time.sleep(600)
"""


def connect_unix_source() -> str:
    return """
    def connect_unix(path):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        s.connect(path)
        return "connected"
    """


def test_a_bot_reaches_its_referee_and_nothing_else_of_the_host(
    pool: tuple[BotPool, Versions], tmp_path: Path
) -> None:
    bots, versions = pool
    source = (
        f"WORKER = {os.getpid()}\nARENA_HOME = {str(settings.arena_home())!r}\n"
        f"POOL = {str(bots.root)!r}\n"
        + textwrap.dedent(connect_unix_source())
        + textwrap.dedent(PROBE)
    )
    version = versions.add(source)
    bots.session(version)
    found = report_of(bots, version)
    # no network but its referee
    for name in ("postgres", "redis", "outside"):
        assert found[name][0] == "refused", (name, found[name])
    assert found["referee"] == f"unix:{sandbox.SOCKET}"
    assert found["referee_socket"] == ["done", "'connected'"]
    # its own filesystem view: nothing of the worker's data, of other bots, its code read-only
    for name in ("worker_environ", "home", "pool", "write_code"):
        assert found[name][0] == "refused", (name, found[name])
    assert found["write_tmp"][0] == found["write_home"][0] == "done"
    # its own user and process view, and only the documented environment
    assert found["uid"] not in (0, os.getuid())
    assert len(found["processes"]) <= 3, found["processes"]  # bwrap's init, the bot, and so on
    assert set(found["environment"]) <= set(
        sandbox.bot_environment("k", "l", sandboxed=True, address="a")
    )
    assert "ARENA_REFEREE_SECRET" not in found["environment"]


def test_a_bot_that_forks_without_end_is_held_at_its_process_limit(
    pool: tuple[BotPool, Versions],
) -> None:
    bots, versions = pool
    version = versions.add(
        """
        import json, os, time
        started = 0
        for _ in range(200):
            try:
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
                started += 1
            except OSError:
                break
        print(json.dumps({"started": started}), flush=True)
        time.sleep(600)
        """
    )
    bots.session(version)
    found = report_of(bots, version)
    assert 0 < found["started"] < LIMITS.processes, found


def test_a_bot_that_allocates_without_end_is_stopped_by_its_memory_limit(
    pool: tuple[BotPool, Versions],
) -> None:
    bots, versions = pool
    version = versions.add(
        """
        import time
        print("allocating", flush=True)
        hog = []
        while True:
            hog.append(bytearray(8 << 20))
        """
    )
    bots.session(version)
    bot = bots.processes[version]
    bot.process.wait(60)
    note = bots.exit_note(version)
    assert note is not None and f"memory limit ({LIMITS.memory_mb} MiB)" in note, note


def test_a_bot_that_writes_without_end_is_stopped_at_its_file_and_tmp_sizes(
    pool: tuple[BotPool, Versions],
) -> None:
    bots, versions = pool
    version = versions.add(
        """
        import json, os, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so that the write fails, not the bot
        found = {}
        for name, path in (("file", "/tmp/big"), ("home", os.path.expanduser("~/big"))):
            written = 0
            try:
                with open(path, "wb") as f:
                    for _ in range(1024):
                        f.write(b"x" * (1 << 20))
                        f.flush()
                        written += 1
            except OSError as exc:
                found[name] = [written, type(exc).__name__]
            else:
                found[name] = [written, "wrote it all"]
            os.unlink(path)
        print(json.dumps(found), flush=True)
        import time
        time.sleep(600)
        """
    )
    bots.session(version)
    found = report_of(bots, version)
    for name in ("file", "home"):
        written, how = found[name]
        assert how != "wrote it all" and written <= LIMITS.tmp_mb, found


def test_nothing_a_bot_started_outlives_the_pools_stop(pool: tuple[BotPool, Versions]) -> None:
    bots, versions = pool
    version = versions.add(
        """
        import json, os, time
        if os.fork() == 0:  # a double-forked orphan in a session of its own
            os.setsid()
            if os.fork() == 0:
                time.sleep(3600)
            os._exit(0)
        print(json.dumps({"forked": True}), flush=True)
        time.sleep(3600)
        """
    )
    bots.session(version)
    report_of(bots, version)
    group = bots.processes[version].group
    assert group is not None
    uid = bots.sandbox.uid_of(version)
    mine = [psutil.Process(p) for p in group.pids_in()]  # the host's pids of its processes
    assert len([p for p in mine if p.uids().real == uid]) >= 2  # the bot and its orphan
    bots.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = [p for p in mine if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        if not left:
            break
        time.sleep(0.1)
    assert left == [], [p.cmdline() for p in left]


def test_a_worker_that_cannot_confine_refuses_unless_told_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where bubblewrap cannot make its namespaces, hosting bots is refused with what to
    do; ``ARENA_SANDBOX=off`` hosts them unconfined, and says so."""
    monkeypatch.setattr(sandbox, "bwrap", lambda: "/bin/false")
    with pytest.raises(sandbox.SandboxUnavailable) as refused:
        sandbox.configure("on")
    assert "cannot confine hosted bots" in str(refused.value)
    assert "ARENA_SANDBOX=off" in str(refused.value)
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    with pytest.raises(sandbox.SandboxUnavailable, match="no bubblewrap program"):
        sandbox.configure("on")
    off = sandbox.configure("off")
    assert not off.on and "unconfined" in off.describe()
    assert settings.load({"ARENA_SANDBOX": "off"}).sandbox == "off"
    with pytest.raises(settings.SettingsError, match="ARENA_SANDBOX must be on or off"):
        settings.load({"ARENA_SANDBOX": "maybe"})


def test_a_new_pool_removes_the_cgroups_of_workers_that_are_gone(
    pool: tuple[BotPool, Versions], tmp_path: Path
) -> None:
    """A worker killed outright cannot remove its bots' cgroups: the next pool on the host
    does, and leaves those of workers still alive."""
    import subprocess

    bots, versions = pool
    groups = bots.sandbox.cgroup_root
    assert groups is not None
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = f"arena-bots-{gone.pid}-test-v1-1"
    alive = f"arena-bots-{os.getpid()}-test-v1-1"
    for name in (dead, alive):
        groups.group(name, memory_mb=16, processes=4)
    assert {dead, alive} <= set(groups.names())
    BotPool(versions, bots.referee, root=tmp_path, sandbox=bots.sandbox).close()
    names = set(groups.names())
    assert dead not in names and alive in names
    groups.remove(alive)
    assert alive not in set(groups.names())


NAMESPACES = """
    import ctypes, json, os, subprocess, time

    libc = ctypes.CDLL(None, use_errno=True)
    found = {}
    for name, flag in (("user", 0x10000000), ("mount", 0x00020000), ("net", 0x40000000)):
        done = libc.unshare(flag)
        found[name] = "made" if done == 0 else os.strerror(ctypes.get_errno())
    tried = subprocess.run(["unshare", "--user", "--map-root-user", "true"], capture_output=True)
    found["unshare_program"] = [tried.returncode, tried.stderr.decode()[-200:]]
    print(json.dumps(found), flush=True)
    time.sleep(600)
"""


def test_a_bot_makes_no_namespace_of_its_own(pool: tuple[BotPool, Versions]) -> None:
    """docs/sandbox.md, "The kernel": no user namespace (nor any other) inside the
    sandbox. Judged from outside: every process of the bot is in the namespaces the
    sandbox made."""
    bots, versions = pool
    version = versions.add(NAMESPACES)
    bots.session(version)
    found = report_of(bots, version)  # it has tried everything
    (sandbox_pid,) = bots.pids()
    inside = psutil.Process(sandbox_pid).children(recursive=True)
    assert inside, "the bot's processes"
    for kind in ("user", "mnt", "net"):
        spaces = {os.readlink(f"/proc/{p.pid}/ns/{kind}") for p in inside}
        assert len(spaces) == 1, (kind, spaces, found)
    assert found["unshare_program"][0] != 0, found


def test_a_bots_mount_table_names_no_folder_of_the_host(
    pool: tuple[BotPool, Versions],
) -> None:
    """docs/sandbox.md, "A file system of its own": what a bot reads in its mount table
    (here read from outside, as root, in ``/proc/PID/mountinfo``) names no folder of the
    host's but the system's (``/usr``, files of ``/etc``) and the interpreter's: its code,
    socket and runtime come from the sandboxes' tmpfs, by their paths in it."""
    bots, versions = pool
    version = versions.add("import time\nprint('{}', flush=True)\ntime.sleep(600)\n")
    bots.session(version)
    report_of(bots, version)
    (sandbox_pid,) = bots.pids()
    inside = psutil.Process(sandbox_pid).children(recursive=True)
    table = Path(f"/proc/{inside[-1].pid}/mountinfo").read_text().splitlines()
    interpreter = set(sandbox._interpreter_paths())
    host = (str(ROOT), os.path.realpath(sys.prefix), f"{tempfile.gettempdir()}/arena-")
    staged = set()
    for line in table:
        fields, after = line.split(" - ")
        root, point = fields.split()[3:5]
        kind, source = after.split()[:2]
        for path in (root, point):
            assert not any(path.startswith(h) for h in host), line
            assert str(os.getpid()) not in path, line  # the worker's pid
        if source == "arena-stage":
            staged.add(point)
            assert root.split("/")[1] in ("python", "proto", "node", "bots", "sockets"), line
        elif kind not in ("tmpfs", "proc", "devtmpfs", "devpts"):  # a folder of the host's
            system = (root == point and root.startswith(("/usr/", "/etc/"))) or root == "/usr"
            assert (
                system
                or (root in interpreter and point == root)
                or (point == "/etc/localtime" and root.startswith("/usr/share/zoneinfo/"))
            ), line
    assert {sandbox.CODE, sandbox.SOCKET, sandbox.PYTHON_PACKAGES, sandbox.PROTO} <= staged


NODE_PROBE = """
    const fs = require("fs");
    const net = require("net");
    const { execFileSync } = require("child_process");
    const found = {};
    function attempt(name, action) {
      try {
        found[name] = ["done", String(action()).slice(0, 200)];
      } catch (error) {
        found[name] = ["refused", String(error).slice(0, 200)];
      }
    }
    attempt("worker_environ", () => fs.readFileSync(`/proc/${WORKER}/environ`));
    attempt("home", () => fs.readdirSync(ARENA_HOME));
    attempt("pool", () => fs.readdirSync(POOL));
    attempt("write_code", () => fs.writeFileSync("/bot/planted.js", "x"));
    attempt("write_tmp", () => fs.writeFileSync("/tmp/scratch", "ok"));
    attempt("user_namespace", () => execFileSync("unshare", ["--user", "--map-root-user", "true"]));
    found.uid = process.getuid();
    found.environment = Object.keys(process.env).sort();
    function connect(port) {
      return new Promise((resolve) => {
        const socket = net.connect({ host: "127.0.0.1", port, timeout: 2000 });
        socket.on("connect", () => { socket.destroy(); resolve(["done", "connected"]); });
        socket.on("error", (error) => resolve(["refused", String(error)]));
        socket.on("timeout", () => { socket.destroy(); resolve(["refused", "timeout"]); });
      });
    }
    Promise.all([connect(5432), connect(6379)]).then(([postgres, redis]) => {
      found.postgres = postgres;
      found.redis = redis;
      console.log(JSON.stringify(found));
      setTimeout(() => {}, 600000);
    });
"""


def test_a_node_bot_is_held_as_a_python_one_is(pool: tuple[BotPool, Versions]) -> None:
    """The same confinement whatever the bot's language: a JavaScript bot (Node.js) tries
    the network, the worker's files and a user namespace."""
    bots, versions = pool
    source = (
        f"const WORKER = {os.getpid()};\n"
        f"const ARENA_HOME = {json.dumps(str(settings.arena_home()))};\n"
        f"const POOL = {json.dumps(str(bots.root))};\n" + textwrap.dedent(NODE_PROBE)
    )
    version = versions.add(source, "bot.js")
    bots.session(version)
    found = report_of(bots, version)
    for name in ("postgres", "redis", "worker_environ", "home", "pool", "write_code"):
        assert found[name][0] == "refused", (name, found[name])
    assert found["user_namespace"][0] == "refused", found["user_namespace"]
    assert found["write_tmp"][0] == "done", found["write_tmp"]
    assert found["uid"] not in (0, os.getuid())
    assert set(found["environment"]) <= set(
        sandbox.bot_environment("k", "l", sandboxed=True, address="a")
    )


STATIC_PROBE = r"""
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *connect_to(int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    return connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? "done" : "refused";
}

int main(void) {
    const char *user = unshare(CLONE_NEWUSER) == 0 ? "done" : "refused";
    const char *mount = unshare(CLONE_NEWNS) == 0 ? "done" : "refused";
    int fd = open("/bot/planted", O_WRONLY | O_CREAT, 0644);
    printf("{\"postgres\": \"%s\", \"redis\": \"%s\", \"user_namespace\": \"%s\", "
           "\"mount_namespace\": \"%s\", \"write_code\": \"%s\", \"uid\": %d}\n",
           connect_to(5432), connect_to(6379), user, mount, fd >= 0 ? "done" : "refused",
           (int)getuid());
    fflush(stdout);
    sleep(600);
    return 0;
}
"""


def test_a_static_binary_is_held_as_a_python_one_is(
    pool: tuple[BotPool, Versions], tmp_path: Path
) -> None:
    """A bot that is a statically linked program (no interpreter, its own system calls
    made directly) meets the same walls: the filter and the namespaces are the kernel's,
    not the runtime's."""
    bots, versions = pool
    (tmp_path / "probe.c").write_text(STATIC_PROBE)
    built = subprocess.run(
        ["gcc", "-static", "-O1", "-o", str(tmp_path / "probe"), str(tmp_path / "probe.c")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    version = versions.add((tmp_path / "probe").read_bytes(), "probe")
    bots.session(version)
    found = report_of(bots, version)
    for name in ("postgres", "redis", "user_namespace", "mount_namespace", "write_code"):
        assert found[name] == "refused", (name, found)
    assert found["uid"] not in (0, os.getuid())
