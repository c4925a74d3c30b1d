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
    assert errors["harvest_method"] == "Choose one of per plant, per m²."
    assert errors["colour"] == "Not a culture field."
    assert errors["cultivation_types"].startswith("Unknown: hydroponic")


def test_seed_packages_need_a_positive_size_in_g_or_seeds():
    ok = clean_culture({"seed_packages": [{"size_value": "5", "size_unit": "g"}]})
    assert ok["seed_packages"] == [{"size_value": 5.0, "size_unit": "g", "evidence_text": ""}]
    assert (
        "Package 1"
        in errors_of({"seed_packages": [{"size_value": 0, "size_unit": "g"}]})["seed_packages"]
    )


def test_choices_take_the_words_people_use_in_german_and_french():
    clean = clean_culture(
        {
            "nutrient_demand": "élevé",
            "harvest_method": "pro Pflanze",
            "cultivation_types": ["Vorkultur", "Direktsaat"],
            "seed_rate_unit": "Korn/m²",
            "seed_rate_value": "400",
        }
    )
    assert clean == {
        "nutrient_demand": "high",
        "harvest_method": "per_plant",
        "cultivation_types": ["pre_cultivation", "direct_sowing"],
        "seed_rate_unit": "seeds_per_m2",
        "seed_rate_value": 400.0,
    }


def test_numbers_follow_the_one_rule_and_the_fields_limits():
    errors = errors_of(
        {"row_spacing_cm": "1,000", "sowing_depth_cm": "150", "growth_duration_days": "1e1000000"}
    )
    assert errors == {
        "row_spacing_cm": "“1,000” is ambiguous: write 1000 or 1.000.",
        "sowing_depth_cm": "At most 100 cm.",
        "growth_duration_days": "“1e1000000” is out of range: the exponent may be at most 308.",
    }
    assert clean_culture({"expected_yield": 12.345})["expected_yield"] == Decimal("12.34")
