"""What every test shares: no test reads the developer's own ``arena login`` (the user
commands would then call a remote platform), so the user's config folder is a fresh
one for the whole run; and the multi-host test says loudly when it could not run."""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="arena-test-config-")
os.environ.pop("ARENA_PLATFORM", None)


def pytest_configure(config: pytest.Config) -> None:
    """The marker of the multi-host test (tests/test_multihost.py)."""
    config.addinivalue_line(
        "markers", "multihost: builds hosts of network namespaces (needs root and `ip`)"
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say in a line of its own when the multi-host test was skipped because this machine
    cannot make network namespaces: a skip easily read past among the others."""
    for report in terminalreporter.stats.get("skipped", []):
        if "multihost" not in getattr(report, "keywords", {}):
            continue
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        terminalreporter.write_sep("!", reason.removeprefix("Skipped: "), red=True, bold=True)
