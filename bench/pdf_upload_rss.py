"""Peak memory of the web process for issue 11's PDF drill: a ~35 KB PDF whose Flate stream
inflates to 10 MB of text operators, uploaded through POST /api/v1/library/documents.

Prints the process's resident memory before the request, its peak (so far, and after the
request), and how long the request took. Run from the repository root (copy it and
tests/library/files.py into an older checkout to compare):
`REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/pdf_upload_rss.py`.
"""

from __future__ import annotations

import io
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="furrow-bench-") as tmp:
        os.environ.update(
            {"FURROW_INSTANCE_PATH": str(Path(tmp) / "instance"), "FURROW_QUEUE": "bench-pdf"}
        )
        from flask_migrate import upgrade

        from tests.library.files import inflating_pdf
        from webapp import create_app
        from webapp.auth.accounts import create_user
        from webapp.auth.models import ApiToken
        from webapp.auth.roles import Role
        from webapp.extensions import db

        app = create_app()
        with app.app_context():
            upgrade()
            user = create_user("bench@example.org", "bench password", Role.editor)
            _token, secret = ApiToken.issue(user, "bench")
            db.session.commit()
            client = app.test_client()
            data = inflating_pdf()
            before = psutil.Process().memory_info().rss
            peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            started = time.perf_counter()
            response = client.post(
                "/api/v1/library/documents",
                data={"file": (io.BytesIO(data), "drill.pdf")},
                headers={"Authorization": f"Bearer {secret}"},
                content_type="multipart/form-data",
            )
            took = time.perf_counter() - started
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            print(f"file: {len(data):,} bytes; answer {response.status_code} in {took:.2f} s")
            print(
                f"web process RSS before: {before / 2**20:.0f} MB (peak so far "
                f"{peak_before / 2**20:.0f} MB); peak after: {peak / 2**20:.0f} MB"
            )
            queue = app.extensions["furrow.jobs"].queue
            queue.empty()
            db.session.remove()
            db.engine.dispose()


if __name__ == "__main__":
    main()
