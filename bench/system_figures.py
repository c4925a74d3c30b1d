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

With `large`, documents at the limits instead (no worker): a step of 1,000 interventions (the
most a step holds) and a system of 2 such steps (the most a system holds), each intervention
with three values; for each, the import through the API, one value set through the API and
one through the grid's cell form (htmx), the system page's first and last page, and the
calculators over every missing cell in process. Then a step of 20,000 interventions, which
is refused: how long the API and the import page take to say so.

Run from the repository root: `.venv/bin/python bench/system_figures.py [large]`, or with
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
from tests.systems.generated import rotation  # noqa: E402

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


def seconds(call, *args, **kwargs) -> tuple[float, object]:
    began = time.perf_counter()
    answer = call(*args, **kwargs)
    return time.perf_counter() - began, answer


def large_documents() -> None:
    import io

    from bench.review_queue import migrated_app, signed_in
    from webapp.extensions import db
    from webapp.systems.document import INTERVENTIONS_LIMIT, INTERVENTIONS_PER_STEP, Places
    from webapp.systems.models import System
    from webapp.systems.runs import calculate_cell, cell_names, missing_cells

    with migrated_app() as (app, _user):
        client = signed_in(app)
        token = client.csrf_token("/account")
        headers = {"X-CSRFToken": token}
        print(f"database: {db.engine.dialect.name}")
        per_step = INTERVENTIONS_PER_STEP
        for steps in (1, INTERVENTIONS_LIMIT // per_step):
            what = f"{steps} step(s) × {per_step:,} interventions"
            body = {"farm": "Bench", "document": rotation(*[per_step] * steps, frequency=True)}
            took, created = seconds(client.post, "/api/v1/systems", json=body, headers=headers)
            assert created.status_code == 201, created.get_json()
            system_id = created.get_json()["id"]
            print(f"{what}: import (API) {took:.2f} s")
            middle = {"step_id": "s0", "intervention_id": f"s0-w{per_step // 2}", "key": "ift"}
            url = f"/api/v1/systems/{system_id}/values"
            took, edited = seconds(client.post, url, json=middle | {"value": 2}, headers=headers)
            assert edited.status_code == 200, edited.get_json()
            print(f"{what}: one value set (API) {took:.2f} s")
            cell = {
                "csrf_token": token,
                "step": "s0",
                "intervention": "s0-w7",
                "key": "ift",
                "value": "3",
            }
            url = f"/systems/{system_id}/cell"
            took, edited = seconds(client.post, url, data=cell, headers={"HX-Request": "true"})
            assert edited.status_code == 200, edited.status_code
            print(f"{what}: one value set (grid cell) {took:.2f} s")
            pages = -(-steps * per_step // 100)
            for label, url in (("first", ""), ("last", f"?page={pages}")):
                report(
                    f"page, {label} of {pages}", *timed_get(client, f"/systems/{system_id}{url}", 5)
                )
            with app.app_context():
                document = db.session.get(System, system_id).document
                cells = missing_cells(document)
                took, _names = seconds(cell_names, document, cells)
                began = time.perf_counter()
                places = Places(document)
                for path in cells:
                    calculate_cell(document, path, places)
                alone = time.perf_counter() - began
            print(
                f"{what}: {len(cells):,} missing cells named in {took:.2f} s, calculated "
                f"in process in {alone:.2f} s"
            )
        refused = {"farm": "Bench", "document": rotation(20_000, frequency=True)}
        took, answer = seconds(client.post, "/api/v1/systems", json=refused, headers=headers)
        assert answer.status_code == 422, answer.status_code
        print(
            f"1 step × 20,000: refused (API, {answer.status_code}) in {took:.2f} s: "
            f"{answer.get_json()['error']['details']['errors'][0]['message']}"
        )
        upload = json.dumps(refused["document"]).encode()
        form = {"csrf_token": token, "farm": "Bench", "file": (io.BytesIO(upload), "big.json")}
        took, answer = seconds(client.post, "/systems/import", data=form)
        assert answer.status_code == 422, answer.status_code
        print(f"1 step × 20,000: refused (import page, {answer.status_code}) in {took:.2f} s")


if __name__ == "__main__":
    if sys.argv[1:] == ["large"]:
        from bench.review_queue import bench_database

        with bench_database():
            large_documents()
    else:
        main()
