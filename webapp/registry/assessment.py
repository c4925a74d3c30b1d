"""A review's assessment as plain data: for each requirement its evidence (offline passages,
or the model's with their fields) and its coverage, then the cross-validation of every
structured field the evidence and the reviewer stated. A reviewer's value of a field from a
document supersedes the model's value of that field from that document: the person corrects
the model. The run and the pages build on this."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from webapp.registry.answers import asked_in
from webapp.registry.checklist import Checklist, Requirement, StructuredField
from webapp.registry.dates import DateStyle
from webapp.registry.discovery import DocumentType
from webapp.registry.evidence import Coverage, Passage, SourceDocument, coverage, find_evidence
from webapp.registry.rules import Check, FieldValue, Status, validate


@dataclass(frozen=True)
class RequirementResult:
    requirement: Requirement
    snippets: list[Passage]
    coverage: Coverage
    fields: list[FieldValue] = field(default_factory=list)
    # The model's values a reviewer's value from the same document replaced.
    superseded: list[FieldValue] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "requirement_id": self.requirement.requirement_id,
            "validation_type": self.requirement.validation_type.value,
            "status": self.coverage.value,
            "snippets": [s.snippet_dict() for s in self.snippets],
        }


@dataclass(frozen=True)
class Assessment:
    requirements: list[RequirementResult]
    checks: list[Check]


def field_values(
    snippets: Iterable[Passage],
    styles: Mapping[int, DateStyle | None],
    titles: frozenset[int] = frozenset(),
) -> list[FieldValue]:
    """The structured fields the snippets carry, routed by field name (never by requirement);
    a snippet without any (evidence kept from before fields existed) adds nothing. titles: the
    documents that are land-tenure papers, whose owners are the land's proprietors."""
    values = []
    for snippet in snippets:
        for name, value in snippet.fields.items():
            if name in StructuredField.__members__ and value not in (None, ""):
                values.append(
                    FieldValue(
                        StructuredField(name),
                        value,
                        snippet.document,
                        snippet.page,
                        styles.get(snippet.document_key),
                        snippet.document_key,
                        snippet.document_key in titles,
                    )
                )
    return values


def assess(
    checklist: Checklist,
    documents: list[SourceDocument],
    styles: Mapping[int, DateStyle | None],
    entered: Iterable[FieldValue] = (),
    found: Mapping[str, list[Passage]] | None = None,
    today: date | None = None,
) -> Assessment:
    """Every requirement of the checklist over the documents: found holds the model's
    snippets per requirement (offline passages otherwise); entered, what reviewers stated
    (each picked from a snippet), which supersedes what the model read in the same document.
    A requirement's fields are the ones it asks for, its figures included; only its
    structured fields decide its coverage: each stated, and none failing its checks."""
    entered = list(entered)
    questions = asked_in(checklist)
    titles = frozenset(d.key for d in documents if d.type == DocumentType.land_tenure)
    by_reviewer = {(v.field, v.source) for v in entered}
    every_value = list(entered)
    assessed = []
    for requirement in checklist.requirements:
        snippets = (found or {}).get(requirement.requirement_id)
        if snippets is None:
            snippets = find_evidence(requirement, documents, asked=questions)
        asked = set(requirement.asked)
        carried = [v for v in field_values(snippets, styles, titles) if v.field in asked]
        kept = [v for v in carried if (v.field, v.source) not in by_reviewer]
        superseded = [v for v in carried if (v.field, v.source) in by_reviewer]
        every_value += kept
        mine = kept + [v for v in entered if v.field in asked]
        assessed.append((requirement, snippets, mine, superseded))
    limits = [limit for r in checklist.requirements for limit in r.limits]
    checks = validate(every_value, today, limits)
    failed = {c.field.value for c in checks if c.field and c.status is Status.failed}
    results = [
        RequirementResult(
            requirement,
            snippets,
            coverage(requirement, snippets, {v.field.value for v in mine}, failed),
            mine,
            superseded,
        )
        for requirement, snippets, mine, superseded in assessed
    ]
    return Assessment(results, checks)
