"""Table rows as the review core's target: what people call a row, a row's cells written as its
columns' types (many rows by one UPDATE executed for each), and applying a run's reviewed rows
through the core (audited, undoable)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from flask import url_for
from sqlalchemy import bindparam, select, update

from webapp.auth.models import User
from webapp.database import among, execute_many, utcnow
from webapp.extensions import db
from webapp.ids import record_id
from webapp.review import service as review
from webapp.review.models import jsonable
from webapp.review.targets import Changed, ReviewTarget, WriteRefused, register_target
from webapp.tables.cells import CellInvalid, parse_cell
from webapp.tables.models import ROW_TARGET, DataTable, TableColumn, TableRow
from webapp.tables.sort_keys import write_keys

# A number column whose name says it is a year names its row, as a text column does.
YEAR_NAMES = ("year", "jahr", "année", "annee", "año", "年")


KEY_PARTS = 3


def _names_the_row(name: str, column_type: str) -> bool:
    return column_type in ("text", "select") or (
        column_type == "number" and any(word in name.casefold() for word in YEAR_NAMES)
    )


def naming_columns(columns: Iterable[tuple[str, str, str]], target_key: str) -> list[str]:
    """The keys of the columns (key, name, type) that name a row, in order: text, select and
    year columns other than the one being filled. Found once for many rows' labels."""
    return [
        key
        for key, name, column_type in columns
        if key != target_key and _names_the_row(name, column_type)
    ]


def row_label(cells: Mapping[str, Any], naming: Iterable[str], row_id: int) -> str:
    """What people call a row: its first few filled naming columns (naming_columns) —
    "Wheat · Kenya · 2014", not twenty rows of "Wheat"."""
    parts = []
    for key in naming:
        value = cells.get(key)
        if value in (None, ""):
            continue
        parts.append(f"{value:g}" if isinstance(value, int | float) else str(value))
        if len(parts) == KEY_PARTS:
            break
    return " · ".join(parts)[:120] if parts else f"Row {row_id}"


def with_values(cells: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """New cells with values set; an empty cell is a missing key, never a stored null."""
    merged = {**cells, **values}
    return {key: value for key, value in merged.items() if value is not None}


class TableRowTarget(ReviewTarget):
    """Table rows as the review core sees them: a field is a column key, a value is read as the
    column's type, and many rows are written by one UPDATE executed for each."""

    kind = ROW_TARGET
    label = "Row"
    undo_sources = ("apply",)

    def _column(self, ids: Collection[int], column) -> dict[int, Any]:
        query = select(TableRow.id, column).where(among(db.session, TableRow.id, ids))
        return dict(db.session.execute(query).all())

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {i: cells or {} for i, cells in self._column(ids, TableRow.cells).items()}

    def write_many(
        self,
        values: Mapping[int, Mapping[str, Any]],
        user: User | None,
        current: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> tuple[dict[int, Changed], list[WriteRefused]]:
        cells_of = current if current is not None else self.current(values)
        table_of = self._column(values, TableRow.table_id)
        tables = set(table_of.values())
        columns = {
            (c.table_id, c.key): c
            for c in db.session.scalars(select(TableColumn).where(TableColumn.table_id.in_(tables)))
        }
        changed: dict[int, Changed] = {}
        refused: list[WriteRefused] = []
        updates = []
        for row_id, mine in values.items():
            table_id, cells = table_of.get(row_id), cells_of.get(row_id, {})
            accepted: dict[str, Any] = {}
            for key, raw in mine.items():
                column = columns.get((table_id, key))
                if column is None:
                    refused.append(WriteRefused(row_id, key, "The row or its column was deleted."))
                    continue
                try:
                    accepted[key] = (
                        None if raw is None else parse_cell(column.type, raw, column.options)
                    )
                except CellInvalid as exc:
                    refused.append(WriteRefused(row_id, key, str(exc)))
            diff = {
                k: (cells.get(k), v)
                for k, v in accepted.items()
                if jsonable(cells.get(k)) != jsonable(v)
            }
            if diff:
                changed[row_id] = diff
                updates.append({"row_id": row_id, "new_cells": with_values(cells, accepted)})
        # One executemany straight to the table (no ORM bookkeeping per row).
        rows_table = TableRow.__table__
        statement = (
            rows_table.update()
            .where(rows_table.c.id == bindparam("row_id"))
            .values(cells=bindparam("new_cells"), updated_at=utcnow())
        )
        execute_many(db.session, statement, updates)
        # Only the columns written have new keys; the rows' other keys stay as they are.
        written = {key for diff in changed.values() for key in diff}
        write_keys({update["row_id"]: update["new_cells"] for update in updates}, written)
        review.forget(TableRow, values)
        _touch_tables(tables)
        return changed, refused

    def names(self, ids: Collection[int]) -> dict[int, str]:
        """Each row by its first filled text column, as its table's pages name it."""
        query = select(TableRow.id, TableRow.table_id, TableRow.cells).where(
            among(db.session, TableRow.id, ids)
        )
        rows = {i: (table_id, cells or {}) for i, table_id, cells in db.session.execute(query)}
        naming: dict[int, list[str]] = {}
        for table_id in {table_id for table_id, _cells in rows.values()}:
            table = db.session.get(DataTable, table_id)
            naming[table_id] = naming_columns(((c.key, c.name, c.type) for c in table.columns), "")
        return {i: row_label(cells, naming[table_id], i) for i, (table_id, cells) in rows.items()}

    def field_label(self, field: str) -> str:
        """A column by its name: a field is the column's id."""
        column = db.session.get(TableColumn, record_id(field)) if record_id(field) else None
        return column.name if column is not None else field

    def url(self, target_id: int) -> str | None:
        table_id = db.session.scalar(select(TableRow.table_id).where(TableRow.id == target_id))
        return (
            url_for("tables.row_history", table_id=table_id, row_id=target_id) if table_id else None
        )

    def _tables(self, ids: Collection[int]) -> set[int]:
        return set(self._column(ids, TableRow.table_id).values())

    def owns(self, ids: Collection[int], sources: Collection[str]) -> bool:
        """An apply is undone whole when its rows are all of one table (a run's)."""
        return super().owns(ids, sources) and len(self._tables(ids)) == 1

    def back_url(self, ids: Collection[int]) -> str | None:
        tables = self._tables(ids)
        return url_for("tables.show", table_id=tables.pop()) if len(tables) == 1 else None


def _touch_tables(ids: Collection[int]) -> None:
    if ids:
        db.session.execute(
            update(DataTable).where(DataTable.id.in_(list(ids))).values(updated_at=utcnow())
        )


ROWS = register_target(TableRowTarget())
