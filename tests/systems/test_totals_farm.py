"""A farm's totals weighted by its systems' areas ("- **Surface**: 40 ha" among a system's
assumptions); a system without an area is not counted, and says why. The values are the test's
own round numbers."""

import pytest

from tests.systems.test_system_api import api_client, create
from tests.systems.test_totals import value
from webapp.systems.farm_totals import farm_totals, system_area


@pytest.mark.parametrize(
    ("assumptions", "area"),
    [
        ("- **Surface**: 40 ha", 40),
        ("- **Superficie** : 4000 m²", 0.4),
        ("- **SAU**: 12,5 ha", 12.5),
    ],
)
def test_a_systems_area_is_read_from_its_assumptions(assumptions, area):
    assert system_area({"assumptions": assumptions}) == (area, "")


@pytest.mark.parametrize(
    ("assumptions", "words"),
    [
        ("", "no “Surface”"),
        ("- **Surface**: beaucoup", "is not an area in ha"),
        ("- **Surface**: 40 %", "is not an area in ha"),
        ("- **Surface**: 0 ha", "is not above 0"),
    ],
)
def test_a_system_without_a_usable_area_says_why(assumptions, words):
    area, why = system_area({"assumptions": assumptions})
    assert area is None and words in why


def rotation(area, herbicide, fuel, with_gaps=False):
    """One year of wheat: a herbicide and a ploughing, each once."""
    ploughing = [value("frequence", 1), value("gnr", fuel), value("ift", 0)]
    return {
        "assumptions": f"- **Surface**: {area} ha" if area else "",
        "steps": [
            {
                "id": "ble",
                "name": "Blé tendre d'hiver",
                "startDate": "2025-10-01T00:00:00.000Z",
                "endDate": "2026-09-30T00:00:00.000Z",
                "interventions": [
                    {
                        "id": "labour",
                        "name": "Labour",
                        "day": "0",
                        "values": ploughing[:2] if with_gaps else ploughing,
                    },
                    {
                        "id": "herbi",
                        "name": "Désherbage",
                        "day": "20",
                        "assumptions": "- **Segment**: herbicide",
                        "values": [value("frequence", 1), value("ift", herbicide), value("gnr", 1)],
                    },
                ],
            }
        ],
    }


def rows(found):
    return {row.key: row for row in found.ift + found.rows}


def test_the_farm_is_the_area_weighted_mean_of_its_systems():
    found = farm_totals(
        [
            ("Nord", rotation(40, 1.0, 20)),
            ("Sud", rotation(20, 2.5, 11)),
            ("Jardin", rotation(None, 9, 99)),
        ]
    )
    assert found.area_ha == 60 and found.counted == [("Nord", 40), ("Sud", 20)]
    [(name, why)] = found.not_counted
    assert name == "Jardin" and "no “Surface”" in why
    by_key = rows(found)
    # (1.0 × 40 + 2.5 × 20) ÷ 60 = 1.5; fuel (21 × 40 + 12 × 20) ÷ 60 = 18.
    assert by_key["herbicide"].value == 1.5 and by_key["herbicide"].lacking == ()
    assert by_key["total"].value == 1.5 and by_key["fungicide"].value == 0
    assert by_key["gnr"].value == 18 and by_key["gnr"].unit == "L/ha/year"


def test_a_system_lacking_a_value_makes_the_farm_figure_partial_and_is_named():
    found = farm_totals([("Nord", rotation(40, 1.0, 20)), ("Sud", rotation(20, 2.5, 11, True))])
    herbicide = rows(found)["herbicide"]
    assert herbicide.value == 1.0 and herbicide.lacking == ("Sud",)


def test_no_area_no_farm_figure():
    found = farm_totals([("Jardin", rotation(None, 1, 1))])
    assert found.area_ha == 0 and found.ift == [] and found.rows == []


def test_the_farm_totals_on_the_api_and_the_list_page(client_as):
    editor = api_client(client_as, "editor")
    first = create(editor, farm="Ferme du Bocage", name="Nord", document=rotation(40, 1.0, 20))
    create(editor, farm="Ferme du Bocage", name="Sud", document=rotation(20, 2.5, 11))
    create(editor, farm="Ferme du Bocage", name="Jardin", document=rotation(None, 9, 99))
    farm_id = first.get_json()["farm"]["id"]
    body = editor.get(f"/api/v1/systems/farms/{farm_id}/totals").get_json()
    assert body["area_ha"] == 60 and "weighted by each system's area" in body["basis"]
    assert body["not_counted"][0]["system"] == "Jardin"
    herbicide = next(r for r in body["ift"] if r["key"] == "herbicide")
    assert (herbicide["value"], herbicide["unit"]) == (1.5, "IFT/year")
    assert editor.get("/api/v1/systems/farms/999/totals").status_code == 404
    page = editor.get("/systems").get_data(as_text=True)
    assert "The farm per hectare and year, weighted by area" in page
    assert "Nord (40 ha), Sud (20 ha), 60 ha in all" in page
    assert "Not counted in the farm's totals: Jardin: no “Surface”" in page
