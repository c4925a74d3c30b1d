"""Issue 25 §11: a cost that includes fuel gets no fuel cost on top, a maize harvest is not a
cereal combine's, and a disc stubble cultivator gets its survey's figures (each test names its
source)."""

import pytest

from webapp.review.vocabulary import Confidence
from webapp.systems.assumptions import propose_assumptions, resolve
from webapp.systems.calculators import Context, calculate


def run(key, intervention="", name="", step="", crop=None, values=None):
    held = resolve("", step, intervention, propose_assumptions(name), crop)
    return calculate(key, Context(held, values or {}))


def codes(result):
    return [c.code for c in result.caveats]


# A cost that includes fuel


def test_precision_drilling_fuel_is_not_counted_twice():
    # Barème: "precision-drilling job in full 41.80 (130 hp, 10.4 L/h)": its fuel is in it.
    machinery = run("mecanisation", name="Semis monograine maïs")
    assert machinery.value == 41.8
    assert "includes fuel" in " ".join(machinery.calculation_steps)
    assert "implement_only" not in codes(machinery)
    cost = run("coutGnr", name="Semis monograine maïs")
    assert (cost.value, cost.confidence) == (0, Confidence.medium)
    assert "includes fuel: no fuel cost is added" in cost.calculation_steps[-1]
    assert "41.8 €/ha" in cost.calculation_steps[-1]
    # The litres are still burnt: the fuel volume (and its GES) stays.
    assert run("gnr", name="Semis monograine maïs").value == pytest.approx(10.4 / 1.75)


def test_the_intervention_s_machinery_value_is_the_job_in_full_so_fuel_is_in_it():
    result = run("coutGnr", name="Semis monograine", values={"mecanisation": 41.8})
    assert result.value == 0


@pytest.mark.parametrize(
    ("intervention", "values"),
    [
        ("- **Coût machine**: 30 €/ha", {}),  # the user's cost: what it covers is theirs to say
        ("", {"mecanisation": 25}),  # a value from elsewhere says nothing of fuel
    ],
)
def test_a_cost_that_may_not_include_fuel_keeps_the_fuel_cost(intervention, values):
    result = run("coutGnr", intervention, name="Semis monograine", values=values)
    assert result.value == pytest.approx(10.4 / 1.75 * 0.7891, rel=1e-6)


def test_a_stated_cost_that_says_it_includes_fuel_gets_no_fuel_cost_on_top():
    stated = "- **Coût machine**: 60 €/ha carburant compris\n- **Carburant**: 12 L/ha"
    machinery = run("mecanisation", stated, name="Semis blé")
    assert machinery.value == 60 and "includes fuel" in machinery.calculation_steps[-1]
    cost = run("coutGnr", stated, name="Semis blé")
    assert cost.value == 0 and "stated, 60 €/ha carburant compris" in cost.calculation_steps[-1]
    assert cost.sources[0].claim_summary == "Coût machine: 60 €/ha carburant compris"
    assert run("gnr", stated, name="Semis blé").value == 12  # the litres are still burnt


def test_an_implement_only_cost_keeps_the_fuel_cost():
    # Disc stubble cultivator: implement only; fuel is a cost of its own.
    result = run("coutGnr", "- **Matériel**: déchaumeur à disques", name="Déchaumage")
    assert result.value == pytest.approx(5 * 0.7891)


# Maize harvest


@pytest.mark.parametrize("key", ["gnr", "tempsTravail", "mecanisation"])
@pytest.mark.parametrize(
    ("name", "crop"),
    [("Moisson", "Maïs grain"), ("Récolte", "Maïs grain irrigué"), ("Récolte maïs grain", None)],
)
def test_a_grain_maize_harvest_gets_no_cereal_combine_figure(key, name, crop):
    # The cited combine figures (asavpa45/BCMA) are a cereal combine's: none for maize.
    intervention = "" if crop else f"- **Opération**: {name}"
    result = run(key, intervention, name=name, crop=crop)
    assert result.value is None and result.sources == []
    message = result.caveats[-1].message
    assert "Récolte maïs grain" in message and "not a maize harvester's" in message
    said = ("Culture: Maïs", "Opération: Récolte maïs")
    assert any(a.startswith(said) for a in result.assumptions)


def test_a_cereal_harvest_keeps_the_combine_figures():
    assert run("gnr", name="Moisson", crop="Blé tendre d'hiver").value == 20  # 15–25 L/ha


def test_a_silage_maize_harvest_is_the_forage_harvester_s():
    # agriculteur-normand.com: 8 forage harvesters, 2007, 27–36 L/ha; Deux-Sèvres 37 L/ha.
    for name, crop in (("Ensilage", "Maïs ensilage"), ("Moisson", "Maïs ensilage"), ("", None)):
        intervention = "" if crop else "- **Opération**: Ensilage maïs"
        result = run("gnr", intervention, name=name, crop=crop)
        assert (result.value, result.range) == (31.5, (27, 36))
        assert "ensileuses" in result.sources[0].claim_summary
        assert "37" in next(c.message for c in result.caveats if c.code == "other_cited_figure")
    # No work rate or machinery cost is cited for it: none is proposed.
    assert run("mecanisation", name="Ensilage", crop="Maïs ensilage").needs == ["Coût machine"]


# Disc stubble cultivator


def test_a_disc_stubble_cultivator_uses_the_survey_s_fuel_not_a_higher_figure():
    # Manche 2007: "déchaumeurs à disques indépendants … (moins de 5 l)": at most 5 L/ha per pass,
    # not the testimony's 8 L/ha for stubble cultivation in general.
    result = run("gnr", "- **Matériel**: déchaumeur à disques indépendants", name="Déchaumage")
    assert result.value == 5 and result.confidence == Confidence.low
    assert "cited_upper_bound" in codes(result) and "other_cited_figure" not in codes(result)
    assert "Variant: disc stubble cultivator" in result.assumptions
    assert run("gnr", name="Déchaumage").value == 8  # no machine named: the general figure
    # The word "dent" inside "indépendants" names no tine cultivator.
    tine = run("gnr", "- **Matériel**: déchaumeur à dents", name="Déchaumage")
    assert tine.value == 8


@pytest.mark.parametrize(
    ("equipment", "width", "cost"),
    [
        ("déchaumeur à disques", "3 m", 14.2),  # Entraid: < 4 m, 14,20 €/ha
        ("déchaumeur à disques", "4 m", 10.9),  # 4 m and more, 10,90 €/ha
        ("déchaumeur à disques indépendants", "6 m", 10.9),
        ("déchaumeur à dents", "3,5 m", 14.9),  # tines 3–3.50 m, 14,90 €/ha
        ("déchaumeur à dents", "4 m", 9.8),  # tines 4 m and more, 9,80 €/ha
    ],
)
def test_a_stubble_cultivator_s_cost_is_the_survey_s_for_its_type_and_width(equipment, width, cost):
    intervention = f"- **Matériel**: {equipment}\n- **Largeur**: {width}"
    result = run("mecanisation", intervention, name="Déchaumage")
    assert result.value == cost and "implement_only" in codes(result)
    assert "Entraid" in result.sources[-1].title


def test_a_tine_cultivator_outside_the_survey_s_widths_gets_its_type_s_range():
    # The survey gives tines 3–3.50 m and 4 m and more: 3.8 m is neither, so both are shown.
    intervention = "- **Matériel**: déchaumeur à dents\n- **Largeur**: 3,8 m"
    result = run("mecanisation", intervention, name="Déchaumage")
    assert result.range == (9.8, 14.9) and "machinery_not_chosen" in codes(result)
