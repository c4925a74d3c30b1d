"""People read a system's values to 3 significant figures in the grid, the drawer and a run's
review (5.94 L/ha, not 5.942857143); the exports, the API and the field to edit keep them whole."""

import csv
import io

import pytest

from tests.systems.test_calculation_runs import started, suggestions
from tests.systems.test_drawer import LABOUR, drawer_url, imported
from tests.systems.test_system_api import api_client
from webapp.extensions import db
from webapp.numbers import display_number

pytestmark = pytest.mark.usefixtures("idle_queue")

FUEL, IFT = 5.942857143, 0.3333333333


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (FUEL, "5.94"),
        (IFT, "0.333"),
        (-FUEL, "-5.94"),
        (0.000123456, "0.000123"),
        (2.675, "2.68"),
        (30.0, "30"),
        (0, "0"),
        (999.6, "1000"),
        (12345.6, "12346"),
        (1e20, "100000000000000000000"),
    ],
)
def test_a_value_is_shown_to_three_significant_figures(value, shown):
    assert display_number(value) == shown


@pytest.mark.parametrize("value", [None, "environ 2", True, float("nan")])
def test_what_is_not_a_number_is_shown_as_it_is(value):
    assert display_number(value) is value


def system(client_as):
    return imported(
        client_as,
        gnr={"value": FUEL, "reviewed": True},
        ift={"value": IFT, "reviewed": True},
    )


def test_the_grid_and_the_drawer_show_three_figures_and_edit_the_whole_value(client_as):
    editor, system_id = system(client_as)
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert " 5.94" in page and " 0.333" in page
    assert "5.942" not in page and "0.3333" not in page
    fuel = editor.get(drawer_url(system_id, "gnr")).get_data(as_text=True)
    assert "<strong>5.94</strong> L/ha" in fuel
    # The field to set the value holds it whole: saving it unchanged loses nothing.
    assert f'name="value" inputmode="decimal" value="{FUEL}"' in fuel
    assert "<strong>0.333</strong>" in editor.get(drawer_url(system_id, "ift")).get_data(
        as_text=True
    )


def test_a_runs_review_shows_three_figures(client_as):
    editor, system_id = system(client_as)
    run = started(editor, system_id)
    suggestion = next(
        s for s in suggestions(run).values() if isinstance(s.suggested_value, int | float)
    )
    suggestion.suggested_value = 12.34567
    db.session.commit()
    show = suggestion.level or "none"
    reviewer = client_as("reviewer")
    page = reviewer.get(f"/review/runs/{run.id}?level={show}").get_data(as_text=True)
    assert f'id="suggestion-{suggestion.id}"' in page
    assert "<strong>12.3</strong>" in page and "12.34567" not in page


def test_the_exports_and_the_api_keep_the_whole_value(client_as):
    editor, system_id = system(client_as)
    exported = editor.get(f"/systems/{system_id}.json").get_json()
    labour = exported["steps"][0]["interventions"][0]
    assert {v["key"]: v["value"] for v in labour["values"]} == {"gnr": FUEL, "ift": IFT}
    document = editor.get(f"/api/v1/systems/{system_id}", headers=editor.headers).get_json()
    assert FUEL in [v["value"] for v in document["steps"][0]["interventions"][0]["values"]]
    table = list(csv.reader(io.StringIO(editor.get(f"/systems/{system_id}.csv").get_data(True))))
    header, row = table[0], next(r for r in table if r[1] == LABOUR["name"])
    assert float(row[header.index("Fuel (L/ha)")]) == FUEL
    totals = api_client(client_as, "viewer").get(f"/api/v1/systems/{system_id}/totals")
    values = totals.get_json()["steps"][0]["interventions"][LABOUR["id"]]["values"]
    assert values["gnr"]["value"] == FUEL and values["ift"]["value"] == IFT
