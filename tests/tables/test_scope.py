"""A reference figure keeps its scope: the DüV's German reference yields answer no row about
Andhra Pradesh, and say why."""

from webapp.tables.enrichment import Target, work_on_row
from webapp.tables.scope import elsewhere, row_places
from webapp.tables.tools import OfflineTools

DUV = "https://www.gesetze-im-internet.de/d_v_2017/anlage_4.html"
YIELD = Target(4, "4", "Yield", "number", "dt/ha", ())
QUESTION = {
    "strategy": "lookup",
    "params": {"question": "What is the reference yield level of {Crop} in dt/ha?"},
}


def test_a_rows_places_come_from_its_place_columns():
    row = {
        "Crop": "Maize",
        "Country": "India",
        "State name": "Andhra Pradesh",
        "Year": 2014,
        "Area harvested": 1200,
    }
    assert row_places(row) == ("India", "Andhra Pradesh")
    assert elsewhere(DUV, ("India", "Andhra Pradesh")) == "Germany"
    assert elsewhere(DUV, ("Bayern, Deutschland",)) is None
    assert elsewhere(DUV, ()) is None  # a row that names no place takes the figure
    assert elsewhere("https://example.org/unscoped", ("India",)) is None


def test_a_german_reference_yield_answers_a_german_row_and_no_indian_one(app):
    german = work_on_row(
        {"Crop": "grain maize", "Country": "Germany"}, QUESTION, YIELD, OfflineTools()
    )
    assert (german["status"], german["value"]) == ("found", 90)
    indian = work_on_row(
        {"Crop": "grain maize", "Country": "India", "State": "Andhra Pradesh"},
        QUESTION,
        YIELD,
        OfflineTools(),
    )
    assert indian["status"] == "not_found" and indian["value"] is None
    passed = next(s for s in indian["steps"] if "scope_differs" in (s.get("data") or {}))
    assert (
        "its figures hold for Germany; this row is about India, Andhra Pradesh" in passed["detail"]
    )
