"""Child processes the platform starts (referees, bot processes, workers): each leads its
own process group (stopped as a whole), and stops itself when the process that started it
is gone, even when that process was killed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping

#: Set in a child's environment to the pid of the process that started it: the child
#: stops itself (SIGTERM) when that process is gone, even when it was killed.
PARENT_ENV = "ARENA_EXIT_WITH_PARENT"
#: How long a child whose parent is gone has, after its SIGTERM, before it is killed.
ORPHAN_GRACE_S = 15.0


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) for a child that should stop when
    this process is gone: start it with ``process_group=0`` and this environment."""
    return {**(os.environ if env is None else env), PARENT_ENV: str(os.getpid())}


def exit_with_parent(grace_s: float = ORPHAN_GRACE_S) -> None:
    """In a child started with :func:`child_env`: SIGTERM to itself as soon as the
    process that started it is gone (checked every second), SIGKILL ``grace_s``
    later if it is still there. No fork-time hook is used:
    a process holding gRPC threads must not run Python code between fork and exec."""
    wanted = os.environ.pop(PARENT_ENV, "")
    if not wanted.isdigit():
        return
    parent = int(wanted)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)
        # a process whose main thread never gets back to its signal handler (a busy loop)
        # would outlive its parent: after a grace, go at once
        time.sleep(grace_s)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def stop_group(process: subprocess.Popen[bytes] | subprocess.Popen[str], grace: float) -> None:
    """SIGTERM to the process's group (it leads one: ``process_group=0``), SIGKILL to
    the group if it has not exited after ``grace`` seconds; waits for it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(grace)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever the process left in its group
    process.wait()
