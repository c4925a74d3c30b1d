"""What the offline Quick Lookup proposes over a public FAO crop-yield table, crop by crop.

The table is tests/tables/data/fao_yield_sample.csv (34 rows, eight crops; see the README
beside it). Three columns are filled, each with one question per row, by the offline provider
(the reference library and the document library, no model):

- "Growing period" (number, days):   How many days is the growing period of {Item}?
- "Growing period" (number, no unit): the same question
- "Yield" (number, t/ha):            What is the yield of {Item} in t/ha?

For each crop it prints the value proposed, whether it is valid (may be applied) and its
confidence, then how many rows got a valid value, an invalid one, or none. Works on any
checkout with the same table API: run it from a checkout's root with
`.venv/bin/python bench/fao_lookup.py` (copy it into an older checkout to compare).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(os.environ.get("FURROW_ROOT", Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(ROOT))
SAMPLE = Path(__file__).resolve().parent.parent / "tests" / "tables" / "data"
SAMPLE = SAMPLE / "fao_yield_sample.csv"

QUESTIONS = (
    ("Growing period (days)", "days", "How many days is the growing period of {Item}?"),
    ("Growing period (no unit)", None, "How many days is the growing period of {Item}?"),
    ("Yield (t/ha)", "t/ha", "What is the yield of {Item} in t/ha?"),
)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="furrow-fao-") as tmp:
        os.environ.update(
            FURROW_INSTANCE_PATH=tmp,
            DATABASE_URL=f"sqlite:///{tmp}/furrow.db",
            SECRET_KEY="bench-only",  # noqa: S106 - a throwaway app in a temporary folder
        )
        from flask_migrate import upgrade
        from sqlalchemy import select

        from webapp import create_app
        from webapp.extensions import db
        from webapp.tables.catalog import import_csv
        from webapp.tables.enrichment import Target, work_on_row
        from webapp.tables.models import TableRow
        from webapp.tables.tools import OfflineTools

        app = create_app()
        with app.app_context():
            upgrade(directory=str(ROOT / "migrations"))
            table = import_csv("FAO yields", SAMPLE.read_text(encoding="utf-8"), {}, None)
            db.session.commit()
            names = {c.key: c.name for c in table.columns}
            rows = [
                {names[k]: v for k, v in row.cells.items()}
                for row in db.session.scalars(select(TableRow).where(TableRow.table_id == table.id))
            ]
            for n, (column, unit, question) in enumerate(QUESTIONS):
                target = Target(1000 + n, str(1000 + n), column, "number", unit, ())
                params = {"strategy": "lookup", "params": {"question": question}}
                outcomes: dict[str, Counter] = {}
                totals: Counter = Counter()
                for row in rows:
                    entry = work_on_row(row, params, target, OfflineTools())
                    db.session.commit()
                    if entry["value"] is None:
                        shown, kind = "not found", "none"
                    else:
                        valid = entry.get("valid", True)
                        shown = f"{entry['value']} ({'valid' if valid else 'INVALID'}, "
                        shown += f"{entry['confidence']})"
                        kind = "valid" if valid else "invalid"
                    outcomes.setdefault(row["Item"], Counter())[shown] += 1
                    totals[kind] += 1
                print(f"\n{column}: {question}")
                for item, seen in sorted(outcomes.items()):
                    print(f"  {item:<16} " + "; ".join(f"{s} ×{c}" for s, c in seen.items()))
                print(
                    f"  rows {len(rows)}: valid {totals['valid']}, invalid {totals['invalid']}, "
                    f"none {totals['none']}"
                )
            db.engine.dispose()


if __name__ == "__main__":
    main()
