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

from sqlalchemy import Select, func, select
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
    filled cell among them has none. The number columns' ranges are counted together."""
    numbers = [column for column in table.columns if column.type == "number"]
    ranges = _range_counts(numbers, view) if numbers else {}
    found = (_facet(column, view, ranges) for column in table.columns)
    return [facet for facet in found if facet is not None]


def column_facet(column: TableColumn, view: RowView) -> Facet | None:
    """The column's facet of the rows the view shows; None for a column of another type."""
    ranges = _range_counts([column], view) if column.type == "number" else {}
    return _facet(column, view, ranges)


def _facet(column: TableColumn, view: RowView, ranges: dict[int, list[FacetItem]]) -> Facet | None:
    """A select column's counts, or a number column's of ranges (counted already)."""
    if column.type == "select":
        items = _option_counts(column, view)
    elif column.type == "number":
        items = ranges.get(column.id, [])
    else:
        return None
    return Facet(column, items) if items else None


def _shown(query: Select, view: RowView) -> Select:
    """query over FACET_KEY narrowed to the rows the view shows. A filter that reads the index
    drives it: its rows listed once (materialized), each row's keys then found by their
    primary key, rather than every key of the counted columns tried against the filter
    (SQLite chose that for IN and for a plain join: 60 and 730 ms against 32)."""
    rows = view.key_rows()
    if rows is not None:
        shown = rows.cte("shown").prefix_with("MATERIALIZED")
        return query.join_from(shown, FACET_KEY, FACET_KEY.row_id == shown.c.row_id)
    in_view = view.among(FACET_KEY.row_id)
    return query if in_view is None else query.where(in_view)


def _option_counts(column: TableColumn, view: RowView) -> list[FacetItem]:
    """Per value, most first; a key is lower-cased, so it is shown as its option is spelt."""
    text = FACET_KEY.text
    query = (
        select(text, func.count())
        # number IS NULL: the index (column, number, text, …) then reads the texts in order.
        .where(FACET_KEY.column_id == column.id, FACET_KEY.number.is_(None), text.is_not(None))
        .group_by(text)
        .order_by(func.count().desc(), text)
        .limit(FACET_LIMIT)
    )
    spelling = {cell_key(option)[1]: option for option in column.options or []}
    return [
        FacetItem(spelling.get(key, key), "eq", spelling.get(key, key), count)
        for key, count in db.session.execute(_shown(query, view))
    ]


def _range_counts(columns: list[TableColumn], view: RowView) -> dict[int, list[FacetItem]]:
    """Per number column, per round range holding some of its numbers, in order (none without
    numbers). Unfiltered, each end and each range is one seek in the column's keys; under a
    filter, every column's ends take one pass over the filter's rows and every range one more,
    rather than two passes a column."""
    number, column_id = FACET_KEY.number, FACET_KEY.column_id
    ends: dict[int, tuple[float, float]] = {}
    if view.filtered:
        query = (
            select(column_id, func.min(number), func.max(number))
            .where(column_id.in_([c.id for c in columns]), number.is_not(None))
            .group_by(column_id)
        )
        ends = {key: (low, high) for key, low, high in db.session.execute(_shown(query, view))}
    else:
        for column in columns:
            mine = [column_id == column.id, number.is_not(None)]
            low = db.session.scalar(select(func.min(number)).where(*mine))
            if low is not None:
                ends[column.id] = (low, db.session.scalar(select(func.max(number)).where(*mine)))
    spans = {key: list(pairwise(range_edges(low, high))) for key, (low, high) in ends.items()}
    held = [
        (key, a, b, (column_id == key) & (number >= float(a)) & (number < float(b)))
        for key, ranges in spans.items()
        for a, b in ranges
    ]
    if not held:
        return {}
    if view.filtered:
        query = _shown(
            select(*(func.count().filter(within) for *_edges, within in held)).where(
                column_id.in_(list(spans))
            ),
            view,
        )
    else:
        # Each range a stretch of the index, counted without reading the others.
        query = select(
            *(select(func.count()).where(within).scalar_subquery() for *_edges, within in held)
        )
    counts = db.session.execute(query).one()
    found: dict[int, list[FacetItem]] = {key: [] for key in spans}
    for (key, a, b, _within), count in zip(held, counts, strict=True):
        if count:
            low_text, high_text = number_text(a), number_text(b)
            value = f"{low_text}{RANGE_SEPARATOR}{high_text}"
            label = f"{low_text} to under {high_text}"
            found[key].append(FacetItem(label, "between", value, count))
    return found


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
