"""The CPU share of hosted bots (docs/sandbox.md, "Limits"): every bot process runs in a
cpu group of its own, of equal weight, under the one parent group of all bots, so bots
that spin share the CPU the referee leaves them and cannot starve it. Real bot pool,
real referee, real cgroups: the machine's cpu controller is asked where each process is,
not the pool's bookkeeping; and a bot past its CPU seconds is stopped, the note naming
that limit. Nothing here is timed."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from tests.test_sandbox import Versions, pool  # noqa: F401  (the fixture)
from worker import cgroups
from worker.pool import BotPool

SPIN = """
    import json
    print(json.dumps({"spinning": True}), flush=True)
    while True:
        pass
    """


def cpu_group_of(pid: int) -> str:
    """The path of the cpu group ``pid`` is in, as the kernel says (v1 or v2)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(",") or controllers == "":
            return path
    raise AssertionError(f"no cpu group for process {pid}")


def weight(folder: Path, version: cgroups.Version) -> int:
    setting, _ = cgroups.CPU_WEIGHT[version]
    return int((folder / setting).read_text())


def test_spinning_bots_each_get_an_equal_share_under_the_bots_parent_group(
    pool: tuple[BotPool, Versions],  # noqa: F811
) -> None:
    bots, versions = pool
    groups = bots.sandbox.cgroup_root
    assert groups is not None and groups.cpu is not None, "this machine has a cpu controller"
    spinners = [versions.add(SPIN), versions.add(SPIN)]
    for version in spinners:
        bots.session(version)
    _, default = cgroups.CPU_WEIGHT[groups.version]
    assert weight(groups.cpu, groups.version) == default  # all bots weigh as one group
    for version in spinners:
        group = bots.processes[version].group
        assert group is not None and group.cpu is not None
        assert group.cpu.parent == groups.cpu
        assert weight(group.cpu, groups.version) == default
        # the process enters its group as it starts, a moment after the pool returns
        deadline = time.monotonic() + 60
        while not (pids := group.pids_in()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids, "the bot's processes are in its group"
        for pid in pids:
            assert cpu_group_of(pid).rstrip("/").endswith(f"/{cgroups.PARENT}/{group.cpu.name}")


def test_a_bot_that_spins_past_its_cpu_seconds_is_stopped_and_the_note_says_so(
    tmp_path: Path,
) -> None:
    from tests.test_sandbox import LIMITS
    from worker import sandbox
    from worker.referee_link import LocalReferee, RefereeLink

    limits = dataclasses.replace(LIMITS, cpu_s=1)
    box = sandbox.configure("on", limits)
    referee = LocalReferee()
    link = RefereeLink(referee.address, referee.secret, referee.socket)
    versions = Versions()
    bots = BotPool(versions, link, root=tmp_path, sandbox=box)
    try:
        version = versions.add(SPIN)
        bots.session(version)
        bots.processes[version].process.wait(60)
        note = bots.exit_note(version)
        assert note is not None and "CPU time limit (1 s)" in note, note
    finally:
        bots.close()
        link.close()
        referee.stop()
