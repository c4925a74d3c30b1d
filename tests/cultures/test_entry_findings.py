"""The plausibility findings show where values enter: the culture form (errors need "save
anyway"), the CSV import preview (per row), and the API's create/update answers (as issues)."""

import io
import re

from tests.support.html import by_id, soup
from webapp.cultures.catalog import entry_findings
from webapp.cultures.models import Culture
from webapp.extensions import db

# Beetroot at 28 kg/m²: the general per-m² cap is 120, but the library caps beetroot at 15.
BEETROOT = {
    "name": "Rote Bete",
    "harvest_method": "per_sqm",
    "expected_yield": "28",
    "distance_within_row_cm": "5",
    "row_spacing_cm": "30",
}


def codes(issues):
    return [i.code if hasattr(i, "code") else i["code"] for i in issues]


def test_the_findings_are_those_the_new_values_bring():
    assert "yield_above_crop_cap" in codes(entry_findings(dict(BEETROOT)))
    # A carrot at 3 × 25 cm (133 plants/m²) is denser than the library's 29–129: a warning.
    carrot = entry_findings({"name": "Carrot", "distance_within_row_cm": 3, "row_spacing_cm": 25})
    assert [(i.code, i.severity) for i in carrot] == [("spacing_density_unusual", "warning")]
    # A culture whose stored yield is already flagged: saving its notes brings nothing new.
    stored = Culture(name="Zucchini", reference_crop="zucchini", harvest_method="per_plant")
    stored.expected_yield = 40
    assert entry_findings({"notes": "Water often."}, stored) == []


def test_the_form_rerenders_with_errors_until_save_anyway_is_ticked(client_as):
    editor = client_as("editor")
    refused = editor.submit("/cultures/new", BEETROOT, page="/cultures/new")
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert 'id="entry-findings"' in page and "yield_above_crop_cap" in page
    assert "outside the library&#39;s cap for table beet (more than 0 and at most 15 kg/m²)" in page
    assert 'name="save_anyway"' in page and 'value="28"' in page  # nothing typed is lost
    assert db.session.query(Culture).count() == 0

    saved = editor.submit("/cultures/new", {**BEETROOT, "save_anyway": "y"}, page="/cultures/new")
    assert saved.status_code == 302
    culture = db.session.query(Culture).one()
    assert float(culture.expected_yield) == 28
    shown = editor.get(saved.headers["Location"]).get_data(as_text=True)
    assert "Expected yield:" in shown and "at most 15 kg/m²" in shown


def test_warnings_save_and_are_said_on_the_page(client_as):
    editor = client_as("editor")
    carrot = {"name": "Carrot", "distance_within_row_cm": "3", "row_spacing_cm": "25"}
    saved = editor.submit("/cultures/new", carrot, page="/cultures/new")
    assert saved.status_code == 302
    page = editor.get(saved.headers["Location"]).get_data(as_text=True)
    assert "flash-warning" in page and "The spacing gives 133.3 plants/m²" in page


def upload(client, text):
    data = {
        "csrf_token": client.csrf_token("/cultures/import"),
        "file": (io.BytesIO(text.encode()), "cultures.csv"),
    }
    return client.post("/cultures/import", data=data, content_type="multipart/form-data")


def test_the_import_preview_lists_findings_per_row_and_needs_a_confirmation(client_as):
    editor = client_as("editor")
    text = (
        "name,harvest_method,expected_yield,distance_within_row_cm,row_spacing_cm\n"
        "Rote Bete,per_sqm,28,5,30\n"
        "Zucchini,per_plant,4,60,100\n"
    )
    preview = upload(editor, text)
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200
    beet_row, zucchini_row = by_id(page, "import-rows").tbody.find_all("tr")
    codes = {i["data-code"]: i for i in beet_row.select(".issue")}
    finding = codes["yield_above_crop_cap"]
    assert finding.select_one(".severity").get_text() in ("error", "warning")
    assert "Expected yield:" in finding.get_text()
    assert not zucchini_row.select(".issue")
    assert soup(page).find("input", attrs={"name": "save_anyway"})
    csv_text = re.search(r'name="csv_text" type="hidden" value="([^"]*)"', page).group(1)
    csv_text = csv_text.replace("&#10;", "\n")
    form = {"csrf_token": editor.csrf_token("/cultures/import"), "csv_text": csv_text}
    refused = editor.post("/cultures/import/confirm", data=form)
    assert refused.status_code == 422 and db.session.query(Culture).count() == 0
    imported = editor.post("/cultures/import/confirm", data={**form, "save_anyway": "y"})
    assert imported.status_code == 302 and db.session.query(Culture).count() == 2


def test_the_api_answers_findings_as_issues_and_refuses_errors_without_save_anyway(client_as):
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    refused = editor.post("/api/v1/cultures", json=BEETROOT, headers=headers)
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "implausible_values"
    assert "yield_above_crop_cap" in codes(error["details"]["issues"])
    kept = editor.post("/api/v1/cultures", json={**BEETROOT, "save_anyway": True}, headers=headers)
    assert kept.status_code == 201
    body = kept.get_json()
    assert "yield_above_crop_cap" in codes(body["issues"]) and body["expected_yield"] == 28
    # Changing the notes brings nothing new; the spacing does.
    notes = editor.patch(f"/api/v1/cultures/{body['id']}", json={"notes": "x"}, headers=headers)
    assert notes.status_code == 200 and notes.get_json()["issues"] == []
    carrot = editor.post(
        "/api/v1/cultures",
        json={"name": "Carrot", "distance_within_row_cm": 3, "row_spacing_cm": 25},
        headers=headers,
    )
    assert carrot.status_code == 201
    assert codes(carrot.get_json()["issues"]) == ["spacing_density_unusual"]
    wrong = editor.post(
        "/api/v1/cultures", json={"name": "x", "save_anyway": "yes"}, headers=headers
    )
    assert wrong.status_code == 422 and wrong.get_json()["error"]["code"] == "invalid_request"


def test_a_yield_beyond_any_column_is_refused_on_the_form_and_kept_as_typed(client_as):
    editor = client_as("editor")
    for typed in ("1e27", "1e308"):
        refused = editor.submit(
            "/cultures/new", {**BEETROOT, "expected_yield": typed}, page="/cultures/new"
        )
        page = refused.get_data(as_text=True)
        assert refused.status_code == 422
        assert "At most 99,999,999.99 kg." in page and f'value="{typed}"' in page
    assert db.session.query(Culture).count() == 0
