"""Seed 000's post-processing rules, one behaviour per test, over plain data."""

import pytest

from webapp.cultures.rules import (
    TypicalRange,
    check_density,
    check_seed_packages,
    check_stored,
    check_thousand_kernel_weight,
    check_value_in_evidence,
    check_yield,
    check_yield_evidence,
    collapse_ranges,
    keep_requested_fields,
    normalize_enums,
    notes_with_sources,
    plants_per_m2,
    postprocess,
    unique_sources,
)
from webapp.enrichment.vocabulary import Evidence, Proposal, Severity, SuggestedValue

SOURCE = Evidence("https://example.org/yield", "Yield table", "Typical yield 4.5 kg per m².")


def proposal(evidence=None, **values):
    return Proposal(
        suggested={name: SuggestedValue(value) for name, value in values.items()},
        evidence=evidence or {},
    )


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
    p = proposal(**{field: raw})
    normalize_enums(p)
    assert p.value(field) == expected
    assert p.issues == []


def test_cultivation_types_normalize_each_entry():
    p = proposal(cultivation_types=["Direktsaat", "transplant", "direct_sowing"])
    normalize_enums(p)
    assert p.value("cultivation_types") == ["direct_sowing", "pre_cultivation"]


def test_an_unknown_enum_value_is_dropped_with_a_warning():
    p = proposal(harvest_method="by the bushel")
    normalize_enums(p)
    assert "harvest_method" not in p.suggested
    assert codes(p, Severity.warning) == ["enum_value_unknown"]


# Ranges


@pytest.mark.parametrize("raw", ["3-5", "3 – 5 kg", [3, 5], {"min": 5, "max": 3}, "3 bis 5"])
def test_a_range_collapses_to_its_mean_and_says_so(raw):
    p = proposal(expected_yield=raw)
    collapse_ranges(p)
    assert p.value("expected_yield") == 4.0
    [issue] = p.issues
    assert issue.code == "range_collapsed_to_mean" and issue.severity == Severity.info
    assert issue.details == {"min": 3.0, "max": 5.0, "mean": 4.0}


def test_numbers_in_text_are_read_and_non_numbers_dropped():
    p = proposal(row_spacing_cm="30 cm", sowing_depth_cm="shallow", expected_yield="4,5")
    collapse_ranges(p)
    assert p.value("row_spacing_cm") == 30.0
    assert p.value("expected_yield") == 4.5
    assert "sowing_depth_cm" not in p.suggested
    assert codes(p) == ["value_not_a_number"]


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
    check_yield(p, {"harvest_method": "per_sqm"}, typical)
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


def test_spacing_density_outside_1_to_400_is_an_error():
    p = proposal(distance_within_row_cm=2, row_spacing_cm=5)  # 1000 plants/m²
    check_density(p, {})
    assert codes(p) == ["spacing_density_impossible"]
    assert p.invalid_fields == {"distance_within_row_cm"}


def test_spacing_density_outside_3_to_120_is_a_warning():
    p = proposal(row_spacing_cm=100)
    check_density(p, {"distance_within_row_cm": 50})  # 2 plants/m²
    assert codes(p) == ["spacing_density_unusual"]


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


def test_the_sources_section_stays_last_and_enriching_twice_adds_no_duplicate():
    once = notes_with_sources("Grows well.\n", [SOURCE])
    twice = notes_with_sources(once, [SOURCE])
    assert twice == once
    assert once.rstrip().splitlines()[-1].startswith("- [Yield table](https://example.org/yield)")
    more = notes_with_sources(twice + "\nLater remark?", [Evidence("https://a.org", "A", "x")])
    assert more.count("## Sources") == 1
    assert more.rstrip().endswith("Typical yield 4.5 kg per m².")


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
    issues = check_stored(stored, {"per_plant": TypicalRange(3, 6, "kg/plant", "T", "https://t")})
    # 80 × 100 cm is 1.25 plants/m²: below the general 3–120 band, so a warning too.
    assert [i.code for i in issues] == ["yield_per_plant_impossible", "spacing_density_unusual"]
    assert check_stored({"row_spacing_cm": 30}) == []


def test_a_range_of_days_collapses_to_whole_days():
    p = proposal(growth_duration_days="135-180")
    collapse_ranges(p)
    assert p.value("growth_duration_days") == 158
