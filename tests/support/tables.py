"""Research tables built straight from the models, for tests of what uses them."""

from __future__ import annotations

from typing import Any

from webapp.extensions import db
from webapp.jobs.kinds import RunKind
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.runner import work_through
from webapp.tables.models import DataTable, TableColumn, TableRow
from webapp.tables.runs import TableEnrichment
from webapp.tables.sort_keys import write_keys


def make_table(name: str, columns: list[tuple], rows: list[dict[str, Any]]) -> DataTable:
    """columns: (name, type[, options[, unit]]); rows: {column name: stored value}."""
    table = DataTable(name=name)
    for position, spec in enumerate(columns):
        column_name, column_type, *rest = spec
        table.columns.append(
            TableColumn(
                name=column_name,
                type=column_type,
                options=list(rest[0]) if rest else [],
                unit=rest[1] if len(rest) > 1 else None,
                position=position,
            )
        )
    db.session.add(table)
    db.session.flush()
    keys = {c.name: c.key for c in table.columns}
    added = []
    for position, values in enumerate(rows):
        cells = {keys[k]: v for k, v in values.items() if v is not None}
        added.append(TableRow(table_id=table.id, position=position, cells=cells))
    db.session.add_all(added)
    db.session.flush()
    write_keys({row.id: row.cells for row in added})
    db.session.commit()
    return table


def orders_table() -> DataTable:
    """A small table to compute over: two orders with a price and a quantity, no total."""
    return make_table(
        "Orders",
        [("Item", "text"), ("Price", "number"), ("Qty", "number"), ("Total", "number")],
        [{"Item": "seed", "Price": 2.5, "Qty": 4}, {"Item": "tray", "Price": 3, "Qty": 2}],
    )


def run_here(run: Run, kind: RunKind | None = None) -> Run:
    """Work the run in this process, as a worker would (its job waits on an idle queue); a
    table enrichment unless another kind is given."""
    db.session.execute(db.update(Run).where(Run.id == run.id).values(status=RunStatus.running))
    db.session.commit()
    db.session.refresh(run)
    work_through(run, kind or TableEnrichment())
    db.session.refresh(run)
    return run
