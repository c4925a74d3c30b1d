"""Research-table enrichment throughput.

- Computation over 10,000 rows end to end: a run through RQ, taken by a `furrow serve`
  worker (SQLite + embedded Redis), from the request to a proposal of 10,000 rows: rows/s.
- The table page of that 10,000-row table, first and last page, in table order, sorted by a
  number and by a text column and filtered: p50/p95 server time.
- Quick Lookup over 60 rows against a loopback OpenAI-compatible server that answers after
  200 ms: wall time divided by the ideal (60 rows / 3 at a time × 1 call × 0.2 s = 4 s).

Run from the repository root: `.venv/bin/python bench/table_figures.py`.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.openai_server import ScriptedOpenAI, responses_body  # noqa: E402
from tests.support.server import served_app  # noqa: E402

COMPUTED_ROWS = 10_000
LOOKUP_ROWS = 60
LATENCY = float(os.environ.get("BENCH_LATENCY", "0.2"))
PAGE_REQUESTS = 50


def wait_until_done(run_id: int) -> str:
    from webapp.extensions import db
    from webapp.jobs.models import Run

    while True:
        db.session.expire_all()
        status = db.session.get(Run, run_id).status
        db.session.commit()
        if status not in ("queued", "running"):
            return status
        time.sleep(0.05)


def computation(user) -> int:
    from tests.support.tables import make_table
    from webapp.tables.enrichment import proposal, start_enrichment

    rows = [
        {"Item": f"item {n}", "Price": n % 97 + 0.5, "Qty": n % 13 + 1}
        for n in range(COMPUTED_ROWS)
    ]
    table = make_table(
        "Orders",
        [("Item", "text"), ("Price", "number"), ("Qty", "number"), ("Total", "number")],
        rows,
    )
    began = time.perf_counter()
    run = start_enrichment(
        table, "Total", "computation", {"formula": "round({Price} * {Qty}, 2)"}, None, user
    )
    status = wait_until_done(run.id)
    elapsed = time.perf_counter() - began
    operations = len(proposal(run)["operations"])
    assert status == "succeeded" and operations == COMPUTED_ROWS, (status, operations)
    print(
        f"computation over {COMPUTED_ROWS:,} rows, end to end through a worker: "
        f"{COMPUTED_ROWS / elapsed:,.0f} rows/s ({elapsed:.2f} s)"
    )
    return table.id


def table_pages(app, user, table_id: int) -> None:
    """The table page of a 10,000-row table, first and last pages, timed inside the app."""
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = user.get_id()
        session["_fresh"] = True
    from webapp.extensions import db
    from webapp.tables.models import DataTable

    keys = {c.name: c.key for c in db.session.get(DataTable, table_id).columns}
    last = COMPUTED_ROWS // 50
    views = [
        ("", "in table order"),
        (f"&sort={keys['Total']}&dir=desc", "sorted by a number column, descending"),
        (f"&sort={keys['Item']}", "sorted by a text column"),
        (f"&col={keys['Price']}&op=gt&q=50", "filtered Price > 50"),
    ]
    for query, words in views:
        for page in (1, last):
            times = []
            for _ in range(PAGE_REQUESTS):
                began = time.perf_counter()
                response = client.get(f"/tables/{table_id}?page={page}{query}")
                times.append((time.perf_counter() - began) * 1000)
                assert response.status_code == 200
            times.sort()
            print(
                f"table page {page} of a {COMPUTED_ROWS:,}-row table, {words}: p50 "
                f"{statistics.median(times):.1f} ms, p95 {times[int(0.95 * len(times))]:.1f} ms"
            )


def serve_openai(conn, replies, delay: float) -> None:
    server = ScriptedOpenAI()
    server.delay = delay
    for body in replies:
        server.reply(body)
    server.thread.start()
    conn.send(server.base_url)
    conn.recv()
    conn.send(server.most_in_flight)
    server.server.shutdown()


def lookup(app, user) -> None:
    from flask import current_app
    from rq import Queue

    from tests.support.tables import make_table
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus
    from webapp.jobs.queue import JobQueue
    from webapp.jobs.runner import work_through
    from webapp.tables.enrichment import TableEnrichment, start_enrichment

    # The server runs in its own process, as a real one would: it does not share our CPU.
    replies = [responses_body(str(1900 + n), searches=1) for n in range(LOOKUP_ROWS)]
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(
        target=serve_openai, args=(theirs, replies, LATENCY)
    )
    process.start()
    base_url = ours.recv()
    saved = current_app.config["FURROW"]
    current_app.config["FURROW"] = dataclasses.replace(
        saved, provider="openai", openai_base_url=base_url, openai_api_key="sk-bench"
    )
    try:
        table = make_table(
            "Firms",
            [("Company", "text"), ("Founded", "number")],
            [{"Company": f"Company {n}"} for n in range(LOOKUP_ROWS)],
        )
        # Worked here, not by the serve's workers (they use the offline provider): its job
        # goes to a queue nobody listens on.
        jobs = app.extensions["furrow.jobs"]
        app.extensions["furrow.jobs"] = JobQueue(
            jobs.redis, Queue("bench-idle", connection=jobs.redis)
        )
        try:
            run = start_enrichment(
                table, "Founded", "lookup", {"question": "When was {Company} founded?"}, None, user
            )
        finally:
            app.extensions["furrow.jobs"] = jobs
        began = time.perf_counter()
        db.session.execute(db.update(Run).where(Run.id == run.id).values(status=RunStatus.running))
        db.session.commit()
        db.session.refresh(run)
        work_through(run, TableEnrichment())
        elapsed = time.perf_counter() - began
        db.session.refresh(run)
        assert run.status == "succeeded", run.status
    finally:
        current_app.config["FURROW"] = saved
        ours.send("stop")
        most_in_flight = ours.recv()
        process.join()
    ideal = LOOKUP_ROWS / 3 * 1 * LATENCY
    print(
        f"lookup over {LOOKUP_ROWS} rows, {LATENCY * 1000:.0f} ms per call, 3 at a time: "
        f"{elapsed:.2f} s against an ideal {ideal:.2f} s: ratio {elapsed / ideal:.3f} "
        f"(most in flight {most_in_flight})"
    )


def main() -> None:
    with served_app(workers=1) as app:
        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role
        from webapp.extensions import db

        with app.app_context():
            user = create_user("bench@example.org", "bench password", Role.admin)
            db.session.commit()
            table_id = computation(user)
            table_pages(app, user, table_id)
            lookup(app, user)


if __name__ == "__main__":
    main()
