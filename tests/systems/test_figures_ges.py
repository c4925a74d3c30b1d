"""GES of mineral N by form, each term apart: making it, field N2O direct and indirect (IPCC 2019
Table 11.3 defaults, AR6 GWP 273 as the direct factor), and urea's carbon (Base Carbone)."""

import pytest

from webapp.systems.assumptions import propose_assumptions, resolve
from webapp.systems.calculators import Context, calculate
from webapp.systems.calculators.ges import n_form

# kg CO2e per kg N: volatilised (FracGASF 0.11 × EF4 0.010) and leached (FracLEACH 0.24 × EF5
# 0.011), as N2O-N × 44/28 × 273.
VOLATILISED = 0.11 * 0.010 * 44 / 28 * 273
LEACHED = 0.24 * 0.011 * 44 / 28 * 273


def ges(name, intervention="- **Carburant**: 0 L/ha"):
    held = resolve("", "", intervention, propose_assumptions(name))
    return calculate("ges", Context(held, {}))


@pytest.mark.parametrize(
    ("product", "form"),
    [
        ("Ammonitrate 33,5", "ammonitrate"),
        ("nitrate d'ammonium", "ammonitrate"),
        ("Urée 46 %", "uree"),
        ("urea", "uree"),
        ("Solution azotée 39", "solution_azotee"),
        ("UAN 30", "solution_azotee"),
        ("urea ammonium nitrate", "solution_azotee"),  # not urea, not ammonium nitrate
        ("Sulfate d'ammoniaque", None),
    ],
)
def test_the_n_form_a_product_names(product, form):
    assert n_form(product) == form


def test_indirect_n2o_is_shown_in_its_own_parts_and_steps():
    result = ges("Épandage ammonitrate 33,5 % 300 kg/ha")  # 100.5 kg N
    assert result.parts["n2o_volatilisation"] == pytest.approx(100.5 * VOLATILISED)
    assert result.parts["n2o_leaching"] == pytest.approx(100.5 * LEACHED)
    assert result.value == pytest.approx(sum(result.parts.values()))
    steps = "\n".join(result.calculation_steps)
    assert "indirect, N volatilised then redeposited: 100.5 kg N/ha × 0.11 × 0.01" in steps
    assert "indirect, N leached: 100.5 kg N/ha × 0.24 × 0.011" in steps
    assert "44/28 × 273" in steps
    claims = " ".join(s.claim_summary for s in result.sources)
    assert "frac_gasf = 0.11" in claims and "(0.011 kg N2O-N (kg N)-1" in claims
    assert "leaching_assumed" in [c.code for c in result.caveats]
    assert "urea_co2" not in result.parts  # ammonium nitrate has no carbon


@pytest.mark.parametrize(
    ("name", "nitrogen", "factor"),
    [
        ("Épandage urée 46 % 100 kg/ha", 46, 1.593),  # Base Carbone: +1.593 kg CO2/kg N
        ("Épandage solution azotée 39 % 200 kg/ha", 78, 0.797),  # +0.797 (half its N is urea)
    ],
)
def test_urea_and_n_solution_count_their_carbon_apart(name, nitrogen, factor):
    result = ges(name, "- **Carburant**: 0 L/ha\n- **Facteur fabrication**: 2 kg CO2e/kg N")
    assert result.parts["urea_co2"] == pytest.approx(nitrogen * factor)
    assert result.parts["n_manufacture"] == pytest.approx(nitrogen * 2)
    assert "urea_carbon_apart" in [c.code for c in result.caveats]
    assert any("Base Carbone" in s.title for s in result.sources)


def test_urea_s_manufacture_factor_is_not_guessed():
    # No manufacture factor for urea or N solution is cited: it is asked, never borrowed from
    # ammonium nitrate's.
    for name in ("Épandage urée 46 % 100 kg/ha", "Épandage solution azotée 39 % 200 kg/ha"):
        result = ges(name)
        assert result.value is None and result.needs == ["Facteur fabrication"]
        assert "no cited manufacture factor" in result.caveats[-1].message
