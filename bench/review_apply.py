"""Applying and undoing reviewed suggestions through the one review API, request to committed.

- 10,000 table suggestions (a 10,000-row computation's proposal): POST
  /api/v1/runs/<id>/apply {"all_valid": true}, then POST /api/v1/undo/<group>.
- A 1,000-culture batch with 5 suggestions each (5,000): the same two requests.

The suggestions are inserted directly (the run that would make them is timed in
bench/table_figures.py). SQLite by default; PostgreSQL when BENCH_DATABASE_URL is set, e.g.
`BENCH_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/bench`.

Run from the repository root: `.venv/bin/python bench/review_apply.py`.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TABLE_ROWS = 10_000
CULTURES = 1_000
CULTURE_VALUES = {
    "sowing_depth_cm": 1.5,
    "row_spacing_cm": 30.0,
    "distance_within_row_cm": 10.0,
    "growth_duration_days": 70,
    "harvest_method": "per_sqm",
}


def finished_run(kind: str, items: list[int], user) -> int:
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus

    keys = [str(i) for i in items]
    run = Run(
        kind=kind,
        title="bench",
        params={},
        requested_by=user,
        items=keys,
        done_items=keys,
        total=len(keys),
        done=len(keys),
        status=RunStatus.succeeded,
    )
    db.session.add(run)
    db.session.commit()
    return run.id


def table_suggestions(user) -> int:
    from tests.support.tables import make_table
    from webapp.extensions import db
    from webapp.review.service import store_suggestions
    from webapp.tables.models import ROW_TARGET, TableRow
    from webapp.tables.runs import TableEnrichment

    rows = [
        {"Item": f"item {n}", "Price": n % 97 + 0.5, "Qty": n % 13 + 1} for n in range(TABLE_ROWS)
    ]
    table = make_table(
        "Orders",
        [("Item", "text"), ("Price", "number"), ("Qty", "number"), ("Total", "number")],
        rows,
    )
    total = table.column_named("Total").key
    ids = list(db.session.scalars(db.select(TableRow.id).where(TableRow.table_id == table.id)))
    run_id = finished_run(TableEnrichment.name, ids, user)
    store_suggestions(
        [
            {
                "run_id": run_id,
                "target_type": ROW_TARGET,
                "target_id": row_id,
                "field": total,
                "current_value": None,
                "suggested_value": round((n % 97 + 0.5) * (n % 13 + 1), 2),
                "confidence": "high",
                "evidence": [],
                "issues": [],
                "status": "pending",
            }
            for n, row_id in enumerate(ids)
        ]
    )
    db.session.commit()
    return run_id


def culture_suggestions(user) -> int:
    from webapp.cultures.models import Culture
    from webapp.cultures.runs import CultureEnrichment
    from webapp.extensions import db
    from webapp.review.service import store_suggestions

    db.session.execute(
        db.insert(Culture), [{"name": f"Crop {n}", "variety": ""} for n in range(CULTURES)]
    )
    db.session.commit()
    ids = list(db.session.scalars(db.select(Culture.id)))
    run_id = finished_run(CultureEnrichment.name, ids, user)
    store_suggestions(
        [
            {
                "run_id": run_id,
                "target_type": "culture",
                "target_id": culture_id,
                "field": field,
                "current_value": None,
                "suggested_value": value,
                "confidence": "medium",
                "evidence": [{"source_url": "https://example.org", "title": "Guide",
                              "claim_summary": f"{field} is {value}", "source_kind": "web",
                              "retrieved_at": None, "derived": False}],
                "issues": [],
                "status": "pending",
            }
            for culture_id in ids
            for field, value in CULTURE_VALUES.items()
        ]
    )  # fmt: skip
    db.session.commit()
    return run_id


def timed_post(client, url: str, body: dict | None, headers: dict) -> tuple[float, dict]:
    began = time.perf_counter()
    response = client.post(url, json=body, headers=headers)
    elapsed = time.perf_counter() - began
    assert response.status_code == 200, (
        response.status_code,
        response.get_data(as_text=True)[:300],
    )
    return elapsed, response.get_json()


def apply_and_undo(client, headers, run_id: int, what: str) -> None:
    seconds, body = timed_post(client, f"/api/v1/runs/{run_id}/apply", {"all_valid": True}, headers)
    applied = len(body["applied"])
    print(f"apply {applied:,} {what}: {seconds:.2f} s ({applied / seconds:,.0f} suggestions/s)")
    seconds, undone = timed_post(client, f"/api/v1/undo/{body['undo_group']}", None, headers)
    restored = len(undone["restored"])
    print(f"undo {restored:,} changed values of {what}: {seconds:.2f} s")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="furrow-bench-") as tmp:
        env = {"FURROW_INSTANCE_PATH": str(Path(tmp) / "instance"), "FURROW_QUEUE": "sync"}
        database = os.environ.get("BENCH_DATABASE_URL")
        if database:
            env["DATABASE_URL"] = database
        os.environ.update(env)
        from flask_migrate import downgrade, upgrade

        from webapp import create_app
        from webapp.auth.accounts import create_user
        from webapp.auth.models import ApiToken
        from webapp.auth.roles import Role
        from webapp.extensions import db

        app = create_app()
        with app.app_context():
            if database:
                downgrade(revision="base")
            upgrade()
            user = create_user("bench@example.org", "bench password", Role.reviewer)
            _token, secret = ApiToken.issue(user, "bench")
            db.session.commit()
            client = app.test_client()
            headers = {"Authorization": f"Bearer {secret}"}
            print(f"database: {db.engine.dialect.name}")
            apply_and_undo(client, headers, table_suggestions(user), "table suggestions")
            batch = culture_suggestions(user)
            apply_and_undo(client, headers, batch, "culture suggestions (1,000 cultures)")
            db.session.remove()
            if database:
                downgrade(revision="base")
            db.engine.dispose()


if __name__ == "__main__":
    main()
