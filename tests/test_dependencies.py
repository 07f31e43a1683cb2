"""What the platform imports when a module loads is installed by ``pip install .`` alone,
without the ``dev`` extra: the container image (deploy/Containerfile) and an operator's
install get nothing else, and every role starts through ``arena``, which loads every
command's module. A module imported inside a function (an optional part, such as the
engine bench's OpenSpiel) is not checked here."""

from __future__ import annotations

import ast
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
#: The packages the project ships (pyproject.toml, [tool.setuptools]).
OURS = ("arena", "bots", "referee", "rummyarena", "worker")
PROJECT = "rummy-arena"


def runtime_closure() -> set[str]:
    """The distributions ``pip install .`` installs: the project's requirements outside
    its extras, the extras those name, and theirs, transitively."""
    seen: set[str] = set()
    todo: list[tuple[str, frozenset[str]]] = [(PROJECT, frozenset())]
    visited: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras = todo.pop()
        key = (canonicalize_name(name), extras)
        if key in visited:
            continue
        visited.add(key)
        seen.add(key[0])
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            wanted = extras or frozenset({""})
            if req.marker is not None and not any(
                req.marker.evaluate({"extra": extra}) for extra in wanted
            ):
                continue
            todo.append((req.name, frozenset(req.extras)))
    return seen


def imported_at_load(path: Path) -> set[str]:
    """The top-level modules ``path`` imports as it loads (its module body's imports, not
    those inside functions, ``if TYPE_CHECKING`` blocks or ``try`` blocks)."""
    found = set()
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_what_the_platform_imports_as_it_loads_is_a_runtime_dependency() -> None:
    installed = runtime_closure()
    assert {"grpcio", "psycopg", "celery"} <= installed  # the closure is read at all
    providers = metadata.packages_distributions()
    missing = {}
    for package in OURS:
        for path in sorted((ROOT / package).rglob("*.py")):
            for module in imported_at_load(path):
                if module in sys.stdlib_module_names or module in (*OURS, "__future__"):
                    continue
                dists = {canonicalize_name(d) for d in providers.get(module, [])}
                if not dists & installed:
                    missing.setdefault(module, []).append(str(path.relative_to(ROOT)))
    assert missing == {}, (
        "imported as the platform loads, but installed only by an extra (or not at all): "
        "add them to [project] dependencies in pyproject.toml: "
        + "; ".join(f"{m} (by {', '.join(p[:3])})" for m, p in sorted(missing.items()))
    )
