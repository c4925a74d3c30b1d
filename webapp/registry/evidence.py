"""Offline evidence: the passages of a review's documents that speak of a requirement's
accepted evidence, found by its terms, each a review Evidence (Passage) whose locator is its
document, page and section. A table of contents or a page without text is never evidence.
Structured fields are not read out of these passages (that is the bug this replaces): a person
picks the passage and enters the value, or the openai provider extracts it with the passage."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from dataclasses import fields as fields_of
from enum import StrEnum
from functools import lru_cache
from typing import Any

from webapp.registry.answers import answer_units, states_any
from webapp.registry.checklist import Requirement, ValidationType
from webapp.registry.discovery import DocumentType, sources_for
from webapp.registry.pages import Page, PageKind, sections_before
from webapp.review.vocabulary import Evidence, SourceKind

PASSAGE_CHARS = 600
# The best passages of each document, not of all: with thirteen title copies answering
# better, the plans' owners would be dropped and never compared with the titles.
SNIPPETS_PER_DOCUMENT = 3
LEAST_SHARE = 0.25  # of a requirement's terms a passage must name to be evidence
LEAST_TERMS = 2
OFFLINE_MOST_CONFIDENCE = 0.6  # a passage found by its words is never high confidence
_COMMON_WORDS = """about above after again against also among and any are because been before being
    between both but can could does doing down during each either evidence every for from
    further had has have having here how including into its itself more most must not only
    other over own per provide project projects same shall should such than that the their
    them then there these they this those through under until upon very was were what when
    where which while who whom why will with within would your"""
STOPWORDS = frozenset(_COMMON_WORDS.split())


class Coverage(StrEnum):
    covered = "covered"
    partial = "partial"
    missing = "missing"
    needs_input = "needs_input"


COVERAGE_LABELS = {
    Coverage.covered: "Covered",
    Coverage.partial: "Partial",
    Coverage.missing: "Missing",
    Coverage.needs_input: "Needs reviewer input",
}


@dataclass(frozen=True)
class SourceDocument:
    """A review's document as the finder reads it."""

    key: int
    name: str
    type: DocumentType
    pages: list[Page]


@dataclass(frozen=True)
class Passage(Evidence):
    """A passage of a review's document that is evidence for a requirement, in the review
    vocabulary: its locator is where it stands ({"document", "document_id", "page",
    "section"}), its claim is its text, its fields are the structured values it states
    ({"owner_name": "Nicholas Denman"}), read once by the evidence step; with how sure the
    finder is of it (0–1) and, offline, the requirement's terms it names (never stored).

    Stored as the core stores evidence (Evidence.to_dict(), with its confidence); the API
    answers it in its snippet shape (snippet_dict)."""

    confidence: float = 0.0
    terms: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def at(
        cls,
        document_key: int | None,
        document: str,
        page: int,
        section: str | None,
        text: str,
        confidence: float,
        fields: dict[str, Any] | None = None,
        terms: tuple[str, ...] = (),
    ) -> Passage:
        place = {"document": document, "document_id": document_key, "page": page}
        return cls(
            "",
            document,
            text,
            SourceKind.document,
            locator={**place, "section": section},
            fields=dict(fields or {}),
            confidence=confidence,
            terms=terms,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Passage:
        """A stored passage: as Evidence.to_dict() keeps it, or in the snippet shape it was
        stored in before (document_id, text, structured_fields; without a document id when
        older still)."""
        if "claim_summary" not in data:
            return cls.at(
                data.get("document_id"),
                data.get("document") or "",
                data.get("page") or 0,
                data.get("section"),
                data.get("text") or "",
                float(data.get("confidence") or 0),
                data.get("structured_fields"),
            )
        known = {f.name for f in fields_of(cls)} - {"terms"}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def _place(self) -> dict[str, Any]:
        return self.locator or {}

    @property
    def document_key(self) -> int:
        """Its document's id; 0 for a passage stored before passages kept it."""
        return self._place.get("document_id") or 0

    @property
    def document(self) -> str:
        return self._place.get("document") or self.title

    @property
    def page(self) -> int:
        return self._place.get("page") or 0

    @property
    def section(self) -> str | None:
        return self._place.get("section")

    @property
    def text(self) -> str:
        return self.claim_summary

    def to_dict(self) -> dict[str, Any]:
        stored = super().to_dict()
        del stored["terms"]
        return stored

    def snippet_dict(self) -> dict[str, Any]:
        """The passage as the API answers it."""
        return {
            "document_id": self.document_key,
            "document": self.document,
            "page": self.page,
            "section": self.section,
            "text": self.text,
            "confidence": self.confidence,
            "structured_fields": self.fields or None,
        }


def terms_of(requirement: Requirement) -> list[str]:
    """The words a requirement's evidence is looked for by: its accepted evidence's first,
    then its text's and its category's; short and common words left out."""
    text = " ".join(
        [requirement.accepted_evidence, requirement.requirement_text, requirement.category]
    )
    words = re.findall(r"[a-z][a-z0-9-]{3,}", text.lower())
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS))


def passages(page: Page) -> Iterator[tuple[int, str]]:
    """A page's passages at line boundaries, each about PASSAGE_CHARS long and cut where a
    sentence ends (a passage that began mid-sentence would lose what its sentence is: a
    question's tail reads like a statement), with the offset of its first character (so a
    passage that starts with its heading stands under it)."""
    start, chunk = 0, ""
    offset = 0
    for line in page.text.splitlines(keepends=True):
        long = len(chunk) + len(line) > PASSAGE_CHARS
        ended = chunk.rstrip().endswith((".", "!", "?", ":", ";"))
        if chunk and (not line.strip() or (long and ended) or len(chunk) > 2 * PASSAGE_CHARS):
            if chunk.strip():
                yield start + len(chunk) - len(chunk.lstrip()), chunk.strip()
            start, chunk = offset, ""
        chunk += line
        offset += len(line)
    if chunk.strip():
        yield start + len(chunk) - len(chunk.lstrip()), chunk.strip()


@lru_cache(maxsize=16384)  # every requirement reads the same passages
def _words(text: str) -> tuple[str, ...]:
    """A text's words (and hyphened words whole: "long-term"), lower case and sorted."""
    lower = text.lower()
    return tuple(sorted({*re.findall(r"\w+", lower), *re.findall(r"\w+(?:-\w+)+", lower)}))


def named_in(text: str, stems: dict[str, str]) -> tuple[str, ...]:
    """The terms (by their stems) a text names: one of its words begins with the stem, as
    "sampl" begins "sampling" (the first word not before the stem, if any does)."""
    words = _words(text)
    named = []
    for term, stem in stems.items():
        at = bisect_left(words, stem)
        if at < len(words) and words[at].startswith(stem):
            named.append(term)
    return tuple(named)


def same_passage(text: str) -> str:
    """What tells one passage from another: its words, however spaced, in any case."""
    return " ".join(text.split()).casefold()


def _stem(term: str) -> str:
    return term[:-1] if term.endswith("s") and len(term) > 4 else term


def find_evidence(
    requirement: Requirement,
    documents: Iterable[SourceDocument],
    per_document: int = SNIPPETS_PER_DOCUMENT,
    asked: frozenset[str] = frozenset(),
) -> list[Passage]:
    """The passages that answer the requirement, naming most of its terms, best first: the
    best of each document its category and its cross-checked fields map to (every document
    when none of those kinds is there). Only a passage's answering sentences count (a
    template's question, heading or prompt is no evidence); for a requirement of fields,
    they must hold a value of a kind it asks for; asked: the checklist's own sentences
    (answers.asked_in), which a template copies and which answer nothing. A passage two
    documents share (a public copy of the plan) counts once."""
    documents = list(documents)
    kinds = set(sources_for(requirement.category, requirement.structured_fields))
    chosen = [d for d in documents if d.type in kinds] or documents
    terms = terms_of(requirement)
    stems = {t: _stem(t) for t in terms}
    of_fields = requirement.validation_type in (
        ValidationType.structured_field,
        ValidationType.cross_document,
    )
    # Each passage kept with its rank: the fields it states, then the share of terms it names.
    found: list[tuple[tuple[int, float], Passage]] = []
    seen: set[str] = set()
    for document in chosen:
        mine: list[tuple[tuple[int, float], Passage]] = []
        starts = sections_before(document.pages)
        for page in document.pages:
            if page.kind != PageKind.text:
                continue
            for offset, text in passages(page):
                if same_passage(text) in seen:
                    continue
                units = answer_units(text, requirement, asked)
                if not units:
                    continue
                answered = " ".join(units)
                # The passage (its question included) and the heading it stands under say what
                # it is about; its answering sentences must speak of it too, and alone decide
                # how strong it is.
                section = page.section_at(offset, before=starts[page.number])
                about = len(named_in(f"{section or ''}\n{text}", stems))
                named = named_in(answered, stems)
                share = len(named) / len(terms) if terms else 0
                # A field stated with its name, however few terms name it; the passages that
                # state more of the requirement's fields first.
                stated = sum(1 for name in requirement.asked if states_any([name], units))
                enough = len(named) >= LEAST_TERMS and about >= max(
                    LEAST_TERMS, LEAST_SHARE * len(terms)
                )
                if not (stated if of_fields else enough):
                    continue
                seen.add(same_passage(text))
                confidence = round(min(OFFLINE_MOST_CONFIDENCE, 0.2 + share), 2)
                passage = Passage.at(
                    document.key, document.name, page.number, section, text, confidence, None,
                    named,
                )  # fmt: skip
                mine.append(((stated, share), passage))
        mine.sort(key=lambda pair: (-pair[0][0], -pair[0][1], pair[1].page))
        found += mine[:per_document]
    found.sort(key=lambda pair: (-pair[0][0], -pair[0][1], pair[1].document, pair[1].page))
    return [passage for _rank, passage in found]


def coverage(
    requirement: Requirement,
    found: list[Passage],
    fields: Iterable[str],
    failed: Iterable[str] = (),
) -> Coverage:
    """A requirement's status from its evidence: a structured requirement needs each of its
    fields stated (by a reviewer or the model, from a passage) and none of them in a failed
    check (failed: those fields) — a stated value that is wrong covers nothing; a manual one
    a person."""
    given = set(fields)
    if requirement.validation_type == ValidationType.manual:
        return Coverage.needs_input
    if requirement.validation_type in (
        ValidationType.structured_field,
        ValidationType.cross_document,
    ):
        wanted = {f.value for f in requirement.structured_fields}
        if wanted and not wanted & given:
            return Coverage.needs_input if found else Coverage.missing
        if wanted - given or wanted & set(failed):
            return Coverage.partial
        return Coverage.covered
    if not found:
        return Coverage.missing
    strong = any(s.confidence >= OFFLINE_MOST_CONFIDENCE for s in found)
    return Coverage.covered if strong else Coverage.partial
