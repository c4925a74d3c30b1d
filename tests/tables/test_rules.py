"""A number column's unit bounds its values wherever they enter: a yield above any crop's and
a negative mass or length are refused with the reason, in computation, lookup, edits, imports
and applies; a yield above the row's own crop's cap is kept with a warning."""

import pytest
from sqlalchemy import select

from tests.support.tables import make_table, run_here
from webapp.extensions import db
from webapp.jobs.models import RunStatus
from webapp.review.models import Suggestion
from webapp.tables.cells import CellInvalid
from webapp.tables.coerce import coerce_value, typed_value
from webapp.tables.importing import _batch_rows
from webapp.tables.models import TableRow
from webapp.tables.rules import above_crop_cap, implausible, largest_yield
from webapp.tables.runs import start_enrichment


def test_the_largest_yield_is_the_librarys_largest_cap():
    # Greenhouse tomato in a year: 100 kg/m² = 1,000 t/ha.
    assert largest_yield() == (1000, "Tomato, greenhouse, per year")


@pytest.mark.parametrize(
    ("value", "unit", "refused"),
    [
        (3750, "t/ha", True),  # coconuts counted in nuts, read as tonnes
        (3.75, "t/ha", False),
        (600_000, "hg/ha", False),  # FAOSTAT's tomatoes: 60 t/ha
        (200_000_000, "hg/ha", True),
        (-2, "kg", True),
        (-2, "°C", False),
        (-2, None, False),
        (12, "€/ha", False),
    ],
)
def test_a_unit_bounds_its_values(value, unit, refused):
    assert (implausible(value, unit) is not None) is refused


def test_an_answer_above_any_crops_yield_is_invalid_with_its_reason():
    coerced = coerce_value("3,750 t/ha", "number", unit="t/ha")
    assert not coerced.valid and coerced.code == "value_implausible"
    assert coerced.error.startswith("3750 t/ha is above any crop's yield")
    typed = coerce_value(3750, "number", unit="t/ha")
    assert not typed.valid and typed.code == "value_implausible"
    assert coerce_value("4.7", "number", unit="t/ha").valid


def test_a_typed_or_imported_value_is_refused_the_same_way():
    with pytest.raises(CellInvalid, match="above any crop's yield"):
        typed_value("number", "3750", unit="t/ha")
    with pytest.raises(CellInvalid, match="below zero"):
        typed_value("number", "-1", unit="cm")
    assert typed_value("number", "3 kg/m2", unit="t/ha")[0] == 30


@pytest.mark.parametrize(
    ("row", "value", "unit", "flagged"),
    [
        ({"Crop": "Wheat", "State_Name": "Kenya"}, 120, "t/ha", True),  # winter wheat: cap 20
        ({"Item": "Wheat"}, 300_000, "hg/ha", True),  # FAOSTAT's columns and unit: 30 t/ha
        ({"Crop": "Wheat"}, 8, "t/ha", False),
        ({"Crop": "Tomato"}, 600, "t/ha", False),  # greenhouse tomato in a year: cap 1,000
        ({"Crop": "Coconut"}, 120, "t/ha", False),  # not in the library: no crop cap to say
        ({"Variety": "Wheat"}, 120, "t/ha", False),  # no column that holds the crop
        ({"Crop": "Wheat"}, 120, "kg", False),  # not a yield
    ],
)
def test_a_yield_above_the_rows_own_crops_cap_is_a_warning(row, value, unit, flagged):
    warning = above_crop_cap(value, unit, row)
    assert (warning is not None) is flagged
    if flagged:
        assert "above the library's cap for Winter wheat (20 t/ha)" in warning
        assert implausible(value, unit) is None  # below any crop's: stored, not refused


def test_a_computed_yield_above_the_crops_cap_is_proposed_with_a_warning(make_user, idle_queue):
    table = make_table(
        "Yields",
        [("Crop", "text"), ("Production", "number"), ("Yield", "number", (), "t/ha")],
        [{"Crop": "Wheat", "Production": 90}, {"Crop": "Wheat", "Production": 6}],
    )
    run = run_here(
        start_enrichment(
            table, "Yield", "computation", {"formula": "{Production}"}, None, make_user("editor")
        )
    )
    assert run.status == RunStatus.succeeded
    issues = {
        s.suggested_value: [(i["code"], i["severity"]) for i in s.issues]
        for s in db.session.scalars(select(Suggestion).where(Suggestion.run_id == run.id))
    }
    assert issues == {90: [("above_crop_cap", "warning")], 6: []}


def test_an_edit_or_an_import_above_the_crops_cap_is_kept_and_flagged(htmx_client_as):
    table = make_table(
        "Yields",
        [("Crop", "text"), ("Yield", "number", (), "t/ha")],
        [{"Crop": "Wheat", "Yield": 8}],
    )
    row = db.session.scalars(select(TableRow)).one()
    yield_column = table.columns[1]
    editor = htmx_client_as("editor")
    saved = editor.post(
        f"/tables/{table.id}/rows/{row.id}/cells/{yield_column.id}",
        data={f"edit-{row.id}-c{yield_column.id}": "45"},
        headers={"X-CSRFToken": editor.csrf_token()},
    )
    html = saved.get_data(as_text=True)
    assert saved.status_code == 200 and ">45</button>" in html
    assert "Saved; check: 45 t/ha is above the library&#39;s cap for Winter wheat" in html

    records = [(2, ["Wheat", "45"]), (3, ["Wheat", "7"])]
    kept, refused, flagged = _batch_rows(records, table.columns, False)
    assert len(kept) == 2 and refused == []
    assert flagged == [
        "Line 2, Yield: 45 t/ha is above the library's cap for Winter wheat (20 t/ha):"
        " check the figure and its unit."
    ]
