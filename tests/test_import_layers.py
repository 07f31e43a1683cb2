"""The import graph reads as layers: a module imports only from its own layer or the
ones below, and no modules import each other in a circle (module-level imports;
those under ``if TYPE_CHECKING`` and inside functions do not run at import time)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("referee", "bots", "worker", "arena")

#: Lowest first: each layer by the module names it holds (a name covers the modules
#: under it). The engines are pure (docs/architecture.md, decision 1): the layers up to
#: ``engines`` import no protobuf and no gRPC.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("settings and tables", ("referee.settings", "referee.tables", "referee.clock")),
    ("cards and the engine interface", ("referee.cards", "referee.melds", "referee.engine")),
    ("actions", ("referee.actions",)),
    ("engines", ("referee.games",)),
    # sampled and chosen positions, built through the engines' own constructors
    ("positions", ("referee.scenario",)),
    ("records", ("referee.record",)),
    ("the wire", ("referee.wire",)),
    (
        "the referee",
        (
            "referee.seats",
            "referee.sessions",
            "referee.watchdog",
            "referee.walltime",
            "referee.matchlog",
            "referee.runner",
            "referee.matches",
            "referee.auth",
            "referee.service",
            "referee",
        ),
    ),
    ("bots and the SDK", ("bots",)),
    ("the worker", ("worker",)),
    # decision 14: every operation, with who asks, below the front ends that call it
    ("the application layer", ("arena.app",)),
    ("the front ends: the command line, the web pages, the API", ("arena",)),
)
PURE_UP_TO = "positions"
IMPURE = ("grpc", "google.protobuf", "rummyarena")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "node_modules" in parts:
                continue
            name = ".".join(parts).removesuffix(".__init__")
            found[name] = path
    return found


MODULES = _modules()


def _runs_at_import(tree: ast.Module, *, functions: bool = False) -> Iterator[ast.AST]:
    """The nodes of a module's body that run when it is imported (not the bodies of
    functions, unless ``functions``, nor ``if TYPE_CHECKING`` blocks: imports for
    annotations only)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if not functions and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _imports(
    name: str, nodes: Callable[[ast.Module], Iterator[ast.AST]] = _runs_at_import
) -> set[str]:
    """The names a module imports in the ``nodes`` of it that are read (by default those
    that run at import time), ours resolved to modules."""
    out = set()
    for node in nodes(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    out.discard(name)
    return out


GRAPH = {name: _imports(name) for name in MODULES}


def layer_of(name: str) -> int:
    """The index in LAYERS of the layer holding ``name`` (the longest prefix wins)."""
    best, best_len = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    assert best >= 0, f"{name} is in no layer: add it to LAYERS"
    return best


def test_every_module_imports_only_its_layer_and_below() -> None:
    upward = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for name, targets in GRAPH.items()
        for target in targets
        if target in MODULES and layer_of(target) > layer_of(name)
    ]
    assert upward == []


def test_the_engines_import_no_protobuf_and_no_grpc() -> None:
    pure = next(i for i, (title, _) in enumerate(LAYERS) if title == PURE_UP_TO)
    impure = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        if layer_of(name) <= pure
        for target in targets
        if any(target == p or target.startswith(p + ".") for p in IMPURE)
    ]
    assert impure == []


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph.get(name, ())):
            if target not in graph:
                continue
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (circle := visit(target)) is not None:
                return circle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (circle := visit(name)) is not None:
            return circle
    return None


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert find_circle(GRAPH) is None


def test_the_checks_see_a_circle_and_an_upward_import() -> None:
    """The checks above can fail: a planted circle is found, and an engine importing
    the wire is an upward import."""
    planted = {name: set(targets) for name, targets in GRAPH.items()}
    planted["referee.cards"].add("referee.games.gin_hand")
    circle = find_circle(planted)
    assert circle is not None and circle[0] == circle[-1]
    assert layer_of("referee.wire.views") > layer_of("referee.games.gin_hand")
    assert layer_of("referee.settings") < layer_of("referee.auth") < layer_of("worker.app")
    assert layer_of("worker.store") < layer_of("arena.app.actors") < layer_of("arena.web.app")
    assert layer_of("arena.app.bots") < layer_of("arena.commands.bot")


FRONT_ENDS = (
    "arena.cli",
    "arena.commands",
    "arena.web",
    "arena.api",
    "arena.site",
    "arena.serving",
    "arena.remote",
    "arena.platform",
    "arena.bench",
)


def test_the_application_layer_imports_no_front_end_not_even_inside_a_function() -> None:
    """``arena.app`` sits below the front ends that call it (decision 14): none of its
    imports, wherever they are, reaches one of them."""
    found = []
    for name, path in MODULES.items():
        if layer_of(name) != layer_of("arena.app"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            found += [
                f"{name} imports {target}"
                for target in targets
                if any(target == p or target.startswith(p + ".") for p in FRONT_ENDS)
            ]
    assert found == []


def _runs_ever(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes of a module that may ever run: function bodies included."""
    return _runs_at_import(tree, functions=True)


def _all_imports(name: str) -> set[str]:
    """Every name a module imports, wherever the import is written (inside functions
    too; not those for annotations only), ours resolved to modules."""
    return _imports(name, _runs_ever)


FULL_GRAPH = {name: _all_imports(name) for name in MODULES}

#: The front ends (docs/architecture.md, decision 14): each parses, calls the application
#: layer and renders, and none imports another. ``arena.site`` puts the pages and the API
#: side by side for ``arena web``, and ``arena.serving`` serves it; the benchmarks
#: (``arena.bench``) measure the front ends, so they may import them.
FRONT_END_GROUPS: dict[str, tuple[str, ...]] = {
    "the command line": ("arena.cli", "arena.commands", "arena.remote", "arena.platform"),
    "the web pages": ("arena.web",),
    "the API": ("arena.api",),
}


def _group(name: str) -> str | None:
    for group, prefixes in FRONT_END_GROUPS.items():
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return group
    return None


def test_no_front_end_imports_another_not_even_inside_a_function() -> None:
    crossing = [
        f"{name} ({_group(name)}) imports {target} ({_group(target)})"
        for name, targets in FULL_GRAPH.items()
        if _group(name) is not None
        for target in targets
        if _group(target) not in (None, _group(name))
    ]
    assert crossing == []


def test_no_circle_even_through_imports_inside_functions() -> None:
    assert find_circle(FULL_GRAPH) is None
