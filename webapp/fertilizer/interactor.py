"""The recommend use case (seed 001's interactor): validate the request, ask the gateway,
validate its plan against every invariant, return it. It never reads files; adapters do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from webapp.ai import Usage
from webapp.fertilizer.plan import FertilizerPlan, PlanInvalid, plan_from_dict
from webapp.fertilizer.request import RecommendRequest, parse_request
from webapp.review.vocabulary import Issue


class NoRecommendation(RuntimeError):
    """No plan can be made (unknown crop, provider failure, a plan that stays invalid)."""

    def __init__(self, code: str, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.usage = usage or Usage()


@dataclass
class GatewayAnswer:
    """What a gateway returns: the plan as the seed's response document, plus its checks."""

    plan: Mapping[str, Any]
    issues: list[Issue] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


class FertilizerRecommendGateway(Protocol):
    name: str
    model: str | None

    def recommend(self, request: RecommendRequest) -> GatewayAnswer:
        """A plan for the request, or NoRecommendation saying why not."""
        ...


@dataclass
class Recommendation:
    request: RecommendRequest
    plan: FertilizerPlan
    issues: list[Issue]
    usage: Usage
    gateway: str
    model: str | None


def recommend(document: Mapping[str, Any], gateway: FertilizerRecommendGateway) -> Recommendation:
    """RequestInvalid for a bad request, NoRecommendation when no valid plan comes back."""
    request = parse_request(document)
    answer = gateway.recommend(request)
    try:
        plan = plan_from_dict(answer.plan)
    except PlanInvalid as exc:
        raise NoRecommendation(
            "invalid_plan", f"The {gateway.name} plan breaks the rules: {exc}", answer.usage
        ) from exc
    return Recommendation(request, plan, answer.issues, answer.usage, gateway.name, gateway.model)
