"""What the registry review pages show, in people's words: the requirements with their status
and verdict (filtered and counted), the checks, a review's history of decisions, and a
document's page with a passage marked."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape
from sqlalchemy import or_, select
from sqlalchemy.orm import selectinload

from webapp.extensions import db
from webapp.registry.checklist import Requirement
from webapp.registry.evidence import COVERAGE_LABELS, Coverage
from webapp.registry.models import Review, ReviewRequirement
from webapp.registry.targets import (
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


def short(text: str, most: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


@dataclass(frozen=True)
class HistoryEntry:
    change: Change
    what: str  # "REQ-002: Verdict", "Owner", "Overall outcome"
    value: str  # the decision in words


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
            HistoryEntry(change, what, _value_words(change.field, change.new_value, documents))
        )
    return entries


def highlight(text: str, passage: str | None) -> Markup:
    """The page's text escaped, with the passage marked wherever it appears (each piece
    escaped on its own); whitespace between its words may differ, as a PDF's line breaks do."""
    words = (passage or "").split()
    if not words:
        return escape(text)
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.I)
    parts: list[Markup] = []
    last = 0
    for match in pattern.finditer(text):
        parts.append(escape(text[last : match.start()]))
        parts.append(Markup("<mark>%s</mark>") % match.group())
        last = match.end()
    parts.append(escape(text[last:]))
    return Markup("").join(parts)
