"""The web pages read through the application layer (docs/architecture.md, decision 14):
no module of ``arena/web`` calls a method of the store or reads anything of it; it only
passes the store on to ``arena.app``, whose functions check who asks and hold back what
a duplicate deal still in play would tell (decision 13)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "arena" / "web"


def _is_store(node: ast.AST) -> bool:
    """Whether the expression ``node`` is a store as the pages name one: ``store``, or
    an attribute ``store`` of something (``self.store``, ``viewer.store``)."""
    return (isinstance(node, ast.Name) and node.id == "store") or (
        isinstance(node, ast.Attribute) and node.attr == "store"
    )


def store_uses(source: str) -> list[str]:
    """Each use of a store in ``source`` other than passing it on, as ``line: code``:
    anything read of it (a method called, or handed over to be called:
    ``store.match(1)``, ``run_in_threadpool(self.store.match, 1)``), or the store bound
    to another name, which would hide such reads from this check."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _is_store(node.value):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and (
            node.value is not None and _is_store(node.value)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not all(_is_store(t) for t in targets):
                found.append((node.lineno, ast.unparse(node)))
    return [f"{line}: {code}" for line, code in sorted(found)]


def test_the_web_pages_call_no_store_method() -> None:
    used = [
        f"{path.relative_to(ROOT)}:{use}"
        for path in sorted(WEB.rglob("*.py"))
        for use in store_uses(path.read_text())
    ]
    assert used == []


def test_the_check_sees_a_store_call() -> None:
    """The check can fail: each way a page could read the store itself is found, and
    passing the store to the application layer is not."""
    planted = """
def page(self, request):
    m = self.store.match(1)
    where = await run_in_threadpool(self.store.live_location, 1)
    held = store.held_matches([1])
    s = self.store
    found = pages.front(self.store, self.actor, tournaments=10, matches=15)
    self.store = store
"""
    assert [use.split(":")[0] for use in store_uses(planted)] == ["3", "4", "5", "6"]
