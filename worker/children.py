"""Child processes the platform starts (referees, bot processes, workers, Redis): they die
with the process that started them, even when it is killed, and are stopped with their
whole process group."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child before ``exec`` (``preexec_fn``): its own process group, and on Linux
    SIGTERM when the thread that started it dies (a killed worker leaves no orphans)."""
    os.setpgid(0, 0)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def stop_group(process: subprocess.Popen[bytes] | subprocess.Popen[str], grace: float) -> None:
    """SIGTERM to the process's group (it leads one, :func:`die_with_parent`), SIGKILL to
    the group if it has not exited after ``grace`` seconds; waits for it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(grace)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever the process left in its group
    process.wait()
