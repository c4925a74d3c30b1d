"""Browsing a research table's rows: sort by a column's value and filter by one, as the table
page, its exports and the API read them from the query string (`?sort=&dir=&col=&op=&q=`).

Sorting, counting and the filters =, >, < and empty read the cells' keys (TableCellKey, one
index), so a page of 100,000 rows reads a page of index entries; `contains` reads every row's
JSON (json_extract on SQLite, ->> on PostgreSQL), as no index serves it. Numbers compare as
numbers, text case-insensitively, and empty cells sort last whichever way. The value typed in a
filter only ever reaches SQL as a bound parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, case, exists, false, func, select
from sqlalchemy.orm import aliased

from webapp.extensions import db
from webapp.numbers import NumberInvalid, parse_number
from webapp.pagination import Page
from webapp.tables.cells import display
from webapp.tables.models import DataTable, TableCellKey, TableColumn, TableRow

OPERATORS = {
    "contains": "contains",
    "eq": "=",
    "gt": ">",
    "lt": "<",
    "empty": "is empty",
}
FILTER_LIMIT = 200
FACET_LIMIT = 30  # a select column's options are few; this bounds a hand-made table's


# The keys a filter reads and the keys a sort reads: two names for one table in one query.
FILTER_KEY = aliased(TableCellKey, name="filter_keys")
SORT_KEY = aliased(TableCellKey, name="sort_keys")
Order = list[tuple[ColumnElement, bool]]  # (expression, descending)


def _as_text(column: TableColumn) -> ColumnElement:
    return TableRow.cells[column.key].as_string()


def _like_pattern(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _ordered(order: Order, reverse: bool = False) -> list[ColumnElement]:
    return [expr.desc() if descending != reverse else expr for expr, descending in order]


def _slice(query: Select, order: Order, size: int, start: int, stop: int) -> list[int]:
    """Ids start..stop of a query of size ids in that order; the half nearer its end is read
    backwards, so the last page skips as few index entries as the first."""
    start, stop = max(start, 0), min(stop, size)
    if stop <= start:
        return []
    if start > size - stop:
        backwards = query.order_by(*_ordered(order, reverse=True))
        return list(db.session.scalars(backwards.offset(size - stop).limit(stop - start)))[::-1]
    return list(
        db.session.scalars(query.order_by(*_ordered(order)).offset(start).limit(stop - start))
    )


def _count(query: Select) -> int:
    return db.session.scalar(query.with_only_columns(func.count())) or 0


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

    def _key_condition(self) -> ColumnElement:
        """The filter =, > or < on a filled cell's key (FILTER_KEY); false() when the value
        cannot be compared ("abc" > a number column), so it matches none."""
        column, op, value = self.column, self.op, self.value
        key = FILTER_KEY
        if column.type == "number":
            try:
                number = parse_number(value)
            except NumberInvalid:
                return false()
            return {
                "eq": key.number == number,
                "gt": key.number > number,
                "lt": key.number < number,
            }[op]
        if column.type == "boolean":
            if op == "eq":
                return key.number == float(value.casefold() in ("yes", "true", "1", "y"))
            words = case((key.number == 1, "true"), else_="false")
            return {"gt": words > value.lower(), "lt": words < value.lower()}[op]
        wanted = value.lower()
        # number IS NULL for text: the index (column, number, text, …) then seeks the text.
        compared = {"eq": key.text == wanted, "gt": key.text > wanted, "lt": key.text < wanted}[op]
        return key.number.is_(None) & compared

    def matches(self, row_id: ColumnElement) -> ColumnElement | None:
        """The filter on the row whose id is row_id; None when it matches every row."""
        column = self.column
        if column is None:
            return None
        if self.op == "empty":
            return ~exists().where(FILTER_KEY.row_id == row_id, FILTER_KEY.column_id == column.id)
        if self.op == "contains":
            row = aliased(TableRow, name="contains_rows")
            text = func.lower(row.cells[column.key].as_string())
            found = select(row.id).where(
                row.table_id == column.table_id, text.like(_like_pattern(self.value), escape="\\")
            )
            return row_id.in_(found)
        return exists().where(
            FILTER_KEY.row_id == row_id, FILTER_KEY.column_id == column.id, self._key_condition()
        )

    def _rows(self, table: DataTable) -> Select:
        """The ids of the matching rows, not ordered."""
        query = select(TableRow.id).where(TableRow.table_id == table.id)
        condition = self.matches(TableRow.id)
        return query if condition is None else query.where(condition)

    def count(self, table: DataTable) -> int:
        if self.column is None or self.op == "contains":
            return _count(self._rows(table))
        # Counted in the index alone: every key of the column is a row of the table.
        keys = select(FILTER_KEY.row_id).where(FILTER_KEY.column_id == self.column.id)
        if self.op == "empty":
            return EVERY_ROW.count(table) - _count(keys)
        return _count(keys.where(self._key_condition()))

    def _sort_order(self, key) -> Order:
        return [
            (key.number, self.descending),
            (key.text, self.descending),
            (key.position, False),
            (key.row_id, False),
        ]

    def page(self, table: DataTable, number: int, per_page: int) -> Page:
        """One page of the matching rows' ids in this view's order, with their count. Sorted,
        the filled cells come first in the index's order, then the empty ones in the table's."""
        total = self.count(table)
        start = (number - 1) * per_page
        stop = start + per_page
        in_table_order: Order = [(TableRow.position, False), (TableRow.id, False)]
        if self.sort is None:
            ids = _slice(self._rows(table), in_table_order, total, start, stop)
            return Page(ids, number, per_page, total)
        filled = select(SORT_KEY.row_id).where(SORT_KEY.column_id == self.sort.id)
        condition = self.matches(SORT_KEY.row_id)
        if condition is not None:
            filled = filled.where(condition)
        size = _count(filled)
        empty = self._rows(table).where(
            ~exists().where(SORT_KEY.row_id == TableRow.id, SORT_KEY.column_id == self.sort.id)
        )
        ids = _slice(filled, self._sort_order(SORT_KEY), size, start, stop)
        ids += _slice(empty, in_table_order, total - size, start - size, stop - size)
        return Page(ids, number, per_page, total)

    def query(self, table: DataTable) -> Select[tuple[TableRow]]:
        """Every matching row in this view's order (what an export writes)."""
        query = select(TableRow).where(TableRow.table_id == table.id)
        condition = self.matches(TableRow.id)
        if condition is not None:
            query = query.where(condition)
        if self.sort is None:
            # (table_id, position) is indexed; id only breaks ties.
            return query.order_by(TableRow.position, TableRow.id)
        query = query.outerjoin(
            SORT_KEY, (SORT_KEY.row_id == TableRow.id) & (SORT_KEY.column_id == self.sort.id)
        )
        order = [(SORT_KEY.row_id.is_(None), False), *self._sort_order(SORT_KEY)[:2]]
        return query.order_by(*_ordered(order), TableRow.position, TableRow.id)

    def facets(self, table: DataTable) -> list[tuple[TableColumn, list[tuple[str, int]]]]:
        """Per select column, how many of the matching rows hold each value, most first."""
        found = []
        condition = self.matches(TableRow.id)
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
            if condition is not None:
                query = query.where(condition)
            counts = [(display(value), count) for value, count in db.session.execute(query)]
            if counts:
                found.append((column, counts))
        return found


EVERY_ROW = RowView()  # in the table's own order
