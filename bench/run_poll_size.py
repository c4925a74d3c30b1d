"""How large one progress poll of a 100,000-item run is: GET /api/v1/runs/<id>, and a page of
GET /api/v1/runs/<id>/items.

Two runs are made in the bench's own database (bench_database, migrated by the app's own
migrations), as their kinds' code makes them: a table enrichment over 100,000 rows, 60,000 of
them done (its params list every row id; its results are counts by status), and a culture
enrichment over 100,000 cultures, all done, with each culture's result on the run and every
500th one failed. Each poll goes through the Flask test client, signed in; prints its size in
bytes and the median server time of POLLS polls. Target: a poll < 5 KB whatever the run's size.

"Before" is measured by running this same file against the code before the change (a poll
then answered the run's whole params, results and item errors): see docs/api.md, Changes.
On SQLite, 2 CPUs: a table run's poll 589,824 bytes before, 1,022 after (about 40 ms either
way); a culture run's 6,776,870 bytes (849 ms) before, 761 bytes (85 ms) after; a page of 100
items 5.8 KB (table) and 10.7 KB (culture).

Run from the repository root: `.venv/bin/python bench/run_poll_size.py`. SQLite by default;
PostgreSQL when DATABASE_URL is set, as bench/review_queue.py.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.review_queue import bench_database, migrated_app, signed_in  # noqa: E402

ITEMS = 100_000
TABLE_DONE = 60_000
POLLS = 20
TARGET_BYTES = 5_000


def table_run(user) -> int:
    """A table enrichment over ITEMS rows, TABLE_DONE of them done: the params
    start_table_enrichment writes (every row id), the counts by status keep_results keeps."""
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus

    row_ids = list(range(1, ITEMS + 1))
    run = Run(
        kind="table_enrichment",
        title=f"Fill ‘Yield’ in Fields ({ITEMS:,} rows) · Lookup",
        target_type="table",
        target_id=1,
        mode="lookup",
        requested_by=user,
        provider="openai",
        model="gpt-5-mini",
        status=RunStatus.running,
        stage="researching",
        message=f"{TABLE_DONE:,} of {ITEMS:,} row(s) done.",
        params={
            "table_id": 1,
            "column_id": 2,
            "strategy": "lookup",
            "params": {"question": "What is the typical yield of {Crop} in t/ha?"},
            "row_ids": row_ids,
            "provider": "openai",
            "reasoning": "Looks the yield up in the reference library, then asks the model.",
        },
        items=[str(i) for i in row_ids],
        total=ITEMS,
        done=TABLE_DONE,
        done_items=[str(i) for i in row_ids[:TABLE_DONE]],
        results={"found": TABLE_DONE - 1_000, "not_found": 900, "error": 100},
    )
    db.session.add(run)
    db.session.commit()
    return run.id


def culture_run(user) -> int:
    """A culture enrichment over ITEMS cultures, all done, each culture's result on the run,
    every 500th failed."""
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus

    keys = [str(i) for i in range(1, ITEMS + 1)]
    failed = {key: "The provider answered nothing usable twice." for key in keys[::500]}
    run = Run(
        kind="culture_enrichment",
        title=f"Enrich {ITEMS:,} cultures",
        mode="complete",
        requested_by=user,
        provider="openai",
        model="gpt-5-mini",
        status=RunStatus.completed_with_errors,
        message=f"{ITEMS:,} of {ITEMS:,} item(s) done, {len(failed)} with errors.",
        params={"culture_ids": list(range(1, ITEMS + 1)), "mode": "complete", "fields": []},
        items=keys,
        total=ITEMS,
        done=ITEMS,
        done_items=keys,
        item_errors=failed,
        results={
            key: {"suggested": 5, "errors": 0, "warnings": 1, "citations": 2}
            for key in keys
            if key not in failed
        },
    )
    db.session.add(run)
    db.session.commit()
    return run.id


def poll(client, url: str) -> tuple[int, float]:
    """The answer's size in bytes and the median time of POLLS polls, in ms."""
    client.get(url)  # warm
    times, size = [], 0
    for _ in range(POLLS):
        began = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, (url, response.status_code, response.data[:200])
        size = len(response.data)
    return size, statistics.median(times)


def measure() -> None:
    from webapp.extensions import db

    with migrated_app() as (app, user):
        runs = {"table enrichment": table_run(user), "culture enrichment": culture_run(user)}
        client = signed_in(app)
        print(f"database: {db.engine.dialect.name}; two runs of {ITEMS:,} items each")
        for what, run_id in runs.items():
            size, ms = poll(client, f"/api/v1/runs/{run_id}")
            verdict = "ok" if size < TARGET_BYTES else f"over {TARGET_BYTES:,}"
            print(f"{what + ', one poll':<36} {size:>10,} bytes  p50 {ms:7.1f} ms  ({verdict})")
            url = f"/api/v1/runs/{run_id}/items?page=2&per_page=100"
            if client.get(url).status_code == 200:
                size, ms = poll(client, url)
                print(f"{what + ', 100 items':<36} {size:>10,} bytes  p50 {ms:7.1f} ms")


if __name__ == "__main__":
    with bench_database():
        measure()
