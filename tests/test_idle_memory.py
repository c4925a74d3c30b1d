"""What an idle process holds: the libraries only some work needs (password scoring, units, HTML
and PDF reading) are imported by that work, the web and the workers never migrate (no alembic),
and `furrow serve`'s supervisor holds no pages."""

import os
import subprocess
import sys

from webapp import ROOT

HEAVY = ("zxcvbn", "pint", "bs4", "pypdf")
APP = "from webapp import create_app\ncreate_app()\n"
WEB = "import webapp.wsgi\n"
WORKER = (
    "import click\nfrom webapp.cli import _create_app\n"
    "with click.Context(click.Command('worker'), info_name='worker'):\n    _create_app()\n"
)
SUPERVISOR = (
    "from webapp.config import load_settings\n"
    "from webapp.serve import Supervisor\n"
    "Supervisor(load_settings(), '127.0.0.1', 5000, 2)\n"
)


def imported(tmp_path, code: str, names: tuple[str, ...]) -> list[str]:
    probe = code + f"import sys\nprint(sorted(m for m in {names!r} if m in sys.modules))\n"
    env = {**os.environ, "FURROW_INSTANCE_PATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.splitlines()[-1])  # noqa: S307 - a list of names we printed


def test_the_app_does_not_import_what_only_some_work_needs(tmp_path):
    assert imported(tmp_path, APP, HEAVY) == []


def test_the_web_and_the_workers_go_without_migrations(tmp_path):
    assert imported(tmp_path, WEB, ("alembic", *HEAVY)) == []
    assert imported(tmp_path, WORKER, ("alembic", *HEAVY)) == []
    assert imported(tmp_path, APP, ("alembic",)) == ["alembic"]  # `furrow db`, the tests


def test_the_supervisor_holds_no_pages(tmp_path):
    pages = ("webapp.errors", "webapp.main.views", "webapp.tables.runs", "jinja2_fragments")
    assert imported(tmp_path, SUPERVISOR, pages + HEAVY) == []


def test_the_supervisor_adds_the_demo_data_without_pages(tmp_path):
    """`furrow serve --demo` migrates and adds the demo data in the supervisor, with its app."""
    demo = (
        "from flask_migrate import upgrade\nfrom webapp import create_core_app\n"
        "from webapp.workspaces import load_demo_data\n"
        "with create_core_app().app_context():\n    upgrade()\n    assert load_demo_data()\n"
    )
    pages = ("webapp.errors", "webapp.main.views", "jinja2_fragments")
    assert imported(tmp_path, demo, pages + HEAVY) == []


def test_the_supervisor_loads_the_run_kinds_when_a_sweep_needs_one(tmp_path):
    """A lost chunk ends its run by its kind's rules: the sweep imports the workspaces then."""
    needs_kind = SUPERVISOR + (
        "from webapp.jobs.sweeper import _kind\nassert _kind('table_enrichment') is not None\n"
    )
    assert imported(tmp_path, needs_kind, ("webapp.tables.runs",)) == ["webapp.tables.runs"]
