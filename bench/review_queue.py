"""Reviewing a 1,000-culture enrichment run: how long the pages take to make, and how large
they are.

culture_batch_queue(): 1,000 cultures and one finished run over all of them with 5 suggestions
each (every 7th culture's yield invalid, every 3rd growth duration with a warning, every 50th
culture unknown to the reference library); then GET, through the Flask test client, the batch
queue (first page, last page, a filter) and one culture's ?run= page. Prints the median and
95th percentile of the server time in ms and the size of each page. Target: p95 < 100 ms and
< 300 KB a page.

Run from the repository root: `.venv/bin/python bench/review_queue.py`. SQLite by default;
PostgreSQL when DATABASE_URL is set (a database of its own is made next to the one named, and
dropped after), e.g. `DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test`.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CULTURES = 1_000
REPEATS = 40
REVIEWER = "bench@example.org"


def batch_run(user) -> tuple[int, list[int]]:
    """The run and its cultures, in the queue's order."""
    from tests.support.cultures import finished_enrichment, issue, suggestion
    from webapp.cultures.models import Culture
    from webapp.extensions import db
    from webapp.review.service import store_findings, store_suggestions
    from webapp.review.vocabulary import Issue, Severity

    db.session.execute(
        db.insert(Culture),
        [
            {"name": f"Crop {n}", "variety": f"Line {n % 7}", "harvest_method": "per_sqm"}
            for n in range(CULTURES)
        ],
    )
    db.session.commit()
    ids = list(db.session.scalars(db.select(Culture.id).order_by(Culture.id)))
    run = finished_enrichment(ids, user)
    rows, unknown = [], []
    for n, culture_id in enumerate(ids):
        if n % 50 == 49:
            unknown.append(culture_id)
            continue
        growth = [issue("warning", "growth_duration_days", "Counts from transplanting.")]
        too_much = [issue("error", "expected_yield", "40 kg/m² is more than any crop gives.")]
        rows += [
            suggestion(run, culture_id, "growth_duration_days", 60 + n % 30,
                       issues=growth if n % 3 == 0 else ()),
            suggestion(run, culture_id, "row_spacing_cm", 30.0),
            suggestion(run, culture_id, "distance_within_row_cm", 10.0 + n % 20),
            suggestion(run, culture_id, "sowing_depth_cm", 1.5),
            suggestion(run, culture_id, "expected_yield", 40.0 if n % 7 == 0 else 4.5,
                       issues=too_much if n % 7 == 0 else ()),
        ]  # fmt: skip
    store_suggestions(rows)
    for culture_id in unknown:
        message = f"The reference library has no data for “Crop {culture_id}”."
        store_findings(
            run.id, "culture", [culture_id], [Issue("crop_unknown", Severity.info, None, message)]
        )
    run.results = {
        str(i): {"culture": f"Crop {i}", "note_blocks": ["Figures from the growing guide."]}
        for i in ids
    }
    db.session.commit()
    return run.id, ids


def timed_get(client, url: str, repeats: int = REPEATS) -> tuple[list[float], int]:
    client.get(url)  # warm: templates compiled, caches filled
    times, size = [], 0
    for _ in range(repeats):
        began = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        size = len(response.data)
    return times, size


def report(what: str, times: list[float], size: int) -> None:
    p50 = statistics.median(times)
    p95 = statistics.quantiles(times, n=20)[-1]
    print(f"{what:<34} p50 {p50:6.1f} ms   p95 {p95:6.1f} ms   {size / 1024:6.1f} KB")


@contextlib.contextmanager
def migrated_app() -> Iterator:
    """The app on the bench's database (bench_database), migrated, and a reviewer: (app,
    user); review pages are fetched by signed_in(app) once the data is made."""
    from flask_migrate import upgrade

    from tests.support.app import PASSWORD, Client
    from webapp import create_app
    from webapp.auth.accounts import create_user
    from webapp.auth.roles import Role
    from webapp.extensions import db

    app = create_app()
    app.test_client_class = Client
    with app.app_context():
        upgrade(directory=str(ROOT / "migrations"))
        user = create_user(REVIEWER, PASSWORD, Role.reviewer)
        db.session.commit()
        yield app, user
        db.session.remove()
        db.engine.dispose()


def signed_in(app):
    """A test client signed in as the bench's reviewer (a fresh session of its own)."""
    from tests.support.app import PASSWORD
    from webapp.extensions import db

    db.session.remove()
    client = app.test_client()
    assert client.login(REVIEWER, PASSWORD).status_code == 302
    return client


def culture_batch_queue() -> None:
    from webapp.extensions import db

    with migrated_app() as (app, user):
        run_id, ids = batch_run(user)
        client = signed_in(app)
        print(f"database: {db.engine.dialect.name}; {len(ids):,} cultures, one run")
        queue = f"/cultures/runs/{run_id}/review"
        for what, url in [
            ("queue, first page", queue),
            ("queue, last page", f"{queue}?page={-(-len(ids) // 100)}"),
            ("queue, with errors", f"{queue}?level=error"),
            ("culture page of the run", f"/cultures/{ids[len(ids) // 2]}?run={run_id}"),
            ("culture page, filtered queue", f"/cultures/{ids[700]}?run={run_id}&level=warning"),
        ]:
            report(what, *timed_get(client, url))


@contextlib.contextmanager
def bench_database():
    """A database of the benchmark's own: a SQLite file, or a new PostgreSQL database."""
    with tempfile.TemporaryDirectory(prefix="furrow-bench-") as tmp:
        os.environ["FURROW_INSTANCE_PATH"] = str(Path(tmp) / "instance")
        url = os.environ.get("DATABASE_URL")
        if not url or not url.startswith("postgresql"):
            yield
            return
        from tests.support.services import fresh_postgres_database

        with fresh_postgres_database(url) as fresh:
            os.environ["DATABASE_URL"] = fresh
            yield


if __name__ == "__main__":
    with bench_database():
        culture_batch_queue()
