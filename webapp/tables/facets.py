"""A table's facets: per select column, how many of the shown rows hold each option; per number
column, how many fall in each of a few round ranges. Each count links the filter that shows
those rows.

Both are counted from the cells' keys (TableCellKey), so they read the index rather than every
row's JSON: unfiltered, each count is a stretch of its column's keys; under filters, the rows
they show are listed once (the filters that read keys intersected) and each row's keys found by
their primary key, every facet in one query.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from itertools import pairwise

from sqlalchemy import (
    CTE,
    Integer,
    Select,
    String,
    case,
    cast,
    func,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.orm import aliased

from webapp.extensions import db
from webapp.tables.browsing import RANGE_SEPARATOR, Filter, RowView
from webapp.tables.models import DataTable, TableCellKey, TableColumn
from webapp.tables.sort_keys import cell_key

FACET_TYPES = ("select", "number")
FACET_LIMIT = 30  # a select column's options are few; this bounds a hand-made table's
RANGES = 5  # at most, per number column
# A range's width is one of these times a power of ten, so its edges are round numbers.
STEP_DIGITS = (Decimal(1), Decimal(2), Decimal("2.5"), Decimal(5))

# A column's ends are looked for among this many keys at each end of its index before its
# numbers under a filter are read in full (a filter holding 1 row in 50 misses 1 time in 8).
ENDS_READ = 100

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
    return _facets([column for column in table.columns if column.type in FACET_TYPES], view)


def column_facet(column: TableColumn, view: RowView) -> Facet | None:
    """The column's facet of the rows the view shows; None for a column of another type."""
    found = _facets([column], view) if column.type in FACET_TYPES else []
    return found[0] if found else None


def _facets(columns: list[TableColumn], view: RowView) -> list[Facet]:
    """Every column's counts in one query, after one more for the number columns' ends: under
    a filter, the filter's rows are listed once for all of them."""
    numbers = [column for column in columns if column.type == "number"]
    edges = {key: range_edges(low, high) for key, (low, high) in _ends(numbers, view).items()}
    shown = _shown_rows(view)
    arms = []
    for column in columns:
        if column.type == "select":
            arms.append(_option_arm(column, shown, view))
        elif column.id in edges:
            arms += _range_arms(column.id, edges[column.id], shown, view)
    if not arms:
        return []
    found: dict[int, list[FacetItem]] = {column.id: [] for column in columns}
    spelling = {
        column.id: {cell_key(option)[1]: option for option in column.options or []}
        for column in columns
    }
    for key, text, place, count in db.session.execute(union_all(*arms).order_by("key", "place")):
        if text is not None:
            option = spelling[key].get(text, text)
            found[key].append(FacetItem(option, "eq", option, count))
        elif count:
            low, high = number_text(edges[key][place]), number_text(edges[key][place + 1])
            value = f"{low}{RANGE_SEPARATOR}{high}"
            found[key].append(FacetItem(f"{low} to under {high}", "between", value, count))
    return [Facet(column, found[column.id]) for column in columns if found[column.id]]


def _shown_rows(view: RowView) -> CTE | None:
    """The rows the view shows, listed once (materialized) for every count to drive: each row's
    keys are then found by their primary key, rather than every key of the counted column
    tried against the filter (SQLite chose that for IN and for a plain join: 60 and 730 ms
    against 32). None unfiltered."""
    rows = view.row_ids()
    return None if rows is None else rows.cte("shown").prefix_with("MATERIALIZED")


def _shown(query: Select, shown: CTE | None, view: RowView, key: int | None = None) -> Select:
    """query over FACET_KEY (of column `key`, if one) narrowed to the shown rows."""
    if shown is None:
        return query
    if own := _own_filter(view, key):
        return query.where(own.key_condition(FACET_KEY))
    return query.join_from(shown, FACET_KEY, FACET_KEY.row_id == shown.c.row_id)


def _own_filter(view: RowView, key: int | None) -> Filter | None:
    """The view's only filter when it reads the keys of column `key`: the shown rows' keys of
    it are then the keys the filter holds, read from the index without the rows."""
    own = view.only_key_filter
    return own if own is not None and own.column.id == key else None


def _arm(key: int, text, place, count) -> list:
    """One facet's rows of the combined query: (column id, option key or NULL, place, count)."""
    return [
        literal(key, Integer).label("key"),
        cast(text, String).label("text"),
        cast(place, Integer).label("place"),
        count.label("count"),
    ]


def _option_arm(column: TableColumn, shown: CTE | None, view: RowView) -> Select:
    """Per value, most first; a key is lower-cased, so it is shown as its option is spelt."""
    text, count = FACET_KEY.text, func.count()
    query = (
        select(text, count.label("count"))
        # number IS NULL: the index (column, number, text, …) then reads the texts in order.
        .where(FACET_KEY.column_id == column.id, FACET_KEY.number.is_(None), text.is_not(None))
        .group_by(text)
        .order_by(count.desc(), text)
        .limit(FACET_LIMIT)
    )
    most = _shown(query, shown, view, column.id).subquery()
    place = func.row_number().over(order_by=(most.c.count.desc(), most.c.text))
    return select(*_arm(column.id, most.c.text, place, most.c.count))


def _range_arms(key: int, edges: list[Decimal], shown: CTE | None, view: RowView) -> list[Select]:
    """A number column's count per range [edge, next edge); an empty range is left out.
    Unfiltered, each range is a stretch of the index, counted without reading the others; under
    a filter, the filter's numbers are placed in their ranges in one pass."""
    number = FACET_KEY.number
    within = [FACET_KEY.column_id == key, number >= float(edges[0]), number < float(edges[-1])]
    if shown is None:
        return [
            select(*_arm(key, null(), place, func.count())).where(
                FACET_KEY.column_id == key, number >= float(a), number < float(b)
            )
            for place, (a, b) in enumerate(pairwise(edges))
        ]
    inner = [(number < float(edge), place) for place, edge in enumerate(edges[1:-1])]
    place = case(*inner, else_=len(edges) - 2) if inner else literal(0)
    query = select(*_arm(key, null(), place, func.count())).where(*within).group_by(place)
    return [_shown(query, shown, view, key)]


def _ends(columns: list[TableColumn], view: RowView) -> dict[int, tuple[float, float]]:
    """Per number column holding numbers among the shown rows, the least and the greatest. Each
    is found at its end of the column's keys: the first of ENDS_READ keys in order that is
    a shown row's (every one, unfiltered). A filter whose rows lie further in (or has few) has
    its columns' ends counted over its rows instead."""
    number, column_id = FACET_KEY.number, FACET_KEY.column_id
    ends: dict[int, tuple[float, float]] = {}
    missed = columns
    # contains and is empty have no list of rows to check a key against cheaply.
    if columns and (view.reads_keys or not view.filtered):
        found = db.session.execute(
            select(*(_end(c.id, view, highest) for c in columns for highest in (False, True)))
        ).one()
        for n, column in enumerate(columns):
            if None not in found[2 * n : 2 * n + 2]:
                ends[column.id] = (found[2 * n], found[2 * n + 1])
        # Unfiltered, a column missed holds no number.
        missed = [c for c in columns if c.id not in ends] if view.filtered else []
    if missed:
        query = select(
            *(
                agg(number).filter(column_id == column.id)
                for column in missed
                for agg in (func.min, func.max)
            )
        ).where(column_id.in_([c.id for c in missed]), number.is_not(None))
        found = db.session.execute(_shown(query, _shown_rows(view), view)).one()
        for n, column in enumerate(missed):
            if found[2 * n] is not None:
                ends[column.id] = (found[2 * n], found[2 * n + 1])
    return ends


def _end(key: int, view: RowView, highest: bool):
    """The least (or greatest) number of the column among the first ENDS_READ keys at that end
    that are a shown row's; NULL when none of them is."""
    number = FACET_KEY.number
    first = select(number, FACET_KEY.row_id).where(FACET_KEY.column_id == key, number.is_not(None))
    own = _own_filter(view, key)
    if own:
        first = first.where(own.key_condition(FACET_KEY))
    order = number.desc() if highest else number
    first = first.order_by(order).limit(ENDS_READ).subquery()
    query = select((func.max if highest else func.min)(first.c.number))
    condition = None if own else view.matches(first.c.row_id)
    return (query if condition is None else query.where(condition)).scalar_subquery()


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
