import html
import io
import re

import pytest
from sqlalchemy import func, select

from webapp.extensions import db
from webapp.tables import catalog
from webapp.tables.catalog import TableInvalid
from webapp.tables.models import DataTable, TableRow
from webapp.uploads import sniff_delimiter

# A German spreadsheet's CSV: semicolons, decimal commas, yes/no in German, a byte-order mark.
TRIAL = (
    "\ufeffSorte;Ertrag;Bio;Boden;Quelle\n"
    "Aron;7,5;ja;Lehm;https://example.org/aron\n"
    "Bussard;8,1;nein;Sand;https://example.org/bussard\n"
    "\n"
    "Cubus;6;ja;Lehm;\n"
    "Dekan;;nein;Sand;\n"
)


def test_the_delimiter_is_sniffed_from_the_header_line():
    assert sniff_delimiter("a;b;c\n1,5;2,5;3\n") == ";"
    assert sniff_delimiter("a\tb\n1,5\t2\n") == "\t"
    assert sniff_delimiter('"a;x",b,c\n1,2,3\n') == ","
    assert sniff_delimiter("only\n1\n") == ","


def test_the_preview_infers_each_columns_type_from_its_values():
    preview = catalog.preview_csv(TRIAL.lstrip("\ufeff"))
    assert preview.can_import and preview.delimiter_name == "semicolons"
    assert [(c.name, c.type, c.options) for c in preview.columns] == [
        ("Sorte", "text", []),
        ("Ertrag", "number", []),
        ("Bio", "boolean", []),
        ("Boden", "select", ["Lehm", "Sand"]),
        ("Quelle", "url", []),
    ]
    assert len(preview.rows) == 4 and preview.lines == [2, 3, 5, 6]  # the blank line is skipped
    assert preview.rows[3] == {
        "Sorte": "Dekan",
        "Ertrag": "",
        "Bio": "nein",
        "Boden": "Sand",
        "Quelle": "",
    }
    assert preview.samples("Boden") == ["Lehm", "Sand"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "The file is empty"),
        ("a,b\n", "The file has no rows under its first line."),
        ("a,A\n1,2\n", "“A” names two columns"),
        ("a,,b\n1,2,3\n", "Column 2 has no name"),
        ("a,b\n1,2\n3,4,5\n", "Line 3 has 3 values, but the first line names 2 columns."),
        ("a\n" + "1\n" * 10_001, "At most 10,000 rows"),
        (",".join(f"c{n}" for n in range(101)) + "\n" + "1\n", "at most 100 columns"),
    ],
)
def test_files_that_cannot_become_a_table_say_why(text, problem):
    preview = catalog.preview_csv(text)
    assert not preview.can_import
    assert any(problem in p for p in preview.problems), preview.problems


def test_the_import_creates_the_table_with_the_types_a_person_chose(app, make_user):
    user = make_user("editor")
    text = TRIAL
    table = catalog.import_csv(
        "Trial 2024",
        text,
        {
            "Ertrag": ("number", [], "t/ha"),
            "Bio": ("text", [], None),
            "Boden": ("select", ["Lehm", "Sand", "Ton"], None),
        },
        user,
    )
    db.session.commit()
    assert [(c.name, c.type, c.unit, c.options) for c in table.columns] == [
        ("Sorte", "text", None, []),
        ("Ertrag", "number", "t/ha", []),
        ("Bio", "text", None, []),
        ("Boden", "select", None, ["Lehm", "Sand", "Ton"]),
        ("Quelle", "url", None, []),
    ]
    assert table.created_by_id == user.id
    rows = [r.by_name(table.columns) for r in catalog.rows_page(table, 1).items]
    assert rows[0] == {
        "Sorte": "Aron",
        "Ertrag": 7.5,
        "Bio": "ja",
        "Boden": "Lehm",
        "Quelle": "https://example.org/aron",
    }
    assert rows[3]["Ertrag"] is None and len(rows) == 4


def test_values_that_do_not_fit_the_chosen_types_are_listed_and_nothing_is_stored(app):
    with pytest.raises(TableInvalid) as exc:
        catalog.import_csv(
            "Trial",
            TRIAL,
            {"Sorte": ("number", [], None), "Boden": ("select", ["Lehm"], None)},
            None,
        )
    assert [p.to_dict() for p in exc.value.problems] == [
        {
            "row": 0,
            "column": "Sorte",
            "message": "Give a number, not 'Aron'.",
            "loc": "rows.0.Sorte",
            "code": "value_invalid",
        },
        {
            "row": 1,
            "column": "Sorte",
            "message": "Give a number, not 'Bussard'.",
            "loc": "rows.1.Sorte",
            "code": "value_invalid",
        },
        {
            "row": 1,
            "column": "Boden",
            "message": "Choose one of the options (Lehm).",
            "loc": "rows.1.Boden",
            "code": "value_invalid",
        },
        {
            "row": 2,
            "column": "Sorte",
            "message": "Give a number, not 'Cubus'.",
            "loc": "rows.2.Sorte",
            "code": "value_invalid",
        },
        {
            "row": 3,
            "column": "Sorte",
            "message": "Give a number, not 'Dekan'.",
            "loc": "rows.3.Sorte",
            "code": "value_invalid",
        },
        {
            "row": 3,
            "column": "Boden",
            "message": "Choose one of the options (Lehm).",
            "loc": "rows.3.Boden",
            "code": "value_invalid",
        },
    ]
    with pytest.raises(TableInvalid, match="Only number columns have a unit"):
        catalog.import_csv("Trial", TRIAL, {"Sorte": ("text", [], "kg")}, None)
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 0
    assert db.session.scalar(select(func.count()).select_from(TableRow)) == 0


def test_ten_thousand_rows_import_in_one_go(app):
    text = "Plot,Yield\n" + "".join(f"P{n},{n / 10}\n" for n in range(10_000))
    table = catalog.import_csv("Plots", text, {}, None)
    db.session.commit()
    page = catalog.rows_page(table, 200)
    assert page.total == 10_000
    assert page.items[-1].by_name(table.columns) == {"Plot": "P9999", "Yield": 999.9}


def upload(client, text: str | bytes, name: str = "trial 2024.csv"):
    data = text.encode() if isinstance(text, str) else text
    return client.post(
        "/tables/import",
        data={"csrf_token": client.csrf_token("/tables/import"), "file": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def hidden(page: str, name: str) -> str:
    match = re.search(rf'name="{re.escape(name)}"[^>]*value="([^"]*)"', page) or re.search(
        rf'value="([^"]*)"[^>]*name="{re.escape(name)}"', page
    )
    assert match, f"no {name} in the page"
    return html.unescape(match.group(1))


def confirm_form(page: str, **types: str) -> dict[str, str]:
    """What the confirm form posts back, with some column types changed."""
    form = {"name": hidden(page, "name"), "csv_text": hidden(page, "csv_text")}
    for index, name in enumerate(re.findall(r'name="columns-\d+-name" value="([^"]*)"', page)):
        selected = re.search(
            rf'name="columns-{index}-type">.*?<option selected value="(\w+)"', page, re.S
        ) or re.search(rf'name="columns-{index}-type">.*?value="(\w+)" selected', page, re.S)
        options = re.search(rf'name="columns-{index}-options"[^>]*>\s*([^<]*)</textarea>', page)
        form[f"columns-{index}-name"] = html.unescape(name)
        form[f"columns-{index}-type"] = types.get(name, selected.group(1))
        form[f"columns-{index}-options"] = html.unescape(options.group(1))
        form[f"columns-{index}-unit"] = ""
    return form


def test_the_import_page_previews_then_creates_the_table_on_confirm(client_as):
    editor = client_as("editor")
    preview = upload(editor, TRIAL)
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200
    assert "4 row(s) and 5 column(s), separated by semicolons" in page
    assert 'value="trial 2024"' in page  # the table is named after the file
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 0

    form = confirm_form(page, Ertrag="text")
    assert form["columns-3-type"] == "select" and form["columns-3-options"] == "Lehm\nSand"
    form["columns-0-unit"] = ""
    confirmed = editor.submit("/tables/import/confirm", form, page="/tables/import")
    assert confirmed.status_code == 302
    table = db.session.scalars(select(DataTable)).one()
    assert confirmed.headers["Location"] == f"/tables/{table.id}"
    assert [c.type for c in table.columns] == ["text", "text", "boolean", "select", "url"]
    assert catalog.rows_page(table, 1).items[0].by_name(table.columns)["Ertrag"] == "7,5"


def test_a_type_the_values_do_not_fit_rerenders_the_preview_and_stores_nothing(client_as):
    editor = client_as("editor")
    page = upload(editor, TRIAL).get_data(as_text=True)
    form = confirm_form(page, Sorte="number")
    form["columns-1-unit"] = "t/ha"
    form["name"] = "<b>Trial</b>"
    response = editor.submit("/tables/import/confirm", form, page="/tables/import")
    text = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Nothing was imported" in text
    assert "Line 2, <strong>Sorte</strong>: Give a number, not &#39;Aron&#39;." in text
    assert "Line 6, <strong>Sorte</strong>" in text
    # What the person chose is kept: the number type and the unit, and the escaped name.
    assert re.search(r'name="columns-0-type">.*?<option selected value="number"', text, re.S)
    assert 'value="t/ha"' in text and 'value="&lt;b&gt;Trial&lt;/b&gt;"' in text
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 0


def test_a_taken_name_is_marked_at_the_name(client_as):
    editor = client_as("editor")
    catalog.create_table("Trial 2024", [{"name": "a", "type": "text"}], None)
    db.session.commit()
    page = upload(editor, TRIAL).get_data(as_text=True)
    response = editor.submit("/tables/import/confirm", confirm_form(page), page="/tables/import")
    assert response.status_code == 422
    assert "There is already a table named “trial 2024”." in response.get_data(as_text=True)


def test_unreadable_files_are_refused_with_the_reason(client_as):
    editor = client_as("editor")
    latin = upload(editor, "Sorte;Ertrag\nMöhre;3\n".encode("latin-1"))
    assert latin.status_code == 422
    assert "The file is not UTF-8 text" in latin.get_data(as_text=True)
    wrong = upload(editor, "a\n1\n", name="trial.xlsx")
    assert wrong.status_code == 422 and "Only .csv, .tsv or .txt files." in wrong.get_data(
        as_text=True
    )
    ragged = upload(editor, "a,b\n1,2,3\n")
    assert ragged.status_code == 422
    page = ragged.get_data(as_text=True)
    assert "Line 2 has 3 values" in page and "Create the table" not in page
    forged = editor.submit("/tables/import/confirm", {"csv_text": "a,b\n1,2,3\n", "name": "x"})
    assert forged.status_code == 422
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 0


def test_the_5_mb_cap_holds_again_at_confirm(client_as):
    """Issue 11 §6: a 14.8 MB csv_text went through the confirm form."""
    editor = client_as("editor")
    line = "Aron,7.5,yes,sand\n"
    text = "Variety,Yield,Organic,Soil\n" + line * (14_800_000 // len(line))
    form = {"csv_text": text, "name": "Huge", "columns-0-type": "text"}
    csrf = {"X-CSRFToken": editor.csrf_token("/tables/import")}
    as_form = editor.submit("/tables/import/confirm", form, page="/tables/import")
    assert as_form.status_code == 413
    assert "larger than the 512 KB this page accepts" in as_form.get_data(as_text=True)
    # As the page sends it (multipart), a text just over 5 MB reaches the form's own check.
    form["csv_text"] = text[: 5 * 2**20 + 1]
    response = editor.post_multipart("/tables/import/confirm", form, csrf)
    assert response.status_code == 422
    assert "The file is larger than 5 MB; split it into parts." in response.get_data(as_text=True)
    beyond = editor.post_multipart("/tables/import/confirm", {**form, "csv_text": text}, csrf)
    assert beyond.status_code == 413
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 0


def test_only_editors_import(client_as):
    viewer = client_as("viewer")
    assert viewer.get("/tables/import").status_code == 403
    response = viewer.submit("/tables/import/confirm", {"csv_text": TRIAL, "name": "x"})
    assert response.status_code == 403
