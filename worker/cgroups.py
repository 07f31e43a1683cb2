"""A small layer over Linux control groups, v1 (a hierarchy per controller) or v2 (one
unified hierarchy), for what the sandbox needs of them (:mod:`worker.sandbox`): a group
per bot process with a memory and a process limit and an equal share of the CPU,
entered before the bot's program starts, asked afterwards whether a limit stopped it,
killed as a whole and removed.

The CPU share: every bot's group gets the same weight, and the bots' parent group
(:data:`PARENT`) the default weight of one group, so all the bots of a host together
weigh, against the worker and its referee, as one process does: a bot that spins can
slow the other bots of its host no more than any bot may, and cannot starve the referee
that times them. Where the machine has no cpu controller the share is left out (the
rlimit on CPU seconds still holds).

Nothing here runs between fork and exec: a process enters its group by a shell that
writes its own pid to the group's ``cgroup.procs`` files and then executes the bot's
command (:meth:`Group.enter_command`)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

#: Where the cgroup file systems are mounted, and the folder of the platform's groups.
MOUNT = Path("/sys/fs/cgroup")
PARENT = "rummy-arena"
#: The CPU weight of each bot's group and of the bots' parent group: the default of
#: each version (v1 ``cpu.shares``, v2 ``cpu.weight``).
CPU_WEIGHT = {"v1": ("cpu.shares", 1024), "v2": ("cpu.weight", 100)}

Version = Literal["v1", "v2"]


@dataclass(frozen=True, slots=True)
class Root:
    """Where this machine's groups for bots are made: the folder per controller
    (``memory``, ``pids`` and, where the machine has it, ``cpu``; in v2 all are the one
    unified folder)."""

    version: Version
    memory: Path
    pids: Path
    cpu: Path | None = None

    def _folders(self, name: str) -> tuple[Path, Path, Path | None]:
        return self.memory / name, self.pids / name, None if self.cpu is None else self.cpu / name

    def group(self, name: str, *, memory_mb: int, processes: int) -> Group:
        """A new group ``name`` with those limits (an old one of that name is removed)."""
        group = Group(self.version, *self._folders(name))
        for folder in group.folders():
            _remove(folder)
            folder.mkdir(parents=True)
        if group.cpu is not None:
            setting, weight = CPU_WEIGHT[self.version]
            (group.cpu / setting).write_text(str(weight))
        if self.version == "v2":
            (group.memory / "memory.max").write_text(str(memory_mb << 20))
            if (group.memory / "memory.swap.max").exists():  # no escape into swap
                (group.memory / "memory.swap.max").write_text("0")
            (group.pids / "pids.max").write_text(str(processes))
        else:
            (group.memory / "memory.limit_in_bytes").write_text(str(memory_mb << 20))
            swap = group.memory / "memory.memsw.limit_in_bytes"
            if swap.exists():  # memory and swap together: no escape into swap
                with contextlib.suppress(OSError):
                    swap.write_text(str(memory_mb << 20))
            (group.pids / "pids.max").write_text(str(processes))
        return group

    def names(self) -> list[str]:
        """The names of the groups made here (by any worker of this host)."""
        found: set[str] = set()
        for folder in {self.memory, self.pids} | ({self.cpu} if self.cpu else set()):
            with contextlib.suppress(OSError):
                found.update(p.name for p in folder.iterdir() if p.is_dir())
        return sorted(found)

    def remove(self, name: str) -> None:
        """Kill what is left in the group ``name`` and remove it."""
        Group(self.version, *self._folders(name)).remove()


@dataclass(frozen=True, slots=True)
class Group:
    """One bot process's group (its memory, pids and cpu folders: the same one in v2;
    no cpu folder where the machine has no cpu controller)."""

    version: Version
    memory: Path
    pids: Path
    cpu: Path | None = None

    def folders(self) -> list[Path]:
        """The group's folders, each once."""
        return sorted({self.memory, self.pids} | ({self.cpu} if self.cpu is not None else set()))

    def enter_command(self, command: list[str]) -> list[str]:
        """``command`` run by a shell that first moves itself into this group."""
        procs = [str(folder / "cgroup.procs") for folder in self.folders()]
        script = (
            'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; '
            'shift; exec "$@"'
        )
        return ["/bin/sh", "-c", script, "sh", *procs, "--", *command]

    def pids_in(self) -> list[int]:
        """The processes in the group now."""
        found: set[int] = set()
        for folder in self.folders():
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
        return sorted(found)

    def stopped_by(self) -> str | None:
        """Which limit stopped a process of the group, if one did: ``memory`` (the
        out-of-memory killer ran in it) or ``processes`` (a fork was refused)."""
        if self.version == "v2":
            events = _counters(self.memory / "memory.events")
            if events.get("oom_kill", 0) > 0 or events.get("oom", 0) > 0:
                return "memory"
        else:
            oom = _counters(self.memory / "memory.oom_control")
            # an older kernel counts no kills: the limit reached, then, says it
            killed = (
                oom["oom_kill"] if "oom_kill" in oom else _number(self.memory / "memory.failcnt")
            )
            if killed > 0:
                return "memory"
        if _counters(self.pids / "pids.events").get("max", 0) > 0:
            return "processes"
        return None

    def kill(self) -> None:
        """SIGKILL every process of the group, until none is left (a few tries: a fork
        may race the kill)."""
        if self.version == "v2" and (self.pids / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                (self.pids / "cgroup.kill").write_text("1")
        for _ in range(50):
            left = self.pids_in()
            if not left:
                return
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def remove(self) -> None:
        """Kill what is left in the group and remove it."""
        self.kill()
        for folder in self.folders():
            _remove(folder)


def root() -> Root | None:
    """Where groups for bots can be made here, or None (no memory and pids controllers,
    or no right to make groups: not root, and no delegated group)."""
    if (MOUNT / "cgroup.controllers").exists():  # v2 unified
        parent = MOUNT / PARENT
        try:
            parent.mkdir(exist_ok=True)
            available = set((MOUNT / "cgroup.controllers").read_text().split())
            if not {"memory", "pids"} <= available:
                return None
            wanted = " ".join(f"+{c}" for c in ("memory", "pids", "cpu") if c in available)
            (MOUNT / "cgroup.subtree_control").write_text(wanted)
            (parent / "cgroup.subtree_control").write_text(wanted)
        except OSError:
            return None
        return Root("v2", parent, parent, parent if "cpu" in available else None)
    memory, pids, cpu = MOUNT / "memory", MOUNT / "pids", MOUNT / "cpu"
    if not ((memory / "cgroup.procs").exists() and (pids / "cgroup.procs").exists()):
        return None
    try:
        for folder in (memory / PARENT, pids / PARENT):
            folder.mkdir(exist_ok=True)
    except OSError:
        return None
    shared: Path | None = None
    with contextlib.suppress(OSError):  # the share is left out where it cannot be had
        if (cpu / "cpu.shares").exists():
            (cpu / PARENT).mkdir(exist_ok=True)
            (cpu / PARENT / "cpu.shares").write_text(str(CPU_WEIGHT["v1"][1]))
            shared = cpu / PARENT
    return Root("v1", memory / PARENT, pids / PARENT, shared)


def _remove(folder: Path) -> None:
    """Remove an (empty of processes) group folder; a busy one is left."""
    if not folder.exists():
        return
    for _ in range(50):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # its last processes are still exiting
            time.sleep(0.02)


def _counters(path: Path) -> dict[str, int]:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    out = {}
    for line in lines:
        key, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            out[key] = int(value)
    return out


def _number(path: Path) -> int:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return 0
