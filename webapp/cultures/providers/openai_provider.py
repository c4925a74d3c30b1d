"""The `openai` provider: the Responses API with web search and a strict JSON schema, or Chat
Completions with retrieved reference snippets for OpenAI-compatible local servers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import openai

from webapp.ai import Usage
from webapp.ai.client import StructuredClient
from webapp.config import Settings
from webapp.cultures.fields import DEFINITIONS, ENUM_ALIASES, NUMERIC_FIELDS
from webapp.cultures.providers import ProviderAnswer
from webapp.cultures.providers.offline import OfflineProvider, evidence_for
from webapp.review.vocabulary import (
    Confidence,
    Evidence,
    Proposal,
    Severity,
    SourceKind,
    SuggestedValue,
)

# What one culture typically costs in a call, for the estimate shown before a batch starts.
TYPICAL_CALL = Usage(input_tokens=4000, output_tokens=800, web_searches=3)


class ProviderError(RuntimeError):
    """The provider gave no usable answer; the message says why (a per-item error). It carries
    what the failed calls used, which is paid for all the same."""

    def __init__(self, message: str, usage: Usage) -> None:
        super().__init__(message)
        self.usage = usage


def output_schema(fields: Sequence[str]) -> dict[str, Any]:
    """The seed's contract as a strict schema: every asked field present, null when unknown."""
    package = {
        "type": "object",
        "additionalProperties": False,
        "required": ["size_value", "size_unit", "evidence_text"],
        "properties": {
            "size_value": {"type": "number"},
            "size_unit": {"type": "string", "enum": ["g", "seeds"]},
            "evidence_text": {"type": "string"},
        },
    }
    # Numbers, text (ranges too), lists of choices (cultivation types), seed packages.
    value = {
        "anyOf": [
            {"type": "number"},
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}},
            {"type": "array", "items": package},
        ]
    }
    suggestion = {
        "anyOf": [
            {"type": "null"},
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["value", "unit", "confidence"],
                "properties": {
                    "value": value,
                    "unit": {"type": ["string", "null"]},
                    "confidence": {
                        "type": ["string", "null"],
                        "enum": ["high", "medium", "low", None],
                    },
                },
            },
        ],
    }
    source = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source_url", "title", "snippet", "retrieved_at"],
        "properties": {
            "source_url": {"type": "string"},
            "title": {"type": "string"},
            "snippet": {"type": "string"},
            "retrieved_at": {"type": ["string", "null"]},
        },
    }

    def per_field(schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "additionalProperties": False,
            "required": list(fields),
            "properties": {name: schema for name in fields},
        }

    strings = {"type": "array", "items": {"type": "string"}}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["suggested_fields", "evidence", "validation", "note_blocks"],
        "properties": {
            "suggested_fields": per_field(suggestion),
            "evidence": per_field({"type": "array", "items": source}),
            "validation": {
                "type": "object",
                "additionalProperties": False,
                "required": ["warnings", "errors"],
                "properties": {"warnings": strings, "errors": strings},
            },
            "note_blocks": strings,
        },
    }


def schema_errors(data: Any, fields: Sequence[str]) -> list[str]:
    """What breaks the contract, checked here: a server may not enforce the schema."""
    if not isinstance(data, dict):
        return ["the answer is not a JSON object"]
    errors = [
        f"missing key {key!r}"
        for key in ("suggested_fields", "evidence", "validation", "note_blocks")
        if key not in data
    ]
    suggested = data.get("suggested_fields")
    if isinstance(suggested, dict):
        for name, item in suggested.items():
            if name not in fields:
                errors.append(f"suggested_fields.{name} was not asked for")
            elif item is not None and not (isinstance(item, dict) and "value" in item):
                errors.append(
                    f"suggested_fields.{name} must be null or {{value, unit, confidence}}"
                )
    elif "suggested_fields" in data:
        errors.append("suggested_fields must be an object")
    evidence = data.get("evidence")
    if isinstance(evidence, dict):
        for name, items in evidence.items():
            if not isinstance(items, list) or not all(
                isinstance(i, dict) and "source_url" in i for i in items
            ):
                errors.append(f"evidence.{name} must be a list of sources with source_url")
    elif "evidence" in data:
        errors.append("evidence must be an object")
    return errors


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
        usage = Usage()
        web = self.structured.searches_the_web
        snippets = [] if web else self._snippets(culture)
        problems: list[str] = []
        for _attempt in range(2):  # the first answer, and one re-ask with what was wrong
            try:
                text, citations = self._ask(culture, fields, snippets, problems, usage)
            except openai.OpenAIError as exc:
                usage.cost_usd = self.structured.cost(usage)
                raise ProviderError(f"The provider failed: {exc}", usage) from exc
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                problems = [f"the answer is not valid JSON ({exc})"]
                continue
            problems = schema_errors(data, fields)
            if not problems:
                usage.cost_usd = self.structured.cost(usage)
                return ProviderAnswer(self._proposal(data, citations, snippets), usage)
        usage.cost_usd = self.structured.cost(usage)
        message = "The provider's answer broke the schema twice: " + "; ".join(problems)
        raise ProviderError(message, usage)

    def estimate_cost(self, cultures: int) -> float:
        """A rough cost for enriching this many cultures, from a typical call's usage."""
        return round(cultures * self.structured.cost(TYPICAL_CALL), 2)

    def _snippets(self, culture: Mapping[str, Any]) -> list[Evidence]:
        """What the reference library holds on this crop, for servers without web search."""
        crop = OfflineProvider().find_crop(culture)
        return [evidence_for(fact) for fact in crop.facts.values()] if crop else []

    def _ask(self, culture, fields, snippets, problems, usage) -> tuple[str, list[Evidence]]:
        prompt = describe(culture) + "\nFields: " + ", ".join(fields)
        if snippets:
            prompt += "\nSources you may cite (cite only these):\n" + "\n".join(
                f"- {s.source_url} | {s.title} | {s.claim_summary}" for s in snippets
            )
        if problems:
            prompt += "\nYour previous answer was rejected: " + "; ".join(problems)
        return self.structured.ask(
            instructions(fields), prompt, output_schema(fields), "culture_enrichment", usage
        )

    def _proposal(self, data, citations: list[Evidence], snippets: list[Evidence]) -> Proposal:
        proposal = Proposal(note_blocks=[str(b) for b in data.get("note_blocks") or []])
        allowed_urls = {s.source_url for s in snippets}
        for name, item in (data.get("suggested_fields") or {}).items():
            if item is None or item.get("value") is None:
                continue
            try:
                confidence = Confidence.parse(item.get("confidence"))
            except ValueError as exc:
                confidence = None
                proposal.add("confidence_malformed", Severity.warning, name, f"{exc} Ignored.")
            proposal.suggested[name] = SuggestedValue(item["value"], item.get("unit"), confidence)
        for name, items in (data.get("evidence") or {}).items():
            kept = []
            for raw in items:
                retrieved_at = raw.get("retrieved_at")
                source = Evidence(
                    str(raw.get("source_url") or ""),
                    str(raw.get("title") or ""),
                    str(raw.get("snippet") or ""),
                    SourceKind.reference if snippets else SourceKind.web,
                    retrieved_at if isinstance(retrieved_at, str) else None,
                )
                if snippets and source.source_url not in allowed_urls:
                    proposal.add(
                        "evidence_not_in_given_sources",
                        Severity.warning,
                        name,
                        f"{source.source_url} was not among the sources given; ignored.",
                    )
                    continue
                kept.append(source)
            if kept:
                proposal.evidence[name] = kept
        for message in (data.get("validation") or {}).get("warnings") or []:
            proposal.add("provider_warning", Severity.warning, None, str(message))
        for message in (data.get("validation") or {}).get("errors") or []:
            proposal.add("provider_error", Severity.warning, None, str(message))
        proposal.citations = citations
        return proposal
