"""Review pages of big runs, GET through the Flask test client: server time and size.

- table_proposal_page: a 10,000-row table and a finished computation run that proposed a
  value for every row (some invalid, warned about or noted; some cells changed since the run),
  then its proposal page: the first, a middle and the last page, and a level filter; and the
  confirm page of "apply all valid".

SQLite by default; PostgreSQL when DATABASE_URL is set: a database of its own is created on
that server for the run and dropped after it, e.g.
`DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test`.

Run from the repository root: `.venv/bin/python bench/review_pages.py` (BENCH_REQUESTS: how
many times each page is fetched, 50 by default).
"""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TABLE_ROWS = 10_000
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "50"))
FORMULA = "round({Yield t} / {Area ha}, 2)"


@contextlib.contextmanager
def bench_app() -> Iterator:
    """The app on a fresh database (a temporary SQLite file, or a PostgreSQL database made
    for the bench), migrated to the newest schema."""
    from tests.support.services import fresh_postgres_database

    with tempfile.TemporaryDirectory(prefix="furrow-bench-") as tmp:
        server = os.environ.get("DATABASE_URL")
        database = fresh_postgres_database(server) if server else contextlib.nullcontext(None)
        with database as url:
            env = {"FURROW_INSTANCE_PATH": str(Path(tmp) / "instance"), "FURROW_QUEUE": "bench"}
            if url:
                env["DATABASE_URL"] = url
            os.environ.update(env)
            from flask_migrate import upgrade

            from webapp import create_app
            from webapp.extensions import db

            app = create_app()
            with app.app_context():
                upgrade()
                print(f"database: {db.engine.dialect.name}")
                yield app
                db.session.remove()
                db.engine.dispose()


def signed_in(app, user):
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = user.get_id()
        session["_fresh"] = True
    return client


def timed_gets(client, url: str, what: str, requests: int = REQUESTS) -> None:
    client.get(url)  # templates compiled, caches warm
    times, size = [], 0
    for _ in range(requests):
        began = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.status_code
        size = len(response.get_data())
    times.sort()
    print(
        f"{what}: p50 {statistics.median(times):.1f} ms, "
        f"p95 {times[math.ceil(0.95 * len(times)) - 1]:.1f} ms, {size / 1024:.0f} KB"
    )


def finished_computation(user, rows: int) -> tuple[int, int]:
    """A table of rows farms and a computation run through every one of them, worked here as
    a worker would: (table id, run id)."""
    from sqlalchemy import insert

    from tests.support.tables import make_table
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus
    from webapp.jobs.runner import work_through
    from webapp.tables.enrichment import TableEnrichment
    from webapp.tables.models import TableRow
    from webapp.tables.strategies import get_strategy

    table = make_table(
        "Farms",
        [
            ("Farm", "text"),
            ("Area ha", "number"),
            ("Yield t", "number"),
            ("Yield per ha", "number", [], "t/ha"),
        ],
        [],
    )
    farm, area, harvest = (table.column_named(n).key for n in ("Farm", "Area ha", "Yield t"))
    db.session.execute(
        insert(TableRow),
        [
            {
                "table_id": table.id,
                "position": n,
                "cells": {farm: f"Farm {n:05d}", area: n % 40 + 2, harvest: n % 300 + 10},
            }
            for n in range(rows)
        ],
    )
    ids = list(
        db.session.scalars(
            db.select(TableRow.id).where(TableRow.table_id == table.id).order_by(TableRow.position)
        )
    )
    params = {"formula": FORMULA}
    run = Run(
        kind=TableEnrichment.name,
        title=f"Fill ‘Yield per ha’ in Farms ({rows:,} rows) · Computation",
        params={
            "table_id": table.id,
            "column_id": table.column_named("Yield per ha").id,
            "strategy": "computation",
            "params": params,
            "row_ids": ids,
            "provider": "offline",
            "reasoning": get_strategy("computation").describe(params),
        },
        requested_by=user,
        items=[str(i) for i in ids],
        total=len(ids),
        status=RunStatus.running,
        target_type="table",
        target_id=table.id,
    )
    db.session.add(run)
    db.session.commit()
    work_through(run, TableEnrichment())
    db.session.refresh(run)
    assert run.status == RunStatus.succeeded, (run.status, run.message)
    return table.id, run.id


def with_issues_and_changes(table_id: int, run_id: int) -> None:
    """Every 25th suggestion invalid, every 10th warned about, every 50th noted; every 20th
    row's cell changed since the run."""
    from sqlalchemy import bindparam, update

    from webapp.extensions import db
    from webapp.review.models import Suggestion
    from webapp.tables.models import DataTable, TableRow

    levels = {
        "error": ("yield_implausible", "More than the region has ever harvested."),
        "warning": ("yield_unusual", "Well above the usual yield for this crop."),
        "info": ("area_estimated", "The area is an estimate."),
    }
    rows = db.session.execute(
        db.select(Suggestion.id, Suggestion.target_id, Suggestion.field)
        .where(Suggestion.run_id == run_id)
        .order_by(Suggestion.target_id)
    ).all()
    marked = []
    for n, (suggestion_id, _row, field) in enumerate(rows):
        level = "error" if n % 25 == 1 else "warning" if n % 10 == 0 else None
        level = level or ("info" if n % 50 == 7 else None)
        if level:
            code, message = levels[level]
            issue = {"code": code, "severity": level, "field": field, "message": message}
            marked.append(
                {
                    "suggestion_id": suggestion_id,
                    "new_issues": [issue],
                    "new_level": level,
                    "new_status": "blocked" if level == "error" else "pending",
                }
            )
    suggestions = Suggestion.__table__
    db.session.execute(
        update(suggestions)
        .where(suggestions.c.id == bindparam("suggestion_id"))
        .values(
            issues=bindparam("new_issues"),
            level=bindparam("new_level"),
            status=bindparam("new_status"),
        ),
        marked,
    )
    target = db.session.get(DataTable, table_id).column_named("Yield per ha").key
    for _id, row_id, _field in rows[3::20]:
        row = db.session.get(TableRow, row_id)
        row.cells = {**row.cells, target: 1.5}
    db.session.commit()


def table_proposal_page(app, user) -> None:
    """The proposal page of a finished 10,000-row run: pages of 50 rows."""
    began = time.perf_counter()
    table_id, run_id = finished_computation(user, TABLE_ROWS)
    with_issues_and_changes(table_id, run_id)
    print(f"a {TABLE_ROWS:,}-row computation run made in {time.perf_counter() - began:.1f} s")
    client = signed_in(app, user)
    url = f"/tables/{table_id}/runs/{run_id}"
    last = -(-TABLE_ROWS // 50)
    for query, what in [
        ("", "first page"),
        (f"?page={last // 2}", "a middle page"),
        (f"?page={last}", "the last page"),
        ("?level=warning", "rows with warnings, first page"),
        (f"?level=none&page={last // 2}", "rows without issues, a middle page"),
    ]:
        timed_gets(client, url + query, f"table proposal of {TABLE_ROWS:,} rows, {what}")
    # Compares every pending suggestion with its cell now: seldom asked, so fewer times.
    timed_gets(client, f"{url}/apply-all", "its apply all valid confirm page", REQUESTS // 5 or 1)


def main() -> None:
    with bench_app() as app:
        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role
        from webapp.extensions import db

        user = create_user("bench@example.org", "bench password", Role.reviewer)
        db.session.commit()
        table_proposal_page(app, user)


if __name__ == "__main__":
    main()
