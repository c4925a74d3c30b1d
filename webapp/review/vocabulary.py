"""Evidence, Issue and a provider's proposal for one record: plain data every workspace shares."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from webapp.links import is_safe_link


class Severity(StrEnum):
    error = "error"
    warning = "warning"
    info = "info"


# Worst first: a row shows the worst level of its issues.
LEVELS = (Severity.error, Severity.warning, Severity.info)


def worst_level(issues: Iterable[Mapping[str, Any]]) -> str | None:
    """The worst severity among issues (an unknown one counts as a note), None without any."""
    found = {i.get("severity") if i.get("severity") in LEVELS else Severity.info for i in issues}
    return next((str(level) for level in LEVELS if level in found), None)


def level_counts(issue_lists: Iterable[Iterable[Mapping[str, Any]]]) -> dict[str, int]:
    """How many items have each worst level; "none" counts those without issues."""
    return count_levels(worst_level(issues or ()) for issues in issue_lists)


def level_filter(raw: str | None) -> str | None:
    """A review's ?level= (a level, or "none" for the items without issues); None for
    everything, whatever else it says."""
    return raw if raw in (*map(str, LEVELS), "none") else None


# Beside the levels, a run's review filters the items it proposed nothing for.
NOTHING = "nothing"


def review_filter(raw: str | None) -> str | None:
    """A run review's ?level=: a level, "none", NOTHING, or None for every suggestion."""
    return NOTHING if raw == NOTHING else level_filter(raw)


def count_levels(worst: Iterable[str | None]) -> dict[str, int]:
    """level_counts of items whose worst levels are known already."""
    counts = dict.fromkeys([*map(str, LEVELS), "none"], 0)
    for level in worst:
        counts[level or "none"] += 1
    return counts


class SourceKind(StrEnum):
    reference = "reference"
    document = "document"
    web = "web"


@dataclass(frozen=True)
class Evidence:
    """Where a suggested value comes from: a source and what it says.

    source_url: an http(s) address or a path on this site; anything else is dropped ("").
    locator: where in a document the claim stands — {"document", "page", "section",
    "passage"}, any of them (a web page has none). fields: the structured values the source
    states ({"project_id": "C02-001"}), kept as the evidence step read them, so nothing
    re-extracts a value from the text later."""

    source_url: str
    title: str
    claim_summary: str
    source_kind: SourceKind = SourceKind.web
    retrieved_at: str | None = None
    derived: bool = False
    locator: dict[str, Any] | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Providers and stored runs are untrusted: a source that is no web page (or page of
        # this site) keeps its claim but is never stored or shown as a link.
        if not is_safe_link(self.source_url):
            object.__setattr__(self, "source_url", "")

    @property
    def is_citable(self) -> bool:
        """A source URL and a claim summary: what a high-impact value needs at least."""
        return bool(self.source_url.strip()) and bool(self.claim_summary.strip())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Issue:
    """A finding about a suggestion; an error on a field makes that field's suggestion invalid."""

    code: str
    severity: Severity
    field: str | None
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "field": self.field,
            "message": self.message,
            "details": self.details,
        }


class Confidence(StrEnum):
    """How sure a proposal is, as a level; a provider's number 0–1 maps onto it."""

    high = "high"
    medium = "medium"
    low = "low"

    @classmethod
    def from_score(cls, score: float) -> Confidence:
        return cls.high if score >= HIGH_FROM else cls.medium if score >= MEDIUM_FROM else cls.low

    @classmethod
    def parse(cls, raw: object) -> Confidence | None:
        """A level from "high" | "medium" | "low" (any case) or a number 0–1; None for nothing
        given. Anything else raises ValueError with a message for people."""
        if raw is None or raw == "":
            return None
        if isinstance(raw, str) and raw.strip().casefold() in cls.__members__:
            return cls(raw.strip().casefold())
        number = isinstance(raw, int | float) and not isinstance(raw, bool)
        if number and math.isfinite(raw) and 0 <= raw <= 1:
            return cls.from_score(float(raw))
        raise ValueError(
            f"“{shown_value(raw)}” is not a confidence: give high, medium, low or a number 0–1."
        )

    @property
    def score(self) -> float:
        """The level as a number 0–1, for documents that carry one (a fertilizer plan)."""
        return SCORES[self]


HIGH_FROM, MEDIUM_FROM = 0.8, 0.5
SCORES = {Confidence.high: 0.9, Confidence.medium: 0.6, Confidence.low: 0.3}


SHOWN_LIMIT = 200


def shown_value(raw: Any) -> str:
    """Any value a provider sent, as short text that JSON and every database keep."""
    if isinstance(raw, str):
        text = raw
    else:
        try:
            text = json.dumps(raw, ensure_ascii=False, allow_nan=False, default=str)
        except ValueError:  # NaN or infinity, alone or inside a list
            text = repr(raw)
    return text if len(text) <= SHOWN_LIMIT else text[: SHOWN_LIMIT - 1] + "…"


@dataclass
class SuggestedValue:
    value: Any
    unit: str | None = None
    confidence: Confidence | None = None


@dataclass
class Proposal:
    """What a provider proposes for one record, with what the rules found about it."""

    suggested: dict[str, SuggestedValue] = field(default_factory=dict)
    evidence: dict[str, list[Evidence]] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    note_blocks: list[str] = field(default_factory=list)
    # Sources the provider cited in its answer without tying them to a field.
    citations: list[Evidence] = field(default_factory=list)
    # Values that do not fit their field (a word for a number, NaN, a unit it does not take),
    # as text to show: kept out of the rules, stored as blocked suggestions with their error.
    malformed: dict[str, SuggestedValue] = field(default_factory=dict)

    def add(
        self, code: str, severity: Severity, field_name: str | None, message: str, **details: Any
    ) -> None:
        self.issues.append(Issue(code, severity, field_name, message, details))

    def drop(self, field_name: str) -> None:
        self.suggested.pop(field_name, None)

    def refuse(self, field_name: str, code: str, message: str, **details: Any) -> None:
        """Set a value aside as malformed, shown as text, with an error saying why."""
        suggestion = self.suggested.pop(field_name)
        self.malformed[field_name] = SuggestedValue(shown_value(suggestion.value))
        self.add(code, Severity.error, field_name, message, **details)

    def value(self, field_name: str) -> Any:
        suggestion = self.suggested.get(field_name)
        return suggestion.value if suggestion else None

    @property
    def invalid_fields(self) -> set[str]:
        return {i.field for i in self.issues if i.severity == Severity.error and i.field}

    def issues_for(self, field_name: str) -> list[Issue]:
        return [i for i in self.issues if i.field == field_name]

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == Severity.error]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == Severity.warning]
