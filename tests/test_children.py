"""Children of the platform stop when the process that started them is gone, even when it
was killed, and even when they do not heed SIGTERM (worker/children.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

from tests.platform_support import ROOT

#: A child that ignores SIGTERM (as a bot stuck in a busy loop would) and sleeps.
CHILD = (
    "import signal, time\n"
    "from worker.children import exit_with_parent\n"
    "exit_with_parent(grace_s=1.0)\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "time.sleep(60)\n"
)
#: A parent that starts the child as the platform does, says its pid, and waits.
PARENT = (
    "import subprocess, sys, time\n"
    "from worker.children import child_env\n"
    f"child = subprocess.Popen([sys.executable, '-c', {CHILD!r}], env=child_env(),"
    " process_group=0)\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(60)\n"
)


def test_a_child_that_ignores_sigterm_is_gone_soon_after_its_parent_is_killed() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(1.5)  # the child runs, watching its parent
    assert psutil.pid_exists(child)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while psutil.pid_exists(child) and psutil.Process(child).status() != "zombie":
        assert time.monotonic() < deadline, "the orphaned child is still running"
        time.sleep(0.1)
