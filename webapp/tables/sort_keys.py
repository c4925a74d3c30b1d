"""The sort keys of a table's cells (TableCellKey): what the table page sorts, filters and
counts by through one index instead of reading every row's JSON.

Every write of rows' cells calls write_keys with the cells as stored now (add_keys for rows
just added); deleting a row or a column removes its keys by cascade.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from sqlalchemy import delete, select

from webapp.database import among, bulk_insert
from webapp.extensions import db
from webapp.tables.models import TableCellKey, TableRow

# Longer than any filter value (browsing.FILTER_LIMIT), so comparing a cut key with one is
# comparing the whole text; it also keeps an index entry within PostgreSQL's limit.
TEXT_KEY_CHARS = 250


def cell_key(value: Any) -> tuple[float | None, str | None] | None:
    """(number, text) as a cell sorts: numbers as numbers (a boolean as 0 or 1), text
    case-insensitively; None for an empty cell."""
    if value is None or value == "":
        return None
    if isinstance(value, bool | int | float):
        return float(value), None
    return None, str(value).lower()[:TEXT_KEY_CHARS]


def write_keys(
    cells_of: Mapping[int, Mapping[str, Any]], columns: Collection[str] | None = None
) -> None:
    """Replace the keys of these rows (row id -> cells as stored now, keyed by column id); with
    columns, only those columns' keys (an apply that filled one column rewrites its keys, not
    every cell's)."""
    if not cells_of:
        return  # a DELETE, even of nothing, takes SQLite's write lock
    statement = delete(TableCellKey).where(among(db.session, TableCellKey.row_id, cells_of))
    if columns is not None:
        statement = statement.where(TableCellKey.column_id.in_([int(c) for c in columns]))
    db.session.execute(statement)
    query = select(TableRow.id, TableRow.position).where(among(db.session, TableRow.id, cells_of))
    positions = dict(db.session.execute(query).all())
    add_keys(
        (
            row_id,
            positions[row_id],
            cells_of[row_id]
            if columns is None
            else {c: cells_of[row_id][c] for c in columns if c in cells_of[row_id]},
        )
        for row_id in positions
    )


def add_keys(rows: Iterable[tuple[int, int, Mapping[str, Any]]]) -> None:
    """The keys of rows just added, which have none yet: (row id, position, cells)."""
    keys = []
    for row_id, position, cells in rows:
        for column_key, value in cells.items():
            key = cell_key(value)
            if key is not None:
                number, text = key
                keys.append(
                    {
                        "row_id": row_id,
                        "column_id": int(column_key),
                        "position": position,
                        "number": number,
                        "text": text,
                    }
                )
    bulk_insert(db.session, TableCellKey.__table__, keys)
