"""What an idle process holds: the libraries only some work needs (password scoring, units, HTML
and PDF reading) are imported by that work."""

import os
import subprocess
import sys

from webapp import ROOT

HEAVY = ("zxcvbn", "pint", "bs4", "pypdf")
APP = "from webapp import create_app\ncreate_app()\n"


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
