"""Every third-party package the app imports is declared in pyproject.toml, not merely pulled in
by another one (pydantic came with openai, until an upgrade of openai could drop it)."""

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from webapp import ROOT


def top_level_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


@functools.cache
def third_party_imports() -> dict[str, list[str]]:
    """Import name -> the files importing it, for every module not stdlib and not webapp."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "webapp").rglob("*.py")):
        for name in top_level_imports(path):
            if name not in sys.stdlib_module_names and name not in ("webapp", "__future__"):
                found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares them: Flask_SQLAlchemy is flask-sqlalchemy."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {normalized(re.match(r"[A-Za-z0-9._-]+", line)[0]) for line in project["dependencies"]}


def test_every_imported_package_is_declared():
    distributions = packages_distributions()
    missing = {}
    for name, files in sorted(third_party_imports().items()):
        provided_by = {normalized(d) for d in distributions.get(name, [])}
        assert provided_by, f"{name} (imported by {files[0]}) is not installed"
        if not provided_by & declared():
            missing[name] = (sorted(provided_by), len(files), files[0])
    assert missing == {}, "imported but not in pyproject.toml's dependencies: " + "; ".join(
        f"{name} from {dists} in {count} file(s), e.g. {first}"
        for name, (dists, count, first) in missing.items()
    )


def test_the_walk_finds_what_the_app_imports():
    found = third_party_imports()
    assert {"flask", "sqlalchemy", "redis", "pydantic"} <= set(found)
    assert "json" not in found and "webapp" not in found
