"""A sale price is read per tonne; a yield in quintals with a price that may be per quintal is
never read silently (issue 25: 72 q/ha at 18 €/q read as 18 €/t, a margin of −73.7 €/ha)."""

import pytest

from webapp.systems.totals import step_totals


def value(key, number):
    return {"key": key, "value": number, "reviewed": True}


def wheat(assumptions, crop_yield=72, price=18):
    return {
        "id": "ble",
        "name": "Blé tendre d'hiver",
        "assumptions": assumptions,
        "stepValues": [value("rendement", crop_yield), value("prixVente", price)],
        "interventions": [
            {"id": "semis", "name": "Semis", "values": [value("mecanisation", 203.3)]},
        ],
    }


def price_issues(totals):
    return [i for i in totals.issues if i.field == "prixVente"]


def test_a_price_with_a_yield_in_quintals_is_not_read_silently():
    totals = step_totals(wheat("- **Unité rendement**: q/ha"))
    assert totals.values["totalProduits"] == pytest.approx(129.6)
    assert totals.values["margeBrute"] == pytest.approx(-73.7)
    [issue] = price_issues(totals)
    assert issue.code == "price_unit_unstated" and issue.severity == "warning"
    assert "7.2 t/ha × 18 €/t = 129.6 €/ha" in issue.message
    assert "enter 180 €/t" in issue.message and "1296 €/ha" in issue.message


def test_a_price_stated_per_quintal_is_said_not_to_be_per_tonne():
    step = wheat("- **Unité rendement**: q/ha\n- **Unité prix**: €/q")
    [issue] = price_issues(step_totals(step))
    assert issue.code == "price_unit_not_per_tonne" and "€/q" in issue.message


@pytest.mark.parametrize(
    "assumptions",
    [
        "- **Unité rendement**: q/ha\n- **Unité prix**: €/t",  # confirmed per tonne
        "",  # t/ha yield, €/t price: one unit
    ],
)
def test_a_price_per_tonne_is_not_warned(assumptions):
    step = wheat(assumptions, crop_yield=72 if assumptions else 7.2, price=180)
    totals = step_totals(step)
    assert price_issues(totals) == [] and totals.values["totalProduits"] == pytest.approx(1296)
