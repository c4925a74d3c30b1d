"""Seed 001's entities and invariants, without Flask."""

import copy

import pytest

from webapp.fertilizer.plan import (
    K_PER_K2O,
    P_PER_P2O5,
    FertilizerApplication,
    FertilizerPlan,
    Nutrients,
    PlanInvalid,
    k2o,
    p2o5,
    plan_from_dict,
    topdress_positions,
)

SEED_PLAN = {
    "crop": {"crop_id": "tomato", "name": "Tomato"},
    "totals": {"N": 18.0, "P": 5.2, "K": 12.4},
    "applications": [
        {
            "type": "basal",
            "count": 1,
            "schedule_hint": "pre-plant",
            "nutrients": {"N": 6.0, "P": 2.0, "K": 3.0},
        },
        {
            "type": "topdress",
            "count": 2,
            "schedule_hint": "early fruit set; mid fruiting",
            "nutrients": {"N": 12.0, "P": 3.2, "K": 9.4},
            "per_application": {"N": 6.0, "P": 1.6, "K": 4.7},
        },
    ],
    "sources": ["https://example.org/tomato-fertilizer", "JAガイド 2021 p.12-18"],
    "confidence": 0.7,
    "notes": "Values normalized to g/m2; adjust by soil test",
}


def broken(**changes):
    plan = copy.deepcopy(SEED_PLAN)
    for path, value in changes.items():
        target = plan
        *parents, last = path.split("__")
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        target[last] = value
    return plan


def problems_of(raw) -> list[str]:
    with pytest.raises(PlanInvalid) as caught:
        plan_from_dict(raw)
    return caught.value.messages


def test_the_seed_example_is_a_valid_plan_that_sums_to_its_totals():
    plan = plan_from_dict(SEED_PLAN)
    assert plan.totals == Nutrients(18.0, 5.2, 12.4)
    summed = plan.applications[0].nutrients + plan.applications[1].nutrients
    assert summed.close_to(plan.totals)
    assert plan.applications[1].per_application == Nutrients(6.0, 1.6, 4.7)
    assert plan.applications[0].per_application == Nutrients(6.0, 2.0, 3.0)
    document = plan.to_dict()
    assert document["sources"] == SEED_PLAN["sources"]
    assert "unit_area" not in document and "unit" not in document


def test_applications_that_do_not_add_up_to_the_totals_are_refused():
    problems = problems_of(broken(totals__N=18.1))
    assert problems == ["applications add up to N 18 g/m² but totals.N is 18.1"]


def test_a_sum_within_one_millionth_is_equal():
    assert plan_from_dict(broken(totals__N=18.0000005)).totals.N == 18.0000005


def test_per_application_times_count_must_equal_the_group_total():
    problems = problems_of(broken(applications__1__per_application={"N": 6, "P": 1.6, "K": 4}))
    assert "per_application × count must equal nutrients" in problems[0]


def test_negative_values_fail_fast_with_the_key_named():
    assert problems_of(broken(totals__K=-1)) == ["totals.K must not be negative, got -1"]
    with pytest.raises(PlanInvalid, match="N must not be negative"):
        Nutrients(-0.5, 0, 0)


def test_invalid_units_fail_fast():
    with_unit = broken(totals={"N": 18.0, "P": 5.2, "K": 12.4, "unit": "kg/ha"})
    assert problems_of(with_unit) == ["totals.unit must be g/m² (elemental), got 'kg/ha'"]
    oxide = broken(totals={"N": 18.0, "P2O5": 11.9, "K": 12.4})
    problem = " ".join(problems_of(oxide))
    assert "P2O5" in problem and "P = P2O5 × 0.4364" in problem
    assert problems_of(broken(unit_area="10a")) == [
        "all quantities are g/m²; a plan does not carry another unit"
    ]
    assert "must be a number" in problems_of(broken(totals__N="18 kg"))[0]


def test_at_least_one_application_and_a_count_of_at_least_one():
    none = broken(applications=[], totals={"N": 0, "P": 0, "K": 0})
    assert problems_of(none) == ["a plan needs at least one application (basal or topdress)"]
    assert (
        "count must be a whole number of at least 1"
        in problems_of(broken(applications__0__count=0))[0]
    )
    assert (
        "type must be basal or topdress" in problems_of(broken(applications__0__type="foliar"))[0]
    )


def test_every_problem_is_reported_at_once():
    problems = problems_of(broken(totals__K=-1, confidence=3, crop={"crop_id": ""}))
    assert any("crop.crop_id" in p for p in problems)
    assert any("crop.name" in p for p in problems)
    assert any("totals.K" in p for p in problems)


def test_confidence_is_between_zero_and_one():
    assert problems_of(broken(confidence=1.5)) == ["confidence must be from 0 to 1, got 1.5"]


def test_entities_refuse_an_inconsistent_plan_when_built_directly():
    basal = FertilizerApplication("basal", 1, None, Nutrients(1, 1, 1))
    with pytest.raises(PlanInvalid, match="applications add up to N 1"):
        FertilizerPlan("x", "X", Nutrients(2, 1, 1), (basal,), (), 0.5, None)
    with pytest.raises(PlanInvalid, match="count must be a whole number"):
        FertilizerApplication("topdress", 0, None, Nutrients())


def test_oxide_conversions_use_the_published_factors():
    assert P_PER_P2O5 == 0.4364 and K_PER_K2O == 0.8301
    assert p2o5(4.364) == pytest.approx(10)
    assert k2o(8.301) == pytest.approx(10)
    assert Nutrients(1, 4.364, 8.301).oxides == pytest.approx({"N": 1, "P2O5": 10, "K2O": 10})


def test_topdressings_spread_through_the_season():
    assert topdress_positions(1) == [0.5]
    assert topdress_positions(3) == [0.25, 0.5, 0.75]
