"""The sandboxes' own file system (``docs/sandbox.md``, "A file system of its own").

Everything a sandboxed bot is given from the host, other than the system's ``/usr``,
comes from one folder, the stage: a copy of the Python packages the bots' side imports
(the SDK, ``arena bot run`` and their packages), of the protocol's ``.proto`` files and
of the Node.js runtime, the bots' unpacked folders, and the sockets of their sessions.
When the worker is root the stage is a tmpfs mounted in a mount namespace of its own,
which only a holder process (and the bubblewrap it is entered for) is in: the host never
sees it, it goes with the worker, and a bot's mount table names its mounts by their
paths within that tmpfs (``/python``, ``/bots/...``), never a path of the host, where a
bind mount of a host folder names the folder's path on the host wherever it is mounted.
The worker reaches the stage through the holder's root (``/proc/PID/root``). A worker
that is not root has no mount namespace to give: its stage is a plain folder of its own.

:func:`get` is this process's stage, made at its first use and removed at exit.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import psutil

#: The most the stage's tmpfs may hold: the runtime (about 50 MB) and the unpacked
#: folders of the bots a worker hosts (an archive unpacks to at most 10 MiB). Memory is
#: used only as it is written.
SIZE = "4g"
#: A stage's folder on the host, before its owner's pid: ``/tmp/arena-stage-PID-...``.
PREFIX = "arena-stage-"
#: What the bots' Python side imports: its packages are what the stage's ``python``
#: folder holds (``arena bot run``, alone, serves a single-file bot's session:
#: :data:`worker.sandbox.BOT_RUN`).
BOT_MODULES = ("bots.sdk", "bots.sdk.client", "bots.sdk.helpers", "arena.commands.bot_run")
#: The project's own folders beside the packages it installs.
ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import json, sys
names, sys.argv = sys.argv[1:], ["arena"]
for name in names:
    __import__(name)
paths = set()
for name, module in list(sys.modules.items()):
    if "." in name or name.startswith(("__editable__", "_distutils_hack")):
        continue
    places = list(getattr(module, "__path__", None) or [])
    if not places and getattr(module, "__file__", None):
        places = [module.__file__]
    paths.update(places)
print(json.dumps(sorted(paths)))
"""


class StageError(RuntimeError):
    """The stage cannot be made (no tmpfs, no namespace, a copy that failed)."""


@dataclass
class Stage:
    """A folder the sandboxes' mounts come from: :attr:`outer`, where this process
    reaches it, is :attr:`inner` in the mount namespace :attr:`enter` starts a program
    in (the same folder, and no prefix, for a plain folder)."""

    outer: Path
    inner: Path
    enter: tuple[str, ...] = ()
    holder: subprocess.Popen[bytes] | None = None
    _names: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def private(self) -> bool:
        """Whether it is a file system of its own, in a namespace the host does not see."""
        return self.holder is not None

    def inside(self, outer: Path | str) -> str:
        """The path, in the sandboxes' namespace, of ``outer`` (a path under :attr:`outer`)."""
        return str(self.inner / Path(outer).relative_to(self.outer))

    def socket(self) -> Path:
        """A new path for a session's socket (short: a socket's path has 107 bytes)."""
        return self.outer / "sockets" / f"s{next(self._names)}.sock"

    def bots(self) -> Path:
        """The folder the bots' unpacked folders go in."""
        return self.outer / "bots"

    def remove(self) -> None:
        """Unmount and remove it (the holder's namespace goes with the holder)."""
        if self.holder is not None:
            if self.holder.stdin is not None:
                self.holder.stdin.close()  # the holder exits at the end of its input
            try:
                self.holder.wait(10)
            except subprocess.TimeoutExpired:
                self.holder.kill()
                self.holder.wait()
            shutil.rmtree(self.inner, ignore_errors=True)  # the empty mount point
        else:
            shutil.rmtree(self.outer, ignore_errors=True)


def _python_packages() -> list[str]:
    """The folders and files of the packages the bots' Python side imports (the
    project's and their dependencies'), found by importing them in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *BOT_MODULES],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise StageError(f"the bots' Python packages cannot be listed: {done.stderr[-300:]}")
    base = (Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve())
    packages = []
    for path in json.loads(done.stdout):
        resolved = Path(path).resolve()
        in_prefix = any(resolved.is_relative_to(b) for b in base)
        if "-packages" in resolved.parts[-2:] or resolved.parent.name.endswith("-packages"):
            packages.append(str(resolved))  # a dependency, from an environment's site-packages
        elif not in_prefix and resolved.is_relative_to(ROOT):
            packages.append(str(resolved))  # the project's own (an editable install)
    return packages


def _fill(stage: Stage) -> None:
    """Copy the runtime into ``stage``: ``python`` (the packages), ``proto``, ``node``."""
    python = stage.outer / "python"
    python.mkdir()
    for source in map(Path, _python_packages()):
        target = python / source.name
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
    shutil.copytree(ROOT / "proto", stage.outer / "proto", symlinks=True)
    node = ROOT / "runtimes" / "node"
    if node.is_dir():
        shutil.copytree(node, stage.outer / "node", symlinks=True)
    for name in ("bots", "sockets"):
        (stage.outer / name).mkdir()
    # bots, of other uids, read the runtime through their mounts; nobody reaches the stage
    os.chmod(python, 0o755)
    os.chmod(stage.outer, 0o700)


def _holder(point: Path) -> subprocess.Popen[bytes]:
    """A process in a new mount namespace, with a tmpfs mounted at ``point``, that waits
    for the end of its input (the worker's stop, or its death)."""
    script = 'mount -t tmpfs -o "size=$1,mode=0700" arena-stage "$0" && echo ready && exec cat'
    namespace = ("unshare", "--mount", "--propagation", "private", "--")
    holder = subprocess.Popen(
        [*namespace, "sh", "-c", script, str(point), SIZE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a terminal's signal to the worker's group is not its
    )
    assert holder.stdout is not None and holder.stderr is not None
    if holder.stdout.readline().strip() != b"ready":
        problem = holder.stderr.read().decode(errors="replace").strip()
        holder.wait()
        raise StageError(f"cannot mount the sandboxes' tmpfs: {problem or holder.returncode}")
    holder.stdout.close()
    holder.stderr.close()
    return holder


def remove_orphaned() -> list[Path]:
    """Remove what the stages of processes that are gone left (a killed worker cannot):
    an empty mount point, or a plain stage's folder; returns them."""
    removed = []
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        owner = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if owner.isdigit() and not psutil.pid_exists(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def make(private: bool | None = None) -> Stage:
    """A new stage, filled: private (a tmpfs of its own) when root, unless told."""
    if private is None:
        private = os.geteuid() == 0
    remove_orphaned()
    prefix = f"{PREFIX}{os.getpid()}-"
    if private:
        point = Path(tempfile.mkdtemp(prefix=prefix))
        try:
            holder = _holder(point)
        except (OSError, StageError):
            point.rmdir()
            raise
        outer = Path(f"/proc/{holder.pid}/root") / point.relative_to("/")
        stage = Stage(outer, point, ("nsenter", f"--mount=/proc/{holder.pid}/ns/mnt", "--"), holder)
    else:
        folder = Path(tempfile.mkdtemp(prefix=prefix))
        stage = Stage(folder, folder)
    try:
        _fill(stage)
    except BaseException:
        stage.remove()
        raise
    return stage


_lock = threading.Lock()
_stage: Stage | None = None


def get() -> Stage:
    """This process's stage, made at its first use; removed when the process exits."""
    global _stage
    with _lock:
        if _stage is None or (_stage.holder is not None and _stage.holder.poll() is not None):
            _stage = make()
            atexit.register(_stage.remove)
        return _stage
