"""Totals and margins arithmetic. Prices from the farm-systems reference: fuel 0.7891 €/L
(reussir.fr, 2024); yields and sale prices here are the test's own round numbers."""

import pytest

from webapp.systems.totals import (
    intervention_totals,
    rotation_years,
    step_totals,
    system_totals,
)


def value(key, number, reviewed=True):
    return {"key": key, "value": number, "reviewed": reviewed}


def wheat():
    return {
        "id": "s1",
        "name": "Blé tendre d'hiver",
        "startDate": "2025-10-15T00:00:00.000Z",
        "endDate": "2026-07-20T00:00:00.000Z",
        "stepValues": [value("rendement", 8), value("prixVente", 200)],
        "interventions": [
            {
                "id": "labour",
                "name": "Labour",
                "values": [
                    value("frequence", 0.5),
                    value("gnr", 21),
                    value("coutGnr", 16.57),
                    value("mecanisation", 61),
                ],
            },
            {
                "id": "herbi",
                "name": "Désherbage",
                "values": [
                    value("frequence", 2),
                    value("ift", 0.15),
                    value("coutsPhytos", 3.9375),
                    value("reviewed_na", "n/a"),
                ],
            },
            {
                "id": "semis",
                "name": "Semis",
                "values": [value("semences", 90), value("mecanisation", 6.5)],
            },
        ],
    }


def test_step_is_the_sum_of_value_times_frequence():
    totals = step_totals(wheat())
    assert totals.values["gnr"] == 10.5
    assert totals.values["ift"] == 0.3
    assert totals.values["mecanisation"] == 61 * 0.5 + 6.5
    assert totals.units["gnr"] == "L/ha" and totals.units["mecanisation"] == "€/ha"
    assert [i.code for i in totals.issues] == ["frequence_missing"]  # Semis: counted once
    assert totals.missing["gnr"] == ["herbi", "semis"]


def test_products_charges_and_margin():
    totals = step_totals(wheat())
    assert totals.values["totalProduits"] == 1600  # 8 t/ha × 200 €/t
    charges = 16.57 * 0.5 + 61 * 0.5 + 3.9375 * 2 + 90 + 6.5
    assert totals.values["totalCharges"] == pytest.approx(charges)
    assert totals.values["margeBrute"] == pytest.approx(1600 - charges)
    assert totals.missing["totalCharges"] == ["engrais", "irrigation"]
    assert totals.units["margeBrute"] == "€/ha"


def test_yield_in_quintals_is_converted_for_products():
    step = wheat()
    step["assumptions"] = "- **Unité rendement**: q/ha"
    step["stepValues"] = [value("rendement", 80), value("prixVente", 200)]
    totals = step_totals(step)
    assert totals.units["rendement"] == "q/ha"
    assert totals.values["totalProduits"] == 1600


def test_step_overrides_win():
    step = wheat()
    step["stepValues"] += [value("totalProduits", 1500), value("irrigation", 40)]
    step["interventions"][2]["values"].append(value("irrigation", 999))
    totals = step_totals(step)
    assert totals.values["totalProduits"] == 1500
    assert totals.values["irrigation"] == 40


def test_intervention_totals_have_charges():
    totals = intervention_totals(wheat()["interventions"][0])
    assert totals.values["totalCharges"] == 16.57 + 61
    assert "margeBrute" not in totals.values


def test_rotation_years_at_least_one():
    assert rotation_years(wheat() | {"steps": [wheat()]}) == 1
    assert rotation_years({"steps": []}) == 1
    two = {
        "steps": [
            {"startDate": "2024-09-01T00:00:00Z", "endDate": "2025-07-01T00:00:00Z"},
            {"startDate": "2025-08-01T00:00:00Z", "endDate": "2026-09-01T00:00:00Z"},
        ]
    }
    assert rotation_years(two) == pytest.approx(2, rel=1e-3)


def test_system_per_hectare_and_year_counts_cover_crops():
    cover = {
        "id": "cover",
        "name": "Couvert moutarde",
        "startDate": "2026-08-01T00:00:00.000Z",
        "endDate": "2026-10-15T00:00:00.000Z",
        "interventions": [
            {"id": "sow", "name": "Semis couvert", "values": [value("semences", 40)]}
        ],
    }
    document = {"steps": [wheat(), cover]}
    totals = system_totals(document)
    years = totals.rotation_years
    assert years == 1
    assert totals.values["semences"] == 130
    assert totals.units["semences"] == "€/ha/year"
    assert "rendement" not in totals.values
    assert {"value": 40, "unit": "€/ha"}.items() <= totals.to_dict()["steps"][1]["values"][
        "semences"
    ].items()


def test_out_of_bounds_step_value_is_an_error():
    step = wheat()
    step["stepValues"] = [value("rendement", 800), value("prixVente", 200)]
    errors = [i for i in step_totals(step).issues if i.code == "out_of_bounds"]
    assert errors and errors[0].field == "rendement"
