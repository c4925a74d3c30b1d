from decimal import Decimal

import pytest

from webapp.cultures.domain import CultureInvalid, clean_culture


def errors_of(values, current=None):
    with pytest.raises(CultureInvalid) as caught:
        clean_culture(values, current)
    return caught.value.errors


def test_values_are_converted_to_their_types():
    given = {
        "name": " Tomato ",
        "growth_duration_days": "120",
        "expected_yield": "4,5",
        "row_spacing_cm": 60,
        "harvest_method": "per_sqm",
        "cultivation_types": ["direct_sowing"],
    }
    clean = clean_culture(given)
    assert clean == {
        "name": "Tomato",
        "growth_duration_days": 120,
        "expected_yield": Decimal("4.50"),
        "row_spacing_cm": 60.0,
        "harvest_method": "per_sqm",
        "cultivation_types": ["direct_sowing"],
    }


def test_a_culture_needs_a_name():
    assert errors_of({"name": "  "}) == {"name": "A culture needs a name."}


def test_numbers_are_not_negative_and_days_are_whole():
    errors = errors_of({"row_spacing_cm": -1, "growth_duration_days": 1.5, "sowing_depth_cm": "x"})
    assert errors == {
        "row_spacing_cm": "Must not be negative.",
        "growth_duration_days": "Give whole days.",
        "sowing_depth_cm": "“x” is not a number.",
    }


def test_a_harvest_duration_needs_a_harvest_method():
    assert errors_of({"harvest_duration_days": 20}) == {
        "harvest_method": "A harvest duration needs a harvest method."
    }
    assert clean_culture({"harvest_duration_days": 20}, {"harvest_method": "per_plant"})


def test_a_seed_rate_needs_its_unit():
    assert errors_of({"seed_rate_value": 2}) == {"seed_rate_unit": "A seed rate needs its unit."}
    assert errors_of({"seed_rate_unit": None}, {"seed_rate_value": 2.0}) == {
        "seed_rate_unit": "A seed rate needs its unit."
    }


def test_choices_and_unknown_fields_are_refused():
    errors = errors_of(
        {"harvest_method": "per_acre", "colour": "red", "cultivation_types": ["hydroponic"]}
    )
    assert errors["harvest_method"] == "Choose one of per_plant, per_sqm."
    assert errors["colour"] == "Not a culture field."
    assert errors["cultivation_types"].startswith("Unknown: hydroponic")


def test_seed_packages_need_a_positive_size_in_g_or_seeds():
    ok = clean_culture({"seed_packages": [{"size_value": "5", "size_unit": "g"}]})
    assert ok["seed_packages"] == [{"size_value": 5.0, "size_unit": "g", "evidence_text": ""}]
    assert (
        "Package 1"
        in errors_of({"seed_packages": [{"size_value": 0, "size_unit": "g"}]})["seed_packages"]
    )
