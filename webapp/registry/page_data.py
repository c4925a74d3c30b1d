"""What the registry review pages show, in people's words: the requirements with their status
and verdict (filtered and counted), the checks, a review's history of decisions, and a
document's page with a passage marked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from flask import url_for
from markupsafe import Markup, escape
from sqlalchemy import or_, select
from sqlalchemy.orm import selectinload

from webapp.extensions import db
from webapp.registry.checklist import Requirement
from webapp.registry.evidence import COVERAGE_LABELS, Coverage, Passage
from webapp.registry.models import Review, ReviewRequirement
from webapp.registry.target import (
    DATE_STYLE,
    ENTRY_SEPARATOR,
    OUTCOME,
    OUTCOMES,
    REQUIREMENT,
    REVIEW,
    VERDICTS,
    Decision,
    entry_of,
    review_decisions,
)
from webapp.registry.words import DATE_STYLE_LABELS, DELETED_DOCUMENT
from webapp.review.models import Change

# The requirement filters, in the order the page lists them: (key, words).
FILTERS = (
    ("all", "All"),
    (Coverage.missing.value, COVERAGE_LABELS[Coverage.missing]),
    (Coverage.needs_input.value, COVERAGE_LABELS[Coverage.needs_input]),
    (Coverage.partial.value, COVERAGE_LABELS[Coverage.partial]),
    (Coverage.covered.value, COVERAGE_LABELS[Coverage.covered]),
    ("failed_checks", "Failed checks"),
    ("undecided", "Undecided"),
)
FILTER_KEYS = {key for key, _words in FILTERS}


@dataclass(frozen=True)
class RequirementRow:
    record: ReviewRequirement
    requirement: Requirement
    verdict: Decision | None
    failed_check: bool  # one of its fields is in a failed or warning check

    @property
    def filters(self) -> set[str]:
        keys = {"all"}
        if self.record.status:
            keys.add(self.record.status)
        if self.failed_check:
            keys.add("failed_checks")
        if self.verdict is None:
            keys.add("undecided")
        return keys


def troubled_fields(checks: list[dict[str, Any]]) -> set[str]:
    """The fields of the checks that failed or warn."""
    return {c["field"] for c in checks if c["field"] and c["status"] in ("fail", "warning")}


def requirement_rows(
    review: Review, verdicts: dict[str, Decision], checks: list[dict[str, Any]]
) -> list[RequirementRow]:
    methodology = review.methodology
    troubled = troubled_fields(checks)
    rows = []
    for record in review.requirements:
        wanted = methodology.requirement(record.requirement_id)
        if wanted is None:
            continue
        fields = {f.value for f in wanted.asked}
        rows.append(
            RequirementRow(
                record, wanted, verdicts.get(record.requirement_id), bool(fields & troubled)
            )
        )
    return rows


def filter_counts(rows: list[RequirementRow]) -> dict[str, int]:
    return {key: sum(key in row.filters for row in rows) for key, _words in FILTERS}


def chosen_filter(raw: str | None) -> str:
    return raw if raw in FILTER_KEYS else "all"


def passages(review: Review, record: ReviewRequirement) -> list[Passage]:
    """The passages the last run found for a requirement, as the core's evidence macro shows
    them: each links to its page with the passage marked, while its document is there."""
    kept = {d.id for d in review.documents}
    found = [Passage.from_dict(s) for s in record.snippets or []]
    return [_linked(review.id, p) if p.document_key in kept else p for p in found]


def _linked(review_id: int, passage: Passage) -> Passage:
    url = url_for(
        "registry.page",
        review_id=review_id,
        document_id=passage.document_key,
        number=passage.page,
        q=passage.text,
    )
    return replace(passage, source_url=url)


def short(text: str, most: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


@dataclass(frozen=True)
class HistoryEntry:
    """One decision as the core's change_history macro shows a change: what was decided (as
    its field) and the values before and after, in words."""

    change: Change
    what: str  # "REQ-002: Verdict", "Owner", "Overall outcome"
    value: str  # the decision in words
    was: str  # what it replaced, in words

    # What change_history reads of a change: what was decided and the values in words, the
    # rest as the change has it.
    field = property(lambda self: self.what)
    old_value = property(lambda self: self.was)
    new_value = property(lambda self: self.value)
    at = property(lambda self: self.change.at)
    user = property(lambda self: self.change.user)
    source = property(lambda self: self.change.source)
    comment = property(lambda self: self.change.comment)
    group_id = property(lambda self: self.change.group_id)


def _value_words(field: str, value: Any, documents: dict[int, str]) -> str:
    if field.partition(ENTRY_SEPARATOR)[0] == DATE_STYLE:
        return DATE_STYLE_LABELS.get(value or "", str(value))
    if value is None:
        return "—"
    if field == OUTCOME:
        return OUTCOMES.get(value, str(value))
    if entry_of(field) and isinstance(value, dict):
        document = documents.get(value.get("document_id"), DELETED_DOCUMENT)
        return f"{value.get('value')} ({document}, page {value.get('page')})"
    return VERDICTS.get(value, str(value)) if isinstance(value, str) else str(value)


def history(review: Review, limit: int = 200) -> list[HistoryEntry]:
    """The review's decisions (its outcome and entered fields, its requirements' verdicts),
    newest first."""
    by_record = {r.id: r.requirement_id for r in review.requirements}
    query = (
        select(Change)
        .options(selectinload(Change.user))
        .where(
            or_(
                (Change.target_type == REVIEW) & (Change.target_id == review.id),
                (Change.target_type == REQUIREMENT) & Change.target_id.in_(list(by_record)),
            )
        )
        .order_by(Change.id.desc())
        .limit(limit)
    )
    documents = {d.id: d.filename for d in review.documents}
    entries = []
    for change in db.session.scalars(query):
        if change.target_type == REQUIREMENT:
            what = f"{by_record[change.target_id]}: verdict"
        elif change.field == OUTCOME:
            what = "Overall outcome"
        else:
            what = review_decisions.field_label(change.field)
        entries.append(
            HistoryEntry(
                change,
                what,
                _value_words(change.field, change.new_value, documents),
                _value_words(change.field, change.old_value, documents),
            )
        )
    return entries


# A passage link carries one passage (a model's is at most 2,000 characters); a longer query is
# cut at a word, and the page says that only its start is marked.
MOST_PASSAGE_CHARS = 2000
MOST_PASSAGE_WORDS = 400
MOST_MARKS = 100  # places marked on one page; a page repeating the passage more says so
_SPACES = re.compile(r"\s+")
_LONG_SPACES = re.compile(r"\s{2,}")


@dataclass(frozen=True)
class Marked:
    text: Markup  # the page's text escaped, the passage in <mark>
    marks: int  # the places marked
    more: bool  # the passage is in more places than MOST_MARKS
    cut: bool  # the passage was longer than the page looks for: only its start is marked


def passage_words(passage: str) -> tuple[list[str], bool]:
    """The passage's words, at most MOST_PASSAGE_WORDS and MOST_PASSAGE_CHARS of it, and
    whether that cut it."""
    kept, rest = passage[:MOST_PASSAGE_CHARS], passage[MOST_PASSAGE_CHARS:]
    words = kept.split()
    cut = bool(rest.strip())
    if rest[:1].strip() and kept[-1:].strip():  # a word cut in two is no word of it
        words.pop()
    if len(words) > MOST_PASSAGE_WORDS:
        words, cut = words[:MOST_PASSAGE_WORDS], True
    return words, cut


def _folded(text: str) -> str:
    """The text without case, as long as it is ("İ" alone lowers to two characters)."""
    return text.replace("\u0130", "i").lower()


def highlight(text: str, passage: str | None) -> Marked:
    """The page's text escaped, with the passage marked wherever it appears (each piece
    escaped on its own), regardless of case; whitespace between its words may differ, as a
    PDF's line breaks do. The passage is looked for with str.find in a case-folded copy of the
    page whose whitespace runs are single spaces, so the cost grows with the page's length
    and the passage's, never with their product (a pattern of the words joined by \\s+
    backtracked over every place the first words repeat)."""
    words, cut = passage_words(passage or "")
    if not words:
        return Marked(escape(text), 0, False, cut)
    folded = _folded(text)
    flat = _SPACES.sub(" ", folded)
    needle = _folded(" ".join(words))
    found: list[int] = []
    at = flat.find(needle)
    while at >= 0 and len(found) < MOST_MARKS:
        found.append(at)
        at = flat.find(needle, at + len(needle))
    bounds = [p for start in found for p in (start, start + len(needle))]
    parts: list[Markup] = []
    last = 0
    places = iter(_page_positions(folded, bounds))
    for start, end in zip(places, places, strict=True):
        parts.append(escape(text[last:start]))
        parts.append(Markup("<mark>%s</mark>") % text[start:end])
        last = end
    parts.append(escape(text[last:]))
    return Marked(Markup("").join(parts), len(found), at >= 0, cut)


def _page_positions(folded: str, positions: list[int]) -> Iterator[int]:
    """Positions in the flattened page (ascending: where matches start and end, which is
    never inside a run of whitespace) as positions in the page: each run of whitespace before
    one took that many characters, less its one space."""
    runs = _LONG_SPACES.finditer(folded)
    run = next(runs, None)
    shift = 0
    for position in positions:
        while run is not None and run.start() - shift < position:
            shift += run.end() - run.start() - 1
            run = next(runs, None)
        yield position + shift
