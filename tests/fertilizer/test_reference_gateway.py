"""The offline gateway computes plans from the library's cited figures; every plan it returns
satisfies the invariants, whatever the request."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fertilizer.profiles import LETTUCE_FILE, TOMATO_FILE, load, profile
from webapp.fertilizer.gateways.reference import ReferenceGateway, requirement_for
from webapp.fertilizer.interactor import NoRecommendation, recommend
from webapp.fertilizer.plan import ELEMENTS, TOLERANCE, Nutrients, plan_from_dict
from webapp.fertilizer.request import parse_request
from webapp.reference.library import library

GATEWAY = ReferenceGateway()
NEVMG = "https://nevegetable.org/cultural-practices/removal-nutrients-soil"
FAO_TOMATO = "https://www.fao.org/land-water/databases-and-software/crop-information/tomato/en/"
DUV = "https://www.gesetze-im-internet.de/d_v_2017/anlage_4.html"
PLANNED = [crop.id for crop in library().crops if requirement_for(crop) is not None]


def plan_for(document):
    return recommend(document, GATEWAY)


def test_the_japanese_tomato_profile_gets_the_fao_figures_split_by_its_own_stages():
    result = plan_for({"crop_profile": load(TOMATO_FILE)})
    plan = result.plan
    assert (plan.crop_id, plan.crop_name) == ("トマト", "トマト")
    # FAO: N 100–150, P 65–110, K 160–240 kg/ha, midpoints ÷ 10 = g/m².
    assert plan.totals.P == 8.75 and plan.totals.K == 20.0
    assert pytest.approx(12.5, abs=0.02) == plan.totals.N
    basal, topdress = plan.applications
    assert basal.type == "basal" and basal.nutrients.P == 8.75 and basal.nutrients.K == 20.0
    # Tomato runs 135–180 days: 30 % of N basal, three topdressings named after its stages.
    assert basal.nutrients.N == 3.75
    assert topdress.type == "topdress" and topdress.count == 3
    assert topdress.schedule_hint.split("; ")[0].startswith("生育期")
    assert "収穫期" in topdress.schedule_hint
    assert FAO_TOMATO in plan.sources
    assert 0 < plan.confidence < 0.8  # range midpoints are less sure than a stated figure


def test_lettuce_converts_pounds_per_acre_and_oxides_with_the_factors_shown():
    plan = plan_for({"crop_profile": load(LETTUCE_FILE)}).plan
    # NEVMG: 75-35-150 lb/acre N-P2O5-K2O × 1.121 ÷ 10; P = P2O5 × 0.4364; K = K2O × 0.8301.
    assert pytest.approx(75 * 1.121 / 10, abs=0.01) == plan.totals.N
    assert pytest.approx(35 * 1.121 / 10 * 0.4364, abs=0.01) == plan.totals.P
    assert pytest.approx(150 * 1.121 / 10 * 0.8301, abs=0.01) == plan.totals.K
    assert "P = P2O5 × 0.4364, K = K2O × 0.8301" in plan.notes
    assert plan.sources[0] == NEVMG
    assert plan.confidence == 0.8


@pytest.mark.parametrize("name", ["トマト", "Tomate", "tomato", "TOMATOES"])
def test_one_crop_across_languages(name):
    plan = plan_for({"crop_profile": profile(name)}).plan
    assert FAO_TOMATO in plan.sources and plan.crop_name == name


def test_an_unknown_crop_gets_no_plan():
    with pytest.raises(NoRecommendation) as caught:
        plan_for({"crop_profile": profile("Okra")})
    assert caught.value.code == "no_reference_data"
    assert str(caught.value) == "no reference data for Okra"


def test_a_known_crop_without_nutrient_figures_gets_no_plan_either():
    with pytest.raises(NoRecommendation, match="no reference data for Spinach: the library knows"):
        plan_for({"crop_profile": profile("Spinach")})


def test_a_short_season_puts_all_n_basal():
    plan = plan_for({"crop_profile": profile("Lettuce"), "growth_period_days": 45}).plan
    assert [a.type for a in plan.applications] == ["basal"]
    assert plan.applications[0].nutrients == plan.totals


def test_the_target_yield_scales_the_figure_from_its_reference_yield():
    base = plan_for({"crop_profile": profile("Potato")}).plan
    scaled = plan_for({"crop_profile": profile("Potato"), "target_yield": 9.0}).plan
    # DüV: potato 180 kg N/ha at 450 dt/ha = 4.5 kg/m²; 9 kg/m² doubles it.
    assert base.totals.N == 18.0 and scaled.totals.N == 36.0
    assert DUV in scaled.sources
    assert scaled.confidence < base.confidence


def test_a_crop_with_only_an_n_figure_warns_that_p_and_k_are_not_cited():
    result = plan_for({"crop_profile": profile("Winterweizen"), "soil_p": "low"})
    assert result.plan.totals.P == 0 and result.plan.totals.K == 0
    assert "pk_not_cited" in [i.code for i in result.issues]
    assert "Soil P/K status not applied" in result.plan.notes


def test_a_figure_without_a_yield_is_not_scaled_and_says_so():
    plain = plan_for({"crop_profile": profile("Tomato")}).plan
    result = plan_for({"crop_profile": profile("Tomato"), "target_yield": 8})
    assert result.plan.totals == plain.totals
    assert "target_yield_not_applied" in [i.code for i in result.issues]


def test_soil_status_adjusts_p_and_k():
    medium = plan_for({"crop_profile": profile("Cabbage")}).plan
    adjusted = plan_for({"crop_profile": profile("Cabbage"), "soil_p": "low", "soil_k": "high"})
    assert pytest.approx(medium.totals.P * 1.5, abs=0.01) == adjusted.plan.totals.P
    assert pytest.approx(medium.totals.K * 0.5, abs=0.01) == adjusted.plan.totals.K


def test_organic_inputs_come_off_the_basal_dose_and_never_below_zero():
    base = plan_for({"crop_profile": profile("Onion")}).plan
    organic = {"N": 1.0, "P": 50.0, "K": 2.0}
    result = plan_for({"crop_profile": profile("Onion"), "organic": organic})
    basal = result.plan.applications[0].nutrients
    assert pytest.approx(base.applications[0].nutrients.N - 1, abs=0.01) == basal.N
    assert basal.P == 0
    assert pytest.approx(base.applications[0].nutrients.K - 2, abs=0.01) == basal.K
    assert result.plan.applications[1:] == base.applications[1:]
    assert "organic_exceeds_basal" in [i.code for i in result.issues]


def test_without_stages_the_hints_count_days():
    plan = plan_for({"crop_profile": profile("Potato"), "growth_period_days": 120}).plan
    assert plan.applications[1].schedule_hint == "day ~40; day ~80"


nutrients = st.builds(
    lambda n, p, k: {"N": n, "P": p, "K": k},
    *(st.floats(0, 100, allow_nan=False) for _ in ELEMENTS),
)
requests = st.fixed_dictionaries(
    {"crop_profile": st.sampled_from(PLANNED).map(lambda crop_id: profile(crop_id))},
    optional={
        "target_yield": st.floats(0.01, 1000, allow_nan=False),
        "soil_p": st.sampled_from(["low", "medium", "high"]),
        "soil_k": st.sampled_from(["low", "medium", "high"]),
        "growth_period_days": st.integers(1, 730),
        "organic": nutrients,
        "region": st.text(max_size=20),
    },
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(requests)
def test_every_reference_plan_satisfies_the_invariants(document):
    answer = GATEWAY.recommend(parse_request(document))
    plan = plan_from_dict(answer.plan)  # raises on any broken invariant
    summed = sum((a.nutrients for a in plan.applications), Nutrients())
    assert summed.close_to(plan.totals, TOLERANCE)
    for application in plan.applications:
        assert application.count >= 1
        assert application.per_application.scaled(application.count).close_to(application.nutrients)
    assert all(getattr(plan.totals, e) >= 0 for e in ELEMENTS)
    assert plan.sources and all(s.startswith("https://") for s in plan.sources)
    assert 0 <= plan.confidence <= 1
    assert sum(a.type == "basal" for a in plan.applications) == 1
