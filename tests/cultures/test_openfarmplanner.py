"""OpenFarmPlanner's culture export: public facts (tests/cultures/data/SOURCES.md) and a file of
the tests' own making in the same shape."""

from pathlib import Path

from tests.cultures.test_import import upload
from tests.support.html import by_id
from webapp.cultures.importing import preview_file
from webapp.cultures.models import Culture
from webapp.extensions import db

DATA = Path(__file__).parent / "data"
PUBLIC = (DATA / "openfarmplanner-kohlrabi.json").read_text(encoding="utf-8")
OWN = (DATA / "openfarmplanner-own.json").read_text(encoding="utf-8")


def test_public_kohlrabi_and_its_variety(app):
    preview = preview_file(PUBLIC)
    assert preview.kind == "OpenFarmPlanner JSON"
    assert preview.can_import, preview.error_rows
    crop, eder = preview.rows
    assert crop.values["row_spacing_cm"] == 25 and crop.values["distance_within_row_cm"] == 25
    assert float(crop.values["expected_yield"]) == 3.1
    assert crop.values["cultivation_types"] == ["pre_cultivation", "direct_sowing"]
    assert crop.notes == []
    # Eder's own figures stay; what it leaves empty comes from Kohlrabi, and is said.
    assert (eder.values["variety"], eder.values["growth_duration_days"]) == ("Eder", 60)
    assert eder.values["propagation_duration_days"] == 56
    assert eder.values["row_spacing_cm"] == 25 and eder.values["nutrient_demand"] == "medium"
    assert eder.notes == [
        "Inherited from Kohlrabi: Crop family, Cultivation types, Nutrient demand, "
        "Harvest method (the yield's context), Expected yield, Distance within the row, "
        "Row spacing, Thousand-kernel weight."
    ]
    assert eder.values["notes"].startswith("White-fleshed")
    assert "plants_per_m2" not in preview.unknown_columns


def test_own_export_two_seed_rates_inheritance_and_every_error(app):
    preview = preview_file(OWN)
    spinach, matador, leek = preview.rows
    assert spinach.values["sowing_depth_cm"] == 2 and spinach.values["row_spacing_cm"] == 30
    assert spinach.values["nutrient_demand"] == "medium"  # "Mittel"
    # Direct-sown: Furrow keeps direct sowing's seed rate; pre-cultivation's goes to the notes.
    assert (spinach.values["seed_rate_value"], spinach.values["seed_rate_unit"]) == (
        4,
        "g_per_m2",
    )
    assert spinach.values["notes"] == (
        "OpenFarmPlanner's pre-cultivation seed rate: 3 seeds per plant."
    )
    assert spinach.notes == [
        "Furrow keeps the direct sowing seed rate; OpenFarmPlanner's pre-cultivation seed "
        "rate: 3 seeds per plant is kept in the notes."
    ]
    assert spinach.values["seed_packages"] == [
        {"size_value": 25.0, "size_unit": "g", "evidence_text": ""}
    ]
    # Matador has its own seed rate and growth; the rest is Spinach's.
    assert (matador.values["seed_rate_value"], matador.values["growth_duration_days"]) == (5, 50)
    assert matador.values["harvest_duration_days"] == 21
    assert "Inherited from Spinach:" in matador.notes[0]
    assert "Seed rate" not in matador.notes[0]
    assert preview.unknown_columns == ["colour"]
    # Every problem of the leek, not the first.
    assert leek.values.get("cultivation_types") == ["pre_cultivation"]
    assert set(leek.errors) == {"row_spacing_cm", "nutrient_demand", "harvest_method"}
    assert not preview.can_import


def test_reimporting_the_export_changes_nothing(client_as):
    editor = client_as("editor")
    headers = {"X-CSRFToken": editor.csrf_token("/"), "Content-Type": "application/json"}
    first = editor.post("/api/v1/cultures/import", data=PUBLIC, headers=headers)
    assert first.status_code == 200, first.get_json()
    assert first.get_json()["imported"] == {"create": 2, "update": 0, "unchanged": 0}
    eder = db.session.query(Culture).filter_by(variety="Eder").one()
    assert (eder.row_spacing_cm, eder.growth_duration_days) == (25, 60)
    again = editor.post("/api/v1/cultures/import?dry_run=1", data=PUBLIC, headers=headers)
    assert again.get_json()["summary"] == "create 0, update 0, unchanged 2"
    [_crop, row] = again.get_json()["rows"]
    assert row["notes"][0].startswith("Inherited from Kohlrabi: Crop family")


def test_the_page_previews_an_openfarmplanner_file(client_as):
    editor = client_as("editor")
    response = upload(editor, OWN, name="cultures.json")
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Read as OpenFarmPlanner JSON." in page
    assert "Inherited from Spinach" in page
    counts = by_id(page, "level-counts").get_text(" ", strip=True)
    assert counts.startswith("✖ 1 with errors")


def test_json_that_is_no_export_is_refused_with_the_reason(app):
    assert preview_file('{"beds": []}').problem.startswith("This JSON is no OpenFarmPlanner")
    assert preview_file("[1, 2]").problem == "Culture 1 is not an object."
    assert preview_file("[{").problem.startswith("The file is not JSON")
