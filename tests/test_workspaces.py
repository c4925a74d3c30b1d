"""Where a URL lives: each package owns its part of the address space, and the navigation is
read from the one list of workspaces."""

import ast
from collections import defaultdict
from pathlib import Path

import webapp
from webapp.auth.roles import Role
from webapp.workspaces import WORKSPACE, WORKSPACES

# The one part two packages share: the runs are the jobs package's, their review is review's.
SHARED = {"/api/v1/runs": {"jobs", "review"}}
# The modules every workspace package has (docs/architecture.md).
SKELETON = ("models.py", "target.py", "runs.py", "rules.py", "views.py", "api.py")


def collection(rule: str) -> str:
    """The part of the address space a rule is in: "/cultures", "/api/v1/runs"."""
    parts = rule.strip("/").split("/")
    size = 3 if rule.startswith("/api/") else 1
    return "/" + "/".join(parts[:size])


def test_every_part_of_the_address_space_is_served_by_one_package(app):
    owners: dict[str, set[str]] = defaultdict(set)
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        blueprint = app.blueprints[rule.endpoint.split(".")[0]]
        owners[collection(rule.rule)].add(blueprint.import_name.split(".")[1])
    shared = {part: packages for part, packages in owners.items() if len(packages) > 1}
    assert shared == SHARED
    assert owners["/api/v1/tables"] == owners["/tables"] == {"tables"}


def test_every_ready_workspace_registers_its_packages_blueprints(app):
    registered = set(app.blueprints.values())
    for workspace in WORKSPACES:
        assert set(workspace.blueprints()) <= registered


def test_the_header_and_the_home_cards_come_from_the_workspaces(client_as):
    viewer = client_as("viewer").get("/").get_data(as_text=True)
    admin = client_as("admin").get("/").get_data(as_text=True)
    for workspace in WORKSPACES:
        link = f'href="{workspace.url}"'
        if workspace.role is None:
            continue
        assert (link in viewer) == (workspace.role == Role.viewer), workspace.slug
        assert link in admin
    for workspace in WORKSPACES:
        if workspace.summary:
            assert (workspace.summary in viewer) == (workspace.role == Role.viewer)
    shown = [w for w in WORKSPACES if w.summary and w.role in (None, Role.viewer)]
    assert viewer.count('<article class="card') == len(shown)


def test_a_packages_api_routes_are_all_in_its_api_module():
    """Once api.py is loaded, the package's `api` is that module: no other module of a package
    that has one takes the API blueprint, and it is loaded with the package's views."""
    root = Path(__file__).resolve().parent.parent / "webapp"
    for workspace in WORKSPACES:
        package = root / workspace.slug
        if not (package / "api.py").exists():
            continue
        assert "api" in workspace.views, workspace.slug
        for path in package.rglob("*.py"):
            if path.name in ("api.py", "__init__.py"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == f"webapp.{workspace.slug}":
                    assert "api" not in {a.name for a in node.names}, path


def test_every_workspace_has_the_skeleton():
    workspaces = [w for w in WORKSPACES if w.kind == WORKSPACE]
    assert workspaces
    for workspace in workspaces:
        package = Path(webapp.__file__).parent / workspace.slug
        missing = [name for name in SKELETON if not (package / name).is_file()]
        assert not missing, (workspace.slug, missing)
