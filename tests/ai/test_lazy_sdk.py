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
    main(["--help"], prog_name="furrow")  # lists the commands: the whole app is made
except SystemExit:
    pass
"""


@pytest.mark.parametrize("code", ["import webapp.cli", HELP], ids=["import", "furrow --help"])
def test_the_cli_does_not_import_the_sdk(tmp_path, code):
    probe = code + "\nimport sys\nprint('openai in sys.modules:', 'openai' in sys.modules)\n"
    env = {**os.environ, "FURROW_INSTANCE_PATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "openai in sys.modules: False"
