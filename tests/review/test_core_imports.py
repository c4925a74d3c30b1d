"""Who may import whom, as webapp/workspaces.py says: the core knows no workspace, a workspace
knows no other one; both may use a shared service (the document library).

Imports are read from the source (ast), wherever they are (a function's own imports too), and
so are `import_module("webapp.x...")` calls whose module is written in the code (a string, or
an f-string as far as its constant start names a package).
"""

import ast
from pathlib import Path

from webapp import ROOT
from webapp.workspaces import CORE, SERVICE, WORKSPACE, WORKSPACES

KIND = {w.slug: w.kind for w in WORKSPACES}
# The only imports by a name made at run time, which no reading of the code can follow.
COMPUTED = {
    "webapp/workspaces.py": "a listed package's blueprints, view modules and commands",
    "webapp/jobs/kinds.py": "a run kind from outside the app; the app's own are registered",
    "webapp/library/sandbox.py": "the child process's reader: a function its caller passed",
    "webapp/cli.py": "a command imported when it runs (Flask-Migrate's db), not to be listed",
}


def kind_of(package: str) -> str:
    """A package of webapp/ (or a module of it) not in the list is core."""
    return KIND.get(package, CORE)


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in ("import_module", "__import__") and bool(call.args)


def _named(call: ast.Call) -> str | None:
    """The module an import_module/__import__ call names in the code: its string, or an
    f-string's constant start up to the last dot (f"webapp.cultures.{name}": webapp.cultures)."""
    if not _imports(call):
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    if isinstance(first, ast.JoinedStr) and first.values:
        start = first.values[0]
        if isinstance(start, ast.Constant) and isinstance(start.value, str):
            return start.value.rpartition(".")[0] or None
    return None


def imported_modules(path: Path) -> set[str]:
    package = _module_of(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> set[str]:
    """Every module the source (of a module in package) imports, by absolute name, with the
    imported names of a `from package import name` (each may be a module)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                up = parts[: len(parts) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Call) and (named := _named(node)):
            names.add(named)
    return names


def imports_across() -> set[str]:
    """ "path imports webapp.x.y" for each import of a workspace by another package (or by the
    core, or a service), the assembly aside."""
    found = set()
    for path in sorted((ROOT / "webapp").rglob("*.py")):
        parts = path.relative_to(ROOT / "webapp").with_suffix("").parts
        own = parts[0]
        names = imported_modules(path)
        for name in names:
            top = name.split(".")
            if len(top) > 3 and name.rpartition(".")[0] in names:
                continue  # a name of a module already named
            if len(top) < 2 or top[0] != "webapp" or top[1] == own:
                continue
            if kind_of(top[1]) == WORKSPACE:
                found.add(f"{path.relative_to(ROOT)} ({kind_of(own)}) imports {name}")
    return found


def test_the_list_says_what_each_package_is():
    assert {w.kind for w in WORKSPACES} <= {WORKSPACE, SERVICE, CORE}
    packages = {p.name for p in (ROOT / "webapp").iterdir() if (p / "__init__.py").exists()}
    assert set(KIND) <= packages
    assert {"cultures", "fertilizer", "tables", "systems", "registry"} <= {
        slug for slug, kind in KIND.items() if kind == WORKSPACE
    }
    assert kind_of("library") == SERVICE
    assert {kind_of(p) for p in ("review", "ai", "jobs", "reference", "text")} == {CORE}


def test_the_core_and_the_services_import_no_workspace():
    assert {line for line in imports_across() if f"({WORKSPACE})" not in line} == set()


def test_no_workspace_imports_another():
    assert {line for line in imports_across() if f"({WORKSPACE})" in line} == set()


def test_every_import_by_a_computed_name_is_known():
    computed = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "webapp").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and _imports(node) and _named(node) in (None, "webapp")
    }
    assert computed == set(COMPUTED)


def test_the_reading_follows_every_kind_of_import():
    source = (
        "import webapp.tables.answers\n"
        "from webapp.systems import ai\n"
        "from .views import bp\n"
        "from ..registry.run import ReviewAssessment\n"
        "def later(name):\n"
        "    from webapp.fertilizer.plans import TARGET\n"
        "    import_module('webapp.library.search')\n"
        "    importlib.import_module(f'webapp.jobs.{name}')\n"
        "    import_module(f'webapp.{name}.views')\n"
    )
    found = imports_in(source, "webapp.cultures")
    assert {
        "webapp.tables.answers",
        "webapp.systems.ai",
        "webapp.cultures.views",
        "webapp.registry.run",
        "webapp.fertilizer.plans",
        "webapp.library.search",
        "webapp.jobs",
    } <= found
    assert not any("{" in name for name in found)


def module_graph() -> dict[str, set[str]]:
    """Each module of webapp/ (packages' __init__ aside: the assembly) and the modules of
    webapp/ it imports, at any depth of the code."""
    modules = {
        _module_of(path): path
        for path in (ROOT / "webapp").rglob("*.py")
        if path.name != "__init__.py"
    }
    return {
        name: imported_modules(path) & modules.keys() - {name} for name, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other_even_through_others():
    assert cycles(module_graph()) == []


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
