"""The offline provider: the bundled reference library, cited; "not found" rather than a guess."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webapp.cultures.providers import ProviderAnswer
from webapp.cultures.reference_match import ReferenceMatch, reference_match
from webapp.reference.evidence import evidence_for
from webapp.reference.library import Crop, Fact
from webapp.review.vocabulary import (
    Confidence,
    Proposal,
    Severity,
    SuggestedValue,
)

# Culture field ← reference fact that means the same (ranges are suggested as ranges; the
# rules collapse them). FAO-56's total growing period is not a growth duration: never used.
RANGE_FACTS = {"thousand_kernel_weight_g": "thousand_kernel_weight_g"}
YIELD_FACTS = {"per_sqm": "yield_per_sqm_kg", "per_plant": "yield_per_plant_kg"}
# A growth duration counts from planting out, or from sowing for a direct-sown crop.
BASIS_OF = {"pre_cultivation": "transplanting", "direct_sowing": "sowing"}


def confidence_of(fact: Fact, value: Any) -> Confidence:
    """How sure a library value is, on the scale every provider uses. A figure the cited source
    states for the crop is high when it is one figure and medium when it is a range (the rules
    take its midpoint, which the source does not state). A derived figure (a range worked out
    from the source, or a class read from another quantity) is low: the source does not state
    it, which is why its rule asks a person to confirm it."""
    if fact.derived:
        return Confidence.low
    return Confidence.medium if isinstance(value, dict) else Confidence.high


def _range(fact: Fact) -> Any:
    if fact.min is None or fact.max is None:
        return fact.min if fact.max is None else fact.max
    return fact.min if fact.min == fact.max else {"min": fact.min, "max": fact.max}


class OfflineProvider:
    name = "offline"
    model = None

    @staticmethod
    def match(culture: Mapping[str, Any]) -> ReferenceMatch:
        return reference_match(
            culture.get("name") or "",
            culture.get("variety"),
            culture.get("reference_crop"),
            bool(culture.get("reference_crop_chosen")),
        )

    def find_crop(self, culture: Mapping[str, Any]) -> Crop | None:
        """The culture's reference crop: the stored one unless the culture's name is a known
        confusion of it, else the one its name resolves to; never a nearest crop."""
        return self.match(culture).crop

    def propose_culture(self, culture: Mapping[str, Any], fields: Sequence[str]) -> ProviderAnswer:
        proposal = Proposal()
        match = self.match(culture)
        crop = match.crop
        if crop is None:
            said = match.confusion or match.chosen
            why = f": {match.text.removeprefix('no reference crop: ')}" if said else ""
            proposal.add(
                "reference_crop_unknown",
                Severity.info,
                None,
                f"The reference library has no data for “{culture.get('name')}”{why}; "
                "nothing is suggested.",
                # What a run that found nothing says (after "Nothing found: ").
                why=f"the reference library has no “{culture.get('name')}”",
            )
            return ProviderAnswer(proposal)
        wanted = set(fields)

        def suggest(field_name: str, value: Any, fact: Fact, unit: str | None = None) -> None:
            if value is None:
                return
            proposal.suggested[field_name] = SuggestedValue(
                value, unit or fact.unit, confidence_of(fact, value)
            )
            proposal.evidence[field_name] = [evidence_for(fact)]

        for field_name, fact_name in RANGE_FACTS.items():
            fact = crop.fact(fact_name)
            if field_name in wanted and fact is not None:
                suggest(field_name, _range(fact), fact)
        if "growth_duration_days" in wanted:
            self._suggest_growth(culture, crop, proposal, suggest)
        propagation = crop.fact("days_sowing_to_transplant")
        grown = set(culture.get("cultivation_types") or ())
        if "propagation_duration_days" in wanted and propagation and grown != {"direct_sowing"}:
            suggest("propagation_duration_days", _range(propagation), propagation)
        demand = crop.fact("nutrient_demand_class")
        if "nutrient_demand" in wanted and demand is not None and demand.value:
            suggest("nutrient_demand", demand.value, demand, unit="")
        self._suggest_yield(culture, crop, wanted, suggest)
        return ProviderAnswer(proposal)

    @staticmethod
    def _suggest_growth(culture, crop: Crop, proposal: Proposal, suggest) -> None:
        """Days to first harvest counted from what this culture starts from: a figure from
        transplanting is no growth duration of a direct-sown culture, nor the reverse."""
        fact = crop.fact("days_to_first_harvest")
        if fact is None:
            return
        counts = {fact.extra["basis"]: (fact.min, fact.max)}
        for variant in (fact.extra.get("variants") or {}).values():
            if variant.get("basis") in BASIS_OF.values():
                counts.setdefault(variant["basis"], (variant.get("min"), variant.get("max")))
        grown = [BASIS_OF[t] for t in culture.get("cultivation_types") or () if t in BASIS_OF]
        usable = [basis for basis in grown if basis in counts]
        if grown and not usable:
            proposal.add(
                "growth_basis_differs",
                Severity.info,
                None,
                f"The library's days to first harvest for {crop.name()} count from "
                f"{' or '.join(counts)}, but this culture is grown from "
                f"{' and '.join(grown)}; no growth duration is suggested.",
            )
            return
        basis = usable[0] if usable else fact.extra["basis"]
        low, high = counts[basis]
        suggest("growth_duration_days", low if low == high else {"min": low, "max": high}, fact)
        if not grown:
            proposal.add(
                "growth_basis_unconfirmed",
                Severity.warning,
                "growth_duration_days",
                f"The figure counts from {basis}; this culture's cultivation type is not set, "
                "so check that it is grown that way.",
                basis=basis,
            )

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
