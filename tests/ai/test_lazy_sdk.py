"""The openai SDK is imported when a model is called, not with the app: a `furrow` command that
calls no model does not pay its second of imports."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELP = """
from webapp.cli import main
try:
    main(["--help"], prog_name="furrow")  # lists the commands, without making the app
except SystemExit:
    pass
"""
APP = """
from webapp import create_app
create_app()  # every blueprint, model and view module
"""


@pytest.mark.parametrize(
    "code", ["import webapp.cli", HELP, APP], ids=["import", "furrow --help", "create_app"]
)
def test_the_cli_does_not_import_the_sdk(tmp_path, code):
    probe = code + "\nimport sys\nprint('openai in sys.modules:', 'openai' in sys.modules)\n"
    env = {**os.environ, "FURROW_INSTANCE_PATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "openai in sys.modules: False"


def test_furrow_help_makes_no_app(tmp_path):
    """`furrow --help` lists every command from the group alone: neither the app's modules nor
    alembic (behind `db`) are imported, and it starts in a fraction of a second."""
    probe = HELP + (
        "import sys\n"
        "print(sorted(m for m in ('webapp.errors', 'webapp.auth.models', 'alembic', 'sqlalchemy')"
        " if m in sys.modules))\n"
    )
    env = {**os.environ, "FURROW_INSTANCE_PATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "  db  " in done.stdout and "  worker  " in done.stdout
    assert done.stdout.splitlines()[-1] == "[]"
