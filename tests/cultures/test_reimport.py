"""Catalog files people have: German and French spreadsheets, re-imports that update, the API."""

import html
import io

from tests.cultures.test_import import upload
from tests.support.html import by_id
from webapp.cultures.catalog import export_csv
from webapp.cultures.importing import preview_csv, preview_file
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.review.models import Change

GERMAN = (
    "name;variety;nutrient_demand;cultivation_types;harvest_method;expected_yield;"
    "seed_rate_value;seed_rate_unit\n"
    "Möhre;Nantaise;niedrig;Direktsaat;Per m²;4,5;2;g/m²\n"
    "Tomate;Harzfeuer;hoch;Vorkultur;pro Pflanze;3;;\n"
    "Kohl;;Mittel;Vorkultur, Direktsaat;;;;\n"
)
FRENCH_TABS = (
    "name\tnutrient_demand\tcultivation_types\tharvest_method\n"
    "Poireau\télevé\tRepiquage\tpar plante\n"
    "Radis\tfaible\tsemis direct\tpar m²\n"
)


def test_a_german_semicolon_export_reads_its_choices_and_decimal_commas():
    preview = preview_csv(GERMAN)
    assert preview.can_import, preview.error_rows
    carrot, tomato, cabbage = (row.values for row in preview.rows)
    assert (carrot["nutrient_demand"], carrot["cultivation_types"]) == ("low", ["direct_sowing"])
    assert (carrot["harvest_method"], float(carrot["expected_yield"])) == ("per_sqm", 4.5)
    assert carrot["seed_rate_unit"] == "g_per_m2"
    assert (tomato["nutrient_demand"], tomato["harvest_method"]) == ("high", "per_plant")
    assert tomato["cultivation_types"] == ["pre_cultivation"]
    assert cabbage["nutrient_demand"] == "medium"
    assert cabbage["cultivation_types"] == ["pre_cultivation", "direct_sowing"]


def test_french_spellings_in_a_tab_separated_file():
    preview = preview_csv(FRENCH_TABS)
    assert preview.can_import, preview.error_rows
    leek, radish = (row.values for row in preview.rows)
    assert (leek["nutrient_demand"], leek["cultivation_types"]) == ("high", ["pre_cultivation"])
    assert leek["harvest_method"] == "per_plant"
    assert (radish["nutrient_demand"], radish["harvest_method"]) == ("low", "per_sqm")
    assert radish["cultivation_types"] == ["direct_sowing"]


def test_the_api_reads_the_same_spellings(client_as):
    kohl = Culture(name="Kohl")
    db.session.add(kohl)
    db.session.commit()
    editor = client_as("editor")
    changed = editor.patch(
        f"/api/v1/cultures/{kohl.id}",
        json={"nutrient_demand": "élevé", "cultivation_types": ["Direktsaat"]},
        headers=csrf(editor),
    )
    assert changed.status_code == 200, changed.get_json()
    assert changed.get_json()["nutrient_demand"] == "high"
    assert changed.get_json()["cultivation_types"] == ["direct_sowing"]


def test_every_error_of_a_row_is_reported():
    text = (
        "name,harvest_method,harvest_duration_days,cultivation_types,row_spacing_cm,"
        "seed_rate_value\n"
        'Kohl,Per Plantt,20,"[""sideways""",-3,2\n'
    )
    [row] = preview_csv(text).rows
    assert row.errors == {
        "cultivation_types": row.errors["cultivation_types"],
        "harvest_method": "Choose one of per plant, per m². "
        "A harvest duration needs a harvest method.",
        "row_spacing_cm": "Must not be negative.",
        "seed_rate_unit": "A seed rate needs its unit.",
    }
    assert row.errors["cultivation_types"].startswith('Cannot read “["sideways"”')


def csrf(client):
    return {"X-CSRFToken": client.csrf_token("/")}


def add(**values):
    culture = Culture(**values)
    db.session.add(culture)
    db.session.commit()
    return culture


def test_a_reimport_updates_matching_cultures_and_says_what_changes(app):
    tomato = add(name="Tomate", variety="Harzfeuer", growth_duration_days=60)
    add(name="Möhre", variety="Nantaise", nutrient_demand="low")
    text = (
        "name,variety,growth_duration_days,nutrient_demand\n"
        "  tomate , HARZFEUER ,70,\n"
        "Möhre,nantaise,,niedrig\n"
        "Kohl,,90,hoch\n"
    )
    preview = preview_file(text)
    assert preview.can_import
    assert [row.action for row in preview.rows] == ["update", "unchanged", "create"]
    assert preview.rows[0].culture_id == tomato.id
    assert preview.rows[0].changes == {"growth_duration_days": (60, 70)}
    assert preview.summary == "create 1, update 1, unchanged 1"


def test_a_row_twice_in_one_file_is_an_error(app):
    preview = preview_file("name,variety\nKohl,Rot\nkohl , rot\n")
    assert preview.rows[1].errors == {"name": "Line 2 has the same name and variety."}


def confirm(editor, text):
    preview = upload(editor, text)
    page = preview.get_data(as_text=True)
    hidden = page.split('name="csv_text" type="hidden" value="')[1].split('"')[0]
    return preview, editor.submit(
        "/cultures/import/confirm", {"csv_text": html.unescape(hidden)}, page="/cultures/import"
    )


def test_reimport_through_the_page_is_audited_undoable_and_idempotent(client_as):
    tomato = add(name="Tomate", variety="Harzfeuer", growth_duration_days=60)
    editor = client_as("editor")
    text = "name,variety,growth_duration_days\nTomate,Harzfeuer,70\nKohl,,90\n"
    preview, done = confirm(editor, text)
    assert by_id(preview, "import-summary").get_text() == "Create 1, update 1, unchanged 0"
    assert "update: Growth duration" in preview.get_data(as_text=True)
    assert done.status_code == 302
    db.session.expire_all()
    assert db.session.get(Culture, tomato.id).growth_duration_days == 70
    assert db.session.query(Culture).count() == 2
    [change] = db.session.query(Change).filter_by(target_id=tomato.id).all()
    assert (change.source, change.old_value, change.new_value) == ("import", 60, 70)

    again, _done = confirm(editor, text)
    assert by_id(again, "import-summary").get_text() == "Create 0, update 0, unchanged 2"
    assert db.session.query(Culture).count() == 2
    assert db.session.query(Change).count() == 1

    reviewer = client_as("reviewer")
    page = reviewer.get(f"/cultures/{tomato.id}").get_data(as_text=True)
    assert f"/review/undo/{change.group_id}" in page
    undone = reviewer.submit(f"/review/undo/{change.group_id}", page=f"/cultures/{tomato.id}")
    assert undone.status_code == 302
    db.session.expire_all()
    assert db.session.get(Culture, tomato.id).growth_duration_days == 60


def test_the_export_writes_empty_lists_as_empty_cells(app):
    kohl = add(name="Kohl", cultivation_types=[], seed_packages=[], structured_sources=[])
    carrot = add(name="Möhre", cultivation_types=["direct_sowing"])
    lines = export_csv([kohl, carrot]).splitlines()
    assert "[]" not in export_csv([kohl])
    assert '"[""direct_sowing""]"' in lines[2]
    assert preview_file(export_csv([kohl, carrot])).summary == "create 0, update 0, unchanged 2"


def test_the_api_previews_with_dry_run_and_imports(client_as):
    add(name="Tomate", variety="Harzfeuer", growth_duration_days=60)
    editor = client_as("editor")
    headers = {**csrf(editor), "Content-Type": "text/csv"}
    text = "name;variety;growth_duration_days\nTomate;Harzfeuer;70\nKohl;;90\n"
    dry = editor.post("/api/v1/cultures/import?dry_run=1", data=text, headers=headers)
    assert dry.status_code == 200, dry.get_json()
    body = dry.get_json()
    assert (body["dry_run"], body["create"], body["update"], body["unchanged"]) == (
        True,
        1,
        1,
        0,
    )
    assert body["rows"][0]["changes"] == [
        {"field": "growth_duration_days", "label": "Growth duration", "old": 60, "new": 70}
    ]
    assert db.session.query(Culture).count() == 1

    done = editor.post("/api/v1/cultures/import", data=text, headers=headers)
    assert done.status_code == 200
    assert done.get_json()["imported"] == {"create": 1, "update": 1, "unchanged": 0}
    assert db.session.query(Culture).count() == 2

    upload = editor.post(
        "/api/v1/cultures/import?dry_run=1",
        data={"file": (io.BytesIO(text.encode()), "c.csv")},
        content_type="multipart/form-data",
        headers=csrf(editor),
    )
    assert upload.get_json()["summary"] == "create 0, update 0, unchanged 2"


def test_the_api_names_the_line_and_field_of_each_error(client_as):
    editor = client_as("editor")
    bad = editor.post(
        "/api/v1/cultures/import",
        data="name,row_spacing_cm\nKohl,-3\n,4\n",
        headers={**csrf(editor), "Content-Type": "text/csv"},
    )
    assert bad.status_code == 422
    error = bad.get_json()["error"]
    assert error["code"] == "import_invalid"
    assert [(e["loc"], e["message"]) for e in error["details"]["errors"]] == [
        ("line.2.row_spacing_cm", "Line 2, Row spacing: Must not be negative."),
        ("line.3.name", "Line 3, Name: A culture needs a name."),
    ]
    assert db.session.query(Culture).count() == 0
    empty = editor.post("/api/v1/cultures/import", data="", headers=csrf(editor))
    assert empty.status_code == 422
    viewer = client_as("viewer")
    refused = viewer.post("/api/v1/cultures/import", data="name\nKohl\n", headers=csrf(viewer))
    assert refused.status_code == 403
