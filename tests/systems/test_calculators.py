"""Fuel, work time, machinery cost, fuel cost, nitrogen, GES and EIQ, with the figures of the
farm-systems reference file (each test names its source)."""

import pytest

from webapp.review.vocabulary import Confidence, Severity
from webapp.systems.assumptions import propose_assumptions, resolve
from webapp.systems.calculators import CALCULATORS, Context, calculate, calculate_in


def run(key, intervention="", name="", step="", system="", values=None):
    held = resolve(system, step, intervention, propose_assumptions(name))
    return calculate(key, Context(held, values or {}))


def codes(result):
    return [c.code for c in result.caveats]


def claims(result):
    return [s.claim_summary for s in result.sources]


# Fuel


def test_ploughing_fuel_is_the_cited_average_with_the_others_noted():
    # Foucault et al.: plough 5 furrows + 125 hp, 21 L/ha average; Manche 2007: 13.4.
    result = run("gnr", name="Labour")
    assert (result.value, result.unit) == (21, "L/ha")
    assert result.confidence == Confidence.medium
    assert codes(result).count("other_cited_figure") == 2
    assert any("13.4" in c.message for c in result.caveats)


def test_clay_doubles_tillage_fuel():
    # Manche 2007: "clay ≈ 2× loam".
    result = run("gnr", "- **Sol**: argileux", name="Déchaumage")
    assert result.value == 16  # testimony's 8 L/ha × 2
    assert "clay ≈ 2× loam" in claims(result)


@pytest.mark.parametrize(
    ("soil", "clay"),
    [
        ("argile", True),
        ("sol argileux", True),
        ("argile limoneuse", True),
        ("argilo-calcaire", True),
        ("heavy clay soil", True),
        ("silty clay", True),
        ("limon argileux profond", False),
        ("limon", False),
        ("clay loam", False),
        ("sable", False),
    ],
)
def test_only_a_clay_soil_doubles_tillage_fuel(soil, clay):
    # "clay ≈ 2× loam": a loam with some clay is still a loam.
    result = run("gnr", f"- **Sol**: {soil}", name="Déchaumage")
    assert result.value == (16 if clay else 8)
    assert ("clay_factor" in codes(result)) is clay


def test_clay_does_not_change_mowing():
    assert run("gnr", "- **Sol**: clay", name="Mowing").value == 6.7  # Manche 2007


def test_a_range_gives_its_midpoint_with_a_caveat():
    # asavpa45.org / BCMA 2011/12: combine harvesting 15–25 L/ha.
    result = run("gnr", name="Moisson")
    assert result.value == 20 and result.range == (15, 25)
    midpoint = next(c for c in result.caveats if c.code == "range_midpoint")
    assert "15–25 L/ha" in midpoint.message and result.confidence == Confidence.low


def test_a_stated_fuel_figure_wins():
    result = run("gnr", "- **Carburant**: 12,5 L/ha", name="Labour")
    assert result.value == 12.5 and result.confidence == Confidence.high


def test_fuel_per_hour_over_the_work_rate():
    # Entraid: ploughing 1.2 ha/h.
    result = run("gnr", "- **Carburant**: 18 L/h", name="Labour")
    assert result.value == 15
    assert run("gnr", "- **Carburant**: 18 L/h\n- **Débit de chantier**: 2 ha/h").value == 9


def test_precision_drilling_fuel_is_its_cited_fuel_per_hour_over_the_work_rate():
    # Barème: precision-drilling job 10.4 L/h; Entraid: precision drilling 1.6–1.9 ha/h.
    result = run("gnr", name="Semis monograine colza")
    assert result.value == pytest.approx(10.4 / 1.75, rel=1e-6)
    assert "10.4 L/h ÷ 1.75 ha/h = 5.94286 L/ha" in result.calculation_steps
    assert result.confidence == Confidence.low and "range_midpoint" in codes(result)
    assert any("10.4 L/h" in claim for claim in claims(result))
    given = run("gnr", "- **Débit de chantier**: 2 ha/h", name="Semis monograine colza")
    assert (given.value, given.confidence) == (5.2, Confidence.medium)


def test_fuel_needs_the_operation_or_a_figure():
    assert run("gnr").needs == ["Opération"]
    spraying = run("gnr", name="Pulvérisation")
    assert spraying.value is None and spraying.needs == ["Carburant"]


@pytest.mark.parametrize("name", ["Semis blé", "Pulvérisation fongicide", "Épandage ammonitrate"])
def test_fuel_without_a_cited_figure_needs_the_users_and_uses_it(name):
    # The reference file cites no fuel for sowing alone, spraying or spreading: no guess.
    missing = run("gnr", name=name)
    assert missing.value is None and missing.needs == ["Carburant"]
    assert missing.sources == [] and "no cited fuel" in missing.caveats[-1].message
    given = run("gnr", "- **Carburant**: 4 L/ha", name=name)
    assert (given.value, given.confidence) == (4, Confidence.high)
    [source] = given.sources
    assert (source.title, source.claim_summary) == ("Assumption", "Carburant: 4 L/ha")


@pytest.mark.parametrize("name", ["Semis blé", "Pulvérisation fongicide", "Épandage ammonitrate"])
def test_work_time_without_a_cited_rate_needs_the_users(name):
    missing = run("tempsTravail", name=name)
    assert missing.value is None and missing.needs == ["Débit de chantier"]
    assert run("tempsTravail", "- **Temps de travail**: 0,3 h/ha", name=name).value == 0.3


# Work time


def test_work_time_is_one_over_the_rate():
    # Entraid: ploughing 1.2 ha/h.
    assert run("tempsTravail", name="Labour").value == pytest.approx(1 / 1.2, rel=1e-5)
    assert run("tempsTravail", "- **Débit de chantier**: 4 ha/h").value == 0.25


def test_work_time_of_a_rate_range_is_a_range_of_times():
    # Manche 2015: mowing 4–5.25 ha/h → 0.190476–0.25 h/ha.
    result = run("tempsTravail", name="Fauche")
    assert result.range == pytest.approx((1 / 5.25, 0.25))
    assert result.value == pytest.approx((1 / 5.25 + 0.25) / 2, rel=1e-5)
    assert "range_midpoint" in codes(result)


# Machinery cost


def test_machinery_cost_from_the_bareme():
    # Entraid: ploughing job 61 €/ha without labour.
    assert run("mecanisation", name="Labour").value == 61
    # Disc stubble cultivator 10.90 (≥ 4 m) / 14.20 (< 4 m), implement only.
    wide = run("mecanisation", "- **Largeur**: 6 m", name="Déchaumage")
    assert wide.value == 10.9 and "implement_only" in codes(wide)
    assert run("mecanisation", "- **Largeur**: 3 m", name="Déchaumage").value == 14.2
    trailed = run("mecanisation", "- **Matériel**: pulvérisateur traîné", name="Traitement")
    assert trailed.value == 9.2


def test_machinery_cost_unchosen_gives_the_range():
    # Sprayer mounted 13.20, trailed 9.20, self-propelled 14–15 €/ha.
    result = run("mecanisation", name="Pulvérisation")
    assert result.range == (9.2, 15) and "machinery_not_chosen" in codes(result)


# Fuel cost


def test_fuel_cost_is_volume_times_the_cited_price():
    # reussir.fr: 2024 average 0.7891 €/L; Foucault et al.: ploughing 21 L/ha.
    result = run("coutGnr", name="Labour")
    assert (result.value, result.unit) == (pytest.approx(21 * 0.7891), "€/ha")
    assert "2024 average 0.7891 €/L (reussir.fr)" in claims(result)


def test_fuel_cost_uses_a_stated_price_and_the_intervention_fuel_value():
    result = run("coutGnr", "- **Prix GNR**: 1 €/L", values={"gnr": 30})
    assert result.value == 30


def test_fuel_cost_needs_the_fuel():
    result = run("coutGnr", name="Épandage")
    assert result.value is None and result.needs == ["Carburant"]


# Nitrogen


def test_ammonitrate_nitrogen_and_the_rounding_said():
    result = run("azoteMineral", name="Ammonitrate 33,5 % 150 kg/ha")
    assert (result.value, result.unit) == (50.25, "kg N/ha")
    assert "≈ 50 kg N/ha rounded" in result.calculation_steps[-1]
    assert run("azoteOrganique", name="Ammonitrate 33,5 % 150 kg/ha").value == 0


def test_organic_nitrogen_and_units():
    result = run("azoteOrganique", "- **Teneur N**: 0,6 %", name="Épandage fumier 30 t/ha")
    assert result.value == 180
    assert run("azoteMineral", "- **Teneur N**: 0,6 %", name="Épandage fumier 30 t/ha").value == 0


def test_nitrogen_needs_content_or_a_mass_dose():
    assert run("azoteMineral", name="Épandage engrais 150 kg/ha").needs == ["Teneur N"]
    liquid = run("azoteMineral", "- **Teneur N**: 39 %", name="Épandage solution 100 L/ha")
    assert liquid.needs == ["Dose"] and "assumption_unit" in codes(liquid)
    assert run("azoteMineral", name="Labour").value == 0


# GES


# IPCC 2019 Table 11.3 indirect N2O per kg N (volatilised: FracGASF 0.11 × EF4 0.010; leached:
# FracLEACH 0.24 × EF5 0.011), × 44/28 × GWP 273 (AR6, as the direct factor).
VOLATILISED = 0.11 * 0.010 * 44 / 28 * 273
LEACHED = 0.24 * 0.011 * 44 / 28 * 273


def test_ges_fuel_and_ammonitrate_each_factor_cited():
    # Arrêté 26/04/2017: 3.17 kg CO2e/L; Yara: 3.6 kg CO2e/kg N; IPCC 2006 + AR6: 4.29.
    result = run("ges", "- **Carburant**: 10 L/ha", name="Épandage ammonitrate 33,5 % 150 kg/ha")
    assert result.value == pytest.approx(
        10 * 3.17 + 50.25 * (3.6 + 4.29 + VOLATILISED + LEACHED), rel=1e-9
    )
    assert result.parts == {
        "fuel": 31.7,
        "n_manufacture": pytest.approx(50.25 * 3.6),
        "n2o_direct": pytest.approx(50.25 * 4.29),
        "n2o_volatilisation": pytest.approx(50.25 * VOLATILISED),
        "n2o_leaching": pytest.approx(50.25 * LEACHED),
    }
    sources = " ".join(s.title for s in result.sources)
    assert "Arrêté du 26 avril 2017" in sources and "Yara" in sources and "IPCC" in sources


def test_ges_of_ploughing_is_fuel_only():
    assert run("ges", name="Labour").value == pytest.approx(21 * 3.17)


def test_ges_needs_a_manufacture_factor_it_has_no_figure_for():
    result = run("ges", "- **Carburant**: 10 L/ha", name="Épandage urée 46 % 100 kg/ha")
    assert result.value is None and result.needs == ["Facteur fabrication"]
    stated = run(
        "ges",
        "- **Carburant**: 10 L/ha\n- **Facteur fabrication**: 2 kg CO2e/kg N",
        name="Épandage urée 46 % 100 kg/ha",
    )
    # Base Carbone: urea's carbon, +1.593 kg CO2/kg N, counted apart.
    urea = 46 * (2 + 4.29 + VOLATILISED + LEACHED + 1.593)
    assert stated.value == pytest.approx(31.7 + urea, rel=1e-9)


# EIQ


def test_eiq_field_use_for_glyphosate():
    # Kovach et al. 1992: glyphosate 15.33; 3.5 L/ha × 360 g/L = 1.26 kg/ha.
    result = run(
        "eiq",
        "- **Matière active**: glyphosate\n- **Concentration**: 360 g/L",
        name="Désherbage Roundup Extra 360 3,5 L/ha",
    )
    assert result.value == pytest.approx(15.33 * 1.26 / 1.12085, rel=1e-4)


def test_eiq_needs_data_for_an_unknown_ingredient():
    result = run("eiq", "- **Matière active**: flufenacet\n- **Dose**: 1 L/ha")
    assert result.value is None and result.needs == ["EIQ matière active"]


def test_eiq_of_an_ingredient_the_user_states():
    given = "- **Matière active**: flufenacet\n- **Concentration**: 500 g/L\n- **Dose**: 0,5 L/ha"
    result = run("eiq", given + "\n- **EIQ matière active**: 20")
    assert result.value == pytest.approx(20 * 0.25 / 1.12085, rel=1e-4)
    assert "EIQ matière active: 20" in claims(result)
    assert result.confidence == Confidence.medium


def test_a_stated_field_use_eiq_wins():
    result = run("eiq", "- **EIQ**: 12,5", name="Désherbage Roundup Extra 360 3,5 L/ha")
    assert (result.value, result.confidence) == (12.5, Confidence.high)
    [source] = result.sources
    assert (source.title, source.claim_summary) == ("Assumption", "EIQ: 12,5")
    assert run("eiq", "- **EIQ**: 12,5", name="Labour").value == 0


# Crop protection cost


def test_crop_protection_cost_from_the_cited_price():
    # Agrosyst test data: Roundup Extra 360 3.75 €/L; 3.5 L/ha on 30 % of the field.
    result = run("coutsPhytos", name="Désherbage Roundup Extra 360 3,5 L/ha sur 30 %")
    assert result.value == pytest.approx(3.5 * 3.75 * 0.3)
    assert "13.125 €/ha treated × share treated 0.3 = 3.9375 €/ha" in result.calculation_steps
    whole = run("coutsPhytos", name="Désherbage Roundup Extra 360 3,5 L/ha")
    assert whole.value == pytest.approx(13.125)
    assert "share_treated_assumed" in [c.code for c in whole.caveats]
    assert run("coutsPhytos", name="Labour").value == 0
    assert run("coutsPhytos", "- **Produit**: X\n- **Dose**: 1 L/ha").needs == ["Prix produit"]


# The registry and bounds


def test_bounds_make_a_value_not_applicable():
    result = run("gnr", "- **Carburant**: 400 L/ha")
    assert result.value == 400 and not result.applicable
    error = next(c for c in result.caveats if c.code == "out_of_bounds")
    assert error.severity == Severity.error


def test_no_calculator_says_so():
    result = run("rendement")
    assert result.value is None and "no calculator" in result.caveats[0].message


def test_every_calculator_answers_an_empty_intervention_without_a_number():
    for key in CALCULATORS:
        result = run(key)
        assert result.value is None, key
        assert result.needs, key


def test_calculate_in_a_document():
    document = {
        "steps": [
            {
                "id": "s",
                "name": "Blé tendre d'hiver",
                "interventions": [{"id": "i", "name": "Labour", "values": []}],
            }
        ]
    }
    assert calculate_in(document, "s", "i", "gnr").value == 21


def test_work_rate_for_the_stated_soil_furrows_and_power():
    # Entraid: ploughing light soils 1.1 ha/h (5 furrows) / 1.4 (7 furrows).
    light = run("tempsTravail", "- **Sol**: limon léger\n- **Corps**: 7", name="Labour")
    assert light.value == pytest.approx(1 / 1.4, rel=1e-6)
    from_equipment = run(
        "tempsTravail",
        "- **Sol**: léger\n- **Matériel**: Tracteur 150 CV + charrue 5 corps",
        name="Labour",
    )
    assert from_equipment.value == pytest.approx(1 / 1.1, rel=1e-6)
    # BCMA 2011/12: combine 1.25 ha/h (150–190 hp) to 4.5 ha/h (> 500 hp).
    assert run("tempsTravail", "- **Puissance**: 520 ch", name="Moisson").value == pytest.approx(
        1 / 4.5, rel=1e-6
    )
    small = run("tempsTravail", "- **Puissance**: 170 CV", name="Moisson")
    assert small.value == 0.8 and small.range is None
    assert run("tempsTravail", "- **Puissance**: 300 CV", name="Moisson").range is not None


# What people read: operation labels and indicator labels, never ids or keys


def test_steps_name_the_operation_not_its_id():
    fuel = run("gnr", name="Déchaumage")
    assert "Fuel for Déchaumage: 8 L/ha" in fuel.calculation_steps[0]
    assert "Opération: Déchaumage (proposed)" in fuel.assumptions
    mulching = run("mecanisation", name="Broyage du couvert")
    assert "no cited machinery cost for Broyage" in mulching.caveats[-1].message
    sowing = run("gnr", name="Semis monograine colza")
    assert "semis_monograine" not in str(sowing.to_message())
    ploughing = run("ift", name="Labour")
    assert ploughing.calculation_steps == ["Labour is not a crop-protection treatment: 0"]
    written = run("gnr", "- **Opération**: charrue 4 corps")
    assert written.value == 21 and "Fuel for Labour" in written.calculation_steps[0]


def test_a_known_value_is_shown_with_its_label():
    result = run("coutGnr", values={"gnr": 20})
    assert result.calculation_steps[0] == "Fuel: 20 L/ha (the intervention's value)"
    nitrogen = run("ges", name="Labour", values={"gnr": 20, "azoteMineral": 0})
    assert "Mineral N: 0 kg N/ha (the intervention's value)" in nitrogen.calculation_steps


def test_the_systems_area_is_shown_as_its_area_not_a_share_treated():
    result = run("ift", system="- **Surface**: 120 ha", name="Désherbage Roundup Extra 360 7 L/ha")
    assert result.value == 1 and "Surface traitée: 100 % (not stated: the whole field)" in (
        result.assumptions
    )
    share = run("ift", "- **Surface**: 50 %", name="Désherbage Roundup Extra 360 7 L/ha")
    assert share.value == 0.5 and "Surface: 50 % (intervention)" in share.assumptions


# The user's equipment


def test_the_width_written_after_the_implement_chooses_the_machinery_figure():
    # Disc stubble cultivator 10.90 (≥ 4 m) / 14.20 (< 4 m).
    held = resolve(
        intervention="", proposed=propose_assumptions("Déchaumage", "Déchaumeur à disques 4 m")
    )
    assert calculate("mecanisation", Context(held)).value == 10.9
    held = resolve(proposed=propose_assumptions("Déchaumage", "Déchaumeur à disques 3 m"))
    assert calculate("mecanisation", Context(held)).value == 14.2


def test_a_tractors_power_is_not_a_combines():
    # Entraid light soils: 1.1 ha/h with 5 furrows; BCMA: combine 150–190 hp 1.25 ha/h.
    plough = run("tempsTravail", "- **Corps**: 5\n- **Sol**: léger", name="Labour")
    assert plough.value == pytest.approx(1 / 1.1, rel=1e-6)
    combine = run("tempsTravail", name="Moisson", system="- **Tracteur**: 150 CV")
    assert combine.range is not None and "Variant" not in str(combine.assumptions)
    stated = run("tempsTravail", "- **Puissance**: 170 CV", name="Moisson")
    assert stated.value == 0.8
    model = run("tempsTravail", "- **Puissance**: John Deere 6155R", name="Moisson")
    assert model.range is not None


# A range the user writes is a range: its midpoint, said, with a low confidence


def midpoint_caveat(result):
    return next(c for c in result.caveats if c.code == "range_midpoint")


@pytest.mark.parametrize(
    ("key", "written", "name", "value"),
    [
        ("gnr", "- **Carburant**: 15-20 L/ha", "Labour", 17.5),
        ("tempsTravail", "- **Débit de chantier**: 1,5 à 2,5 ha/h", "Labour", 0.5),
        ("azoteMineral", "- **Dose**: 150-200 kg/ha", "Ammonitrate 33,5 %", 175 * 0.335),
        ("coutGnr", "- **Carburant**: 15-20 L/ha\n- **Prix GNR**: 1 €/L", "Labour", 17.5),
        ("ges", "- **Carburant**: 15-20 L/ha", "Labour", 17.5 * 3.17),
    ],
)
def test_a_written_range_gives_its_midpoint_with_a_caveat(key, written, name, value):
    result = run(key, written, name=name)
    assert result.value == pytest.approx(value)
    assert result.confidence == Confidence.low
    assert "is written as a range" in midpoint_caveat(result).message


def test_a_dose_range_in_the_description_is_proposed_as_written_and_read_as_its_midpoint():
    # ROUNDUP EXTRA 360, no crop: 7 L/ha; 3.75 €/L.
    name = "Désherbage Roundup Extra 360 2 à 3 L/ha"
    ift = run("ift", name=name)
    assert ift.value == pytest.approx(2.5 / 7) and ift.confidence == Confidence.low
    caveat = midpoint_caveat(ift)
    assert caveat.message == (
        "Dose of Roundup Extra 360 is written as a range, “2 à 3 L/ha”; the midpoint 2.5 L/ha "
        "is used."
    )
    assert (caveat.details["low"], caveat.details["high"]) == (2, 3)
    cost = run("coutsPhytos", name=name)
    assert cost.value == pytest.approx(2.5 * 3.75) and cost.confidence == Confidence.low
    eiq = run("eiq", "- **Matière active**: glyphosate\n- **Concentration**: 360 g/L", name=name)
    assert eiq.value == pytest.approx(15.33 * 0.9 / 1.12085, rel=1e-4)
    assert eiq.confidence == Confidence.low


def test_a_share_treated_range_gives_its_midpoint():
    result = run("ift", name="Désherbage Roundup Extra 360 7 L/ha sur 20-40 %")
    assert result.value == pytest.approx(0.3) and "range_midpoint" in codes(result)


def test_a_range_of_furrows_chooses_no_variant():
    # Entraid: 1.2 ha/h in general; 1.1 for 5 furrows on a light soil.
    result = run("tempsTravail", "- **Corps**: 5-7\n- **Sol**: léger", name="Labour")
    assert result.value == pytest.approx(1 / 1.2, rel=1e-6)
