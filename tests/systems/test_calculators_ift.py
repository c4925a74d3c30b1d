"""IFT cases of issue 13; reference doses from Agrosyst test data
(beren2/catalogue_script_agrosyst), as the farm-systems reference file gives them."""

import json

import pytest

from webapp.problems import Invalid
from webapp.review.vocabulary import Confidence, Severity
from webapp.systems.assumptions import propose_assumptions, resolve
from webapp.systems.calculators.context import Context
from webapp.systems.calculators.ift import (
    bundled_reference_doses,
    calculate,
    crop_name,
    read_reference_doses_csv,
)


def ift(intervention="", step="", system="", name="", description=""):
    held = resolve(system, step, intervention, propose_assumptions(name, description))
    return calculate(Context(held))


def codes(result):
    return {c.code for c in result.caveats}


def test_half_the_reference_dose_on_the_whole_field_is_half():
    # REVYSTAR XL soft wheat 1.5 L/ha (Agrosyst test data).
    result = ift(
        "- **Produit**: Revystar XL\n- **Dose**: 0,75 L/ha\n- **Surface traitée**: 100 %\n"
        "- **Segment**: fungicide",
        step="- **Culture**: blé tendre d'hiver",
    )
    assert result.value == pytest.approx(0.5)
    assert result.parts["fungicide"] == pytest.approx(0.5)
    assert result.confidence == Confidence.high
    assert "REVYSTAR XL soft wheat 1.5 L/ha" in [s.claim_summary for s in result.sources]


def test_3_5_l_on_30_percent_with_reference_7_is_0_15():
    # ROUNDUP EXTRA 360 (no crop) 7 L/ha (Agrosyst test data), from the description alone.
    result = ift(name="Désherbage Roundup Extra 360 3,5 L/ha sur 30 %")
    assert result.value == 0.15
    assert result.parts["herbicide"] == 0.15
    assert any("3.5 L/ha ÷ 7 L/ha × 0.3 = 0.15" in s for s in result.calculation_steps)


def test_no_reference_dose_is_one_with_a_warning():
    result = ift("- **Produit**: Inconnu 2000\n- **Dose**: 1 L/ha\n- **Segment**: herbicide")
    assert result.value == 1
    warning = next(c for c in result.caveats if c.code == "ift_no_reference_dose")
    assert warning.severity == Severity.warning
    assert result.confidence == Confidence.low


def test_mixture_adds_and_segments_stay_apart():
    # MAVRIK FLO winter soft wheat autumn aphids 0.2 L/ha; REVYSTAR XL soft wheat 1.5 L/ha.
    result = ift(
        "- **Produit**: Revystar XL + Mavrik Flo\n- **Dose**: 0,75 L/ha + 0,1 L/ha\n"
        "- **Segment**: fungicide + insecticide\n- **Cible**: autumn aphids",
        step="- **Culture**: Blé tendre d'hiver",
    )
    assert result.parts["fungicide"] == pytest.approx(0.5)
    assert result.parts["insecticide"] == pytest.approx(0.5)
    assert result.value == pytest.approx(1.0)


def test_target_dose_before_crop_dose():
    doses = read_reference_doses_csv(
        "product,crop,target,dose,unit,source\n"
        "X,soft wheat,septoria,2,L/ha,test\n"
        "X,soft wheat,rust,1,L/ha,test\n"
    )
    assert doses.lookup("x", "soft wheat", "septoria")[0].figure.low == 2
    # Without a target the crop dose is the smallest target dose.
    row, basis = doses.lookup("X", "winter soft wheat", None)
    assert (row.figure.low, basis) == (1, "crop")
    assert doses.lookup("X", "maize", None) is None


def test_biocontrol_and_seed_treatment_reported_apart():
    result = ift("- **Dose**: 1 L/ha\n- **Dose de référence**: 2 L/ha\n- **Segment**: biocontrol")
    assert result.value == 0
    assert result.parts["biocontrol"] == 0.5
    assert "ift_reported_apart" in codes(result)
    seeds = ift(
        "- **Dose**: 1 L/ha\n- **Dose de référence**: 2 L/ha\n- **Segment**: seed treatment"
    )
    apart = next(c for c in seeds.caveats if c.code == "ift_reported_apart")
    assert apart.message.endswith("outside the total: seed treatment 0.5")


def test_needs_the_dose_instead_of_guessing():
    result = ift("- **Produit**: Revystar XL")
    assert result.value is None and result.needs == ["Dose"]
    assert not result.applicable
    assert "needs: Dose" in result.caveats[-1].message


def test_dose_in_another_unit_is_converted_or_refused():
    # ALTIPLANO DAM TEC rapeseed 3 kg/ha.
    kept = ift(
        "- **Produit**: Altiplano Dam Tec\n- **Dose**: 1500 g/ha\n- **Culture**: colza\n"
        "- **Segment**: herbicide"
    )
    assert kept.value == 0.5
    refused = ift("- **Produit**: Altiplano Dam Tec\n- **Dose**: 1 L/ha\n- **Culture**: colza")
    assert refused.value is None and refused.needs == ["Dose"]


def test_unknown_segment_counts_as_other_with_a_warning():
    result = ift("- **Produit**: Roundup Extra 360\n- **Dose**: 7 L/ha")
    assert result.parts["other"] == 1 and "ift_segment_unknown" in codes(result)
    assert "share_treated_assumed" in codes(result)


def test_bundled_table_and_crop_names():
    assert len(bundled_reference_doses()) == 14
    assert crop_name("Maïs ensilage") == "silage maize"
    assert crop_name("Orge d'hiver") == "winter barley"


def test_csv_errors_name_the_line_and_read_nothing():
    with pytest.raises(Invalid) as raised:
        read_reference_doses_csv(
            "product,crop,target,dose,unit,source\nA,,,1,L/ha,s\nB,,,abc,L/ha,s\nC,,,0,L/ha,s\n"
        )
    assert [p.loc for p in raised.value.problems] == ["line 3", "line 4"]
    with pytest.raises(Invalid, match="columns: dose"):
        read_reference_doses_csv("product,unit,source\nA,L/ha,s\n")


def test_message_shape():
    message = ift(name="Désherbage Roundup Extra 360 3,5 L/ha sur 30 %").to_message()
    assert set(message) >= {
        "value",
        "unit",
        "assumptions",
        "calculation_steps",
        "sources",
        "confidence",
        "caveats",
    }
    assert message["sources"][0]["title"].startswith("Agrosyst")


def test_an_operation_that_is_no_treatment_has_no_ift():
    result = ift(name="Ammonitrate 33,5 % 150 kg/ha")
    assert result.value == 0 and result.confidence == Confidence.medium


def test_an_impossible_share_is_an_error():
    result = ift(
        "- **Dose**: 1 L/ha\n- **Dose de référence**: 2 L/ha\n- **Surface traitée**: 150 %"
    )
    assert not result.applicable and "share_treated_impossible" in codes(result)


def test_a_dose_without_unit_is_read_in_the_reference_unit_and_said():
    result = ift("- **Produit**: Roundup Extra 360\n- **Dose**: 3,5\n- **Segment**: herbicide")
    assert result.value == 0.5 and "dose_without_unit" in codes(result)


def test_message_is_json():
    message = ift(name="Désherbage Roundup Extra 360 3,5 L/ha sur 30 %").to_message()
    assert json.loads(json.dumps(message))["value"] == 0.15


def test_a_systems_area_is_not_a_share_treated():
    # ROUNDUP EXTRA 360, no crop, 7 L/ha: 3.5 L/ha on the whole field → 0.5.
    treated = "- **Produit**: Roundup Extra 360\n- **Dose**: 3,5 L/ha\n- **Segment**: herbicide"
    whole = ift(treated, system="- **Surface**: 40 ha")
    assert whole.value == 0.5 and "share_treated_assumed" in codes(whole)
    area = ift(treated + "\n- **Surface traitée**: 12 ha")
    assert not area.applicable and "share_treated_impossible" in codes(area)
