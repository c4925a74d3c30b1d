"""Compressed answers (webapp/compression.py) on a research table of 100,000 rows.

For the table page (its first page, sorted by a number column), the same page as an htmx
fragment, and the table's JSON and CSV exports (every row): the bytes sent uncompressed, gzip
and br, and the server time (p50 of REQUESTS requests after one not timed, the body read whole)
for a client that accepts no compression, gzip, and br.

SQLite on a fresh instance of its own; no Redis is needed. Run from the repository root:
`.venv/bin/python bench/compression_figures.py` (BENCH_ROWS=… for another size).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROWS = int(os.environ.get("BENCH_ROWS", "100000"))
BATCH = 5000
REQUESTS = 20
EXPORT_REQUESTS = 5
CROPS = ("Barley", "Maize", "Oats", "Potato", "Rice", "Rye", "Soybean", "Wheat")
COLUMNS = [
    {"name": "Plot", "type": "text"},
    {"name": "Crop", "type": "select", "options": list(CROPS)},
    {"name": "Yield", "type": "number", "unit": "t/ha"},
    {"name": "Price", "type": "number"},
    {"name": "Note", "type": "text"},
]
ENCODINGS = (("none", None), ("gzip", "gzip, deflate"), ("br", "gzip, deflate, br"))


def make_table(user) -> int:
    from webapp.extensions import db
    from webapp.tables import catalog

    table = catalog.create_table("Plots", COLUMNS, user)
    db.session.commit()
    for start in range(0, ROWS, BATCH):
        rows = [
            {
                "Plot": f"P{n:06d}",
                "Crop": CROPS[n % len(CROPS)],
                "Yield": n % 97 / 10 + 1,
                "Price": n % 89 + 0.5,
                "Note": f"plot {n} of the {CROPS[n % len(CROPS)].lower()} trial on loam",
            }
            for n in range(start, min(ROWS, start + BATCH))
        ]
        catalog.add_rows(table, rows, user)
        db.session.commit()
    return table.id


def measure(client, url: str, words: str, requests: int, headers: dict | None = None) -> None:
    sizes, times = {}, {}
    for name, accept in ENCODINGS:
        sent = {**(headers or {}), **({"Accept-Encoding": accept} if accept else {})}
        first = client.get(url, headers=sent)  # not timed: templates compile, caches fill
        assert first.status_code == 200, (url, first.status_code)
        assert first.headers.get("Content-Encoding") == (None if name == "none" else name)
        sizes[name] = len(first.get_data())
        taken = []
        for _ in range(requests):
            began = time.perf_counter()
            response = client.get(url, headers=sent)
            response.get_data()
            taken.append((time.perf_counter() - began) * 1000)
        times[name] = statistics.median(taken)
    raw = sizes["none"]
    print(
        f"{words}: {raw:,} bytes; gzip {sizes['gzip']:,} ({raw / sizes['gzip']:.1f}×), "
        f"br {sizes['br']:,} ({raw / sizes['br']:.1f}×); server p50 "
        f"{times['none']:.1f} ms uncompressed, {times['gzip']:.1f} ms gzip, "
        f"{times['br']:.1f} ms br"
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="furrow-bench-") as folder:
        os.environ.update(FURROW_INSTANCE_PATH=folder, FURROW_WORKERS="0")
        os.environ.pop("DATABASE_URL", None)
        from flask_migrate import upgrade

        from webapp import create_app
        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role
        from webapp.extensions import db

        app = create_app()
        with app.app_context():
            upgrade(directory=str(ROOT / "migrations"))
            user = create_user("bench@example.org", "bench password", Role.admin)
            db.session.commit()
            began = time.perf_counter()
            table_id = make_table(user)
            print(f"a table of {ROWS:,} rows made in {time.perf_counter() - began:.1f} s")
            client = app.test_client()
            with client.session_transaction() as session:
                session["_user_id"] = user.get_id()
                session["_fresh"] = True
            from webapp.tables.models import DataTable

            yield_key = db.session.get(DataTable, table_id).column_named("Yield").key
            page = f"/tables/{table_id}?sort={yield_key}&dir=desc"
            measure(client, page, "table page (50 of the rows)", REQUESTS)
            measure(
                client,
                f"{page}&page=2",
                "its page 2 as an htmx fragment",
                REQUESTS,
                {"HX-Request": "true"},
            )
            measure(client, f"/tables/{table_id}/export.json", "JSON export", EXPORT_REQUESTS)
            measure(client, f"/tables/{table_id}/export.csv", "CSV export", EXPORT_REQUESTS)
            db.engine.dispose()


if __name__ == "__main__":
    main()
