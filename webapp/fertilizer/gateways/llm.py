"""The `openai` gateway: the model finds sources (web search, or the reference library's
snippets for chat-mode servers), answers in a strict schema and shows its conversions; we check
the schema, every invariant and the conversions, re-ask once with what was wrong, then fail.
It never falls back to the reference gateway."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webapp.ai import ProviderError, Usage
from webapp.ai.client import StructuredClient, given_sources
from webapp.config import Settings
from webapp.fertilizer import rules
from webapp.fertilizer.dose import NUTRIENTS, Dose, Figure, kg
from webapp.fertilizer.gateways.reference import ReferenceGateway
from webapp.fertilizer.gateways.schema import PlanAnswer
from webapp.fertilizer.interactor import GatewayAnswer, NoRecommendation
from webapp.fertilizer.methods import dose_for
from webapp.fertilizer.plan import K_PER_K2O, P_PER_P2O5, Nutrients, PlanInvalid, plan_from_dict
from webapp.fertilizer.regions import ELSEWHERE, region_of
from webapp.fertilizer.request import RecommendRequest
from webapp.fertilizer.season import season_of
from webapp.reference.evidence import reference_snippets
from webapp.review.vocabulary import Evidence, Issue, Severity

if TYPE_CHECKING:
    import openai

# How far the model's oxide figures may stray from its elemental ones (rounding).
OXIDE_TOLERANCE = 0.02
# The most tokens a plan may take: totals, a few dated applications and their sources.
ANSWER_TOKENS = 2048


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
    "given. A dose is what the crop needs minus what the soil supplies (soil mineral N, soil P "
    "and K index), by the method the region follows; a crop's removal or uptake is no dose. "
    "Name that method in `method`. A nutrient no source gives a dose for is null in totals and "
    "applications (never 0). Cite every source in `sources` (URLs). `confidence` is 0–1. "
    "Answer with JSON only."
)


def describe(request: RecommendRequest, dose: Dose | None = None) -> str:
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
    if request.soil_texture:
        lines.append(f"Soil texture: {request.soil_texture}")
    if request.nmin is not None:
        lines.append(f"Soil mineral N (0–90 cm): {request.nmin:g} kg N/ha")
    if request.sns_index is not None:
        lines.append(f"RB209 SNS index: {request.sns_index}")
    if request.region:
        lines.append(f"Region: {request.region}")
    if dose is not None:
        lines.append(
            f"The method this region follows is {dose.method}; by its tables: "
            + "; ".join(
                f"{n} {kg(v)} kg/ha ({dose.figure(n).label})"
                if (v := dose.figure(n).value) is not None
                else f"{n}: no cited figure"
                for n in NUTRIENTS
            )
        )
    # The season as given, or from the profile's stage heat sums; never the library's here.
    season = season_of(request, None)
    if season.days is not None:
        from_heat = " (from the profile's stage heat sums)" if season.basis == "heat_sums" else ""
        lines.append(f"Growth period: {season.days} days{from_heat}")
    if not request.organic.is_zero:
        organic = request.organic
        lines.append(
            f"Organic inputs already applied (subtract from basal): N {organic.N:g}, "
            f"P {organic.P:g}, K {organic.K:g} g/m²"
        )
    return "\n".join(lines)


def conversion_problems(answer: PlanAnswer) -> list[str]:
    """Whether the model's shown oxide totals agree with its elemental ones."""
    problems = []
    oxides = answer.oxide_totals
    for element, oxide, factor in (("P", "P2O5", P_PER_P2O5), ("K", "K2O", K_PER_K2O)):
        elemental, stated = getattr(answer.totals, element), getattr(oxides, oxide)
        if elemental is None or stated is None:
            if (elemental is None) != (stated is None):
                problems.append(f"oxide_totals.{oxide} and totals.{element} must both be null")
            continue
        expected = stated * factor
        if abs(expected - elemental) > max(0.01, OXIDE_TOLERANCE * abs(elemental)):
            problems.append(
                f"oxide_totals.{oxide} {stated:g} × {factor} = {expected:.3f}, "
                f"but totals.{element} is {elemental:g}"
            )
    return problems


class OpenAIGateway:
    name = "openai"

    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        self.structured = StructuredClient(settings, client)
        self.model = self.structured.model
        self.reference = ReferenceGateway()

    def recommend(self, request: RecommendRequest) -> GatewayAnswer:
        usage = Usage()
        crop = self.reference.find_crop(request)
        snippets: list[Evidence] = []
        if not self.structured.searches_the_web:
            snippets = reference_snippets(crop)
            if not snippets:
                raise NoRecommendation(
                    "no_sources",
                    f"no sources for {request.profile.name}: this server has no web search and"
                    " the reference library holds nothing on the crop",
                )

        def check(answer: PlanAnswer, citations: list[Evidence]) -> list[str]:
            return plan_of(answer, request, citations, snippets)[2]

        dose = dose_for(crop.id, request) if crop is not None else None
        try:
            result = self.structured.ask_structured(
                PlanAnswer,
                INSTRUCTIONS,
                describe(request, dose) + given_sources(snippets),
                usage,
                check,
                answer_tokens=ANSWER_TOKENS,
            )
        except ProviderError as exc:
            # Its own words ("the answer was cut off at …"), in the sentence No plan: begins.
            said = str(exc)
            raise NoRecommendation("provider_failed", said[:1].lower() + said[1:], usage) from exc
        if result.answer is None or result.problems:
            raise NoRecommendation(
                "provider_invalid_plan",
                "the provider's plan broke the rules twice: " + "; ".join(result.problems),
                usage,
            )
        plan, issues, _ = plan_of(result.answer, request, result.citations, snippets)
        answered = as_dose(plan, result.answer.method)
        if crop is not None:
            issues.extend(rules.outside(crop.id, answered))
        # Where the region has its own method, the model's figures answer to it.
        if dose is not None and region_of(request.region) != ELSEWHERE:
            issues.extend(rules.differences(answered, dose))
        return GatewayAnswer(plan, issues, usage)


def as_dose(plan: dict[str, Any], method: str) -> Dose:
    """The model's totals as kg/ha N, P2O5 and K2O, to check against the published ranges."""
    totals = Nutrients(**plan["totals"])
    kg_ha = {n: None if v is None else v * 10 for n, v in totals.oxides.items()}
    return Dose(method, *(Figure(kg_ha[n]) for n in NUTRIENTS))


def plan_of(
    answer: PlanAnswer,
    request: RecommendRequest,
    citations: list[Evidence],
    snippets: list[Evidence],
) -> tuple[dict[str, Any], list[Issue], list[str]]:
    """The answer as the seed's plan document, its warnings, and what must be re-asked."""
    issues: list[Issue] = []
    problems = conversion_problems(answer)
    sources = [s for s in answer.sources if s.strip()]
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
    sources = list(dict.fromkeys([*sources, *(c.source_url for c in citations if c.source_url)]))
    if not sources:
        problems.append("sources must cite at least one source you used")
    conversions = [f"Conversion: {c}" for c in answer.conversions if c.strip()]
    notes = "\n".join(filter(None, [answer.notes, *conversions]))
    plan = {
        "crop": {"crop_id": request.profile.crop_id, "name": request.profile.name},
        **answer.model_dump(include={"totals", "applications", "confidence", "method"}),
        "sources": sources,
        "notes": notes or None,
    }
    try:
        plan_from_dict(plan)
    except PlanInvalid as exc:
        problems = [*exc.messages, *problems]
    return plan, issues, problems
