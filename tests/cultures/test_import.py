import html
import io

from tests.support.html import by_id
from webapp.cultures.importing import preview_csv
from webapp.cultures.models import Culture
from webapp.extensions import db

GOOD = (
    "name,variety,harvest_method,expected_yield,cultivation_types,colour\n"
    "Tomate,Harzfeuer,per_plant,3.5,pre_cultivation,red\n"
    'Möhre,,,,"[""direct_sowing""]",orange\n'
)
BAD = "name,row_spacing_cm,seed_rate_value\nCarrot,-2,\n,30,\nBeet,30,2\n"


def test_the_preview_checks_each_row_with_the_catalogs_rules():
    preview = preview_csv(BAD)
    assert [row.line for row in preview.error_rows] == [2, 3, 4]
    assert preview.rows[0].errors == {"row_spacing_cm": "Must not be negative."}
    assert preview.rows[1].errors == {"name": "A culture needs a name."}
    assert preview.rows[2].errors == {"seed_rate_unit": "A seed rate needs its unit."}
    assert not preview.can_import


def test_the_preview_reads_list_cells_and_reports_unknown_columns():
    preview = preview_csv(GOOD)
    assert preview.can_import
    assert preview.unknown_columns == ["colour"]
    assert preview.rows[0].values["cultivation_types"] == ["pre_cultivation"]
    assert preview.rows[1].values["cultivation_types"] == ["direct_sowing"]


def test_a_file_without_a_name_column_is_refused():
    assert preview_csv("title\nx\n").problem.startswith("The first line must name the columns")


def upload(client, text, name="cultures.csv"):
    data = {
        "csrf_token": client.csrf_token("/cultures/import"),
        "file": (io.BytesIO(text.encode()), name),
    }
    return client.post("/cultures/import", data=data, content_type="multipart/form-data")


def test_import_previews_then_stores_all_rows_only_on_confirm(client_as):
    editor = client_as("editor")
    preview = upload(editor, GOOD)
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200
    assert "Import 2 culture(s)" in page and "colour" in page
    # The file's columns are named as the form names the fields, not by their keys.
    assert by_id(preview, "import-columns").get_text(" ", strip=True) == (
        "Columns read: Name, Variety, Harvest method (the yield's context), Expected yield, "
        "Cultivation types."
    )
    assert db.session.query(Culture).count() == 0

    text = page.split('name="csv_text" type="hidden" value="')[1].split('"')[0]
    confirmed = editor.submit(
        "/cultures/import/confirm", {"csv_text": html.unescape(text)}, page="/cultures/import"
    )
    assert confirmed.status_code == 302
    names = sorted(c.name for c in db.session.query(Culture))
    assert names == ["Möhre", "Tomate"]
    assert db.session.query(Culture).filter_by(name="Tomate").one().reference_crop == "tomato"


def test_a_file_with_row_errors_imports_nothing_and_lists_them(client_as):
    editor = client_as("editor")
    response = upload(editor, BAD)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert by_id(page, "level-counts").get_text(" ", strip=True).startswith("✖ 3 with errors")
    assert "Must not be negative." in page
    assert "Import " not in page.split('id="import-preview"')[1].split("</section>")[0].replace(
        "Nothing is imported", ""
    )
    forged = editor.submit("/cultures/import/confirm", {"csv_text": BAD}, page="/cultures/import")
    assert forged.status_code == 422
    assert db.session.query(Culture).count() == 0


def test_the_5_mb_cap_holds_again_at_confirm(client_as):
    text = "name,notes\nKohl," + "ö" * 5 * 2**19  # over 5 MB as UTF-8, not in characters
    assert len(text.encode()) > 5 * 2**20 > len(text)
    editor = client_as("editor")
    # The confirm form is multipart: a previewed file's text is no URL-encoded form.
    csrf = {"X-CSRFToken": editor.csrf_token("/cultures/import")}
    confirm = editor.post_multipart("/cultures/import/confirm", {"csv_text": text}, csrf)
    assert confirm.status_code == 422
    assert "The file is larger than 5 MB; split it into parts." in confirm.get_data(as_text=True)
    as_form = editor.submit("/cultures/import/confirm", {"csv_text": text}, page="/cultures/import")
    assert as_form.status_code == 413
    assert "larger than the 512 KB this page accepts" in as_form.get_data(as_text=True)
    assert db.session.query(Culture).count() == 0


def test_only_csv_files_and_only_editors(client_as):
    editor = client_as("editor")
    wrong = upload(editor, GOOD, name="cultures.xlsx")
    assert wrong.status_code == 422 and "Only .csv files or" in wrong.get_data(as_text=True)
    latin1 = editor.post(
        "/cultures/import",
        content_type="multipart/form-data",
        data={
            "csrf_token": editor.csrf_token("/cultures/import"),
            "file": (io.BytesIO("name\nMöhre\n".encode("latin-1")), "c.csv"),
        },
    )
    assert "not UTF-8" in latin1.get_data(as_text=True)
    assert client_as("viewer").get("/cultures/import").status_code == 403


def test_an_export_imports_back(client_as):
    db.session.add(
        Culture(
            name="Kohl",
            harvest_method="per_sqm",
            expected_yield=4,
            seed_packages=[{"size_value": 5.0, "size_unit": "g", "evidence_text": ""}],
        )
    )
    db.session.commit()
    exported = client_as("viewer").get("/cultures/export.csv").get_data(as_text=True)
    preview = preview_csv(exported)
    assert preview.can_import, preview.error_rows
    assert preview.rows[0].values["seed_packages"][0]["size_value"] == 5.0


def test_a_binary_or_too_large_file_is_refused_with_the_reason(client_as, monkeypatch):
    editor = client_as("editor")
    binary = upload(editor, "name\nKohl\n".encode("utf-16-le").decode())  # a NUL after each letter
    assert binary.status_code == 422
    assert "It looks like a binary file" in binary.get_data(as_text=True)
    monkeypatch.setattr("webapp.cultures.import_views.CSV_MAX_BYTES", 1024)
    large = upload(editor, "name\n" + "Kohl\n" * 300)
    assert large.status_code == 422
    assert "The file is larger than 1 KB; split it into parts." in large.get_data(as_text=True)


def test_german_and_french_choices_import():
    preview = preview_csv("name,nutrient_demand,harvest_method\nKohl,hoch,pro m²\nPoireau,moyen,\n")
    assert preview.can_import, preview.error_rows
    assert [row.values["nutrient_demand"] for row in preview.rows] == ["high", "medium"]
    assert preview.rows[0].values["harvest_method"] == "per_sqm"


def test_a_source_that_is_no_web_page_is_refused():
    sources = '"[{""title"": ""Click"", ""url"": ""javascript:alert(1)""}]"'
    preview = preview_csv(f"name,structured_sources\nKohl,{sources}\n")
    assert preview.rows[0].errors == {
        "structured_sources": "Source 1: Give a web address that starts with http:// or https://."
    }
