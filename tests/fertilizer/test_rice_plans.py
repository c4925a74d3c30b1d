"""Rice gets a plan from IRRI's published fertilizer-N recommendation, where no method of its
own covers the region; its cited uptake per tonne of grain is shown labelled — never as the
dose — and its season comes from its cited growth duration or its own heat sums."""

import pytest

from tests.fertilizer.profiles import profile
from webapp.fertilizer.gateways.reference import ReferenceGateway
from webapp.fertilizer.interactor import recommend
from webapp.fertilizer.plan import plan_from_dict
from webapp.reference.library import library

GATEWAY = ReferenceGateway()
UPTAKE = library().get("rice").fact("nutrient_uptake_kg_per_t").source.url
IRRI = "http://www.irri.org/irrc/ssnm/faq2.htm"


def rice_profile(name="イネ", crop_id="rice"):
    """A crop profile as agrr.core writes one for rice: stages with their heat sums."""
    stages = [("育苗期", 200.0), ("分げつ期", 600.0), ("出穂期", 500.0), ("登熟期", 700.0)]
    raw = profile(name, crop_id, groups=["Poaceae"], area_per_unit=0.04)
    raw["stage_requirements"] = [
        {"stage": {"name": stage, "order": i}, "thermal": {"required_gdd": gdd}}
        for i, (stage, gdd) in enumerate(stages, start=1)
    ]
    return raw


def test_rice_gets_the_published_n_and_no_p_or_k_figure_it_has_no_dose_for():
    result = recommend({"crop_profile": rice_profile(), "region": "Luzon"}, GATEWAY)
    plan = result.plan
    # IRRI: fertilizer N 40–250 kg/ha by the expected yield response; its midpoint, labelled.
    assert plan.totals.N == 14.5
    assert plan.basis_of("N") == "dose: midpoint of the published 40–250"
    assert plan.totals.P is None and plan.totals.K is None
    # 14.7 kg N, 2.6 kg P, 14.5 kg K per t of grain: uptake, shown as what it is.
    assert "Uptake per tonne of harvest: N 14.7, P 2.6, K 14.5 kg/t (elemental) — not a dose" in (
        plan.notes
    )
    assert IRRI in plan.sources and UPTAKE not in plan.sources
    plan_from_dict(plan.to_dict())  # the plan keeps every invariant


def test_the_rice_season_is_its_cited_growth_duration_or_its_own_heat_sums():
    plan = recommend({"crop_profile": rice_profile()}, GATEWAY).plan
    # IFA: varieties of 70 to 160 days → 115 days: 40 % of N basal, two topdressings.
    assert "Season: 115 days, the midpoint of IFA World Fertilizer Use Manual" in plan.notes
    basal, topdress = plan.applications
    assert topdress.count == 2
    assert pytest.approx(14.5 * 0.4, abs=0.01) == basal.nutrients.N
    assert topdress.schedule_hint.startswith("分げつ期")
    heat = recommend({"crop_profile": rice_profile(), "mean_daily_gdd": 20}, GATEWAY).plan
    # 200 + 600 + 500 + 700 = 2000 °C·day ÷ 20 = 100 days, still two topdressings.
    assert "Season: 100 days from the profile's stage heat sums" in heat.notes
    assert heat.applications[1].count == 2 and "day ~33" in heat.applications[1].schedule_hint


@pytest.mark.parametrize("name", ["Rice", "イネ", "稲", "水稲", "Reis", "riz", "paddy rice"])
def test_rice_by_any_of_its_names_gets_a_plan(name):
    plan = recommend({"crop_profile": rice_profile(name, name)}, GATEWAY).plan
    assert plan.crop_name == name and plan.totals.N == 14.5
