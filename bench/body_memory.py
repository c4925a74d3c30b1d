"""How much the web process grows while it answers a large request body: the shapes of
tests/support/body_drill.py (an anonymous sign-in form of 19.5 MB and 9 MB, the same chunked
and as multipart, a JSON body to the API, four 7 MB confirm forms at once) against a real
`furrow serve` on a fresh instance.

Run from the repository root: `.venv/bin/python bench/body_memory.py`. Prints, per shape, the
answers, the web process's peak growth over its resident memory before, and the time taken.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.body_drill import MB, Session, drill, headers_of, shapes, web_process  # noqa: E402
from tests.support.server import embedded_env, start_server  # noqa: E402

EMAIL = "bench@example.org"
PASSWORD = "a bench password of some length"  # noqa: S105 - a fresh instance of its own


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="furrow-bench-") as tmp:
        instance = Path(tmp) / "instance"
        server = start_server(embedded_env(), instance, workers=0)
        try:
            measure(server, instance)
        finally:
            server.stop(signal.SIGINT)


def measure(server, instance: Path) -> None:
    os.environ["FURROW_INSTANCE_PATH"] = str(instance)
    from webapp import create_app
    from webapp.auth.accounts import create_user
    from webapp.auth.models import ApiToken
    from webapp.auth.roles import Role
    from webapp.extensions import db

    with create_app().app_context():
        user = create_user(EMAIL, PASSWORD, Role.admin)
        _token, secret = ApiToken.issue(user, "bench")
        db.session.commit()
    session = Session(server.url, EMAIL, PASSWORD)

    web = web_process(server.process.pid)
    print(f"web process before: {web.memory_info().rss / MB:.0f} MB")
    for answer in drill(server.url, server.process.pid, headers_of(session, secret), shapes()):
        print(
            f"{answer.shape}: answered {answer.statuses} in {answer.seconds:.2f} s, "
            f"web process +{answer.growth_mb:.0f} MB at its peak"
        )


if __name__ == "__main__":
    main()
