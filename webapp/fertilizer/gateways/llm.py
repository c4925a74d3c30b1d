"""The `openai` gateway: the model finds sources (web search, or the reference library's
snippets for chat-mode servers), answers in a strict schema and shows its conversions; we check
the schema, every invariant and the conversions, re-ask once with what was wrong, then fail.
It never falls back to the reference gateway."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import openai

from webapp.ai import Usage
from webapp.ai.client import StructuredClient
from webapp.config import Settings
from webapp.cultures.providers.offline import evidence_for
from webapp.fertilizer.gateways.reference import ReferenceGateway
from webapp.fertilizer.interactor import GatewayAnswer, NoRecommendation
from webapp.fertilizer.plan import K_PER_K2O, P_PER_P2O5, PlanInvalid, plan_from_dict
from webapp.fertilizer.request import RecommendRequest
from webapp.review.vocabulary import Confidence, Evidence, Issue, Severity

SCHEMA_NAME = "fertilizer_plan"
# How far the model's oxide figures may stray from its elemental ones (rounding).
OXIDE_TOLERANCE = 0.02
# Outside this ratio to the reference library's N, the plan carries a warning.
PLAUSIBLE_N_RATIO = (0.5, 2.0)


def _nutrients() -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["N", "P", "K"],
        "properties": {e: {"type": "number"} for e in ("N", "P", "K")},
    }


def output_schema() -> dict[str, Any]:
    """Seed 001's response document, plus the oxide totals and conversions the model shows."""
    application = {
        "type": "object",
        "additionalProperties": False,
        "required": ["type", "count", "schedule_hint", "nutrients", "per_application"],
        "properties": {
            "type": {"type": "string", "enum": ["basal", "topdress"]},
            "count": {"type": "integer"},
            "schedule_hint": {"type": ["string", "null"]},
            "nutrients": _nutrients(),
            "per_application": {"anyOf": [{"type": "null"}, _nutrients()]},
        },
    }
    strings = {"type": "array", "items": {"type": "string"}}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [
            "crop",
            "totals",
            "oxide_totals",
            "conversions",
            "applications",
            "sources",
            "confidence",
            "notes",
        ],
        "properties": {
            "crop": {
                "type": "object",
                "additionalProperties": False,
                "required": ["crop_id", "name"],
                "properties": {"crop_id": {"type": "string"}, "name": {"type": "string"}},
            },
            "totals": _nutrients(),
            "oxide_totals": {
                "type": "object",
                "additionalProperties": False,
                "required": ["P2O5", "K2O"],
                "properties": {"P2O5": {"type": "number"}, "K2O": {"type": "number"}},
            },
            "conversions": strings,
            "applications": {"type": "array", "items": application},
            "sources": strings,
            "confidence": {"type": "number"},
            "notes": {"type": ["string", "null"]},
        },
    }


INSTRUCTIONS = (
    "You derive an N-P-K fertilizer plan for one crop from agronomy sources you found: prefer "
    "government and extension sources; never answer from memory. All quantities are elemental "
    "N, P and K in grams per square metre (g/m²). Convert and show each conversion with its "
    "factor in `conversions`: kg/ha ÷ 10 = g/m²; 1 lb/acre = 1.121 kg/ha; "
    f"P = P2O5 × {P_PER_P2O5}; K = K2O × {K_PER_K2O}. Give `oxide_totals` (P2O5, K2O) that "
    "match your elemental totals. Split: all P and K basal; crops under 60 days all N basal; "
    "longer crops 30–50 % of N basal and the rest in 1–3 topdressings. Each application's "
    "`nutrients` is the group's total; `per_application` = nutrients / count; the "
    "applications add up to `totals` exactly. Name schedule hints after the crop's stages when "
    "given. Cite every source in `sources` (URLs). `confidence` is 0–1. Answer with JSON only."
)


def describe(request: RecommendRequest) -> str:
    profile = request.profile
    lines = [f"Crop: {profile.name} (id {profile.crop_id})"]
    if profile.variety:
        lines.append(f"Variety: {profile.variety}")
    if profile.groups:
        lines.append(f"Family: {', '.join(profile.groups)}")
    if profile.stages:
        lines.append("Stages in order: " + ", ".join(s.name for s in profile.stages))
    if request.target_yield_kg_m2:
        lines.append(f"Target yield: {request.target_yield_kg_m2:g} kg/m²")
    if request.soil_p or request.soil_k:
        lines.append(f"Soil test: P {request.soil_p or 'unknown'}, K {request.soil_k or 'unknown'}")
    if request.region:
        lines.append(f"Region: {request.region}")
    if request.growth_period_days:
        lines.append(f"Growth period: {request.growth_period_days} days")
    if not request.organic.is_zero:
        organic = request.organic
        lines.append(
            f"Organic inputs already applied (subtract from basal): N {organic.N:g}, "
            f"P {organic.P:g}, K {organic.K:g} g/m²"
        )
    return "\n".join(lines)


def conversion_problems(data: Mapping[str, Any]) -> list[str]:
    """Whether the model's shown oxide totals agree with its elemental ones."""
    problems = []
    totals, oxides = _object(data.get("totals")), _object(data.get("oxide_totals"))
    for element, oxide, factor in (("P", "P2O5", P_PER_P2O5), ("K", "K2O", K_PER_K2O)):
        elemental, stated = totals.get(element), oxides.get(oxide)
        if not (_finite(elemental) and _finite(stated)):
            problems.append(f"oxide_totals.{oxide} and totals.{element} must both be numbers")
            continue
        expected = stated * factor
        if abs(expected - elemental) > max(0.01, OXIDE_TOLERANCE * abs(elemental)):
            problems.append(
                f"oxide_totals.{oxide} {stated:g} × {factor} = {expected:.3f}, "
                f"but totals.{element} is {elemental:g}"
            )
    return problems


def _object(raw: Any) -> Mapping[str, Any]:
    return raw if isinstance(raw, Mapping) else {}


def _finite(raw: Any) -> bool:
    return isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw)


def _texts(raw: Any) -> list[str]:
    """The strings of a list the model sent (anything else in it, or in its place, is no text)."""
    return (
        [item for item in raw if isinstance(item, str) and item.strip()]
        if isinstance(raw, list)
        else []
    )


def plan_confidence(raw: Any, problems: list[str]) -> Any:
    """The plan's confidence as its document keeps it (0–1): a level the model gives
    ("high") is read through the one confidence scale; anything else is a problem to re-ask."""
    if isinstance(raw, str):
        try:
            level = Confidence.parse(raw)
        except ValueError as exc:
            problems.append(str(exc))
            return None
        return level.score if level else None
    return raw


class OpenAIGateway:
    name = "openai"

    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        self.structured = StructuredClient(settings, client)
        self.model = self.structured.model
        self.reference = ReferenceGateway()

    def _snippets(self, request: RecommendRequest) -> list[Evidence]:
        crop = self.reference.find_crop(request)
        return [evidence_for(fact) for fact in crop.facts.values()] if crop else []

    def recommend(self, request: RecommendRequest) -> GatewayAnswer:
        usage = Usage()
        snippets: list[Evidence] = []
        if not self.structured.searches_the_web:
            snippets = self._snippets(request)
            if not snippets:
                raise NoRecommendation(
                    "no_sources",
                    f"no sources for {request.profile.name}: this server has no web search and"
                    " the reference library holds nothing on the crop",
                )
        prompt = describe(request)
        if snippets:
            prompt += "\nSources you may cite (cite only these):\n" + "\n".join(
                f"- {s.source_url} | {s.title} | {s.claim_summary}" for s in snippets
            )
        problems: list[str] = []
        for _attempt in range(2):  # the first answer, and one re-ask with what was wrong
            asked = prompt
            if problems:
                asked += "\nYour previous answer was rejected: " + "; ".join(problems)
            try:
                text, citations = self.structured.ask(
                    INSTRUCTIONS, asked, output_schema(), SCHEMA_NAME, usage
                )
            except openai.OpenAIError as exc:
                usage.cost_usd = self.structured.cost(usage)
                raise NoRecommendation(
                    "provider_failed", f"the provider failed: {exc}", usage
                ) from exc
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                problems = [f"the answer is not valid JSON ({exc})"]
                continue
            plan, issues, problems = self._check(data, request, citations, snippets)
            if not problems:
                usage.cost_usd = self.structured.cost(usage)
                return GatewayAnswer(plan, issues, usage)
        usage.cost_usd = self.structured.cost(usage)
        raise NoRecommendation(
            "provider_invalid_plan",
            "the provider's plan broke the rules twice: " + "; ".join(problems),
            usage,
        )

    def _check(
        self,
        data: Any,
        request: RecommendRequest,
        citations: list[Evidence],
        snippets: list[Evidence],
    ) -> tuple[dict[str, Any], list[Issue], list[str]]:
        """The plan as the seed's document, its warnings, and what must be re-asked."""
        if not isinstance(data, dict):
            return {}, [], ["the answer is not a JSON object"]
        issues: list[Issue] = []
        problems = conversion_problems(data)
        sources = _texts(data.get("sources"))
        if snippets:
            allowed = {s.source_url for s in snippets}
            for source in [s for s in sources if s not in allowed]:
                issues.append(
                    Issue(
                        "source_not_given",
                        Severity.warning,
                        "sources",
                        f"{source} was not among the sources given; dropped.",
                    )
                )
            sources = [s for s in sources if s in allowed]
        sources = list(dict.fromkeys([*sources, *(c.source_url for c in citations)]))
        if not sources:
            problems.append("sources must cite at least one source you used")
        conversions = _texts(data.get("conversions"))
        stated_notes = data.get("notes") if isinstance(data.get("notes"), str) else None
        notes = "\n".join(filter(None, [stated_notes, *(f"Conversion: {c}" for c in conversions)]))
        plan = {
            "crop": {"crop_id": request.profile.crop_id, "name": request.profile.name},
            "totals": data.get("totals"),
            "applications": data.get("applications"),
            "sources": sources,
            "confidence": plan_confidence(data.get("confidence"), problems),
            "notes": notes or None,
        }
        try:
            checked = plan_from_dict(plan)
        except PlanInvalid as exc:
            return plan, issues, [*exc.problems, *problems]
        issues.extend(self._plausibility(checked.totals.N, request))
        return plan, issues, problems

    def _plausibility(self, n_total: float, request: RecommendRequest) -> list[Issue]:
        """The model's N against the reference library's figure, where it has one."""
        try:
            reference = self.reference.recommend(request).plan["totals"]["N"]
        except NoRecommendation:
            return []
        low, high = PLAUSIBLE_N_RATIO
        if reference and not low <= n_total / reference <= high:
            return [
                Issue(
                    "n_far_from_reference",
                    Severity.warning,
                    "N",
                    f"Total N {n_total:g} g/m² is far from the {reference:g} g/m² the reference"
                    " library's cited figures give.",
                )
            ]
        return []
