"""The `openai` provider: the Responses API with web search and a strict JSON schema, or Chat
Completions with retrieved reference snippets for OpenAI-compatible local servers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from webapp.ai import ProviderError, Usage
from webapp.ai.client import StructuredClient, given_sources
from webapp.config import Settings
from webapp.cultures.fields import DEFINITIONS, ENUM_ALIASES, NUMERIC_FIELDS
from webapp.cultures.providers import ProviderAnswer
from webapp.cultures.providers.offline import OfflineProvider
from webapp.cultures.providers.schema import CultureAnswer, answer_model
from webapp.reference.evidence import reference_snippets
from webapp.review.vocabulary import (
    Confidence,
    Evidence,
    Proposal,
    Severity,
    SourceKind,
    SuggestedValue,
)

if TYPE_CHECKING:
    import openai

# What one culture typically costs in a call, for the estimate shown before a batch starts.
TYPICAL_CALL = Usage(input_tokens=4000, output_tokens=800, web_searches=3)


def answer_tokens(fields: Sequence[str]) -> int:
    """The most tokens an answer may take: its notes, and each field's value with its
    evidence."""
    return 512 + 256 * len(fields)


def instructions(fields: Sequence[str]) -> str:
    allowed = "; ".join(
        f"{name}: {', '.join(values)}" for name, values in ENUM_ALIASES.items() if name in fields
    )
    units = ", ".join(
        f"{name} in {unit or 'the seed-rate unit'}"
        for name, unit in NUMERIC_FIELDS.items()
        if name in fields
    )
    meanings = " ".join(f"{name}: {DEFINITIONS[name]}" for name in fields if name in DEFINITIONS)
    return (
        "You research agronomy facts for a crop catalog. Answer only from sources you found; "
        "never from memory. For each field give a value with its unit, or null when the sources "
        "do not say. Cite every value: source URL, title and the snippet that states it; a "
        "source that does not state the figure is not evidence for it. A figure must mean what "
        "the field means (a total season is not days to first harvest). "
        "expected_yield is kg per plant or per m² by harvest_method: give harvest_method with it. "
        "seed_packages lists the package sizes seed sellers offer, in g or seeds. "
        f"What the fields mean: {meanings} "
        f"Units: {units}. Allowed values: {allowed}. Confidence: high, medium or low. "
        "Answer with JSON only."
    )


def describe(culture: Mapping[str, Any]) -> str:
    known = {
        k: v
        for k, v in culture.items()
        if v not in (None, "", []) and k not in ("notes", "structured_sources")
    }
    return "Culture: " + json.dumps(known, ensure_ascii=False, default=str)


class OpenAIProvider:
    name = "openai"

    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        self.structured = StructuredClient(settings, client)
        self.model = self.structured.model

    def propose_culture(self, culture: Mapping[str, Any], fields: Sequence[str]) -> ProviderAnswer:
        """Raises ProviderError when the server fails or its answer breaks the schema twice."""
        usage = Usage()
        # A server without web search may cite only what the reference library gave it.
        given = None if self.structured.searches_the_web else self._snippets(culture)
        prompt = describe(culture) + "\nFields: " + ", ".join(fields) + given_sources(given or [])
        result = self.structured.ask_structured(
            answer_model(fields),
            instructions(fields),
            prompt,
            usage,
            answer_tokens=answer_tokens(fields),
        )
        if result.answer is None:
            message = "The provider's answer broke the schema twice: " + "; ".join(result.problems)
            raise ProviderError(message, usage)
        return ProviderAnswer(proposal_of(result.answer, result.citations, given), usage)

    def estimate_cost(self, cultures: int) -> float:
        """A rough cost for enriching this many cultures, from a typical call's usage."""
        return round(cultures * self.structured.cost(TYPICAL_CALL), 2)

    def _snippets(self, culture: Mapping[str, Any]) -> list[Evidence]:
        """What the reference library holds on this crop, for servers without web search."""
        return reference_snippets(OfflineProvider().find_crop(culture))


def proposal_of(
    answer: CultureAnswer, citations: list[Evidence], given: list[Evidence] | None
) -> Proposal:
    """The answer as a proposal: each value as the model gave it, for the rules to read; a
    confidence that is none is that field's warning; with given (a server without web search:
    the sources it was given, perhaps none), evidence citing another source is dropped with a
    warning."""
    proposal = Proposal(note_blocks=list(answer.note_blocks))
    for name, item in answer.suggested_fields:
        if item is None or item.value is None:
            continue
        try:
            confidence = Confidence.parse(item.confidence)
        except ValueError as exc:
            confidence = None
            proposal.add("confidence_malformed", Severity.warning, name, f"{exc} Ignored.")
        proposal.suggested[name] = SuggestedValue(item.value, item.unit, confidence)
    allowed_urls = {s.source_url for s in given or ()}
    kind = SourceKind.web if given is None else SourceKind.reference
    for name, sources in answer.evidence:
        kept = []
        for source in sources:
            if given is not None and source.source_url not in allowed_urls:
                proposal.add(
                    "evidence_not_in_given_sources",
                    Severity.warning,
                    name,
                    f"{source.source_url} was not among the sources given; ignored.",
                )
                continue
            kept.append(
                Evidence(source.source_url, source.title, source.snippet, kind, source.retrieved_at)
            )
        if kept:
            proposal.evidence[name] = kept
    for message in answer.validation.warnings:
        proposal.add("provider_warning", Severity.warning, None, message)
    for message in answer.validation.errors:
        proposal.add("provider_error", Severity.warning, None, message)
    proposal.citations = citations
    return proposal
