"""The private Redis under ARENA_HOME is shared by the commands that use it, and the last
one to leave stops it, whichever started it (worker/broker.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from worker import broker


def test_the_last_command_to_leave_stops_the_server_whichever_started_it(
    tmp_path: Path,
) -> None:
    first, second = broker.EmbeddedRedis(tmp_path), broker.EmbeddedRedis(tmp_path)
    url = first.start()
    assert second.start() == url and second.pid() is None  # joined, not started
    first.stop()  # the command that started it ends first
    assert broker.answers(url)
    second.stop()
    assert not broker.answers(url)


def test_a_command_killed_outright_leaves_the_server_to_the_next_one(tmp_path: Path) -> None:
    starter = broker.EmbeddedRedis(tmp_path)
    url = starter.start()
    joiner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                from pathlib import Path
                from worker import broker
                broker.EmbeddedRedis(Path({str(tmp_path)!r})).start()
                print("joined", flush=True)
                time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert joiner.stdout is not None and joiner.stdout.readline() == "joined\n"
        starter.stop()
        assert broker.answers(url)  # the other command still uses it
        joiner.kill()  # its lock goes with it
        joiner.wait()
        assert broker.answers(url)  # nobody has left since
        late = broker.EmbeddedRedis(tmp_path)
        assert late.start() == url
        late.stop()
        assert not broker.answers(url)
    finally:
        joiner.kill()
        joiner.wait()
        broker.EmbeddedRedis(tmp_path)._stop_server()
