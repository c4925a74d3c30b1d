"""The shared core knows no workspace: a new workspace plugs into it, never the other way."""

import ast
from pathlib import Path

from webapp import ROOT

CORE = ("review", "ai", "jobs")
WORKSPACES = ("cultures", "tables", "fertilizer", "library", "systems", "registry")


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_core_imports_no_workspace():
    offending = {
        f"{path.relative_to(ROOT)} imports {name}"
        for package in CORE
        for path in (ROOT / "webapp" / package).rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[:2] in [["webapp", w] for w in WORKSPACES]
    }
    assert offending == set()
