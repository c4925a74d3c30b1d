"""A table's facets: per select column, how many of the shown rows hold each option; per number
column, how many fall in each of a few round ranges. Each count links the filter that shows
those rows.

Both are counted from the cells' keys (TableCellKey) for the column alone, with the page's
filter on the same row, so they read the index rather than every row's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from itertools import pairwise

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import aliased

from webapp.extensions import db
from webapp.tables.browsing import RANGE_SEPARATOR, RowView
from webapp.tables.models import DataTable, TableCellKey, TableColumn
from webapp.tables.sort_keys import cell_key

FACET_TYPES = ("select", "number")
FACET_LIMIT = 30  # a select column's options are few; this bounds a hand-made table's
RANGES = 5  # at most, per number column
# A range's width is one of these times a power of ten, so its edges are round numbers.
STEP_DIGITS = (Decimal(1), Decimal(2), Decimal("2.5"), Decimal(5))

FACET_KEY = aliased(TableCellKey, name="facet_keys")


@dataclass(frozen=True)
class FacetItem:
    """One count and the filter (op, value) its link sets on the facet's column."""

    label: str
    op: str
    value: str
    count: int


@dataclass(frozen=True)
class Facet:
    column: TableColumn
    items: list[FacetItem]


def table_facets(table: DataTable, view: RowView) -> list[Facet]:
    """The facets of the rows the view shows, in the table's column order; a column with no
    filled cell among them has none."""
    found = (column_facet(column, view) for column in table.columns)
    return [facet for facet in found if facet is not None]


def column_facet(column: TableColumn, view: RowView) -> Facet | None:
    """The column's facet of the rows the view shows; None for a column of another type."""
    if column.type == "select":
        items = _option_counts(column, view)
    elif column.type == "number":
        items = _range_counts(column, view)
    else:
        return None
    return Facet(column, items) if items else None


def _column_keys(column: TableColumn, view: RowView) -> list[ColumnElement]:
    """The conditions on FACET_KEY for the column's filled cells in the rows the view shows."""
    conditions = [FACET_KEY.column_id == column.id]
    in_view = view.among(FACET_KEY.row_id)
    return conditions if in_view is None else [*conditions, in_view]


def _option_counts(column: TableColumn, view: RowView) -> list[FacetItem]:
    """Per value, most first; a key is lower-cased, so it is shown as its option is spelt."""
    text = FACET_KEY.text
    query = (
        select(text, func.count())
        # number IS NULL: the index (column, number, text, …) then reads the texts in order.
        .where(*_column_keys(column, view), FACET_KEY.number.is_(None), text.is_not(None))
        .group_by(text)
        .order_by(func.count().desc(), text)
        .limit(FACET_LIMIT)
    )
    spelling = {cell_key(option)[1]: option for option in column.options or []}
    return [
        FacetItem(spelling.get(key, key), "eq", spelling.get(key, key), count)
        for key, count in db.session.execute(query)
    ]


def _range_counts(column: TableColumn, view: RowView) -> list[FacetItem]:
    """Per round range holding some of the numbers, in order; none without numbers."""
    number = FACET_KEY.number
    numbers = [*_column_keys(column, view), number.is_not(None)]
    if view.filtered:
        # Both ends in one pass, the ranges in one more: the filter's ids are read twice, not
        # once per end and range.
        ends = select(func.min(number), func.max(number)).where(*numbers)
        low, high = db.session.execute(ends).one()
    else:
        # One aggregate a query: each is then one seek at an end of the column's keys.
        low = db.session.scalar(select(func.min(number)).where(*numbers))
        high = db.session.scalar(select(func.max(number)).where(*numbers))
    if low is None:
        return []
    ranges = list(pairwise(range_edges(low, high)))
    within = [(number >= float(a)) & (number < float(b)) for a, b in ranges]
    if view.filtered:
        query = select(*(func.count().filter(held) for held in within)).where(*numbers)
    else:
        # Each range a stretch of the index, counted without reading the others.
        query = select(
            *(select(func.count()).where(*numbers, held).scalar_subquery() for held in within)
        )
    counts = db.session.execute(query).one()
    items = []
    for (a, b), count in zip(ranges, counts, strict=True):
        if count:
            low_text, high_text = number_text(a), number_text(b)
            value = f"{low_text}{RANGE_SEPARATOR}{high_text}"
            items.append(FacetItem(f"{low_text} to under {high_text}", "between", value, count))
    return items


def range_edges(low: float, high: float, most: int = RANGES) -> list[Decimal]:
    """Round edges of at most `most` ranges [edge, next edge) of one width that hold every
    number from low to high: the first edge at or below low, the last above high."""
    first, last = Decimal(repr(low)), Decimal(repr(high))
    rough = (last - first) / most or abs(first) / most or Decimal(1)
    exponent = rough.adjusted()
    while True:
        for digit in STEP_DIGITS:
            step = digit.scaleb(exponent)
            start = (first / step).to_integral_value(ROUND_FLOOR)
            stop = (last / step).to_integral_value(ROUND_FLOOR) + 1
            if stop - start <= most:
                return [(start + n) * step for n in range(int(stop - start) + 1)]
        exponent += 1


def number_text(edge: Decimal) -> str:
    """An edge as a person writes it: 20, 2.5, -0.25 (no exponent, no trailing zeros)."""
    return format(edge.normalize() + 0, "f")
