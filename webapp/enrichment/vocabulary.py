"""Evidence, Issue and a provider's proposal for one record: plain data every workspace shares."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    error = "error"
    warning = "warning"
    info = "info"


class SourceKind(StrEnum):
    reference = "reference"
    document = "document"
    web = "web"


@dataclass(frozen=True)
class Evidence:
    """Where a suggested value comes from: a source and what it says."""

    source_url: str
    title: str
    claim_summary: str
    source_kind: SourceKind = SourceKind.web
    retrieved_at: str | None = None
    derived: bool = False

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


@dataclass
class SuggestedValue:
    value: Any
    unit: str | None = None
    confidence: float | None = None


@dataclass
class Proposal:
    """What a provider proposes for one record, with what the rules found about it."""

    suggested: dict[str, SuggestedValue] = field(default_factory=dict)
    evidence: dict[str, list[Evidence]] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    note_blocks: list[str] = field(default_factory=list)
    # Sources the provider cited in its answer without tying them to a field.
    citations: list[Evidence] = field(default_factory=list)

    def add(
        self, code: str, severity: Severity, field_name: str | None, message: str, **details: Any
    ) -> None:
        self.issues.append(Issue(code, severity, field_name, message, details))

    def drop(self, field_name: str) -> None:
        self.suggested.pop(field_name, None)

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
