"""One run, many workers: throughput of one large run with 1 and with 2 workers.

- Offline culture enrichment of CULTURES cultures, as one run.
- Table computation over ROWS rows (`round({Price} * {Qty}, 2)`), as one run.

Each figure is measured on a `furrow serve` with 1, then 2, real `furrow worker` processes on
PostgreSQL (a database of its own, created and dropped for each, next to the one DATABASE_URL
names; default postgresql+psycopg://postgres@127.0.0.1:5432/postgres) and the machine's Redis;
a run's items are split into chunks the workers share. Prints items/s and the 2 ÷ 1 ratio.

Run from the repository root: `.venv/bin/python bench/worker_figures.py`.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

from table_figures import start_computation, wait_until_done  # noqa: E402

from tests.support.server import served_app  # noqa: E402

CULTURES = int(os.environ.get("BENCH_CULTURES", "4000"))
ROWS = int(os.environ.get("BENCH_ROWS", "20000"))
DEFAULT_DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def wait_for_workers(app, count: int) -> None:
    """The served workers listen on the queue before the clock starts."""
    from rq import Worker

    queue = app.extensions["furrow.jobs"].queue
    while len(Worker.all(queue=queue)) < count:
        time.sleep(0.2)


def enrichment(user) -> float:
    """Cultures per second of one offline enrichment run."""
    from webapp.cultures.models import Culture
    from webapp.cultures.runs import start_enrichment
    from webapp.extensions import db
    from webapp.reference.library import library

    crops = library().crops
    db.session.add_all(
        Culture(name=f"{crops[n % len(crops)].id} {n}", reference_crop=crops[n % len(crops)].id)
        for n in range(CULTURES)
    )
    db.session.commit()
    ids = list(db.session.scalars(db.select(Culture.id)))
    began = time.perf_counter()
    run = start_enrichment(ids, user)
    status = wait_until_done(run.id)
    elapsed = time.perf_counter() - began
    assert status == "succeeded", status
    return CULTURES / elapsed


def computation(user) -> float:
    """Rows per second of one table computation run."""
    from tests.support.tables import make_table
    from webapp.tables.runs import proposal

    rows = [{"Item": f"item {n}", "Price": n % 97 + 0.5, "Qty": n % 13 + 1} for n in range(ROWS)]
    table = make_table(
        "Orders",
        [("Item", "text"), ("Price", "number"), ("Qty", "number"), ("Total", "number")],
        rows,
    )
    began = time.perf_counter()
    run = start_computation(table, user, ROWS)
    status = wait_until_done(run.id)
    elapsed = time.perf_counter() - began
    operations = len(proposal(run)["operations"])
    assert status == "succeeded" and operations == ROWS, (status, operations)
    return ROWS / elapsed


def measure(workers: int, database: str) -> dict[str, float]:
    os.environ["DATABASE_URL"] = database  # served_app leaves its own database's URL there
    with served_app(workers=workers) as app:
        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role

        with app.app_context():
            wait_for_workers(app, workers)
            user = create_user("bench@example.org", "bench password", Role.admin)
            figures = {"enrichment": enrichment(user), "computation": computation(user)}
    for name, rate in figures.items():
        print(f"{workers} worker(s): {name} {rate:,.0f} items/s", flush=True)
    return figures


def main() -> None:
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith("postgresql"):
        database = DEFAULT_DATABASE
    one, two = measure(1, database), measure(2, database)
    print(f"offline culture enrichment of {CULTURES:,} cultures, one run:")
    print(
        f"  1 worker {one['enrichment']:,.0f}/s, 2 workers {two['enrichment']:,.0f}/s: "
        f"× {two['enrichment'] / one['enrichment']:.2f}"
    )
    print(f"table computation over {ROWS:,} rows, one run:")
    print(
        f"  1 worker {one['computation']:,.0f}/s, 2 workers {two['computation']:,.0f}/s: "
        f"× {two['computation'] / one['computation']:.2f}"
    )


if __name__ == "__main__":
    main()
