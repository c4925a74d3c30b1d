"""Browsing a research table: sort by a column's value, filter by one, facets, and the same
view in its exports."""

import csv
import io
import json
from dataclasses import replace

from tests.support.html import by_id, rows, soup
from webapp.extensions import db
from webapp.tables import catalog, views
from webapp.tables.browsing import RowView

COLUMNS = [
    {"name": "Variety", "type": "text"},
    {"name": "Yield", "type": "number", "unit": "t/ha"},
    {"name": "Organic", "type": "boolean"},
    {"name": "Soil", "type": "select", "options": ["sand", "loam", "clay"]},
]
ROWS = [
    {"Variety": "Bussard", "Yield": 9, "Organic": "yes", "Soil": "loam"},
    {"Variety": "aron", "Yield": 10.5, "Organic": "no", "Soil": "sand"},
    {"Variety": "Capo", "Yield": 100, "Soil": "loam"},
    {"Variety": "Dekan", "Organic": "yes", "Soil": "clay"},
    {"Variety": "Elixer_%", "Yield": 2, "Soil": "loam"},
]


def make_table():
    table = catalog.create_table("Wheat trial", COLUMNS, None)
    catalog.add_rows(table, ROWS, None)
    db.session.commit()
    return table


def key(table, name):
    return table.column_named(name).key


def varieties(response):
    return [cells[1] for cells in rows(by_id(response, "table-rows"))]


def facet_items(aside, column_name: str) -> list[str]:
    """A facet's items as the page shows them: "value count"."""
    heading = aside.find("h2", string=column_name)
    if heading is None:
        return []
    return [li.get_text(" ", strip=True) for li in heading.find_next_sibling("ul").find_all("li")]


def test_a_number_column_sorts_as_numbers_with_empty_cells_last(client_as):
    table = make_table()
    client = client_as("viewer")
    up = client.get(f"/tables/{table.id}?sort={key(table, 'Yield')}")
    assert varieties(up) == ["Elixer_%", "Bussard", "aron", "Capo", "Dekan"]
    down = client.get(f"/tables/{table.id}?sort={key(table, 'Yield')}&dir=desc")
    assert varieties(down) == ["Capo", "aron", "Bussard", "Elixer_%", "Dekan"]


def test_a_text_column_sorts_ignoring_case(client_as):
    table = make_table()
    page = client_as("viewer").get(f"/tables/{table.id}?sort={key(table, 'Variety')}")
    assert varieties(page) == ["aron", "Bussard", "Capo", "Dekan", "Elixer_%"]


def test_the_sorted_header_says_so_and_links_the_other_direction(client_as):
    table = make_table()
    yield_key = key(table, "Yield")
    page = soup(client_as("viewer").get(f"/tables/{table.id}?sort={yield_key}"))
    header = page.find(id=f"column-{yield_key}")
    assert header["aria-sort"] == "ascending"
    assert header.find(class_="sort-arrow").get_text() == "▲"
    assert f"sort={yield_key}" in header.a["href"] and "dir=desc" in header.a["href"]
    other = page.find(id=f"column-{key(table, 'Variety')}")
    assert not other.has_attr("aria-sort") and "dir=" not in other.a["href"]


def test_an_unknown_sort_or_filter_column_is_ignored(client_as):
    table = make_table()
    page = client_as("viewer").get(f"/tables/{table.id}?sort=999&col=999&op=eq&q=x")
    assert page.status_code == 200
    assert varieties(page) == [r["Variety"] for r in ROWS]


def test_filters_by_each_operator(client_as):
    table = make_table()
    client = client_as("viewer")
    y, v, o = key(table, "Yield"), key(table, "Variety"), key(table, "Organic")

    def shown(query):
        return varieties(client.get(f"/tables/{table.id}?{query}"))

    assert shown(f"col={v}&op=contains&q=AR") == ["Bussard", "aron"]
    # LIKE's wildcards are the text typed, not patterns
    assert shown(f"col={v}&op=contains&q=_%25") == ["Elixer_%"]
    assert shown(f"col={y}&op=gt&q=9.5") == ["aron", "Capo"]
    assert shown(f"col={y}&op=lt&q=10") == ["Bussard", "Elixer_%"]
    assert shown(f"col={y}&op=eq&q=100") == ["Capo"]
    assert shown(f"col={y}&op=gt&q=lots") == []
    assert shown(f"col={y}&op=empty") == ["Dekan"]
    assert shown(f"col={o}&op=eq&q=yes") == ["Bussard", "Dekan"]
    assert shown(f"col={o}&op=empty") == ["Capo", "Elixer_%"]


def test_the_filter_shows_its_count_and_keeps_the_sort_in_pages_and_exports(client_as):
    table = make_table()
    y, s = key(table, "Yield"), key(table, "Soil")
    query = f"sort={y}&dir=desc&col={s}&op=eq&q=loam"
    page = client_as("viewer").get(f"/tables/{table.id}?{query}")
    assert varieties(page) == ["Capo", "Bussard", "Elixer_%"]
    assert by_id(page, "filter-status").get_text(strip=True) == "3 row(s) where Soil = “loam”."
    document = soup(page)
    assert document.find(id="filter-col").find("option", selected=True)["value"] == s
    export = document.find("a", string="Export CSV")["href"]
    assert f"col={s}" in export and f"sort={y}" in export
    csv_rows = list(csv.reader(io.StringIO(client_as("viewer").get(export).get_data(as_text=True))))
    assert [r[0] for r in csv_rows[1:]] == ["Capo", "Bussard", "Elixer_%"]
    data = json.loads(client_as("viewer").get(f"/tables/{table.id}/export.json?{query}").data)
    assert [r["Variety"] for r in data["rows"]] == ["Capo", "Bussard", "Elixer_%"]


def test_filters_combine_and_each_chip_drops_only_its_own(client_as):
    table = make_table()
    client = client_as("viewer")
    y = key(table, "Yield")
    # a bookmark of the single filter, then a facet adds its filter to it
    single = client.get(f"/tables/{table.id}?col={y}&op=gt&q=5&sort={y}&dir=desc")
    assert varieties(single) == ["Capo", "aron", "Bussard"]
    link = soup(single).find("aside", class_="facets").find("a", string="loam")["href"]
    both = client.get(link)
    assert varieties(both) == ["Capo", "Bussard"]
    status = by_id(both, "filter-status").get_text(strip=True)
    assert status == "2 row(s) where Yield > “5” and Soil = “loam”."
    chips = by_id(both, "filter-chips").find_all("a")
    assert [chip["aria-label"] for chip in chips] == [
        "Remove the filter Yield > “5”",
        "Remove the filter Soil = “loam”",
    ]
    assert varieties(client.get(chips[0]["href"])) == ["Capo", "Bussard", "Elixer_%"]
    assert varieties(client.get(chips[1]["href"])) == ["Capo", "aron", "Bussard"]
    # the facets count the rows of both; the chosen value's link drops its filter again
    aside = soup(both).find("aside", class_="facets")
    assert facet_items(aside, "Soil") == ["loam 2"]
    assert varieties(client.get(aside.find("a", string="loam")["href"])) == varieties(single)
    # the exports write the rows of both, in the page's order
    export = soup(both).find("a", string="Export CSV")["href"]
    lines = list(csv.reader(io.StringIO(client.get(export).get_data(as_text=True))))
    assert [line[0] for line in lines[1:]] == ["Capo", "Bussard"]
    data = json.loads(client.get(soup(both).find("a", string="Export JSON")["href"]).data)
    assert [r["Variety"] for r in data["rows"]] == ["Capo", "Bussard"]


def test_the_filter_form_adds_to_the_filters_held(client_as):
    table = make_table()
    client = client_as("viewer")
    y, v, o = key(table, "Yield"), key(table, "Variety"), key(table, "Organic")
    page = soup(client.get(f"/tables/{table.id}?f={y}:gt:5&f={v}:contains:a"))
    form = page.find(id="row-filter")
    held = [i["value"] for i in form.find_all("input", attrs={"name": "f"})]
    assert held == [f"{y}:gt:5", f"{v}:contains:a"]
    assert form.find(id="filter-q")["value"] == ""
    # what the form sends: the filters held, and the new one typed in
    sent = "&".join(f"f={f}" for f in held) + f"&col={o}&op=empty&q="
    assert varieties(client.get(f"/tables/{table.id}?{sent}")) == ["Capo"]
    # the same filter twice is held once
    twice = client.get(f"/tables/{table.id}?f={y}:gt:5&col={y}&op=gt&q=5")
    assert len(by_id(twice, "filter-chips").find_all("a")) == 1


def test_several_filters_count_and_page_as_one(app):
    table = make_table()
    y, v, o, s = (key(table, name) for name in ("Yield", "Variety", "Organic", "Soil"))
    cases = {
        f"{y}:gt:5|{s}:eq:loam": ["Bussard", "Capo"],  # keys intersected
        f"{v}:contains:a|{o}:empty": ["Capo"],  # neither reads keys
        f"{y}:gt:5|{v}:contains:a|{o}:eq:yes": ["Bussard"],
        f"{y}:between:0..50|{s}:eq:loam|{o}:empty": ["Elixer_%"],
        f"{y}:gt:5|{y}:lt:50": ["Bussard", "aron"],  # one column twice
    }
    for given, expected in cases.items():
        view = RowView.from_args(table, {"f": given.split("|")})
        shown = catalog.rows_page(table, 1, view=view)
        assert [row.cells[v] for row in shown.items] == expected, given
        assert shown.total == len(expected), given
        second = catalog.rows_page(table, 2, per_page=1, view=replace(view, sort=None))
        assert [row.cells[v] for row in second.items] == expected[1:2], given


def test_a_filter_that_does_not_fit_is_left_out_of_the_page_and_refused_by_the_api(client_as):
    table = make_table()
    client = client_as("viewer")
    y, s = key(table, "Yield"), key(table, "Soil")
    page = client.get(f"/tables/{table.id}?f=999:eq:x&f={s}:like:loam&f={y}:gt:5")
    assert varieties(page) == ["Bussard", "aron", "Capo"]
    assert refused(client, table, f"f=999:eq:x&f={s}:like:loam&f={y}:gt") == [
        (
            "query.f",
            "Table “Wheat trial” has no column '999': f takes "
            "<column id>:<op>:<value>, such as 3:gt:40.",
        ),
        ("query.f", "op takes one of contains, eq, gt, lt, between, empty."),
        ("query.f", "Give the value to filter by: f=<column id>:gt:<value>."),
    ]
    assert api_varieties(client, table, f"f={y}:gt:5&f={s}:eq:loam") == ["Bussard", "Capo"]


def test_facets_count_a_select_columns_values_and_link_a_filter(client_as):
    table = make_table()
    s = key(table, "Soil")
    page = client_as("viewer").get(f"/tables/{table.id}")
    facets = soup(page).find("aside", class_="facets")
    assert [h2.get_text() for h2 in facets.find_all("h2")] == ["Yield", "Soil"]
    assert facet_items(facets, "Soil") == ["loam 3", "clay 1", "sand 1"]
    link = facets.find("a", string="loam")["href"]
    filtered = client_as("viewer").get(link)
    assert varieties(filtered) == ["Bussard", "Capo", "Elixer_%"]
    assert soup(filtered).find("aside", class_="facets").find("a", string="loam")["aria-current"]
    # facets count the filtered rows
    narrowed = client_as("viewer").get(f"/tables/{table.id}?col={key(table, 'Yield')}&op=gt&q=9")
    items = facet_items(soup(narrowed).find("aside", class_="facets"), "Soil")
    assert items == ["loam 1", "sand 1"]
    assert by_id(narrowed, f"column-{s}")


def test_the_filter_value_is_escaped(client_as):
    table = make_table()
    page = client_as("viewer").get(
        f"/tables/{table.id}?col={key(table, 'Variety')}&op=contains&q=<script>x</script>"
    )
    text = page.get_data(as_text=True)
    assert "<script>x</script>" not in text and "&lt;script&gt;x&lt;/script&gt;" in text


def test_the_column_to_fill_defaults_to_the_second_column(client_as):
    table = make_table()
    select = by_id(client_as("editor").get(f"/tables/{table.id}"), "enrich-column")
    assert select.find("option", selected=True)["value"] == "Yield"


def test_the_cell_editor_comes_with_its_script_and_a_cancel_it_can_press(client_as):
    table = make_table()
    client = client_as("editor")
    page = soup(client.get(f"/tables/{table.id}"))
    script = page.find("script", src="/static/js/cells.js")
    assert script is not None and not script.string
    served = client.get(script["src"])
    assert served.status_code == 200
    served.close()
    row = catalog.rows_page(table, 1).items[0]
    column = table.column_named("Variety")
    editor = soup(client.get(f"/tables/{table.id}/rows/{row.id}/cells/{column.id}/edit"))
    cancel = editor.find("button", class_="cell-cancel")
    assert cancel["hx-get"] == f"/tables/{table.id}/rows/{row.id}/cells/{column.id}"


def test_a_large_tables_facets_come_after_its_rows(client_as, monkeypatch):
    monkeypatch.setattr(views, "FACETS_INLINE_ROWS", 4)
    table = make_table()
    viewer = client_as("viewer")
    page = soup(viewer.get(f"/tables/{table.id}"))
    aside = page.find("aside", class_="facets")
    assert aside.find_all("li") == [] and aside["hx-trigger"] == "load"
    assert len(page.find(id="table-rows").tbody.find_all("tr")) == 5
    facets = soup(viewer.get(aside["hx-get"])).find("aside", class_="facets")
    assert facet_items(facets, "Soil") == ["loam 3", "clay 1", "sand 1"]
    # a filter the page shows is the one its facets count
    narrowed = f"/tables/{table.id}?col={key(table, 'Yield')}&op=gt&q=9"
    lazy = soup(viewer.get(narrowed)).find("aside", class_="facets")["hx-get"]
    facets = soup(viewer.get(lazy)).find("aside", class_="facets")
    assert facet_items(facets, "Soil") == ["loam 1", "sand 1"]


def api_varieties(client, table, query: str) -> list[str]:
    response = client.get(f"/api/v1/tables/{table.id}/rows?{query}")
    assert response.status_code == 200, response.get_json()
    return [row["values"]["Variety"] for row in response.get_json()["rows"]]


def test_the_api_sorts_and_filters_rows_as_the_page_does(client_as):
    table = make_table()
    client = client_as("viewer")
    y, v, o, s = (key(table, name) for name in ("Yield", "Variety", "Organic", "Soil"))
    queries = [
        "",
        f"sort={y}",
        f"sort={y}&dir=desc",
        f"sort={v}&dir=asc",
        f"col={v}&op=contains&q=AR",
        f"col={v}&op=contains&q=_%25",
        f"col={y}&op=gt&q=9.5",
        f"col={y}&op=lt&q=10&sort={v}&dir=desc",
        f"col={y}&op=empty",
        f"col={o}&op=eq&q=ja",  # any yes word a boolean cell takes
        f"col={s}&op=eq&q=loam&sort={y}&dir=desc",
    ]
    for query in queries:
        assert api_varieties(client, table, query) == varieties(
            client.get(f"/tables/{table.id}?{query}")
        ), query
    assert api_varieties(client, table, f"col={o}&op=eq&q=ja") == ["Bussard", "Dekan"]
    second = client.get(f"/api/v1/tables/{table.id}/rows?sort={y}&per_page=2&page=2").get_json()
    assert [r["values"]["Variety"] for r in second["rows"]] == ["aron", "Capo"]
    assert (second["total"], second["pages"]) == (5, 3)
    filtered = client.get(f"/api/v1/tables/{table.id}/rows?col={s}&op=eq&q=loam").get_json()
    assert filtered["total"] == 3


def refused(client, table, query: str) -> list[tuple[str, str]]:
    """The 422's problems as (loc, message), after checking the one error shape."""
    response = client.get(f"/api/v1/tables/{table.id}/rows?{query}")
    assert response.status_code == 422, query
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request" and error["message"]
    return [(e["loc"], e["message"]) for e in error["details"]["errors"]]


def test_the_api_refuses_an_unknown_key_rather_than_answer_every_row(client_as):
    table = make_table()
    client = client_as("viewer")
    [(loc, _message)] = refused(client, table, f"column={key(table, 'Yield')}&op=gt&q=9")
    assert loc == "query.column"
    [(loc, _message)] = refused(client, table, "filter=anything")
    assert loc == "query.filter"


def test_the_api_refuses_a_column_operator_or_value_that_does_not_fit(client_as):
    table = make_table()
    client = client_as("viewer")
    y, v, o = key(table, "Yield"), key(table, "Variety"), key(table, "Organic")
    assert [loc for loc, _ in refused(client, table, f"col={y}&op=above&q=9")] == ["query.op"]
    assert refused(client, table, "col=999999&op=eq&q=9") == [
        ("query.col", "Table “Wheat trial” has no column '999999': col takes a column id.")
    ]
    assert [loc for loc, _ in refused(client, table, "sort=²")] == ["query.sort"]
    assert [loc for loc, _ in refused(client, table, "sort=999999")] == ["query.sort"]
    assert [loc for loc, _ in refused(client, table, "dir=sideways")] == ["query.dir"]
    assert refused(client, table, "dir=desc") == [
        ("query.dir", "dir takes asc or desc, with sort.")
    ]
    assert refused(client, table, f"col={y}&op=gt&q=lots") == [
        ("query.q", "Yield: Give a number, not 'lots'.")
    ]
    assert refused(client, table, f"col={o}&op=eq&q=maybe") == [
        ("query.q", "Organic: Give yes or no (true/false).")
    ]
    assert refused(client, table, f"col={v}&op=contains") == [
        ("query.q", "Give the value to filter by: op=contains needs q.")
    ]
    assert refused(client, table, f"col={v}&op=empty&q=x") == [("query.q", "op=empty takes no q.")]
    assert refused(client, table, "op=eq&q=x") == [
        ("query.col", "Name the column to filter by: col takes a column id.")
    ]
    assert refused(client, table, f"col={v}&q=x") == [
        ("query.op", "op takes one of contains, eq, gt, lt, between, empty.")
    ]
    assert [loc for loc, _ in refused(client, table, f"col={v}&op=eq&q={'x' * 201}")] == ["query.q"]


def test_the_contract_publishes_the_rows_sort_and_filter(client_as):
    document = client_as("viewer").get("/api/v1/openapi.json").get_json()
    parameters = document["paths"]["/api/v1/tables/{table_id}/rows"]["get"]["parameters"]
    query = {p["name"]: p["schema"] for p in parameters if p["in"] == "query"}
    assert list(query) == ["page", "per_page", "sort", "dir", "col", "op", "q", "f"]
    assert query["op"]["anyOf"][0]["enum"] == ["contains", "eq", "gt", "lt", "between", "empty"]
    assert query["dir"]["anyOf"][0]["enum"] == ["asc", "desc"]


def test_every_view_has_a_json_twin_of_its_page(client_as):
    table = make_table()
    client = client_as("viewer")
    y, s = key(table, "Yield"), key(table, "Soil")
    query = f"sort={y}&dir=desc&f={s}:eq:loam&f={y}:gt:5"
    page = soup(client.get(f"/tables/{table.id}?{query}"))
    twin = page.find("a", string="JSON")["href"]
    answer = client.get(twin)
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    data = answer.get_json()
    assert [row["values"] for row in data["rows"]] == [
        {"Variety": "Capo", "Yield": 100, "Organic": None, "Soil": "loam"},
        {"Variety": "Bussard", "Yield": 9, "Organic": True, "Soil": "loam"},
    ]
    assert (data["total"], data["page"], data["pages"], data["next"], data["previous"]) == (
        2,
        1,
        1,
        None,
        None,
    )
    assert data["sort"] == {"column": "Yield", "column_id": int(y), "direction": "desc"}
    assert [(f["column"], f["op"], f["value"], f["description"]) for f in data["filters"]] == [
        ("Soil", "eq", "loam", "Soil = “loam”"),
        ("Yield", "gt", "5", "Yield > “5”"),
    ]
    assert data["table"]["name"] == "Wheat trial" and len(data["table"]["columns"]) == 4
    # the pages around it carry the same view
    first = client.get(f"/tables/{table.id}.json?sort={y}&per_page=2").get_json()
    assert [r["values"]["Variety"] for r in first["rows"]] == ["Elixer_%", "Bussard"]
    second = client.get(first["next"]).get_json()
    assert [r["values"]["Variety"] for r in second["rows"]] == ["aron", "Capo"]
    assert client.get(second["previous"]).get_json()["rows"] == first["rows"]
    single = client.get(f"/tables/{table.id}.json?col={s}&op=eq&q=loam").get_json()
    assert single["total"] == 3 and len(single["filters"]) == 1


def test_the_json_twin_refuses_what_does_not_fit_in_json(client_as, client):
    table = make_table()
    viewer = client_as("viewer")
    y = key(table, "Yield")

    def error(response, status: int) -> dict:
        assert response.status_code == status and response.mimetype == "application/json"
        return response.get_json()["error"]

    refused = error(viewer.get(f"/tables/{table.id}.json?f={y}:gt:lots&colour=red"), 422)
    assert refused["code"] == "invalid_request"
    assert [(e["loc"], e["message"]) for e in refused["details"]["errors"]] == [
        ("query.f", "Yield: Give a number, not 'lots'."),
        (
            "query.colour",
            "The view takes no 'colour': its keys are page, per_page, sort, dir, col, op, q, f.",
        ),
    ]
    assert error(viewer.get("/tables/999999.json"), 404)["message"] == "There is no table #999999."
    assert error(client.get(f"/tables/{table.id}.json"), 401)["code"] == "unauthorized"
    # the page itself still sends whoever is signed out to sign in
    assert client.get(f"/tables/{table.id}").status_code == 302


def test_a_unit_the_column_name_says_is_not_said_again(client_as):
    table = catalog.create_table(
        "FAO yields",
        [
            {"name": "Yield (hg/ha)", "type": "number", "unit": "hg/ha"},
            {"name": "Area", "type": "number", "unit": "ha"},
        ],
        None,
    )
    catalog.add_rows(table, [{"Yield (hg/ha)": 52000, "Area": 3}], None)
    db.session.commit()
    page = soup(client_as("editor").get(f"/tables/{table.id}"))
    said, unsaid = table.column_named("Yield (hg/ha)"), table.column_named("Area")
    header = page.find(id=f"column-{said.id}")
    assert header.find(class_="sort-label").get_text() == "Yield (hg/ha)"
    assert header.find(class_="column-type").get_text() == "number"
    assert page.find(id=f"column-{unsaid.id}").find(class_="column-type").get_text() == (
        "number · ha"
    )
    labels = [label.get_text(strip=True) for label in page.select("#add-row label")]
    assert "Yield (hg/ha)" in labels and "Area (ha)" in labels
    options = [o.get_text() for o in page.find(id="enrich-column")("option")]
    assert options == ["Yield (hg/ha) (number)", "Area (number, ha)"]
