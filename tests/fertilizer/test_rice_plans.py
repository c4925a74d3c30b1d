"""Rice gets a plan from a cited uptake per tonne of grain: at the target yield when one is
given, else at the midpoint of the cited yield; its season from its cited growth duration."""

import pytest

from tests.fertilizer.profiles import profile
from webapp.fertilizer.gateways.reference import ReferenceGateway, requirement_for
from webapp.fertilizer.interactor import recommend
from webapp.fertilizer.plan import plan_from_dict
from webapp.reference.library import library

GATEWAY = ReferenceGateway()
UPTAKE = library().get("rice").fact("nutrient_uptake_kg_per_t").source.url
IFA = library().get("rice").fact("yield_per_sqm_kg").source.url


def rice_profile(name="イネ", crop_id="rice"):
    """A crop profile as agrr.core writes one for rice: stages with their heat sums."""
    stages = [("育苗期", 200.0), ("分げつ期", 600.0), ("出穂期", 500.0), ("登熟期", 700.0)]
    raw = profile(name, crop_id, groups=["Poaceae"], area_per_unit=0.04)
    raw["stage_requirements"] = [
        {"stage": {"name": stage, "order": i}, "thermal": {"required_gdd": gdd}}
        for i, (stage, gdd) in enumerate(stages, start=1)
    ]
    return raw


def test_rice_without_a_target_yield_uses_the_midpoint_of_the_cited_yield():
    result = recommend({"crop_profile": rice_profile()}, GATEWAY)
    plan = result.plan
    # 14.7 kg N, 2.6 kg P, 14.5 kg K per t of grain; 3-5 t/ha → 4 t/ha; kg/ha ÷ 10 = g/m².
    # N 5.88 g/m², split and rounded per application.
    assert pytest.approx(5.88, abs=0.02) == plan.totals.N
    assert (plan.totals.P, plan.totals.K) == (1.04, 5.8)
    assert UPTAKE in plan.sources and IFA in plan.sources
    assert (
        "Yield: 0.4 kg/m² = 4 t/ha, the midpoint of the cited 0.3–0.5 kg/m² (irrigated,"
        " average): IFA World Fertilizer Use Manual" in plan.notes
    )
    assert "Uptake per t × 4 t/ha: N 58.8, P 10.4, K 58 kg/ha" in plan.notes
    assert plan.confidence == 0.7  # a range's midpoint, not a stated yield
    assert result.issues == []
    plan_from_dict(plan.to_dict())  # the plan keeps every invariant


def test_rice_at_a_target_yield_is_worked_out_at_that_yield_not_scaled_again():
    result = recommend({"crop_profile": rice_profile(), "target_yield": 0.8}, GATEWAY)
    plan = result.plan
    assert pytest.approx(11.76, abs=0.02) == plan.totals.N
    assert (plan.totals.P, plan.totals.K) == (2.08, 11.6)
    assert "Yield: the target yield 0.8 kg/m² = 8 t/ha." in plan.notes
    assert "Scaled to the target yield" not in plan.notes
    assert [i.code for i in result.issues] == []
    assert plan.confidence == 0.8
    assert IFA in plan.sources  # the season still comes from the cited growth duration


def test_the_rice_season_is_its_cited_growth_duration_or_its_own_heat_sums():
    plan = recommend({"crop_profile": rice_profile()}, GATEWAY).plan
    # IFA: varieties of 70 to 160 days → 115 days: 40 % of N basal, two topdressings.
    assert "Season: 115 days, the midpoint of IFA World Fertilizer Use Manual" in plan.notes
    basal, topdress = plan.applications
    assert topdress.count == 2
    assert pytest.approx(5.88 * 0.4, abs=0.01) == basal.nutrients.N
    assert topdress.schedule_hint.startswith("分げつ期")
    heat = recommend({"crop_profile": rice_profile(), "mean_daily_gdd": 20}, GATEWAY).plan
    # 200 + 600 + 500 + 700 = 2000 °C·day ÷ 20 = 100 days, still two topdressings.
    assert "Season: 100 days from the profile's stage heat sums" in heat.notes
    assert heat.applications[1].count == 2 and "day ~33" in heat.applications[1].schedule_hint


@pytest.mark.parametrize("name", ["Rice", "イネ", "稲", "水稲", "Reis", "riz", "paddy rice"])
def test_rice_by_any_of_its_names_gets_a_plan(name):
    plan = recommend({"crop_profile": rice_profile(name, name)}, GATEWAY).plan
    assert plan.crop_name == name and UPTAKE in plan.sources


def test_rice_is_among_the_crops_the_offline_gateway_plans_for():
    assert requirement_for(library().get("rice")) is not None
    assert requirement_for(library().get("rice"), 0.6).at_target
