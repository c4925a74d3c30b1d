"""The offline provider: the bundled reference library, cited; "not found" rather than a guess."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webapp.enrichment.providers import ProviderAnswer
from webapp.enrichment.vocabulary import (
    Evidence,
    Proposal,
    Severity,
    SourceKind,
    SuggestedValue,
)
from webapp.reference.library import Crop, Fact, library

# Culture field ← reference fact (ranges are suggested as ranges; the rules collapse them).
RANGE_FACTS = {
    "growth_duration_days": "growth_duration_days",
    "thousand_kernel_weight_g": "thousand_kernel_weight_g",
}
YIELD_FACTS = {"per_sqm": "yield_per_sqm_kg", "per_plant": "yield_per_plant_kg"}


def evidence_for(fact: Fact) -> Evidence:
    return Evidence(
        source_url=fact.source.url,
        title=fact.source.title,
        claim_summary=fact.claim,
        source_kind=SourceKind.reference,
        derived=fact.derived,
    )


def _range(fact: Fact) -> Any:
    if fact.min is None or fact.max is None:
        return fact.min if fact.max is None else fact.max
    return fact.min if fact.min == fact.max else {"min": fact.min, "max": fact.max}


class OfflineProvider:
    name = "offline"
    model = None

    def find_crop(self, culture: Mapping[str, Any]) -> Crop | None:
        reference = library()
        if culture.get("reference_crop"):
            return reference.get(culture["reference_crop"])
        return reference.resolve(culture.get("name") or "", culture.get("variety") or None)

    def propose_culture(self, culture: Mapping[str, Any], fields: Sequence[str]) -> ProviderAnswer:
        proposal = Proposal()
        crop = self.find_crop(culture)
        if crop is None:
            proposal.add(
                "reference_crop_unknown",
                Severity.info,
                None,
                f"The reference library has no data for “{culture.get('name')}”; "
                "nothing is suggested.",
            )
            return ProviderAnswer(proposal)
        wanted = set(fields)

        def suggest(field_name: str, value: Any, fact: Fact, unit: str | None = None) -> None:
            if value is None:
                return
            proposal.suggested[field_name] = SuggestedValue(value, unit or fact.unit, None)
            proposal.evidence[field_name] = [evidence_for(fact)]

        for field_name, fact_name in RANGE_FACTS.items():
            fact = crop.fact(fact_name)
            if field_name in wanted and fact is not None:
                suggest(field_name, _range(fact), fact)
        demand = crop.fact("nutrient_demand_class")
        if "nutrient_demand" in wanted and demand is not None and demand.value:
            suggest("nutrient_demand", demand.value, demand, unit="")
        self._suggest_yield(culture, crop, wanted, suggest)
        return ProviderAnswer(proposal)

    @staticmethod
    def _suggest_yield(culture, crop: Crop, wanted: set[str], suggest) -> None:
        if "expected_yield" not in wanted:
            return
        method = culture.get("harvest_method")
        if method is None:
            # Suggest a context only together with a yield, and per m² where the library has it.
            method = next((m for m, f in YIELD_FACTS.items() if crop.fact(f)), None)
            if method is None:
                return
            suggest("harvest_method", method, crop.fact(YIELD_FACTS[method]), unit="")
        fact = crop.fact(YIELD_FACTS[method])
        if fact is not None:
            suggest("expected_yield", _range(fact), fact)
