"""A table's facets, counted from the cells' keys: the values of a select column as its options
spell them, the round ranges of a number column, each under the page's filter, and links that
show the rows they count."""

from collections import Counter
from decimal import Decimal
from itertools import pairwise
from urllib.parse import parse_qsl, urlsplit

import pytest
from sqlalchemy import func, select

from tests.support.html import by_id, soup
from tests.support.tables import make_table
from webapp.extensions import db
from webapp.tables.browsing import RowView
from webapp.tables.facets import number_text, range_edges, table_facets
from webapp.tables.models import TableRow

SOILS = ["Sand", "Loam", "Clay"]
PLOTS = [
    {"Plot": "a1", "Soil": "loam", "Yield": 9},
    {"Plot": "a2", "Soil": "Loam", "Yield": 10.5},
    {"Plot": "a3", "Soil": "LOAM", "Yield": 100},
    {"Plot": "b1", "Soil": "Sand", "Yield": -3.25},
    {"Plot": "b2", "Soil": "", "Yield": 0},
    {"Plot": "b3", "Soil": None, "Yield": 42},
    {"Plot": "c1", "Soil": "Silt", "Yield": None},  # no longer an option
    {"Plot": "c2", "Soil": "clay", "Yield": 20},
    {"Plot": "c3", "Soil": "Clay", "Yield": 19.99},
]


def trial():
    return make_table(
        "Soil trial",
        [("Plot", "text"), ("Soil", "select", SOILS), ("Yield", "number")],
        PLOTS,
    )


def view_of(table, **args) -> RowView:
    """The view of args naming columns by name, each f as "<name>:<op>:<value>"."""
    named = {c.name: c.key for c in table.columns}
    if "col" in args:
        args["col"] = named[args["col"]]
    if "f" in args:
        args["f"] = [
            named[name] + ":" + rest for name, _, rest in (f.partition(":") for f in args["f"])
        ]
    return RowView.from_args(table, args)


def json_counts(table, view: RowView) -> Counter:
    """The counts as the facets read them before the keys: each row's JSON value, grouped
    case-insensitively here, as the keys and the = filter compare."""
    text = TableRow.cells[table.column_named("Soil").key].as_string()
    query = select(text, func.count()).where(
        TableRow.table_id == table.id, text.is_not(None), text != ""
    )
    if (condition := view.matches(TableRow.id)) is not None:
        query = query.where(condition)
    counts = Counter()
    for value, count in db.session.execute(query.group_by(text)):
        counts[value.lower()] += count
    return counts


def facet(table, view: RowView, name: str) -> list:
    found = {f.column.name: f.items for f in table_facets(table, view)}
    return found.get(name, [])


FILTERS = [
    {},
    {"col": "Yield", "op": "gt", "q": "9.5"},
    {"col": "Yield", "op": "empty"},
    {"col": "Soil", "op": "eq", "q": "loam"},
    {"col": "Plot", "op": "contains", "q": "1"},
    {"col": "Yield", "op": "between", "q": "0..20"},
    # several filters, all applied: keys intersected, the others checked on their rows
    {"f": ["Yield:gt:9.5", "Soil:eq:loam"]},
    {"f": ["Yield:between:0..20", "Plot:contains:1"]},
    {"f": ["Yield:empty", "Plot:contains:1"]},
    {"f": ["Soil:eq:loam"], "col": "Yield", "op": "lt", "q": "50"},
]


def filter_id(args) -> str:
    return "-".join(str(value) for value in args.values()) or "unfiltered"


@pytest.mark.parametrize("args", FILTERS, ids=filter_id)
def test_select_counts_are_the_json_counts_of_the_shown_rows(app, args):
    table = trial()
    view = view_of(table, **args)
    items = facet(table, view, "Soil")
    assert Counter({item.value.lower(): item.count for item in items}) == json_counts(table, view)


def test_select_values_are_spelt_as_the_options_and_link_the_rows_they_count(client_as):
    table = trial()
    items = facet(table, RowView(), "Soil")
    # "Silt" is no option: shown as its key
    assert [(i.label, i.count) for i in items] == [
        ("Loam", 3),
        ("Clay", 2),
        ("Sand", 1),
        ("silt", 1),
    ]
    client = client_as("viewer")
    aside = soup(client.get(f"/tables/{table.id}")).find("aside", class_="facets")
    for item in items:
        shown = client.get(aside.find("a", string=item.label)["href"])
        status = by_id(shown, "filter-status").get_text(strip=True)
        assert status == f"{item.count} row(s) where Soil = “{item.label}”."
    # a value typed in another case is the same value, its link marked
    typed = soup(
        client.get(f"/tables/{table.id}?col={table.column_named('Soil').key}&op=eq&q=lOAM")
    )
    assert (
        typed.find("aside", class_="facets").find("a", attrs={"aria-current": True}).string
        == "Loam"
    )


def facet_items(aside, column_name: str) -> list[tuple[str, str]]:
    """A facet's (label, count) as the page shows them."""
    heading = aside.find("h2", string=column_name)
    return [(li.a.get_text(), li.span.get_text()) for li in heading.find_next_sibling("ul")("li")]


def numbers_of(table, view: RowView) -> list[float]:
    yields = table.column_named("Yield")
    rows = db.session.scalars(view.query(table))
    return [row.value(yields) for row in rows if row.value(yields) is not None]


@pytest.mark.parametrize("args", FILTERS, ids=filter_id)
def test_number_ranges_hold_each_shown_number_once(app, args):
    table = trial()
    view = view_of(table, **args)
    items = facet(table, view, "Yield")
    numbers = numbers_of(table, view)
    ranges = [tuple(Decimal(edge) for edge in item.value.split("..")) for item in items]
    assert [item.label for item in items] == [f"{a} to under {b}" for a, b in ranges]
    held = Counter()
    for number in numbers:
        [place] = [n for n, (a, b) in enumerate(ranges) if a <= Decimal(repr(number)) < b]
        held[place] += 1
    assert [item.count for item in items] == [held[n] for n in range(len(items))]
    assert len(items) <= 5 and all(item.count for item in items)


def test_number_ranges_are_round_and_link_the_rows_they_count(client_as):
    table = trial()
    items = facet(table, RowView(), "Yield")
    assert [(i.label, i.count) for i in items] == [
        ("-50 to under 0", 1),
        ("0 to under 50", 6),
        ("100 to under 150", 1),
    ]
    client = client_as("viewer")
    aside = soup(client.get(f"/tables/{table.id}")).find("aside", class_="facets")
    for item in items:
        link = aside.find("a", string=item.label)["href"]
        assert dict(parse_qsl(urlsplit(link).query))["op"] == "between"
        shown = client.get(link)
        status = by_id(shown, "filter-status").get_text(strip=True)
        assert status == f"{item.count} row(s) where Yield from {item.label}."
        # the range's own numbers, in finer ranges inside it
        low, high = (Decimal(edge) for edge in item.value.split(".."))
        narrower = facet_items(soup(shown).find("aside", class_="facets"), "Yield")
        assert sum(int(count) for _label, count in narrower) == item.count
        for label, _count in narrower:
            a, b = (Decimal(edge) for edge in label.split(" to under "))
            assert low <= a and b <= high


def test_a_filter_narrows_the_ranges_to_its_numbers(app):
    table = trial()
    items = facet(table, view_of(table, col="Soil", op="eq", q="Loam"), "Yield")
    # 9, 10.5 and 100 are Loam's
    assert [(i.label, i.count) for i in items] == [("0 to under 25", 2), ("100 to under 125", 1)]
    assert facet(table, view_of(table, col="Yield", op="empty"), "Yield") == []


@pytest.mark.parametrize(
    ("low", "high", "edges"),
    [
        (1.0, 10.6, ["0", "2.5", "5", "7.5", "10", "12.5"]),
        (0.0, 100.0, ["0", "25", "50", "75", "100", "125"]),
        (0.1, 0.3, ["0.1", "0.15", "0.2", "0.25", "0.3", "0.35"]),
        (-3.25, 100.0, ["-50", "0", "50", "100", "150"]),
        (-0.004, -0.001, ["-0.004", "-0.003", "-0.002", "-0.001", "0"]),
        (7.0, 7.0, ["7", "8"]),
        (0.0, 0.0, ["0", "1"]),
        (1e20, 3e20, None),
    ],
)
def test_range_edges_are_round_and_hold_low_to_high(low, high, edges):
    found = range_edges(low, high)
    if edges is not None:
        assert [number_text(edge) for edge in found] == edges
    step = found[1] - found[0]
    assert all(b - a == step for a, b in pairwise(found))
    assert len(found) - 1 <= 5
    assert found[0] <= Decimal(repr(low)) and Decimal(repr(high)) < found[-1]
    # a round step: 1, 2, 2.5 or 5 times a power of ten
    assert step.normalize().as_tuple().digits in ((1,), (2,), (2, 5), (5,))


def api_plots(client, table, query: str):
    return client.get(f"/api/v1/tables/{table.id}/rows?{query}")


def test_between_takes_a_number_range_its_low_end_included(client_as):
    table = trial()
    client = client_as("viewer")
    y, soil = table.column_named("Yield").key, table.column_named("Soil").key
    found = api_plots(client, table, f"col={y}&op=between&q=9..20").get_json()
    assert [row["values"]["Plot"] for row in found["rows"]] == ["a1", "a2", "c3"]
    assert found["total"] == 3
    for query, message in [
        (f"col={y}&op=between&q=9", "Yield: between takes two numbers, the lower one first"),
        (f"col={y}&op=between&q=20..9", "Yield: between takes two numbers, the lower one first"),
        (f"col={y}&op=between&q=9..lots", "Yield: “lots” is not a number."),
        (f"col={soil}&op=between&q=1..2", "Soil: between compares numbers"),
    ]:
        response = api_plots(client, table, query)
        assert response.status_code == 422, query
        [problem] = response.get_json()["error"]["details"]["errors"]
        assert problem["loc"] == "query.q" and problem["message"].startswith(message), query
    # the page keeps what does not fit, matching no row
    page = client.get(f"/tables/{table.id}?col={soil}&op=between&q=1..2")
    status = by_id(page, "filter-status").get_text(strip=True)
    assert status == "0 row(s) where Soil between “1..2”."


def test_the_filter_form_says_how_to_write_a_range(client_as):
    table = trial()
    page = soup(client_as("viewer").get(f"/tables/{table.id}"))
    words = [option.get_text() for option in page.find(id="filter-op").find_all("option")]
    assert "between low..high" in words
