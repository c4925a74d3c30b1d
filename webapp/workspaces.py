"""Where a URL lives: every package that serves pages or API, in one list that both create_app
(its blueprints) and the navigation (the header and the home page's cards) read.

A package makes its blueprints in its `__init__` (`bp` for pages, `api` for the JSON API) and
lists them in `blueprints`; its view modules, named here, add their routes to them. A new
workspace is one entry here and those two files.

Each entry also says what the package is to the others (`kind`), and the import rule follows
(tests/review/test_core_imports.py checks it): a WORKSPACE imports no other workspace; a SERVICE
(the document library) serves pages too, but any package may import it and it imports no
workspace; the CORE (these entries and every package or module of webapp/ not listed here)
imports no workspace. What two workspaces share moves into the core or a service.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from types import ModuleType

from flask import Blueprint

from webapp.auth.roles import Role

WORKSPACE = "workspace"
SERVICE = "service"
CORE = "core"


@dataclass(frozen=True)
class Workspace:
    slug: str  # its package under webapp/ (or, still to come, its name in URLs)
    name: str  # as people call it: its link in the header, its card
    url: str
    summary: str = ""  # set for the workspaces the home page shows as cards
    views: tuple[str, ...] = ("views",)  # its modules that add routes to its blueprints
    role: Role | None = Role.viewer  # who sees it in the header; None: not in the header
    kind: str = WORKSPACE  # WORKSPACE, SERVICE or CORE: who may import it (see above)
    cli: str | None = None  # its module of `furrow` commands (see webapp/cli.py)
    # Its package when it is not webapp.<slug> (a workspace kept elsewhere, as the tests'
    # example is).
    package: str = ""

    @property
    def module(self) -> str:
        return self.package or f"webapp.{self.slug}"

    def blueprints(self) -> tuple[Blueprint, ...]:
        """The package's blueprints, its view modules loaded so they have their routes."""
        for module in self.views:
            import_module(f"{self.module}.{module}")
        return import_module(self.module).blueprints

    def cli_module(self) -> ModuleType:
        """Its module of `furrow` commands: `commands` for the app, and maybe
        `app_free_commands` for the group itself and `load_demo()` for `furrow demo`."""
        return import_module(f"{self.module}.{self.cli}")


WORKSPACES = (
    Workspace(
        "cultures",
        "Cultures",
        "/cultures",
        "Keep the crop catalog; enrich missing fields.",
        views=("views", "import_views", "review_views", "api"),
        cli="cli",
    ),
    Workspace(
        "fertilizer",
        "Fertilizer plans",
        "/fertilizer",
        "N-P-K plans that add up, basal and topdress.",
        views=("views", "api"),
        cli="cli",
    ),
    Workspace(
        "tables",
        "Research tables",
        "/tables",
        "Fill a column for many rows with research.",
        views=("views", "enrich_views", "api"),
    ),
    Workspace(
        "systems",
        "Farm systems",
        "/systems",
        "Rotations, interventions and indicators such as IFT.",
        views=("views", "dose_views", "drawer", "edit_views", "ai_views", "api"),
        cli="cli",
    ),
    Workspace(
        "registry",
        "Registry reviews",
        "/registry",
        "Carbon-project documents against a checklist.",
        views=("views", "api"),
        role=Role.editor,
        cli="cli",
    ),
    Workspace("library", "Library", "/library", kind=SERVICE),
    Workspace("jobs", "Runs", "/runs", kind=CORE),
    Workspace(
        "auth",
        "Users",
        "/admin/users",
        views=("views", "admin_views"),
        role=Role.admin,
        kind=CORE,
    ),
    Workspace("review", "Review", "/api/v1/runs", views=("views", "pages"), role=None, kind=CORE),
    Workspace("main", "Home", "/", views=("views", "api_docs"), role=None, kind=CORE),
)


def load_workspaces() -> None:
    """Import every workspace's view modules, as create_app does: they register the run kinds.
    For a process that made no pages (`furrow serve`'s supervisor), when it needs a kind."""
    for workspace in WORKSPACES:
        workspace.blueprints()


def workspace_commands() -> list[ModuleType]:
    """The workspaces' modules of commands (Workspace.cli): each has `commands` for the app, may
    have `app_free_commands` for the group itself and `load_demo()` for the demo data."""
    return [w.cli_module() for w in WORKSPACES if w.cli]


def load_demo_data() -> list[str]:
    """Each workspace's demo data where it has none (`furrow demo`, `furrow serve --demo`); a
    line per workspace saying what was done."""
    return [m.load_demo() for m in workspace_commands() if hasattr(m, "load_demo")]
