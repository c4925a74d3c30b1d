"""The recommend use case with injected gateways: it validates the request, asks, validates
the plan, and never lets a broken plan through."""

import pytest

from tests.fertilizer.profiles import profile
from tests.fertilizer.test_plan import SEED_PLAN
from webapp.fertilizer.interactor import GatewayAnswer, NoRecommendation, recommend
from webapp.fertilizer.request import RecommendRequest, RequestInvalid
from webapp.review.vocabulary import Issue, Severity


class AnsweringGateway:
    """Answers with a fixed document and remembers what it was asked."""

    name = "answering"
    model = None

    def __init__(self, plan, issues=()):
        self.plan = plan
        self.issues = list(issues)
        self.asked: list[RecommendRequest] = []

    def recommend(self, request):
        self.asked.append(request)
        return GatewayAnswer(self.plan, self.issues)


class RefusingGateway:
    name = "refusing"
    model = None

    def recommend(self, request):
        raise NoRecommendation("no_reference_data", f"no reference data for {request.profile.name}")


def test_happy_path_returns_a_plan_whose_applications_sum_to_the_totals():
    warning = Issue("x", Severity.warning, "N", "check it")
    gateway = AnsweringGateway(SEED_PLAN, [warning])
    result = recommend(
        {"crop_profile": profile("Tomato", "tomato"), "target_yield": 6, "soil_p": "Low"},
        gateway,
    )
    assert result.plan.totals.N == 18.0
    assert len(result.plan.applications) >= 1 and result.plan.sources
    assert result.issues == [warning]
    (asked,) = gateway.asked
    assert asked.target_yield_kg_m2 == 6 and asked.soil_p == "low"
    assert asked.profile.crop_id == "tomato"


@pytest.mark.parametrize(
    ("document", "key"),
    [
        ({}, "crop_profile"),
        ({"crop_profile": {}}, "crop_profile.crop"),
        ({"crop_profile": {"crop": {"name": "Tomato"}}}, "crop_profile.crop.crop_id"),
        ({"crop_profile": profile("Tomato"), "target_yield": -2}, "target_yield"),
        ({"crop_profile": profile("Tomato"), "soil_k": "rich"}, "soil_k"),
        ({"crop_profile": profile("Tomato"), "organic": {"N": -1, "P": 0, "K": 0}}, "organic"),
        ({"crop_profile": profile("Tomato"), "growth_period_days": 0}, "growth_period_days"),
        ({"crop_profile": profile("Tomato"), "colour": "red"}, "colour"),
        ({"crop_profile": profile("T" * 121)}, "crop_profile.crop.crop_id"),
        (
            {"crop_profile": profile("Tomato", area_per_unit="big")},
            "crop_profile.crop.area_per_unit",
        ),
    ],
)
def test_invalid_requests_name_the_key_and_never_reach_the_gateway(document, key):
    gateway = AnsweringGateway(SEED_PLAN)
    with pytest.raises(RequestInvalid) as caught:
        recommend(document, gateway)
    assert key in caught.value.details
    assert str(caught.value).startswith(key)
    assert gateway.asked == []


def test_a_gateway_plan_that_breaks_the_invariants_is_refused():
    bad = {**SEED_PLAN, "totals": {"N": 30.0, "P": 5.2, "K": 12.4}}
    with pytest.raises(NoRecommendation) as caught:
        recommend({"crop_profile": profile("Tomato")}, AnsweringGateway(bad))
    assert caught.value.code == "invalid_plan"
    assert "applications add up to N 18" in str(caught.value)


def test_a_schema_mismatch_from_the_gateway_is_refused():
    with pytest.raises(NoRecommendation, match="applications must be a list"):
        recommend(
            {"crop_profile": profile("Tomato")}, AnsweringGateway({**SEED_PLAN, "applications": {}})
        )


def test_the_gateway_saying_no_passes_through():
    with pytest.raises(NoRecommendation, match="no reference data for Okra"):
        recommend({"crop_profile": profile("Okra")}, RefusingGateway())
