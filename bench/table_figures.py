"""Research tables at 100,000 rows.

- Import of a 100,000-row CSV the way the import page does it (streamed to the instance,
  previewed from its head, a run inserting batches), worked in this process: rows/s and peak
  RSS (the process's high-water mark, reset before the import; the run's file is ~7 MB).
- The table page of that table, first and last page, in table order, sorted by a number and
  by a text column, filtered by a number and by a select column, and by both: p50/p95 server
  time of PAGE_REQUESTS requests after one that is not timed.
- The facet counts of that table alone (table_facets, as the page's facets request counts
  them), unfiltered, filtered by a select column, a number column and contains, and by two
  filters at once: p50 of FACET_CALLS calls after one.
- Computation over 100,000 rows end to end: a run through RQ, taken by the `furrow serve`
  workers (2), from the request until every row's suggestion is stored: rows/s.
- Quick Lookup over 60 rows against a loopback OpenAI-compatible server that answers after
  200 ms, worked in this process as a worker does (its OpenAI client made before the job, as
  `furrow worker` makes it at its start): wall time divided by the ideal (60 rows / 3 at a time
  × 1 call × 0.2 s = 4 s).

SQLite with embedded Redis by default; with
`DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0`
a database of its own is created next to that one and dropped after.
Run from the repository root: `.venv/bin/python bench/table_figures.py`
(`BENCH_ONLY=pages` for the import and the table pages alone, `BENCH_ONLY=facets` for the
import and the facet counts alone).
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from werkzeug.datastructures import MultiDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.openai_server import ScriptedOpenAI, responses_body  # noqa: E402
from tests.support.server import served_app  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "100000"))
LOOKUP_ROWS = 60
LATENCY = float(os.environ.get("BENCH_LATENCY", "0.2"))
PAGE_REQUESTS = 20
FACET_CALLS = 9
# BENCH_ONLY=pages stops after the import and the table pages; facets times the facets alone.
ONLY = os.environ.get("BENCH_ONLY", "")
WORKERS = 2
CROPS = ("Barley", "Maize", "Oats", "Potato", "Rice", "Rye", "Soybean", "Wheat")


def database_name() -> str:
    return "PostgreSQL" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "SQLite"


def write_csv(path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("Plot,Crop,Yield,Price,Qty,Note,Total\n")
        for n in range(ROWS):
            crop = CROPS[n % len(CROPS)]
            out.write(
                f"P{n:06d},{crop},{n % 97 / 10 + 1},{n % 89 + 0.5},{n % 13 + 1},"
                f"plot {n} of the {crop.lower()} trial on loam,\n"
            )


def memory_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def reset_peak_rss() -> None:
    """Linux: writing 5 to clear_refs resets the high-water mark (VmHWM) to the current RSS."""
    Path("/proc/self/clear_refs").write_text("5")


def idle_queue(app):
    """The app's queue swapped for one nobody listens on: a run started now is worked here."""
    from rq import Queue

    from webapp.jobs.queue import JobQueue

    jobs = app.extensions["furrow.jobs"]
    app.extensions["furrow.jobs"] = JobQueue(jobs.redis, Queue("bench-idle", connection=jobs.redis))
    return jobs


def work_here(run, kind) -> None:
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus
    from webapp.jobs.runner import work_through

    db.session.execute(db.update(Run).where(Run.id == run.id).values(status=RunStatus.running))
    db.session.commit()
    db.session.refresh(run)
    work_through(run, kind)
    db.session.refresh(run)


def import_rows(app, user, csv_path: Path) -> int:
    from webapp.extensions import db
    from webapp.tables import importing

    size_mb = csv_path.stat().st_size / 2**20
    reset_peak_rss()
    before = memory_kb("VmRSS")
    began = time.perf_counter()
    with csv_path.open("rb") as upload:
        token = importing.store_upload(upload)
    preview = importing.preview_file(importing.stored_path(token))
    jobs = idle_queue(app)
    try:
        run = importing.start_import(token, "Plots", {}, False, user)
        db.session.commit()
    finally:
        app.extensions["furrow.jobs"] = jobs
    work_here(run, importing.TableImport())
    elapsed = time.perf_counter() - began
    assert run.status == "succeeded", (run.status, run.item_errors)
    assert preview.total == ROWS
    peak = memory_kb("VmHWM")
    print(
        f"import of {ROWS:,} rows ({size_mb:.1f} MB): {ROWS / elapsed:,.0f} rows/s "
        f"({elapsed:.2f} s); peak RSS {peak / 1024:.0f} MB ({(peak - before) / 1024:+.0f} MB "
        f"over the {before / 1024:.0f} MB before)"
    )
    return run.params["table_id"]


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def table_pages(app, user, table_id: int) -> None:
    """The table page at ROWS rows, first and last pages, timed inside the app."""
    from webapp.extensions import db
    from webapp.tables import catalog
    from webapp.tables.browsing import RowView
    from webapp.tables.models import DataTable

    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = user.get_id()
        session["_fresh"] = True
    table = db.session.get(DataTable, table_id)
    keys = {c.name: c.key for c in table.columns}
    views = [
        ("", "in table order"),
        (f"sort={keys['Yield']}&dir=desc", "sorted by a number column, descending"),
        (f"sort={keys['Plot']}", "sorted by a text column"),
        (f"col={keys['Yield']}&op=gt&q=5", "filtered Yield > 5"),
        (f"col={keys['Crop']}&op=eq&q=Maize", "filtered Crop = Maize (a select column)"),
        (
            f"f={keys['Crop']}:eq:Maize&f={keys['Yield']}:gt:5",
            "filtered Crop = Maize and Yield > 5",
        ),
    ]
    for query, words in views:
        args = MultiDict(pair.split("=") for pair in query.split("&") if pair)
        total = catalog.rows_page(table, 1, view=RowView.from_args(table, args)).total
        db.session.commit()
        for page in (1, max(1, -(-total // catalog.PER_PAGE))):
            # Not timed: a first request compiles the page's templates.
            assert client.get(f"/tables/{table_id}?page={page}&{query}").status_code == 200
            times = []
            for _ in range(PAGE_REQUESTS):
                began = time.perf_counter()
                response = client.get(f"/tables/{table_id}?page={page}&{query}")
                times.append((time.perf_counter() - began) * 1000)
                assert response.status_code == 200
            print(
                f"table page {page:,} of {total:,} rows, {words}: p50 "
                f"{statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms"
            )


def facet_counts(table_id: int) -> None:
    """The facet counts alone at ROWS rows, timed in this process: all of them, as the page's
    facets request counts them, and each column's."""
    from webapp.extensions import db
    from webapp.tables.browsing import RowView
    from webapp.tables.facets import FACET_TYPES, column_facet, table_facets
    from webapp.tables.models import DataTable

    table = db.session.get(DataTable, table_id)
    keys = {c.name: c.key for c in table.columns}
    views = [
        ({}, "unfiltered"),
        ({"col": keys["Crop"], "op": "eq", "q": "Maize"}, "filtered Crop = Maize"),
        ({"col": keys["Yield"], "op": "gt", "q": "5"}, "filtered Yield > 5"),
        ({"col": keys["Note"], "op": "contains", "q": "loam"}, "filtered Note contains loam"),
        (
            {"f": [f"{keys['Crop']}:eq:Maize", f"{keys['Yield']}:gt:5"]},
            "filtered Crop = Maize and Yield > 5",
        ),
        (
            {"f": [f"{keys['Yield']}:gt:5", f"{keys['Note']}:contains:loam"]},
            "filtered Yield > 5 and Note contains loam",
        ),
    ]

    def p50(count) -> float:
        count()  # not timed: the first call warms the database's cache
        times = []
        for _ in range(FACET_CALLS):
            began = time.perf_counter()
            count()
            times.append((time.perf_counter() - began) * 1000)
        db.session.commit()
        return statistics.median(times)

    for args, words in views:
        view = RowView.from_args(table, args)
        each = ", ".join(
            f"{c.name} ({c.type}) {p50(lambda c=c, view=view: column_facet(c, view)):.1f} ms"
            for c in table.columns
            if c.type in FACET_TYPES
        )
        total = p50(lambda view=view: table_facets(table, view))
        print(f"facet counts of {ROWS:,} rows, {words}: p50 {total:.1f} ms; {each}")


def wait_until_done(run_id: int, every: float = 0.1) -> str:
    """The run's status once it ended, looked at every so many seconds: its status alone, as
    the run's progress poll reads it (not its params and item lists, which a large run's
    JSON makes slow to read 50 times a second, on the CPUs the workers use)."""
    from sqlalchemy import select

    from webapp.extensions import db
    from webapp.jobs.models import Run

    while True:
        status = db.session.scalar(select(Run.status).where(Run.id == run_id))
        db.session.commit()
        if status not in ("queued", "running"):
            return status
        time.sleep(every)


def start_computation(table, user, rows: int):
    """The run computing `round({Price} * {Qty}, 2)` into Total for every row of the table, the
    row cap raised to the table's rows."""
    from flask import current_app

    from webapp.extensions import db
    from webapp.tables.runs import start_enrichment

    saved = current_app.config["FURROW"]
    current_app.config["FURROW"] = dataclasses.replace(saved, max_rows_per_run=rows)
    try:
        run = start_enrichment(
            table, "Total", "computation", {"formula": "round({Price} * {Qty}, 2)"}, None, user
        )
        db.session.commit()
    finally:
        current_app.config["FURROW"] = saved
    return run


def computation(app, user, table_id: int) -> None:
    from sqlalchemy import func, select

    from webapp.extensions import db
    from webapp.review.models import Suggestion
    from webapp.tables.models import DataTable

    table = db.session.get(DataTable, table_id)
    began = time.perf_counter()
    run = start_computation(table, user, ROWS)
    status = wait_until_done(run.id)
    elapsed = time.perf_counter() - began
    stored = db.session.scalar(select(func.count()).where(Suggestion.run_id == run.id))
    assert status == "succeeded" and stored == ROWS, (status, stored)
    print(
        f"computation over {ROWS:,} rows, end to end through {WORKERS} workers: "
        f"{ROWS / elapsed:,.0f} rows/s ({elapsed:.2f} s)"
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

    from tests.support.tables import make_table
    from webapp.ai.client import warm
    from webapp.tables.runs import TableEnrichment, start_enrichment

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
        # Worked here, not by the serve's workers (they use the offline provider).
        jobs = idle_queue(app)
        try:
            run = start_enrichment(
                table, "Founded", "lookup", {"question": "When was {Company} founded?"}, None, user
            )
        finally:
            app.extensions["furrow.jobs"] = jobs
        # As `furrow worker` does once at its start, before any job: the client is made.
        warm(current_app.config["FURROW"])
        began = time.perf_counter()
        work_here(run, TableEnrichment())
        elapsed = time.perf_counter() - began
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
    print(f"— {database_name()} —")
    with tempfile.TemporaryDirectory(prefix="furrow-bench-csv-") as folder:
        csv_path = Path(folder) / "plots.csv"
        write_csv(csv_path)
        with served_app(workers=WORKERS) as app:
            from webapp.auth.accounts import create_user
            from webapp.auth.roles import Role
            from webapp.extensions import db

            with app.app_context():
                user = create_user("bench@example.org", "bench password", Role.admin)
                db.session.commit()
                table_id = import_rows(app, user, csv_path)
                if ONLY != "facets":
                    table_pages(app, user, table_id)
                facet_counts(table_id)
                if ONLY not in ("pages", "facets"):
                    computation(app, user, table_id)
                    lookup(app, user)


if __name__ == "__main__":
    main()
