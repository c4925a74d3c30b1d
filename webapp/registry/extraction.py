"""Evidence from a model (the openai provider): one type-aware prompt per requirement and
document, asking for the passages with their page and, for a structured requirement, the fields
its evidence carries — by field name, never by requirement. The answer is untrusted: a passage
must be on the page it names (a text page, not a table of contents); one that is not is no
evidence. Answers are cached by document hash, requirement, validation type and prompt version."""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from webapp.registry.checklist import FIELD_LABELS, Requirement, StructuredField, ValidationType
from webapp.registry.evidence import Snippet
from webapp.registry.pages import Page, PageKind

PROMPT_VERSION = "registry-evidence-1"
MOST_SNIPPETS = 5
PROMPT_CHARS = 120_000  # of page text in one prompt; a longer document is asked in parts
FIELD_RULES = {
    StructuredField.owner_name: "the owner's actual name (a person or an organisation), never "
    "a role such as 'The Project', 'the landowner' or 'Project Proponent'",
    StructuredField.area_hectares: "the area in hectares as written, with its unit (e.g. "
    "'250 acres' or '101.2 ha')",
    StructuredField.tenure_type: "ownership, lease, or another form of tenure, as written",
    StructuredField.project_id: "the project's registry ID as written (e.g. C06-4997); a year "
    "is never an ID",
}
DATE_RULE = "the date exactly as the document writes it (do not reorder day and month)"
NUMBER_RULE = "the figure as written, with its unit (% or years)"

INSTRUCTIONS = (
    "You review a carbon project's document against one requirement of a methodology "
    "checklist. Quote only passages that are in the document, each with the page number shown "
    "before its text. Never quote a table of contents. If the document holds no evidence, "
    "answer with no snippets. Give a confidence from 0 to 1 for each passage."
)


class Passage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    page: int
    section: str | None
    text: Annotated[str, Field(max_length=2000)]
    confidence: float


def answer_model(requirement: Requirement) -> type[BaseModel]:
    """The answer's schema for this requirement: passages, and for a structured requirement
    the value of each of its fields (null when the passage does not state it)."""
    fields: dict[str, Any] = {"snippets": (list[Passage], ...)}
    if requirement.structured_fields:
        wanted = {f.value: (str | None, ...) for f in requirement.structured_fields}
        structured = create_model(
            "StructuredFields", __config__=ConfigDict(extra="forbid"), **wanted
        )
        snippet = create_model(
            "FieldPassage",
            __base__=Passage,
            structured_fields=(structured, ...),
        )
        fields["snippets"] = (list[snippet], ...)
    return create_model(
        "RequirementEvidence",
        __config__=ConfigDict(extra="forbid", title="requirement_evidence"),
        **fields,
    )


def field_rule(name: StructuredField) -> str:
    if name in FIELD_RULES:
        return FIELD_RULES[name]
    is_date = "date" in name.value or name.value.endswith(("_start", "_end"))
    return DATE_RULE if is_date else NUMBER_RULE


def page_text(pages: list[Page]) -> str:
    """The document's text pages, each after its number; contents and empty pages left out."""
    return "\n\n".join(
        f"[page {p.number}]\n{p.text.strip()}" for p in pages if p.kind == PageKind.text
    )[:PROMPT_CHARS]


def build_prompt(requirement: Requirement, document: str, pages: list[Page]) -> str:
    """The prompt for one requirement and one document, by the requirement's validation type."""
    lines = [
        f"Requirement {requirement.requirement_id} ({requirement.category}): "
        f"{requirement.requirement_text}",
        f"Accepted evidence: {requirement.accepted_evidence}",
    ]
    if requirement.validation_type in (
        ValidationType.structured_field,
        ValidationType.cross_document,
    ):
        lines.append(
            "For each passage, give these fields as the passage states them (null if it does not):"
        )
        lines += [
            f"- {name.value} ({FIELD_LABELS[name]}): {field_rule(name)}"
            for name in requirement.structured_fields
        ]
    elif requirement.validation_type == ValidationType.manual:
        lines.append("A person judges this requirement: quote the passages they need to read.")
    lines += [f"At most {MOST_SNIPPETS} passages.", f"Document: {document}", page_text(pages)]
    return "\n".join(lines)


def cache_key(document_sha256: str, requirement: Requirement) -> str:
    """The cache key of one answer: the document's content, the requirement and the fields it
    asks, its validation type, and the prompt's version."""
    parts = [
        document_sha256,
        requirement.requirement_id,
        requirement.validation_type.value,
        ",".join(f.value for f in requirement.structured_fields),
        PROMPT_VERSION,
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def read_snippets(
    answer: BaseModel, document_key: int, document: str, pages: list[Page]
) -> tuple[list[Snippet], list[str]]:
    """The answer's passages that are evidence, and why the others are not: a passage must be
    on the text page it names; confidence is held to 0–1; empty fields are left out."""
    by_number = {p.number: p for p in pages}
    kept, problems = [], []
    for passage in getattr(answer, "snippets", [])[:MOST_SNIPPETS]:
        page = by_number.get(passage.page)
        where = f"page {passage.page} of {document}"
        if page is None:
            problems.append(f"A passage names {where}, which does not exist.")
            continue
        if page.kind != PageKind.text:
            problems.append(f"A passage was quoted from {where}, a {page.kind.value} page.")
            continue
        if not passage.text.strip() or _plain(passage.text) not in _plain(page.text):
            problems.append(f"A passage said to be on {where} is not there: it is not evidence.")
            continue
        fields = getattr(passage, "structured_fields", None)
        stated = {k: v for k, v in (fields.model_dump() if fields else {}).items() if v}
        confidence = min(1.0, max(0.0, passage.confidence))
        kept.append(
            Snippet(
                document_key,
                document,
                page.number,
                passage.section,
                passage.text.strip(),
                round(confidence, 2),
                stated or None,
            )
        )
    return kept, problems
