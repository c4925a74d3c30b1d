"""Farm-system figures: "calculate all missing" and the system page.

- A 10-step, 31-intervention system (tests/systems/data/une-rotation-de-test.json, no values:
  every calculable cell is missing): from enqueueing the run to its end, worked by the real RQ
  worker of `furrow serve` (SQLite + embedded Redis; PostgreSQL + the machine's Redis when
  DATABASE_URL names PostgreSQL), after one warm-up run of one cell; and the
  calculators alone over the same cells, in process. Twice: the file as it is (most cells
  need an assumption it does not state, so they end quickly with what they need), then with the
  fuel, work rate and machinery cost an adviser states on every intervention, so that far more
  cells are worked out; each line says how many cells got a value.
- The system page (timeline, grid, history): server time p50/p95 through the test client.

Run from the repository root: `.venv/bin/python bench/system_figures.py`, or with
`DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test` for PostgreSQL.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.review_queue import report, timed_get  # noqa: E402
from bench.table_figures import wait_until_done  # noqa: E402
from tests.support.server import served_app  # noqa: E402

DOCUMENT = ROOT / "tests" / "systems" / "data" / "une-rotation-de-test.json"
PASSWORD = "bench password"  # noqa: S105 - a throwaway account in a temporary instance
PAGE_REQUESTS = 200
STATED = "- **Carburant**: 8 L/ha\n- **Débit de chantier**: 2 ha/h\n- **Coût machine**: 25 €/ha\n"
TARGET_RUN_SECONDS = 3
TARGET_PAGE_MS = 100


def main() -> None:
    with served_app(workers=1) as app:
        from sqlalchemy import func, select

        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role
        from webapp.extensions import db
        from webapp.review.models import Suggestion
        from webapp.review.service import apply
        from webapp.systems.catalog import create_farm, import_system
        from webapp.systems.runs import calculate_cell, missing_cells, start_calculation

        with app.app_context():
            user = create_user("bench@example.org", PASSWORD, Role.admin)
            print(f"database: {db.engine.dialect.name}")
            plain = json.loads(DOCUMENT.read_text(encoding="utf-8"))
            stated = json.loads(DOCUMENT.read_text(encoding="utf-8"))
            for step in stated["steps"]:
                for work in step["interventions"]:
                    work["assumptions"] = STATED
            for label, document in (("as imported", plain), ("with stated assumptions", stated)):
                system, _saved = import_system(create_farm(label), "", document, user)
                db.session.commit()
                cells = missing_cells(system.document)
                warm_up = start_calculation(system, user, cells[:1])
                db.session.commit()
                assert wait_until_done(warm_up.id) == "succeeded"
                began = time.perf_counter()
                run = start_calculation(system, user)
                db.session.commit()
                status = wait_until_done(run.id)
                elapsed = time.perf_counter() - began
                assert status == "succeeded", status
                began = time.perf_counter()
                for path in cells:
                    calculate_cell(system.document, path)
                alone = time.perf_counter() - began
                stored = db.session.scalar(
                    select(func.count()).select_from(Suggestion).where(Suggestion.run_id == run.id)
                )
                print(
                    f"calculate all missing {label}, {len(cells)} cells (10 steps × 31 "
                    f"interventions), 1 RQ worker: {elapsed:.2f} s from enqueue to the end "
                    f"(target < {TARGET_RUN_SECONDS} s); {stored} cells got a value, the others "
                    f"say what they need; the calculators alone {alone:.2f} s"
                )
            # The page is timed with the second run's values applied, as a reviewer leaves it.
            query = select(Suggestion.id).where(Suggestion.run_id == run.id)
            apply(db.session.scalars(query).all(), user, skip_invalid=True)
            db.session.commit()
            page_latency(app, system.id)


def page_latency(app, system_id: int) -> None:
    """The system page as an admin sees it, timed inside the app (no network)."""
    from tests.support.app import Client

    app.test_client_class = Client
    client = app.test_client()
    client.login("bench@example.org", PASSWORD)
    url = f"/systems/{system_id}"
    report(
        f"system page, 10 steps × 31 interventions (target p95 < {TARGET_PAGE_MS} ms)",
        *timed_get(client, url, PAGE_REQUESTS),
    )


if __name__ == "__main__":
    main()
