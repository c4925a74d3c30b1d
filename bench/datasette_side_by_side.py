"""Furrow and Datasette side by side, on the same machine in one sitting (issue 28).

Datasette 0.65.5 with datasette-enrichments 0.5.1 is installed by this script into a venv of
its own, bench/.datasette-venv (gitignored), and runs there as a subprocess: a small program
written by this script, which builds its SQLite databases from the same CSV files Furrow
imports and times each request or job inside its own process, on command. Furrow runs in this
process (the project's venv), SQLite + embedded Redis, with a `furrow serve` of WORKERS RQ
workers for the computation. Every figure alternates the sides run by run (the order turned
each repetition) and prints the p50 of REPEATS (COMPUTE_REPEATS) runs of each, and the ratio
Furrow ÷ Datasette (below 1: Furrow is faster).

1. Facet counts of a PLOT_ROWS-row table (crop: a select column of len(CROPS) values, country:
   text, year and yield: numbers), the crop facet of all rows and of the rows with
   crop = Maize. Furrow: GET /tables/<id>/facets (with col=<crop>&op=eq&q=Maize), the request
   the table page makes for its facets, through the Flask test client. Datasette:
   GET /<db>/plots.json?_facet=crop&_size=0 (and &crop=Maize) through datasette.client, on a
   database without an index on crop and on a copy with one (CREATE INDEX), reported apart;
   and each again with &_nosuggest=1, Datasette without its facet suggestions (which its
   page and JSON compute by default, and which take most of its time at this size).
   Furrow's request counts every facet of the table (crop, and year and yield in ranges)
   and renders them; "the crop facet alone" is the one count Datasette makes, in this
   process without a request (webapp.tables.facets.column_facet), against Datasette's
   unindexed database.
   Datasette's facet_time_limit_ms and sql_time_limit_ms are raised (to 10 s) so it counts
   every time rather than answering "timed out" (its defaults are 200 ms and 1 s); a note
   says when the _nosuggest p50 passes the default facet limit.
2. The table's first page of 50 rows as HTML: server time and size in bytes. Furrow:
   GET /tables/<id> (its facets come in the request of figure 1 once the rows are shown);
   Datasette: GET /<db>/plots?_size=50 (the page with its count and facet suggestions), and
   the same with &_nosuggest=1.
3. ORDER_ROWS rows computed and applied: Furrow's Computation `round({Price} * {Qty}, 2)` into
   an empty number column, from the request until every row's value is in the table: the run
   through RQ (the serve's workers), then every valid suggestion applied through the review
   core (webapp.review.service.apply, one undoable group). Datasette: a minimal enrichment
   (an Enrichment subclass from a plugins directory this script writes) computing
   round(Price * Qty, 2) in enrich_batch and writing with db.execute_write_many, started with
   the enrichment's own enqueue(...) in Datasette's process, until its row in
   _enrichment_jobs says finished with every row done; on a database in WAL mode with
   synchronous=NORMAL (as Furrow's SQLite) and on one with SQLite's default journal mode.
   A fresh table (a fresh database for Datasette) every run; Datasette's enrichment works in
   its batches of 100 rows (the base class's batch_size). Ratio: Furrow ÷ Datasette-WAL; a
   note splits Furrow's time into the run and the apply, and gives SQLite's time for the rows
   those values write in Furrow alone (writes_alone), with nothing else around them.

Times are server times inside each process (Flask test client; datasette.client, in-process
ASGI), so neither side pays for HTTP or the pipe between the two processes.

Run from the repository root: `.venv/bin/python bench/datasette_side_by_side.py`
(about 5-10 minutes; the first run also installs Datasette, which needs the package index).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table_figures import wait_until_done  # noqa: E402
from tests.support.server import served_app  # noqa: E402

PLOT_ROWS = int(os.environ.get("BENCH_PLOT_ROWS", "100000"))
ORDER_ROWS = int(os.environ.get("BENCH_ORDER_ROWS", "10000"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "11"))
COMPUTE_REPEATS = int(os.environ.get("BENCH_COMPUTE_REPEATS", "3"))
WORKERS = 2
PER_PAGE = 50
VENV = ROOT / "bench" / ".datasette-venv"
PACKAGES = ("datasette==0.65.5", "datasette-enrichments==0.5.1")
CROPS = ("Maize", "Wheat", "Rice", "Barley", "Sorghum", "Millet", "Oats", "Rye", "Soybean")
CROPS += ("Potato",)
# More than 12 distinct values: Furrow's import makes it a text column, not a select.
COUNTRIES = [f"Country {n:02d}" for n in range(33)]
FORMULA = "round({Price} * {Qty}, 2)"

# The Datasette side: a program run by the peer venv's python, answering one JSON line per
# command on stdout (prefixed "@@ ", so nothing Datasette prints is taken for an answer).
DATASETTE_PROGRAM = r"""
import asyncio, csv, json, sqlite3, sys, time
from pathlib import Path

from datasette.app import Datasette
from datasette.database import Database
from datasette_enrichments import get_enrichments

work = Path(sys.argv[1])
LIMITS = {"facet_time_limit_ms": 10000, "sql_time_limit_ms": 10000}


def answer(body):
    sys.stdout.write("@@ " + json.dumps(body) + "\n")
    sys.stdout.flush()


def plots_database(path, indexed):
    conn = sqlite3.connect(path)
    conn.execute(
        "create table plots (id integer primary key, crop text, country text, year integer,"
        " yield real)"
    )
    with open(work / "plots.csv", newline="") as f:
        rows = [(r["crop"], r["country"], int(r["year"]), float(r["yield"]))
                for r in csv.DictReader(f)]
    conn.executemany("insert into plots (crop, country, year, yield) values (?, ?, ?, ?)", rows)
    if indexed:
        conn.execute("create index plots_crop on plots (crop)")
    conn.commit()
    conn.execute("analyze")
    conn.close()


def orders_database(path, wal):
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("pragma journal_mode=wal")
    conn.execute(
        "create table orders (id integer primary key, Item text, Price real, Qty integer,"
        " Total real)"
    )
    with open(work / "orders.csv", newline="") as f:
        rows = [(r["Item"], float(r["Price"]), int(r["Qty"])) for r in csv.DictReader(f)]
    conn.executemany("insert into orders (Item, Price, Qty) values (?, ?, ?)", rows)
    conn.commit()
    conn.close()


async def main():
    plots_database(work / "plots.db", indexed=False)
    plots_database(work / "plots_indexed.db", indexed=True)
    ds = Datasette(
        [str(work / "plots.db"), str(work / "plots_indexed.db")],
        plugins_dir=str(work / "plugins"),
        settings=LIMITS,
    )
    await ds.invoke_startup()
    enrichment = (await get_enrichments(ds))["bench-product"]
    loop = asyncio.get_running_loop()
    made = 0
    answer({"ready": True})
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        command = json.loads(line)
        if command["op"] == "quit":
            answer({"bye": True})
            return
        if command["op"] == "get":
            began = time.perf_counter()
            response = await ds.client.get(command["path"])
            ms = (time.perf_counter() - began) * 1000
            body = {"ms": ms, "status": response.status_code, "bytes": len(response.content)}
            if command.get("facets"):
                data = response.json()
                body["timed_out"] = data.get("facets_timed_out", [])
                results = data["facet_results"]["crop"]["results"]
                body["counts"] = {r["value"]: r["count"] for r in results}
            answer(body)
        elif command["op"] == "enrich":
            made += 1
            wal = command["mode"] == "wal"
            name = f"orders_{command['mode']}_{made}"
            path = work / f"{name}.db"
            orders_database(path, wal)
            db = ds.add_database(Database(ds, path=str(path), is_mutable=True), name=name)
            journal = (await db.execute("pragma journal_mode")).single_value()
            # What the write connection (the one the enrichment writes through) runs with.
            synchronous = await db.execute_write_fn(
                lambda conn: conn.execute("pragma synchronous").fetchone()[0]
            )
            began = time.perf_counter()
            job_id = await enrichment.enqueue(ds, db, "orders", "", {})
            while True:
                job = (await db.execute(
                    "select status, done_count, row_count, error_count from _enrichment_jobs"
                    " where id = ?", [job_id])).first()
                if job["status"] == "finished" and job["done_count"] >= job["row_count"]:
                    break
                if job["status"] in ("cancelled", "paused"):
                    break
                await asyncio.sleep(0.005)
            seconds = time.perf_counter() - began
            check = (await db.execute(
                "select count(*) from orders where Total = round(Price * Qty, 2)")).single_value()
            answer({"s": seconds, "status": job["status"], "done": job["done_count"],
                    "errors": job["error_count"], "checked": check, "journal": journal,
                    "synchronous": synchronous})
            ds.remove_database(name)


asyncio.run(main())
"""

PLUGIN = """
from datasette import hookimpl
from datasette_enrichments import Enrichment


class Product(Enrichment):
    name = "Price times Qty"
    slug = "bench-product"
    description = "Total = round(Price * Qty, 2)"

    async def enrich_batch(self, db, table, rows, pks):
        await db.execute_write_many(
            f"update [{table}] set Total = ? where id = ?",
            [(round(row["Price"] * row["Qty"], 2), row["id"]) for row in rows],
        )
        return len(rows)


@hookimpl
def register_enrichments():
    return [Product()]


@hookimpl
def prepare_connection(conn, database):
    if "_wal_" in database:
        conn.execute("pragma synchronous=normal")
"""


@dataclasses.dataclass
class Figure:
    what: str
    furrow: list[float]
    theirs: dict[str, list[float]]  # Datasette variant: its runs
    unit: str = "ms"
    note: str = ""


def p50(values: list[float]) -> float:
    return statistics.median(values)


def write_csvs(folder: Path) -> None:
    rng = random.Random(28)
    weights = [30, 20, 14, 9, 7, 6, 5, 4, 3, 2]
    with (folder / "plots.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["crop", "country", "year", "yield"])
        for _ in range(PLOT_ROWS):
            writer.writerow(
                [
                    rng.choices(CROPS, weights)[0],
                    rng.choice(COUNTRIES),
                    rng.randint(1990, 2024),
                    round(rng.uniform(0.5, 12), 2),
                ]
            )
    with (folder / "orders.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["Item", "Price", "Qty", "Total"])
        for n in range(ORDER_ROWS):
            writer.writerow([f"item {n}", n % 97 + 0.5, n % 13 + 1, ""])


def datasette_python() -> Path:
    """The peer venv's python, Datasette installed into it the first time."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = "import datasette, datasette_enrichments; print(datasette.__version__)"
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    if found.returncode != 0 or found.stdout.strip() != PACKAGES[0].split("==")[1]:
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PACKAGES], check=True)
    return python


class Datasette:
    """The Datasette program in its own venv, worked one command at a time."""

    def __init__(self, folder: Path) -> None:
        plugins = folder / "plugins"
        plugins.mkdir()
        (plugins / "bench_product.py").write_text(PLUGIN)
        program = folder / "datasette_side.py"
        program.write_text(DATASETTE_PROGRAM)
        self.process = subprocess.Popen(
            [str(datasette_python()), str(program), str(folder)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=folder,
        )
        assert self.ask(None)["ready"]

    def ask(self, command: dict | None) -> dict:
        if command is not None:
            self.process.stdin.write(json.dumps(command) + "\n")
            self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the Datasette side exited ({self.process.wait()})")
            if line.startswith("@@ "):
                return json.loads(line[3:])

    def get(self, path: str, facets: bool = False) -> dict:
        answer = self.ask({"op": "get", "path": path, "facets": facets})
        assert answer["status"] == 200, (path, answer)
        return answer

    def close(self) -> None:
        self.ask({"op": "quit"})
        self.process.wait(30)


def alternated(sides: dict, repeats: int) -> dict[str, list[float]]:
    """Each side run repeats times, one run of each in turn, the order turned every round."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for n in range(repeats):
        turn = n % len(names)
        for name in names[turn:] + names[:turn]:
            times[name].append(sides[name]())
    return times


# Furrow


def import_plots(app, user, csv_path: Path) -> int:
    """The table through Furrow's own import, worked in this process (bench/table_figures.py)."""
    from rq import Queue

    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus
    from webapp.jobs.queue import JobQueue
    from webapp.jobs.runner import work_through
    from webapp.tables import importing

    began = time.perf_counter()
    with csv_path.open("rb") as upload:
        token = importing.store_upload(upload)
    jobs = app.extensions["furrow.jobs"]
    app.extensions["furrow.jobs"] = JobQueue(jobs.redis, Queue("bench-idle", connection=jobs.redis))
    try:
        run = importing.start_import(token, "Plots", {}, False, user)
        db.session.commit()
    finally:
        app.extensions["furrow.jobs"] = jobs
    db.session.execute(db.update(Run).where(Run.id == run.id).values(status=RunStatus.running))
    db.session.commit()
    db.session.refresh(run)
    work_through(run, importing.TableImport())
    db.session.refresh(run)
    assert run.status == "succeeded", (run.status, run.item_errors)
    print(f"  Furrow import of {PLOT_ROWS:,} rows: {time.perf_counter() - began:.1f} s")
    return run.params["table_id"]


def signed_in(app, user):
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = user.get_id()
        session["_fresh"] = True
    return client


def timed_get(client, url: str) -> tuple[float, int, bytes]:
    began = time.perf_counter()
    response = client.get(url)
    ms = (time.perf_counter() - began) * 1000
    assert response.status_code == 200, (url, response.status_code)
    return ms, len(response.data), response.data


def computed_and_applied(
    user, csv_path: Path, applies: list[float], made: list[tuple[int, int]]
) -> float:
    """A fresh ORDER_ROWS-row table; seconds from the run's request until every Total is in
    (the apply's own seconds added to applies, the run's and the table's ids to made)."""
    from flask import current_app
    from sqlalchemy import func, select

    from tests.support.tables import make_table
    from webapp.extensions import db
    from webapp.review import service
    from webapp.review.models import Suggestion, SuggestionStatus
    from webapp.tables.models import TableRow
    from webapp.tables.runs import start_enrichment

    with csv_path.open(newline="", encoding="utf-8") as f:
        rows = [
            {"Item": r["Item"], "Price": float(r["Price"]), "Qty": int(r["Qty"])}
            for r in csv.DictReader(f)
        ]
    table = make_table(
        "Orders",
        [("Item", "text"), ("Price", "number"), ("Qty", "number"), ("Total", "number")],
        rows,
    )
    saved = current_app.config["FURROW"]
    current_app.config["FURROW"] = dataclasses.replace(saved, max_rows_per_run=ORDER_ROWS)
    try:
        began = time.perf_counter()
        run = start_enrichment(table, "Total", "computation", {"formula": FORMULA}, None, user)
        db.session.commit()
        status = wait_until_done(run.id, every=0.02)  # the end seen within 20 ms
        applying = time.perf_counter()
        pending = select(Suggestion.id).where(
            Suggestion.run_id == run.id, Suggestion.status == SuggestionStatus.pending
        )
        result = service.apply(list(db.session.scalars(pending)), user, skip_invalid=True)
        db.session.commit()
        seconds = time.perf_counter() - began
        applies.append(time.perf_counter() - applying)
        made.append((run.id, table.id))
    finally:
        current_app.config["FURROW"] = saved
    total = table.column_named("Total").key
    filled = db.session.scalar(
        select(func.count()).where(
            TableRow.table_id == table.id, TableRow.cells[total].as_float().is_not(None)
        )
    )
    assert status == "succeeded" and len(result.applied) == ORDER_ROWS == filled, (
        status,
        len(result.applied),
        filled,
    )
    return seconds


def writes_alone(run_id: int, table_id: int) -> float:
    """Seconds (p50 of COMPUTE_REPEATS) that SQLite takes for the rows a computed and applied
    value writes in Furrow, and nothing else: the run's research-log entries, suggestions and
    audit rows, and the table's cells and sort keys of the filled column, each table's rows
    as the run and the apply wrote them, inserted (or updated) again by executemany from
    ready tuples, then the suggestions' status set, in one transaction rolled back."""
    from webapp.extensions import db

    conn = sqlite3.connect(db.engine.url.database, isolation_level=None)
    conn.execute("pragma foreign_keys=on")
    conn.execute("pragma synchronous=normal")

    # Table and column names below are this script's own; values are bound.
    def again(table: str, key: str, value: int, change: dict[str, int] | None = None):
        names = [r[1] for r in conn.execute(f"pragma table_info({table})") if r[1] != "id"]
        read = f"select {', '.join(names)} from {table} where {key} = ?"  # noqa: S608
        rows = conn.execute(read, (value,)).fetchall()
        if change:  # another column's keys, so the copies do not collide with the originals
            at = {names.index(name): new for name, new in change.items()}
            rows = [tuple(at.get(n, v) for n, v in enumerate(row)) for row in rows]
        marks = ", ".join("?" * len(names))
        return f"insert into {table} ({', '.join(names)}) values ({marks})", rows  # noqa: S608

    filled = conn.execute(
        "select max(column_id) from table_cell_keys where row_id in"
        " (select id from table_rows where table_id = ?)",
        (table_id,),
    ).fetchone()[0]
    ids = conn.execute("select json_group_array(id) from suggestions where run_id = ?", (run_id,))
    ids = ids.fetchone()[0]
    cells = conn.execute(
        "select cells, updated_at, id from table_rows where table_id = ?", (table_id,)
    ).fetchall()
    writes = [
        again("research_log", "run_id", run_id),
        again("suggestions", "run_id", run_id),
        again("changes", "run_id", run_id),
        again("table_cell_keys", "column_id", filled, {"column_id": filled + 10**6}),
        ("update table_rows set cells = ?, updated_at = ? where id = ?", cells),
    ]
    assert all(len(rows) == ORDER_ROWS for _sql, rows in writes), [len(r) for _s, r in writes]
    times = []
    for _ in range(COMPUTE_REPEATS):
        conn.execute("begin")
        began = time.perf_counter()
        for sql, rows in writes:
            conn.executemany(sql, rows)
        conn.execute(
            "update suggestions set status = 'applied', decided_at = ? where id in"
            " (select value from json_each(?))",
            ("2026-01-01 00:00:00+00:00", ids),
        )
        times.append(time.perf_counter() - began)
        conn.execute("rollback")
    conn.close()
    return p50(times)


# The figures


def timed_furrow(client, url: str):
    return lambda: timed_get(client, url)[0]


def timed_facets(theirs: Datasette, path: str):
    def run() -> float:
        answer = theirs.get(path, facets=True)
        assert not answer["timed_out"], answer
        return answer["ms"]

    return run


def facets(app, user, table_id: int, theirs: Datasette) -> list[Figure]:
    from webapp.extensions import db
    from webapp.tables.browsing import RowView
    from webapp.tables.facets import column_facet, table_facets
    from webapp.tables.models import DataTable

    table = db.session.get(DataTable, table_id)
    crop = table.column_named("crop")
    assert crop.type == "select", crop.type
    client = signed_in(app, user)
    figures = []
    for words, ours, query in [
        ("all rows", "", ""),
        ("crop = Maize", f"?col={crop.key}&op=eq&q=Maize", "&crop=Maize"),
    ]:
        # The counts agree, and neither side is timed cold.
        view = RowView.from_args(table, dict(col=crop.key, op="eq", q="Maize") if query else {})
        facet = next(f for f in table_facets(table, view) if f.column is crop)
        counted = {item.label: item.count for item in facet.items}
        db.session.commit()
        for name in ("plots", "plots_indexed"):
            answer = theirs.get(f"/{name}/plots.json?_facet=crop&_size=0{query}", facets=True)
            assert answer["counts"] == counted, (answer["counts"], counted)
        timed_get(client, f"/tables/{table_id}/facets{ours}")

        facet = f"plots.json?_facet=crop&_size=0{query}"

        def crop_alone(view=view) -> float:
            began = time.perf_counter()
            column_facet(crop, view)
            db.session.commit()
            return (time.perf_counter() - began) * 1000

        times = alternated(
            {
                "furrow": timed_furrow(client, f"/tables/{table_id}/facets{ours}"),
                "furrow, crop alone": crop_alone,
                "no index": timed_facets(theirs, f"/plots/{facet}"),
                "index on crop": timed_facets(theirs, f"/plots_indexed/{facet}"),
                "no index, _nosuggest=1": timed_facets(theirs, f"/plots/{facet}&_nosuggest=1"),
                "index, _nosuggest=1": timed_facets(theirs, f"/plots_indexed/{facet}&_nosuggest=1"),
            },
            REPEATS,
        )
        furrow, alone = times.pop("furrow"), times.pop("furrow, crop alone")
        figures.append(Figure(f"1. facet counts, {words}", furrow, times))
        unindexed = {k: v for k, v in times.items() if k.startswith("no index")}
        figures.append(Figure("   the crop facet alone", alone, unindexed))
    return figures


def table_page(app, user, table_id: int, theirs: Datasette) -> list[Figure]:
    client = signed_in(app, user)
    ours = f"/tables/{table_id}"
    path = f"/plots/plots?_size={PER_PAGE}"
    quiet = f"{path}&_nosuggest=1"
    _, our_bytes, html = timed_get(client, ours)
    assert html.count(b"<tr") >= PER_PAGE, "the page shows fewer rows than asked"
    their_bytes = theirs.get(path)["bytes"]
    quiet_bytes = theirs.get(quiet)["bytes"]
    times = alternated(
        {
            "furrow": lambda: timed_get(client, ours)[0],
            "Datasette": lambda: theirs.get(path)["ms"],
            "Datasette, _nosuggest=1": lambda: theirs.get(quiet)["ms"],
        },
        REPEATS,
    )
    return [
        Figure(f"2. table page 1, {PER_PAGE} rows", times.pop("furrow"), times),
        Figure(
            "2. table page 1, size",
            [our_bytes / 1024],
            {"Datasette": [their_bytes / 1024], "Datasette, _nosuggest=1": [quiet_bytes / 1024]},
            unit="KB",
        ),
    ]


def computation(user, orders_csv: Path, theirs: Datasette) -> Figure:
    def datasette(mode: str):
        def run() -> float:
            answer = theirs.ask({"op": "enrich", "mode": mode})
            assert answer["status"] == "finished", answer
            assert answer["errors"] == 0 and answer["checked"] == ORDER_ROWS, answer
            # synchronous: 1 NORMAL, 2 FULL (SQLite's default)
            wanted = ("wal", 1) if mode == "wal" else ("delete", 2)
            assert (answer["journal"], answer["synchronous"]) == wanted, answer
            return answer["s"]

        return run

    applies: list[float] = []
    made: list[tuple[int, int]] = []
    times = alternated(
        {
            "furrow": lambda: computed_and_applied(user, orders_csv, applies, made),
            "WAL + synchronous=NORMAL": datasette("wal"),
            "default journal": datasette("default"),
        },
        COMPUTE_REPEATS,
    )
    furrow = times.pop("furrow")
    note = (
        f"Furrow's figure 3: the run {p50(furrow) - p50(applies):.2f} s, the apply "
        f"{p50(applies):.2f} s (p50 of its applies); SQLite's writes alone for those values "
        f"(a log entry, a suggestion, the cell, its sort key, an audit row and the status, "
        f"from ready tuples) {writes_alone(*made[-1]):.2f} s"
    )
    return Figure(f"3. {ORDER_ROWS:,} rows computed and applied", furrow, times, "s", note)


def number(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "KB":
        return f"{value:.1f} KB"
    return f"{value:.1f} ms"


def print_table(figures: list[Figure]) -> None:
    print()
    print(f"{'figure':<40} {'Furrow':>10}  {'Datasette':<26}{'':>10} {'F ÷ D':>10}")
    for figure in figures:
        ours = p50(figure.furrow)
        for n, (variant, runs) in enumerate(figure.theirs.items()):
            theirs = p50(runs)
            print(
                f"{figure.what if n == 0 else '':<40} "
                f"{number(ours, figure.unit) if n == 0 else '':>10}  {variant:<26}"
                f"{number(theirs, figure.unit):>10} {ours / theirs:>10.2f}"
            )
    print(
        f"\np50 of {REPEATS} alternated runs a side ({COMPUTE_REPEATS} for figure 3); "
        "below 1: Furrow is faster."
    )


def main() -> None:
    print(
        f"Furrow vs {' + '.join(PACKAGES)}: {PLOT_ROWS:,}-row table, {ORDER_ROWS:,} rows computed"
    )
    with tempfile.TemporaryDirectory(prefix="furrow-bench-datasette-") as tmp:
        folder = Path(tmp)
        write_csvs(folder)
        began = time.perf_counter()
        theirs = Datasette(folder)
        print(f"  Datasette side ready (two {PLOT_ROWS:,}-row databases): "
              f"{time.perf_counter() - began:.1f} s")  # fmt: skip
        figures: list[Figure] = []
        try:
            with served_app(workers=WORKERS) as app:
                from webapp.auth.accounts import create_user
                from webapp.auth.roles import Role
                from webapp.extensions import db

                with app.app_context():
                    user = create_user("bench@example.org", "bench password", Role.admin)
                    db.session.commit()
                    table_id = import_plots(app, user, folder / "plots.csv")
                    figures += facets(app, user, table_id, theirs)
                    figures += table_page(app, user, table_id, theirs)
                    if ORDER_ROWS:
                        figures.append(computation(user, folder / "orders.csv", theirs))
        finally:
            theirs.close()
    print_table(figures)
    for figure in figures:
        if figure.note:
            print(figure.note)
    # The facet query alone is about the request without suggestions.
    slow = [
        f"{figure.what} ({name})"
        for figure in figures
        for name, runs in figure.theirs.items()
        if figure.what.startswith("1.") and "_nosuggest" in name and p50(runs) > 200
    ]
    if slow:
        limit = "Datasette's default facet_time_limit_ms (200) would have timed out: "
        print(limit + "; ".join(slow))
    assert all(math.isfinite(p50(f.furrow)) for f in figures)


if __name__ == "__main__":
    main()
