"""Browsing a research table's rows: sort by a column's value and filter by one, as the table
page, its exports and the API read them from the query string (`?sort=&dir=&col=&op=&q=`).

Cells are JSON keyed by column id, so every expression reads the cell through SQLAlchemy's JSON
index (json_extract on SQLite, ->> on PostgreSQL); numbers are compared and sorted as numbers.
The value typed in a filter only ever reaches SQL as a bound parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, false, func, or_, select

from webapp.extensions import db
from webapp.numbers import NumberInvalid, parse_number
from webapp.tables.cells import display
from webapp.tables.models import DataTable, TableColumn, TableRow

OPERATORS = {
    "contains": "contains",
    "eq": "=",
    "gt": ">",
    "lt": "<",
    "empty": "is empty",
}
FILTER_LIMIT = 200
FACET_LIMIT = 30  # a select column's options are few; this bounds a hand-made table's


def _as_text(column: TableColumn) -> ColumnElement:
    return TableRow.cells[column.key].as_string()


def _as_number(column: TableColumn) -> ColumnElement:
    return TableRow.cells[column.key].as_float()


def _sort_key(column: TableColumn) -> ColumnElement:
    if column.type == "number":
        return _as_number(column)
    return func.lower(_as_text(column))


def _like_pattern(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


@dataclass(frozen=True)
class RowView:
    """Which rows of a table, in which order; a column or operator that does not fit the
    table is ignored, as the other lists ignore an unknown sort."""

    sort: TableColumn | None = None
    descending: bool = False
    column: TableColumn | None = None
    op: str = ""
    value: str = ""

    @classmethod
    def from_args(cls, table: DataTable, args) -> RowView:
        def column_of(raw: str | None) -> TableColumn | None:
            return next((c for c in table.columns if c.key == raw), None)

        column = column_of(args.get("col"))
        op = args.get("op", "")
        value = (args.get("q") or "").strip()[:FILTER_LIMIT]
        if column is None or op not in OPERATORS or (op != "empty" and not value):
            column, op, value = None, "", ""
        if op == "empty":
            value = ""
        return cls(
            sort=column_of(args.get("sort")),
            descending=args.get("dir") == "desc",
            column=column,
            op=op,
            value=value,
        )

    def as_args(self, **changed: Any) -> dict[str, str]:
        """The query string of this view; changed replaces some of it (None drops an item)."""
        args = {
            "sort": self.sort.key if self.sort else None,
            "dir": "desc" if self.sort and self.descending else None,
            "col": self.column.key if self.column else None,
            "op": self.op or None,
            "q": self.value or None,
        }
        args.update(changed)
        return {name: value for name, value in args.items() if value}

    @property
    def filtered(self) -> bool:
        return self.column is not None

    def describe(self) -> str:
        if self.column is None:
            return ""
        words = f"{self.column.name} {OPERATORS[self.op]}"
        return f"{words} “{self.value}”" if self.value else words

    def condition(self) -> ColumnElement | None:
        """The filter as a WHERE clause; None when it matches every row, false() when a value
        cannot be compared ("abc" > a number column) so it matches none."""
        column, op, value = self.column, self.op, self.value
        if column is None:
            return None
        text = _as_text(column)
        if op == "empty":
            return or_(text.is_(None), text == "")
        if op == "contains":
            return func.lower(text).like(_like_pattern(value), escape="\\")
        if column.type == "number":
            try:
                number = parse_number(value)
            except NumberInvalid:
                return false()
            cell = _as_number(column)
            return {"eq": cell == number, "gt": cell > number, "lt": cell < number}[op]
        if column.type == "boolean" and op == "eq":
            wanted = value.casefold() in ("yes", "true", "1", "y")
            return TableRow.cells[column.key].as_boolean().is_(wanted)
        lowered = func.lower(text)
        wanted = value.lower()
        return {"eq": lowered == wanted, "gt": lowered > wanted, "lt": lowered < wanted}[op]

    def query(self, table: DataTable) -> Select[tuple[TableRow]]:
        query = select(TableRow).where(TableRow.table_id == table.id)
        condition = self.condition()
        if condition is not None:
            query = query.where(condition)
        if self.sort is None:
            # (table_id, position) is indexed; id only breaks ties.
            return query.order_by(TableRow.position, TableRow.id)
        key = _sort_key(self.sort)
        # Empty cells last whichever way, then the table's own order breaks ties.
        return query.order_by(
            key.is_(None), key.desc() if self.descending else key, TableRow.position, TableRow.id
        )

    def facets(self, table: DataTable) -> list[tuple[TableColumn, list[tuple[str, int]]]]:
        """Per select column, how many of the matching rows hold each value, most first."""
        found = []
        for column in table.columns:
            if column.type != "select":
                continue
            text = _as_text(column)
            query = (
                select(text, func.count())
                .where(TableRow.table_id == table.id, text.is_not(None), text != "")
                .group_by(text)
                .order_by(func.count().desc(), text)
                .limit(FACET_LIMIT)
            )
            condition = self.condition()
            if condition is not None:
                query = query.where(condition)
            counts = [(display(value), count) for value, count in db.session.execute(query)]
            if counts:
                found.append((column, counts))
        return found


EVERY_ROW = RowView()  # in the table's own order
