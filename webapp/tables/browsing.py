"""Browsing a research table's rows: sort by a column's value and filter by any number of
columns (every filter applies), as the table page, its JSON twin, its exports and the API read
them from the query string: `?sort=&dir=`, each filter as `f=<column id>:<op>:<value>`, and
one more as `col=&op=&q=` (the filter form's, and how a single filter's links are written).

Sorting, counting and the filters =, >, <, between and empty read the cells' keys (TableCellKey,
one index), so a page of 100,000 rows reads a page of index entries; `contains` reads every row's
JSON (json_extract on SQLite, ->> on PostgreSQL), as no index serves it. Numbers compare as
numbers, text case-insensitively, and empty cells sort last whichever way. `between` takes a
number column's range as `low..high`, low included and high not, as a number facet's ranges
are. The value typed in a filter only ever reaches SQL as a bound parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Select,
    and_,
    case,
    exists,
    false,
    func,
    intersect,
    select,
)
from sqlalchemy.orm import aliased

from webapp.extensions import db
from webapp.numbers import NumberInvalid, parse_number
from webapp.pagination import Page
from webapp.problems import Problem
from webapp.tables.cells import TRUE_WORDS, CellInvalid, display, parse_cell
from webapp.tables.models import DataTable, TableCellKey, TableColumn, TableRow

OPERATORS = {
    "contains": "contains",
    "eq": "=",
    "gt": ">",
    "lt": "<",
    "between": "between low..high",
    "empty": "is empty",
}
COMPARISONS = ("eq", "gt", "lt")  # the operators that read the column's type
FILTER_ARGS = ("col", "op", "q")
DIRECTIONS = ("asc", "desc")
FILTER_LIMIT = 200
RANGE_SEPARATOR = ".."
FILTER_SEPARATOR = ":"  # f=<column id>:<op>:<value>; the value may hold more of it
FILTER_SHAPE = "<column id>:<op>:<value>, such as 3:gt:40"


def range_bounds(value: str) -> tuple[float, float]:
    """(low, high) of a range written `low..high`; NumberInvalid says what does not fit."""
    low, separator, high = value.partition(RANGE_SEPARATOR)
    bounds = (parse_number(low), parse_number(high)) if separator else None
    if bounds is None or bounds[0] >= bounds[1]:
        raise NumberInvalid(
            "between takes two numbers, the lower one first: 10..20 is from 10 to under 20."
        )
    return bounds


def _unfit(column: TableColumn, op: str, value: str) -> str | None:
    """Why value cannot be compared with the column's cells (a word with numbers), or None."""
    if op == "between":
        if column.type != "number":
            return f"{column.name}: between compares numbers, and this is a {column.type} column."
        try:
            range_bounds(value)
        except NumberInvalid as exc:
            return f"{column.name}: {exc}"
        return None
    if op not in COMPARISONS or column.type not in ("number", "boolean"):
        return None
    try:
        parse_cell(column.type, value)
    except CellInvalid as exc:
        return f"{column.name}: {exc}"
    return None


# The keys a filter reads and the keys a sort reads: two names for one table in one query.
FILTER_KEY = aliased(TableCellKey, name="filter_keys")
SORT_KEY = aliased(TableCellKey, name="sort_keys")
Order = list[tuple[ColumnElement, bool]]  # (expression, descending)


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
class Filter:
    """One filter: the column's cells against value by op (value "" for is empty)."""

    column: TableColumn
    op: str
    value: str = ""

    @property
    def reads_keys(self) -> bool:
        """Whether its rows are a stretch of the column's keys (=, >, <, between)."""
        return self.op not in ("contains", "empty")

    def as_arg(self) -> str:
        return FILTER_SEPARATOR.join((self.column.key, self.op, self.value))

    def same_as(self, column: TableColumn, op: str, value: str) -> bool:
        return (self.column, self.op, self.value.lower()) == (column, op, value.lower())

    def to_dict(self) -> dict[str, Any]:
        return {
            "column": self.column.name,
            "column_id": self.column.id,
            "op": self.op,
            "value": self.value,
            "description": self.describe(),
        }

    def describe(self) -> str:
        if self.op == "between":
            if _unfit(self.column, self.op, self.value):
                return f"{self.column.name} between “{self.value}”"
            low, high = range_bounds(self.value)
            return f"{self.column.name} from {display(low)} to under {display(high)}"
        words = f"{self.column.name} {OPERATORS[self.op]}"
        return f"{words} “{self.value}”" if self.value else words

    def key_condition(self, key=FILTER_KEY) -> ColumnElement:
        """The filter =, >, < or between on a filled cell's key (FILTER_KEY, or another name of
        the keys); false() when the value cannot be compared ("abc" > a number column), so it
        matches none."""
        column, op, value = self.column, self.op, self.value
        if op == "between":
            if _unfit(column, op, value):
                return false()
            low, high = range_bounds(value)
            return (key.number >= low) & (key.number < high)
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
                return key.number == float(value.casefold() in TRUE_WORDS)
            words = case((key.number == 1, "true"), else_="false")
            return {"gt": words > value.lower(), "lt": words < value.lower()}[op]
        wanted = value.lower()
        # number IS NULL for text: the index (column, number, text, …) then seeks the text.
        compared = {"eq": key.text == wanted, "gt": key.text > wanted, "lt": key.text < wanted}[op]
        return key.number.is_(None) & compared

    def matches(self, row_id: ColumnElement) -> ColumnElement:
        """The filter on the row whose id is row_id."""
        column = self.column
        if self.op == "empty":
            return ~exists().where(FILTER_KEY.row_id == row_id, FILTER_KEY.column_id == column.id)
        if self.op == "contains":
            return row_id.in_(self._containing())
        return exists().where(
            FILTER_KEY.row_id == row_id, FILTER_KEY.column_id == column.id, self.key_condition()
        )

    def _containing(self) -> Select:
        """The ids of the rows whose cell holds the value (contains): every row's JSON read."""
        row = aliased(TableRow, name="contains_rows")
        text = func.lower(row.cells[self.column.key].as_string())
        return select(row.id.label("row_id")).where(
            row.table_id == self.column.table_id, text.like(_like_pattern(self.value), escape="\\")
        )

    def row_ids(self) -> Select:
        """The matching rows' ids: from the column's keys when the filter reads them, from the
        table's rows for contains and is empty."""
        if self.op == "contains":
            return self._containing()
        if self.op == "empty":
            rows = select(TableRow.id.label("row_id"))
            return rows.where(TableRow.table_id == self.column.table_id, self.matches(TableRow.id))
        return self.key_rows()

    def key_rows(self) -> Select:
        """The matching rows' ids read from the column's keys (=, >, <, between)."""
        return select(FILTER_KEY.row_id).where(
            FILTER_KEY.column_id == self.column.id, self.key_condition()
        )

    def count(self, table: DataTable) -> int:
        """The rows it matches, counted in the index alone but for contains: every key of the
        column is a row of the table."""
        if self.op == "contains":
            rows = select(TableRow.id).where(TableRow.table_id == table.id)
            return _count(rows.where(self.matches(TableRow.id)))
        keys = select(FILTER_KEY.row_id).where(FILTER_KEY.column_id == self.column.id)
        if self.op == "empty":
            return EVERY_ROW.count(table) - _count(keys)
        return _count(keys.where(self.key_condition()))


def _given(args, name: str) -> list[str]:
    """Every value of name in args: a query string's MultiDict, or a dict of a value or a list."""
    if hasattr(args, "getlist"):
        return args.getlist(name)
    given = args.get(name, [])
    return list(given) if isinstance(given, list | tuple) else [given]


def _read_filter(
    table: DataTable, raw: str | None, op: str, value: str, where: tuple[str, str, str]
) -> tuple[Filter | None, list[Problem]]:
    """The filter of one col/op/q triple or one f=<column id>:<op>:<value> (where names the
    keys each part came in), and why it cannot be applied; None when it cannot."""
    problems: list[Problem] = []
    triple = where == FILTER_ARGS
    usage = "col takes a column id." if triple else f"f takes {FILTER_SHAPE}."
    column = next((c for c in table.columns if c.key == raw), None)
    if raw is None:
        problems.append(Problem(f"Name the column to filter by: {usage}", where[0]))
    elif column is None:
        message = f"Table “{table.name}” has no column {raw!r}: {usage}"
        problems.append(Problem(message, where[0]))
    value = value.strip()[:FILTER_LIMIT]
    if op not in OPERATORS:
        problems.append(Problem(f"op takes one of {', '.join(OPERATORS)}.", where[1]))
    elif op == "empty" and value:
        # The page's form sends its value box whatever the operator; the page drops it.
        problems.append(Problem(f"op=empty takes no {'q' if triple else 'value'}.", where[2]))
        value = ""
    elif op != "empty" and not value:
        needs = f"op={op} needs q" if triple else f"f=<column id>:{op}:<value>"
        problems.append(Problem(f"Give the value to filter by: {needs}.", where[2]))
    if column is None or op not in OPERATORS or (op != "empty" and not value):
        return None, problems
    if unfit := _unfit(column, op, value):
        # Kept on the page, where it matches no row ("lots" > a number); the API refuses it.
        problems.append(Problem(unfit, where[2]))
    return Filter(column, op, value), problems


@dataclass(frozen=True)
class RowView:
    """Which rows of a table, in which order: every filter applies (AND). The page leaves out
    a column, operator or value that does not fit the table, as the other lists ignore an
    unknown sort; the API refuses it (`read` says what)."""

    sort: TableColumn | None = None
    descending: bool = False
    filters: tuple[Filter, ...] = ()

    @classmethod
    def from_args(cls, table: DataTable, args) -> RowView:
        """The view the table page and its exports show: what does not fit is left out."""
        return cls.read(table, args)[0]

    @classmethod
    def read(cls, table: DataTable, args) -> tuple[RowView, list[Problem]]:
        """The view args ask for, and each thing in them that does not fit the table, located
        by its query key (`sort`, `dir`, `col`, `op`, `q`, `f`). The filters are each `f` in
        turn, then the `col`/`op`/`q` one (the filter form's, and a single filter's link)."""
        problems: list[Problem] = []
        raw_sort = args.get("sort")
        sort = next((c for c in table.columns if c.key == raw_sort), None)
        if raw_sort is not None and sort is None:
            message = f"Table “{table.name}” has no column {raw_sort!r}: sort takes a column id."
            problems.append(Problem(message, "sort"))
        direction = args.get("dir")
        if direction is not None and (direction not in DIRECTIONS or sort is None):
            problems.append(Problem("dir takes asc or desc, with sort.", "dir"))
        asked = []
        for given in _given(args, "f"):
            raw, _, rest = given.partition(FILTER_SEPARATOR)
            op, _, value = rest.partition(FILTER_SEPARATOR)
            asked.append((raw, op, value, ("f", "f", "f")))
        if any(key in args for key in FILTER_ARGS):
            asked.append((args.get("col"), args.get("op", ""), args.get("q") or "", FILTER_ARGS))
        filters: list[Filter] = []
        for raw, op, value, where in asked:
            found, refused = _read_filter(table, raw, op, value, where)
            problems += refused
            if found is not None and not any(
                f.same_as(found.column, found.op, found.value) for f in filters
            ):
                filters.append(found)
        view = cls(sort=sort, descending=direction == "desc", filters=tuple(filters))
        return view, problems

    def as_args(self, **changed: Any) -> dict[str, Any]:
        """The query string of this view; changed replaces some of it (None drops an item). A
        single filter is written col/op/q, as its links always were; several as f=…, each."""
        args: dict[str, Any] = {
            "sort": self.sort.key if self.sort else None,
            "dir": "desc" if self.sort and self.descending else None,
        }
        if len(self.filters) == 1:
            (only,) = self.filters
            args.update(col=only.column.key, op=only.op, q=only.value or None)
        else:
            args["f"] = [f.as_arg() for f in self.filters]
        args.update(changed)
        return {name: value for name, value in args.items() if value}

    def without(self, dropped: Filter) -> RowView:
        return replace(self, filters=tuple(f for f in self.filters if f != dropped))

    def unfiltered(self) -> RowView:
        return replace(self, filters=())

    def holds(self, column: TableColumn, op: str, value: str) -> bool:
        return any(f.same_as(column, op, value) for f in self.filters)

    def toggled(self, column: TableColumn, op: str, value: str) -> RowView:
        """This view with the filter added, or without it if it holds it (a facet's link)."""
        kept = tuple(f for f in self.filters if not f.same_as(column, op, value))
        added = () if len(kept) < len(self.filters) else (Filter(column, op, value),)
        return replace(self, filters=kept + added)

    @property
    def filtered(self) -> bool:
        return bool(self.filters)

    @property
    def reads_keys(self) -> bool:
        """Whether every filter reads its column's keys (none is contains or is empty)."""
        return self.filtered and all(f.reads_keys for f in self.filters)

    @property
    def only_key_filter(self) -> Filter | None:
        """The view's one filter when it is its only one and reads its column's keys: the
        shown rows' keys of that column are then the keys the filter holds."""
        if len(self.filters) == 1 and self.filters[0].reads_keys:
            return self.filters[0]
        return None

    def describe(self) -> str:
        return " and ".join(f.describe() for f in self.filters)

    def to_dict(self) -> dict[str, Any]:
        """The sort and filters as understood, for the JSON twin to say."""
        sort = self.sort and {
            "column": self.sort.name,
            "column_id": self.sort.id,
            "direction": "desc" if self.descending else "asc",
        }
        return {"sort": sort, "filters": [f.to_dict() for f in self.filters]}

    def matches(self, row_id: ColumnElement) -> ColumnElement | None:
        """Every filter on the row whose id is row_id; None when it matches every row."""
        if not self.filters:
            return None
        return and_(*(f.matches(row_id) for f in self.filters))

    def row_ids(self) -> Select | CompoundSelect | None:
        """The matching rows' ids, for counts over other columns to drive; None unfiltered.
        The filters that read keys are intersected (or one of the others read, if none does)
        and the rest checked on those rows."""
        drivers = [f for f in self.filters if f.reads_keys] or list(self.filters[:1])
        if not drivers:
            return None
        rest = [f for f in self.filters if f not in drivers]
        if len(drivers) == 1:
            rows = drivers[0].row_ids()
        else:
            rows = intersect(*(f.row_ids() for f in drivers))
        if not rest:
            return rows
        held = rows.subquery("held")
        return select(held.c.row_id).where(*(f.matches(held.c.row_id) for f in rest))

    def _rows(self, table: DataTable) -> Select:
        """The ids of the matching rows, not ordered."""
        query = select(TableRow.id).where(TableRow.table_id == table.id)
        condition = self.matches(TableRow.id)
        return query if condition is None else query.where(condition)

    def count(self, table: DataTable) -> int:
        if not self.filters:
            return _count(self._rows(table))
        if len(self.filters) == 1:
            return self.filters[0].count(table)
        return db.session.scalar(select(func.count()).select_from(self.row_ids().subquery())) or 0

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


EVERY_ROW = RowView()  # in the table's own order
