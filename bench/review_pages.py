"""Review pages of big runs, GET through the Flask test client: server time and size.

- table_proposal_page: a 10,000-row table and a finished computation run that proposed a
  value for every row (some invalid, warned about or noted; some cells changed since the run),
  then its review on the review core's run page (50 suggestions a page): the first, a middle
  and the last page, and a level filter; and the confirm page of "apply all valid".

SQLite by default; PostgreSQL when DATABASE_URL is set: a database of its own is created on
that server for the run and dropped after it, e.g.
`DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test`.

Run from the repository root: `.venv/bin/python bench/review_pages.py`. Pages are fetched
and reported as bench/review_queue.py does for the culture review's (its helpers).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.review_queue import (  # noqa: E402
    bench_database,
    migrated_app,
    report,
    signed_in,
    timed_get,
)

TABLE_ROWS = 10_000
FORMULA = "round({Yield t} / {Area ha}, 2)"


def finished_computation(user, rows: int) -> tuple[int, int]:
    """A table of rows farms and a computation run through every one of them, worked here as
    a worker would: (table id, run id)."""
    from sqlalchemy import insert

    from tests.support.tables import make_table
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus
    from webapp.jobs.runner import work_through
    from webapp.tables.models import TableRow
    from webapp.tables.runs import TableEnrichment
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


def table_proposal_page() -> None:
    """The proposal page of a finished 10,000-row run: pages of 50 rows."""
    from webapp.extensions import db

    with migrated_app() as (app, user):
        began = time.perf_counter()
        table_id, run_id = finished_computation(user, TABLE_ROWS)
        with_issues_and_changes(table_id, run_id)
        made = time.perf_counter() - began
        client = signed_in(app)
        print(f"database: {db.engine.dialect.name}; a {TABLE_ROWS:,}-row run made in {made:.1f} s")
        url = f"/review/runs/{run_id}"
        last = -(-TABLE_ROWS // 50)
        for what, address in [
            ("proposal, first page", url),
            ("proposal, a middle page", f"{url}?page={last // 2}"),
            ("proposal, last page", f"{url}?page={last}"),
            ("proposal, with warnings", f"{url}?level=warning"),
            ("proposal, without issues, middle", f"{url}?level=none&page={last // 2}"),
            # Compares every pending suggestion with its cell now: seldom asked.
            ("apply all valid, confirm page", f"/review/runs/{run_id}/apply-all"),
        ]:
            report(what, *timed_get(client, address))


def main() -> None:
    with bench_database():
        table_proposal_page()


if __name__ == "__main__":
    main()
