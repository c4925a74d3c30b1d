"""Seed 000's post-processing rules, one behaviour per test, over plain data."""

import pytest

from webapp.cultures.rules import (
    CropLimits,
    TypicalRange,
    check_density,
    check_derived_evidence,
    check_replacements,
    check_seed_packages,
    check_stored,
    check_thousand_kernel_weight,
    check_value_in_evidence,
    check_yield,
    check_yield_evidence,
    keep_requested_fields,
    plants_per_m2,
    postprocess,
    read_values,
    unique_sources,
)
from webapp.review.vocabulary import Evidence, Proposal, Severity, SuggestedValue

SOURCE = Evidence("https://example.org/yield", "Yield table", "Typical yield 4.5 kg per m².")


def proposal(evidence=None, **values):
    return Proposal(
        suggested={name: SuggestedValue(value) for name, value in values.items()},
        evidence=evidence or {},
    )


def read(**values):
    p = proposal(**values)
    read_values(p, {})
    return p


def codes(p, severity=None):
    return [i.code for i in p.issues if severity is None or i.severity == severity]


# Enum normalization


@pytest.mark.parametrize(
    ("field", "raw", "expected"),
    [
        ("harvest_method", "pro m²", "per_sqm"),
        ("harvest_method", "Per Plant", "per_plant"),
        ("nutrient_demand", "hoch", "high"),
        ("nutrient_demand", "Moyen", "medium"),
        ("seed_rate_unit", "g/m²", "g_per_m2"),
    ],
)
def test_enum_aliases_become_allowed_values(field, raw, expected):
    p = read(**{field: raw})
    assert p.value(field) == expected
    assert p.issues == []


def test_cultivation_types_normalize_each_entry():
    p = read(cultivation_types=["Direktsaat", "transplant", "direct_sowing"])
    assert p.value("cultivation_types") == ["direct_sowing", "pre_cultivation"]
    partly = read(cultivation_types=["Direktsaat", "by hovercraft"])
    assert partly.value("cultivation_types") == ["direct_sowing"]
    assert codes(partly) == ["enum_value_unknown"]


@pytest.mark.parametrize("raw", ["by the bushel", 3, ["per_plant", "per_sqm"], {"a": 1}])
def test_a_choice_no_alias_maps_to_is_a_malformed_value(raw):
    p = read(harvest_method=raw)
    assert "harvest_method" not in p.suggested
    assert codes(p, Severity.error) == ["value_malformed"]
    assert p.invalid_fields == {"harvest_method"}
    assert isinstance(p.malformed["harvest_method"].value, str)  # shown as text


# Numbers: read, in the field's unit, or malformed


@pytest.mark.parametrize(
    "raw", ["3-5", "3 – 5 kg", [3, 5], {"min": 5, "max": 3}, "3 bis 5", "between 3 and 5"]
)
def test_a_range_collapses_to_its_mean_and_says_so(raw):
    p = read(expected_yield=raw)
    assert p.value("expected_yield") == 4.0
    [issue] = p.issues
    assert issue.code == "range_collapsed_to_mean" and issue.severity == Severity.info
    assert issue.details == {"min": 3.0, "max": 5.0, "mean": 4.0}


def test_numbers_in_text_are_read():
    p = read(row_spacing_cm="30 cm", expected_yield="4,5", sowing_depth_cm="~2")
    assert p.value("row_spacing_cm") == 30.0
    assert p.value("expected_yield") == 4.5
    assert p.value("sowing_depth_cm") == 2.0
    assert p.issues == []


@pytest.mark.parametrize(
    "raw",
    [
        "shallow",
        float("nan"),
        float("inf"),
        [1, 2, 3],
        {"value": 3},
        True,
        "FAO-56: 120 days",  # a number in a reference is no answer
        {"min": "a", "max": 3},
        -5,
    ],
)
def test_what_is_no_number_is_a_malformed_value_shown_as_text(raw):
    p = read(row_spacing_cm=raw)
    assert "row_spacing_cm" not in p.suggested
    [issue] = p.issues
    assert (issue.code, issue.severity, issue.field) in {
        ("value_malformed", Severity.error, "row_spacing_cm"),
        ("value_out_of_range", Severity.error, "row_spacing_cm"),
    }
    shown = p.malformed["row_spacing_cm"].value
    assert isinstance(shown, str) and len(shown) <= 200


@pytest.mark.parametrize(
    ("field", "raw", "unit", "value", "note"),
    [
        ("harvest_duration_days", 8, "weeks", 56, "8 weeks is 56 days."),
        ("distance_within_row_cm", "12 inches", None, 30.48, "12 inches is 30.48 cm."),
        ("thousand_kernel_weight_g", 3.2, "g/1000 seeds", 3.2, None),
        ("thousand_kernel_weight_g", 45, "mg/seed", 45, None),  # the same number
        ("thousand_kernel_weight_g", 0.045, "g/seed", 45, "0.045 g/seed is 45 g."),
        ("propagation_duration_days", 42, "days after sowing", 42, None),
    ],
)
def test_a_unit_the_field_takes_is_converted_and_said(field, raw, unit, value, note):
    p = proposal(**{field: raw})
    p.suggested[field].unit = unit
    read_values(p, {})
    assert p.value(field) == pytest.approx(value)
    assert p.invalid_fields == set()
    assert [i.message for i in p.issues if i.code == "unit_converted"] == ([note] if note else [])


@pytest.mark.parametrize(
    ("field", "raw", "unit", "context", "code"),
    [
        ("row_spacing_cm", 30, "kg", {}, "unit_mismatch"),
        ("growth_duration_days", 60, "bananas", {}, "unit_unreadable"),
        ("expected_yield", 0.2, "kg/plant", {"harvest_method": "per_sqm"}, "unit_mismatch"),
        ("expected_yield", 4, "kg/m²", {"harvest_method": "per_plant"}, "unit_mismatch"),
        ("seed_rate_value", 2, "seeds/m²", {"seed_rate_unit": "g_per_m2"}, "unit_mismatch"),
        ("row_spacing_cm", 30, 12, {}, "unit_unreadable"),
    ],
)
def test_a_unit_the_field_does_not_take_is_an_error(field, raw, unit, context, code):
    p = proposal(**{field: raw})
    p.suggested[field].unit = unit
    read_values(p, context)
    assert codes(p, Severity.error) == [code]
    assert p.invalid_fields == {field}


def test_a_yield_per_area_in_tonnes_per_hectare_is_converted_to_kg_per_m2():
    p = proposal(expected_yield="30–50 t/ha", harvest_method="per_sqm")
    read_values(p, {})
    assert p.value("expected_yield") == 4.0
    assert codes(p) == ["unit_converted", "range_collapsed_to_mean"]


def test_a_value_beyond_what_the_field_holds_is_refused_before_the_database():
    p = read(growth_duration_days=10**40, expected_yield="1e300")
    assert codes(p, Severity.error) == ["value_out_of_range", "value_out_of_range"]
    assert set(p.malformed) == {"growth_duration_days", "expected_yield"}


def test_durations_are_whole_days():
    p = read(growth_duration_days=62.4, harvest_duration_days="135-180")
    assert p.value("growth_duration_days") == 62
    assert p.value("harvest_duration_days") == 158
    assert codes(p) == ["rounded_to_whole_days", "range_collapsed_to_mean"]


def test_a_field_that_is_no_culture_field_is_ignored_with_a_warning():
    p = read(name="Not mine", crop_family=["Solanaceae"])
    assert "name" not in p.suggested and "crop_family" in p.malformed
    assert codes(p) == ["field_unknown", "value_malformed"]


# Yield context and limits


def test_yield_without_any_harvest_method_is_an_error_and_no_default():
    p = proposal(expected_yield=4.0)
    check_yield(p, {})
    assert codes(p) == ["yield_context_missing"]
    assert p.invalid_fields == {"expected_yield"}
    assert "harvest_method" not in p.suggested


def test_yield_context_comes_from_the_suggestion_before_the_culture():
    p = proposal(expected_yield=30.0, harvest_method="per_plant")
    check_yield(p, {"harvest_method": "per_sqm"})
    assert "yield_per_plant_impossible" in codes(p, Severity.error)


@pytest.mark.parametrize(
    ("context", "value", "code"),
    [
        ("per_sqm", 150.0, "yield_per_sqm_impossible"),
        ("per_sqm", 0.0, "yield_per_sqm_impossible"),
        ("per_plant", 26.0, "yield_per_plant_impossible"),
        ("per_plant", -1.0, "yield_per_plant_impossible"),
    ],
)
def test_absurd_yields_are_invalid(context, value, code):
    p = proposal(expected_yield=value)
    check_yield(p, {"harvest_method": context})
    assert codes(p) == [code]
    assert p.invalid_fields == {"expected_yield"}


def test_a_high_but_possible_yield_per_plant_is_a_warning():
    p = proposal(expected_yield=10.0)
    check_yield(
        p, {"harvest_method": "per_plant", "distance_within_row_cm": 100, "row_spacing_cm": 100}
    )
    assert codes(p) == ["yield_per_plant_unusual"]
    assert p.invalid_fields == set()


def test_a_high_but_possible_yield_per_sqm_is_a_warning():
    p = proposal(expected_yield=45.0)
    check_yield(p, {"harvest_method": "per_sqm"})
    assert codes(p)[0] == "yield_per_sqm_unusual"


def test_a_yield_outside_the_crops_typical_range_is_a_warning_citing_the_range():
    typical = {"per_sqm": TypicalRange(4, 10, "kg/m²", "Derived from FAO", "https://fao.org/x")}
    p = proposal(expected_yield=15.0)
    check_yield(p, {"harvest_method": "per_sqm"}, CropLimits("tomato", typical))
    issue = next(i for i in p.issues if i.code == "yield_outside_typical_range")
    assert issue.severity == Severity.warning
    assert "4–10 kg/m²" in issue.message
    assert issue.details["source_url"] == "https://fao.org/x"


# Cross-check with spacing


def test_spacing_gives_plants_per_m2():
    assert plants_per_m2(50, 100) == 2.0
    assert plants_per_m2(None, 100) is None


def test_per_plant_yield_implying_an_impossible_per_sqm_yield_is_an_error():
    # 5 kg per plant at 10 × 10 cm (100 plants/m²) would be 500 kg/m².
    p = proposal(expected_yield=5.0, distance_within_row_cm=10, row_spacing_cm=10)
    check_yield(p, {"harvest_method": "per_plant"})
    issue = next(i for i in p.issues if i.code == "yield_crosscheck_impossible")
    assert issue.details == {"plants_per_m2": 100.0, "implied": 500.0, "implied_unit": "kg/m²"}


def test_per_sqm_yield_implying_an_unusual_per_plant_yield_is_a_warning():
    # 10 kg/m² at 1 plant/m² is 10 kg per plant: possible, unusual.
    p = proposal(expected_yield=10.0)
    check_yield(
        p, {"harvest_method": "per_sqm", "distance_within_row_cm": 100, "row_spacing_cm": 100}
    )
    assert codes(p) == ["yield_crosscheck_unusual"]


def test_without_spacing_the_cross_check_is_skipped_and_nothing_converted():
    p = proposal(expected_yield=3.0)
    check_yield(p, {"harvest_method": "per_plant"})
    assert codes(p) == ["yield_crosscheck_skipped_missing_spacing"]
    assert p.value("expected_yield") == 3.0


# Density, seed rate, TKG


def test_spacing_density_outside_0_1_to_400_is_an_error():
    p = proposal(distance_within_row_cm=2, row_spacing_cm=5)  # 1000 plants/m²
    check_density(p, {})
    assert codes(p) == ["spacing_density_impossible"]
    assert p.invalid_fields == {"distance_within_row_cm"}


def test_spacing_density_outside_3_to_120_is_a_warning():
    p = proposal(row_spacing_cm=100)
    check_density(p, {"distance_within_row_cm": 50})  # 2 plants/m²
    assert codes(p) == ["spacing_density_unusual"]


@pytest.mark.parametrize(
    ("in_row", "rows", "density"),
    [
        (250, 200, 0.2),  # pumpkin: standard garden-chart spacing
        (125, 200, 0.4),  # watermelon
        (90, 123.4568, 0.9),  # winter squash
    ],
)
def test_wide_spacings_of_a_crop_the_library_lacks_are_unusual_not_impossible(
    in_row, rows, density
):
    p = proposal(distance_within_row_cm=in_row, row_spacing_cm=rows)
    check_density(p, {})
    assert plants_per_m2(in_row, rows) == pytest.approx(density, rel=1e-4)
    assert codes(p) == ["spacing_density_unusual"] and p.invalid_fields == set()
    # More than 10 m² a plant is impossible for any crop.
    sparse = proposal(distance_within_row_cm=400, row_spacing_cm=300)  # 0.083 plants/m²
    check_density(sparse, {})
    assert codes(sparse) == ["spacing_density_impossible"]
    assert "0.08 plants/m², outside 0.1–400" in sparse.issues[0].message


def test_a_density_just_outside_a_band_never_prints_as_the_bound():
    # A carrot (typical 29–129) at 0.99 plants/m² was "1.0 plants/m², outside 1–400".
    carrot = proposal(distance_within_row_cm=101.0101, row_spacing_cm=100)
    check_density(carrot, {}, CropLimits("carrot", density=CARROT))
    [issue] = carrot.issues
    assert issue.code == "spacing_density_impossible"
    assert "gives 0.99 plants/m², outside 1–400." in issue.message
    crowded = proposal(distance_within_row_cm=1.6, row_spacing_cm=15.6)  # 400.6 plants/m²
    check_density(crowded, {})
    assert "gives 400.6 plants/m², outside 0.1–400." in crowded.issues[0].message
    edge = proposal(distance_within_row_cm=5, row_spacing_cm=16.6)  # 120.48 plants/m²
    check_density(edge, {})
    assert "gives 120.5 plants/m², outside 3–120." in edge.issues[0].message
    barely = proposal(distance_within_row_cm=5, row_spacing_cm=16.66)  # 120.048 plants/m²
    check_density(barely, {})
    assert "gives 120.05 plants/m², outside 3–120." in barely.issues[0].message


def test_seed_rate_and_yield_messages_round_honestly_too():
    # 1200.4 seeds/m² printed as "1200" would sit on the bound it is past.
    seeds = proposal(seed_rate_value=1200.4, seed_rate_unit="seeds_per_m2")
    check_density(seeds, {})
    assert "gives 1200.4 seeds/m², outside 10–1200." in seeds.issues[0].message
    nine = proposal(seed_rate_value=9.7, seed_rate_unit="seeds_per_m2")
    check_density(nine, {})
    assert "gives 9.7 seeds/m², outside 10–1200." in nine.issues[0].message
    over = proposal(expected_yield=120.0000004)
    check_yield(over, {"harvest_method": "per_sqm"})
    assert over.issues[0].message.startswith("120.0000004 kg/m² is outside")
    high = proposal(expected_yield=40.0000001)
    check_yield(high, {"harvest_method": "per_sqm"})
    assert "40.0000001 kg/m² is possible but unusually high (above 40" in high.issues[0].message


BEET = TypicalRange(3.25, 4.88, "kg/m²", "Maine planting chart", "https://x", cap=15)
SQUASH = TypicalRange(1.35, 2.39, "plants/m²", "Illinois guide", "https://y")
TOMATO = TypicalRange(1.67, 5.56, "plants/m²", "FAO", "https://z")
CARROT = TypicalRange(29, 129, "plants/m²", "Carrot guide", "https://c")


def test_a_crops_own_cap_makes_a_yield_above_it_an_error():
    """Beetroot at 28 kg/m² was only a warning although the library caps beetroot at 15."""
    p = proposal(expected_yield=28.0)
    check_yield(p, {"harvest_method": "per_sqm"}, CropLimits("table beet", {"per_sqm": BEET}))
    assert codes(p, Severity.error) == ["yield_above_crop_cap"]
    assert "the library's cap for table beet" in p.issues[0].message
    # Outside the library the seed's general caps stay: 28 kg/m² is possible there.
    general = proposal(expected_yield=28.0)
    check_yield(general, {"harvest_method": "per_sqm"})
    assert codes(general, Severity.error) == []
    # A carrot (cap 15) at 20 kg/m², made up: the same rule.
    carrot = proposal(expected_yield=20.0)
    check_yield(carrot, {"harvest_method": "per_sqm"}, CropLimits("carrot", {"per_sqm": BEET}))
    assert codes(carrot, Severity.error) == ["yield_above_crop_cap"]


def test_planting_density_is_held_to_the_crops_own_band():
    # Tomato at 50 × 80 cm (2.5 plants/m²): normal, though below the general 3–120 band.
    tomato = proposal(distance_within_row_cm=50, row_spacing_cm=80)
    check_density(tomato, {}, CropLimits("tomato", density=TOMATO))
    assert tomato.issues == []
    # Squash at 60 × 100 cm (1.67 plants/m²): normal for squash.
    squash = proposal(distance_within_row_cm=60, row_spacing_cm=100)
    check_density(squash, {}, CropLimits("zucchini", density=SQUASH))
    assert squash.issues == []
    # Squash at 90 × 150 cm (0.74): sparse, a warning naming the crop's band — not impossible.
    sparse = proposal(distance_within_row_cm=90, row_spacing_cm=150)
    check_density(sparse, {}, CropLimits("zucchini", density=SQUASH))
    assert codes(sparse) == ["spacing_density_unusual"]
    assert "zucchini's typical 1.35–2.39" in sparse.issues[0].message
    # Tomato at 10 × 10 cm (100 plants/m²): far outside its band; a known crop's error band
    # (its own halved and doubled) is never narrower than 1–400, so it warns.
    crowded = proposal(distance_within_row_cm=10, row_spacing_cm=10)
    check_density(crowded, {}, CropLimits("tomato", density=TOMATO))
    assert codes(crowded) == ["spacing_density_unusual"]
    # Squash at 150 × 150 cm (0.44): below half its band and below 1, impossible.
    bare = proposal(distance_within_row_cm=150, row_spacing_cm=150)
    check_density(bare, {}, CropLimits("zucchini", density=SQUASH))
    assert codes(bare) == ["spacing_density_impossible"]


def test_seed_rate_density_uses_the_thousand_kernel_weight():
    # 20 g/m² of 40 g TKG seed is 500 seeds/m²: plausible.
    p = proposal(seed_rate_value=20, seed_rate_unit="g_per_m2", thousand_kernel_weight_g=40)
    check_density(p, {})
    assert p.issues == []
    # 200 g/m² would be 5000 seeds/m².
    p = proposal(seed_rate_value=200, seed_rate_unit="g_per_m2", thousand_kernel_weight_g=40)
    check_density(p, {})
    assert codes(p) == ["seed_rate_density_impossible"]


def test_seed_rate_density_outside_10_to_1200_is_a_warning():
    p = proposal(seed_rate_value=0.2)
    check_density(p, {"seed_rate_unit": "g_per_m2", "thousand_kernel_weight_g": 40})  # 5 /m²
    assert codes(p) == ["seed_rate_density_unusual"]


def test_spacing_and_seed_rate_that_disagree_are_a_conflict():
    # 25 × 40 cm is 10 plants/m²; 2 g/m² of 50 g TKG is 40 seeds/m²: ×4.
    p = proposal(seed_rate_value=2, seed_rate_unit="g_per_m2", thousand_kernel_weight_g=50)
    check_density(p, {"distance_within_row_cm": 25, "row_spacing_cm": 40})
    issue = next(i for i in p.issues if i.code == "spacing_seedrate_conflict")
    assert issue.details["ratio"] == 4.0 and issue.severity == Severity.warning


def test_a_tkg_above_650_g_needs_confirmation():
    p = proposal(thousand_kernel_weight_g=900)
    check_thousand_kernel_weight(p)
    assert codes(p, Severity.warning) == ["tkg_high_needs_confirmation"]


def test_seed_packages_outside_the_limits_are_rejected_and_odd_ones_flagged():
    p = proposal(
        seed_packages=[
            {"size_value": 0.05, "size_unit": "g", "evidence_text": "tiny"},
            {"size_value": 5000, "size_unit": "g", "evidence_text": "sack"},
            {"size_value": 2.37, "size_unit": "g", "evidence_text": "odd"},
            {"size_value": 25, "size_unit": "g", "evidence_text": "ok"},
            {"size_value": 500, "size_unit": "seeds", "evidence_text": "count"},
        ]
    )
    check_seed_packages(p)
    assert [pkg["size_value"] for pkg in p.value("seed_packages")] == [2.37, 25.0, 500.0]
    assert codes(p) == [
        "seed_package_size_rejected",
        "seed_package_size_rejected",
        "seed_package_fractional_suspicious",
    ]


# Evidence

DERIVED = Evidence(
    "https://nevegetable.org/x",
    "NE guide",
    "Derived range, not a quotation: 4–10 kg/m².",
    derived=True,
)


def test_missing_evidence_blocks_overwriting_an_existing_yield():
    p = proposal(expected_yield=4.0)
    check_yield_evidence(p, {"expected_yield": 3.0})
    assert "expected_yield" not in p.suggested
    assert codes(p, Severity.error) == ["yield_evidence_missing_override_blocked"]


def test_missing_evidence_without_an_existing_yield_asks_for_manual_confirmation():
    p = proposal(expected_yield=4.0, evidence={"expected_yield": [Evidence("", "t", "")]})
    check_yield_evidence(p, {"expected_yield": None})
    assert p.value("expected_yield") == 4.0
    assert codes(p, Severity.warning) == ["yield_needs_manual_confirmation"]


def test_a_cited_yield_passes_the_evidence_rule():
    p = proposal(expected_yield=4.5, evidence={"expected_yield": [SOURCE]})
    check_yield_evidence(p, {"expected_yield": 3.0})
    assert p.issues == []


def test_a_derived_figure_is_no_evidence_for_a_yield():
    """The tomato yield cites a page that states no tomato yield: it cannot replace a yield."""
    p = proposal(expected_yield=7.0, evidence={"expected_yield": [DERIVED]})
    check_yield_evidence(p, {"expected_yield": 3.0})
    assert codes(p, Severity.error) == ["yield_evidence_missing_override_blocked"]
    assert "derived figure" in p.issues[0].message
    new = proposal(expected_yield=7.0, evidence={"expected_yield": [DERIVED]})
    check_yield_evidence(new, {"expected_yield": None})
    assert codes(new, Severity.warning) == ["yield_needs_manual_confirmation"]


def test_a_value_whose_every_source_is_derived_carries_a_visible_warning():
    p = proposal(
        expected_yield=7.0,
        thousand_kernel_weight_g=3.0,
        row_spacing_cm=30,
        evidence={
            "expected_yield": [DERIVED],
            "thousand_kernel_weight_g": [DERIVED, DERIVED],
            "row_spacing_cm": [DERIVED, SOURCE],  # one source states it: no warning
        },
    )
    check_derived_evidence(p)
    assert [(i.code, i.field) for i in p.issues] == [
        ("evidence_derived", "expected_yield"),
        ("evidence_derived", "thousand_kernel_weight_g"),
    ]
    assert p.issues[0].severity == Severity.warning
    assert p.issues[0].message.startswith("The cited source does not state this figure")


def test_replacing_a_recorded_number_with_a_very_different_one_is_flagged():
    """Re-research replaced a correct 78 with FAO's 158-day season without a word."""
    p = proposal(growth_duration_days=158, row_spacing_cm=32)
    check_replacements(p, {"growth_duration_days": 78, "row_spacing_cm": 30})
    assert [(i.code, i.field) for i in p.issues] == [
        ("replaces_current_value", "growth_duration_days")
    ]
    assert "replace 78 days with 158 days (+103%)" in p.issues[0].message


def test_a_number_found_in_no_cited_snippet_is_flagged():
    p = proposal(expected_yield=6.0, evidence={"expected_yield": [SOURCE]})
    check_value_in_evidence(p)
    assert codes(p) == ["value_not_in_evidence"]
    p = proposal(expected_yield=4.5, evidence={"expected_yield": [SOURCE]})
    check_value_in_evidence(p)
    assert p.issues == []


def test_duplicate_sources_with_the_same_claim_become_one():
    evidence = {
        "expected_yield": [SOURCE, SOURCE],
        "row_spacing_cm": [
            Evidence(SOURCE.source_url, "Other title", SOURCE.claim_summary),
            Evidence(SOURCE.source_url, "Spacing", "Rows 30 cm apart."),
        ],
    }
    sources = unique_sources(evidence)
    assert [s.claim_summary for s in sources] == [SOURCE.claim_summary, "Rows 30 cm apart."]


def test_without_a_claim_summary_sources_are_keyed_by_url_and_title():
    a = Evidence("https://x.org", "A", "")
    b = Evidence("https://x.org", "B", "")
    assert unique_sources({"f": [a, b, a]}) == [a, b]


# Modes and the whole pipeline


def test_complete_mode_keeps_only_empty_fields():
    p = proposal(row_spacing_cm=30, sowing_depth_cm=1)
    keep_requested_fields(p, {"row_spacing_cm": 25, "sowing_depth_cm": None}, "complete")
    assert list(p.suggested) == ["sowing_depth_cm"]


def test_reresearch_mode_keeps_the_chosen_fields_even_if_filled():
    p = proposal(row_spacing_cm=30, sowing_depth_cm=1)
    keep_requested_fields(p, {"row_spacing_cm": 25}, "reresearch", ["row_spacing_cm"])
    assert list(p.suggested) == ["row_spacing_cm"]


def test_the_pipeline_normalizes_then_checks_the_yield_in_its_suggested_context():
    p = proposal(
        expected_yield="4-5", harvest_method="pro m²", evidence={"expected_yield": [SOURCE]}
    )
    postprocess(p, {"distance_within_row_cm": 25, "row_spacing_cm": 30})
    assert p.suggested["expected_yield"].unit == "kg/m²"
    assert p.value("harvest_method") == "per_sqm"
    assert p.value("expected_yield") == 4.5
    assert codes(p) == ["range_collapsed_to_mean"]


def test_check_stored_finds_a_40_kg_zucchini_plant_and_skips_info():
    stored = {
        "expected_yield": 40,
        "harvest_method": "per_plant",
        "distance_within_row_cm": 80,
        "row_spacing_cm": 100,
    }
    typical = {"per_plant": TypicalRange(3, 6, "kg/plant", "T", "https://t", cap=15)}
    issues = check_stored(stored, CropLimits("zucchini", typical, SQUASH))
    # 80 × 100 cm is 1.25 plants/m²: just below squash's typical band, a warning.
    assert [i.code for i in issues] == ["yield_above_crop_cap", "spacing_density_unusual"]
    assert check_stored({"row_spacing_cm": 30}) == []
