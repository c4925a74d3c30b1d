"""Evidence from a model (the openai provider): one type-aware prompt per requirement and
document, asking for the passages with their page and, for a structured requirement, the fields
its evidence carries — by field name, never by requirement. The answer is untrusted: a passage
must be on the page it names (a text page, not a table of contents); one that is not is no
evidence. Answers are cached by document hash, requirement, validation type and prompt version."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from webapp.ai import Usage
from webapp.registry import evidence
from webapp.registry.answers import answer_text
from webapp.registry.checklist import (
    FIELD_LABELS,
    FIGURE_FIELDS,
    Requirement,
    StructuredField,
    ValidationType,
)
from webapp.registry.dates import DateStyle, date_style, dates_in, read_date
from webapp.registry.names import words
from webapp.registry.pages import Page, PageKind, sections_before
from webapp.registry.rules import DATE_FIELDS, tenures
from webapp.units import quantities

if TYPE_CHECKING:
    from webapp.ai.client import StructuredClient

PROMPT_VERSION = "registry-evidence-2"  # 2: the credit figures told apart
MOST_SNIPPETS = 5
# The most tokens one answer may take: its passages, each quoted with the fields it states.
ANSWER_TOKENS = MOST_SNIPPETS * 800
PROMPT_CHARS = 120_000  # of page text in one prompt; a longer document is asked in parts
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
FIELD_CHARS = 500  # a field's value as stated, like a reviewer's entry
FIELD_RULES = {
    StructuredField.owner_name: "the owner's actual name (a person or an organisation), never "
    "a role such as 'The Project', 'the landowner' or 'Project Proponent'",
    StructuredField.area_hectares: "the area in hectares as written, with its unit (e.g. "
    "'250 acres' or '101.2 ha')",
    StructuredField.tenure_type: "ownership, lease, or another form of tenure, as written",
    StructuredField.project_id: "the project's registry ID as written (e.g. C06-4997 or "
    "123456Example23: digits, the farm's name, a two-digit year); a year is never an ID",
    # A credit statement's figures are told apart by its own words, never one for another.
    StructuredField.credits_issued: "the credits the document says were issued (on the "
    "registry), as written with their unit; never credits pending issue, a buffer contribution "
    "or a total not said to be issued",
    StructuredField.credits_pending_issue: "the credits the document says are pending issue "
    "(this round's credits after the buffer contribution, not issued yet), as written with "
    "their unit; never the total or credits already issued",
    StructuredField.credits_total: "the total credits of the credit statement (the buffer "
    "contribution and the credits pending issue together), as written with their unit; never "
    "the credits pending issue or credits issued alone",
    StructuredField.buffer_credits: "the credits contributed to the (permanence) buffer pool, "
    "as written with their unit; never its percentage",
}
STYLE_WORDS = {DateStyle.day_first: "day first", DateStyle.month_first: "month first"}
KIND_WORDS = {PageKind.contents: "a contents page", PageKind.no_text: "a page without text"}
DATE_RULE = "the date exactly as the document writes it (do not reorder day and month)"
NUMBER_RULE = "the figure as written, with its unit (% or years)"
FIGURE_RULE = "the report's figure as written, with its unit (t CO2e or credits)"

INSTRUCTIONS = (
    "You review a carbon project's document against one requirement of a methodology "
    "checklist. Quote only passages that are in the document, each with the page number shown "
    "before its text. Never quote a table of contents. If the document holds no evidence, "
    "answer with no snippets. Give a confidence from 0 to 1 for each passage."
)


class Passage(BaseModel):
    # NaN is no confidence (and PostgreSQL's JSON cannot hold it).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    page: int
    section: str | None
    text: Annotated[str, Field(max_length=2000)]
    confidence: float


def answer_model(requirement: Requirement) -> type[BaseModel]:
    """The answer's schema for this requirement: passages, and for a structured requirement
    the value of each of its fields (null when the passage does not state it)."""
    fields: dict[str, Any] = {"snippets": (list[Passage], ...)}
    if requirement.asked:
        value = Annotated[str, Field(max_length=FIELD_CHARS)] | None
        wanted = {f.value: (value, ...) for f in requirement.asked}
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
    if name in FIGURE_FIELDS:
        return FIGURE_RULE
    is_date = "date" in name.value or name.value.endswith(("_start", "_end"))
    return DATE_RULE if is_date else NUMBER_RULE


def page_text(pages: list[Page]) -> str:
    """The document's text pages, each after its number; contents and empty pages left out."""
    return "\n\n".join(
        f"[page {p.number}]\n{p.text.strip()}" for p in pages if p.kind == PageKind.text
    )[:PROMPT_CHARS]


def parts(pages: list[Page]) -> list[list[Page]]:
    """The document's text pages in parts of at most PROMPT_CHARS each (a page longer than
    that is a part of its own, cut); none when it has no text page."""
    found: list[list[Page]] = []
    size = PROMPT_CHARS
    for page in pages:
        if page.kind != PageKind.text:
            continue
        length = len(page.text.strip()) + 12  # its "[page n]" line and the blank line
        if not found or size + length > PROMPT_CHARS:
            found.append([])
            size = 0
        found[-1].append(page)
        size += length
    return found


def build_prompt(requirement: Requirement, document: str, pages: list[Page]) -> str:
    """The prompt for one requirement and one document, by the requirement's validation type."""
    lines = [
        f"Requirement {requirement.requirement_id} ({requirement.category}): "
        f"{requirement.requirement_text}",
        f"Accepted evidence: {requirement.accepted_evidence}",
    ]
    if requirement.asked:
        lines.append(
            "For each passage, give these fields as the passage states them (null if it does not):"
        )
        lines += [
            f"- {name.value} ({FIELD_LABELS[name]}): {field_rule(name)}"
            for name in requirement.asked
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
        ",".join(f.value for f in requirement.asked),
        PROMPT_VERSION,
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


@dataclass
class Asked:
    """A model's answer for one requirement and one document (its JSON, None when no part of
    it was usable), what was wrong with it, and what asking it used."""

    answer: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


def ask_document(
    client: StructuredClient, requirement: Requirement, document: str, pages: list[Page]
) -> Asked:
    """Ask the model for the requirement's evidence in one document, part by part; the
    passages best first. Raises ProviderError (with what was used) when the server fails."""
    model = answer_model(requirement)
    asked = Asked(None)
    found: list[dict[str, Any]] = []
    for part in parts(pages):
        # One usage for every part: the client prices its running total.
        result = client.ask_structured(
            model,
            INSTRUCTIONS,
            build_prompt(requirement, document, part),
            asked.usage,
            web_search=False,  # the evidence is in the document, not on the web
            answer_tokens=ANSWER_TOKENS,
        )
        if result.answer is None:
            why = "; ".join(result.problems) or "it was empty"
            asked.problems.append(f"The model's answer about {document} was unusable: {why}.")
            continue
        found += result.answer.model_dump(mode="json")["snippets"]
        asked.answer = {"snippets": []}
    if asked.answer is not None:
        found.sort(key=lambda passage: -passage["confidence"])
        asked.answer["snippets"] = found
    return asked


def read_answer_json(requirement: Requirement, answer: dict[str, Any]) -> BaseModel | None:
    """A cached answer read back in the requirement's schema (None if the schema moved on)."""
    try:
        return answer_model(requirement).model_validate(answer)
    except ValueError:
        return None


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _line(text: str | None) -> str | None:
    """A heading or a field's value as kept: one line, no control characters."""
    kept = re.sub(r"\s+", " ", CONTROL.sub("", text or "")).strip()
    return kept or None


def _numbers(text: str) -> set[float]:
    """The numbers a text writes, whatever their format ("1,200", "20 %"), without sign."""
    return {
        abs(round(number, 6))
        for q in quantities(text)
        for number in (q.value, q.high)
        if number is not None and math.isfinite(number)
    }


def _alphanumeric(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def is_stated(
    name: StructuredField, value: str, passage: str, style: DateStyle | None = None
) -> bool:
    """Whether the passage quoted for a field says its value: a date is one of the passage's
    dates read in the document's style; a tenure is one the passage says and does not deny
    (in any words: "owned freehold" states "Ownership", never "Leasehold"); a project ID is
    as written (without spacing and dashes); an owner's every name is there in any order;
    any other value's numbers are the passage's."""
    if name in DATE_FIELDS and (said := _states_date(value, passage, style)) is not None:
        return said
    if name == StructuredField.tenure_type:
        return _states_tenure(value, passage)
    if not _numbers(value) <= _numbers(passage):
        return False
    if name == StructuredField.project_id:
        return _alphanumeric(value) in _alphanumeric(passage)
    if name == StructuredField.owner_name:
        written = words(passage)
        return all(any(_same_word(w, p) for p in written) for w in words(value))
    return True


def _states_date(value: str, passage: str, style: DateStyle | None) -> bool | None:
    """Whether the passage gives the date (None when the value is no whole date: its check
    says why). A value that reads two ways, as the document does not say its style, is
    stated when the passage's date may be one of them: the check asks the reviewer which."""
    meant = read_date(value, style)
    said = dates_in(passage, style)
    if meant.ambiguous:
        return any(set(s.options or [s.value]) & set(meant.options) for s in said)
    if meant.value is None:
        return None
    # A date the passage leaves open (06/02/2023, no style) is not settled by the model.
    return any(s.value == meant.value for s in said)


def _states_tenure(value: str, passage: str) -> bool:
    """Whether the passage says the tenure: each form the value names (a value in words
    naming no form known here: each of its words)."""
    meant = tenures(value)
    if meant:
        return meant <= tenures(passage)
    written = set(words(passage))
    return all(w in written for w in words(value))


def _same_word(name: str, written: str) -> bool:
    """A name's word as the passage writes it: the same, its initial, or (in a script that
    writes no spaces between words, such as Chinese) inside the passage's run of text."""
    if name == written or (len(name) == 1 and written.startswith(name)):
        return True
    return not any(c.isascii() or c.upper() != c.lower() for c in name) and name in written


def _not_stated(name: StructuredField, value: str, where: str, style: DateStyle | None) -> str:
    """Why a field's value is no evidence, in the words of its rule."""
    said = f"{FIELD_LABELS[name]} “{value}”"
    if name in DATE_FIELDS and read_date(value, style).value:
        how = f", read {STYLE_WORDS[style]}" if style else ""
        gives = f"is not the date the passage quoted from {where} gives{how}"
        return f"{said} {gives}: it is not evidence."
    if name == StructuredField.tenure_type:
        return f"{said} is not what the passage quoted from {where} says: it is not evidence."
    return f"{said} is not in the passage quoted from {where}: it is not evidence."


def _is_heading(page: Page, quote: str) -> bool:
    """Whether a quote is one of the page's headings, with its number or without ("2 Land
    tenure", "Land tenure"): the subject of what follows, not what it says."""
    said = _plain(quote)
    return any(
        said in (_plain(h.title), _plain(re.sub(r"^[\d.]+\s+", "", h.title))) for h in page.headings
    )


def _section(page: Page, quote: str, before: str | None) -> str | None:
    """The heading a quote stands under on its page, found by its first words however the
    page spaces them."""
    first = quote.split()[:8]
    if not first:
        return None
    found = re.search(r"\s+".join(map(re.escape, first)), page.text, re.I)
    return page.section_at(found.start(), before=before) if found else None


def read_snippets(
    answer: BaseModel,
    document_key: int,
    document: str,
    pages: list[Page],
    style: DateStyle | None = None,
    requirement: Requirement | None = None,
) -> tuple[list[evidence.Passage], list[str]]:
    """The answer's passages that are evidence, and why the others are not: a passage must be
    on the text page it names, be more than one of its headings, have some confidence, and
    answer the requirement (when given) rather than restate it; the passage must state each
    field's value (else that value is no evidence), its dates read in the document's style
    (style: as a person said it, else as its pages show); its section is the heading it
    stands under on the page, whatever the model called it; confidence is held to 0–1; empty
    fields are left out."""
    style = style or date_style("\n".join(p.text for p in pages))
    by_number = {p.number: p for p in pages}
    starts = sections_before(pages)
    kept, problems = [], []
    for passage in getattr(answer, "snippets", [])[:MOST_SNIPPETS]:
        page = by_number.get(passage.page)
        where = f"page {passage.page} of {document}"
        if page is None:
            problems.append(f"A passage names {where}, which does not exist.")
            continue
        if page.kind != PageKind.text:
            problems.append(f"A passage was quoted from {where}, {KIND_WORDS[page.kind]}.")
            continue
        if not passage.text.strip() or _plain(passage.text) not in _plain(page.text):
            problems.append(f"A passage said to be on {where} is not there: it is not evidence.")
            continue
        if passage.confidence <= 0:
            problems.append(f"A passage on {where} was given no confidence: it is not evidence.")
            continue
        if _is_heading(page, passage.text):
            problems.append(f"A passage on {where} is only a heading: it is not evidence.")
            continue
        if requirement is not None and not answer_text(passage.text, requirement):
            problems.append(
                f"A passage on {where} restates the requirement's question or prompt; "
                "it does not answer it."
            )
            continue
        fields = getattr(passage, "structured_fields", None)
        given = fields.model_dump() if fields else {}
        stated = {}
        for name, written in given.items():
            if not (value := _line(written)):
                continue
            if is_stated(StructuredField(name), value, passage.text, style):
                stated[name] = value
            else:
                problems.append(_not_stated(StructuredField(name), value, where, style))
        section = _section(page, passage.text, starts[page.number])
        confidence = min(1.0, max(0.0, passage.confidence))
        kept.append(
            evidence.Passage.at(
                document_key,
                document,
                page.number,
                section,
                passage.text.strip(),
                round(confidence, 2),
                stated or None,
            )
        )
    return kept, problems
