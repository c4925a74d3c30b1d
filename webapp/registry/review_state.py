"""A review's life outside its run: made with a checklist, fields a reviewer enters from a
snippet or from a document and a page typed, a verdict per requirement and an overall outcome
(decisions in the audit trail), its coverage and cross-validation kept up to date with them,
and deletion with its files.

Each function works in the session and leaves the commit to its caller."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select

from webapp.auth.models import User
from webapp.extensions import db
from webapp.problems import Invalid, Problem
from webapp.registry import documents as docs
from webapp.registry.assessment import Assessment, assess
from webapp.registry.checklist import Checklist, StructuredField, bundled
from webapp.registry.dates import DateStyle
from webapp.registry.discovery import DocumentType
from webapp.registry.evidence import Passage
from webapp.registry.models import Review, ReviewDocument, ReviewRequirement
from webapp.registry.pages import PageKind
from webapp.registry.rules import Check, FieldValue, Status, restates
from webapp.registry.target import (
    OUTCOME,
    OUTCOMES,
    REVIEW,
    SEVERAL_PER_DOCUMENT,
    VERDICT,
    VERDICTS,
    Decision,
    decisions,
    entry_key,
    entry_of,
    requirement_verdicts,
    review_decisions,
    style_key,
)
from webapp.review.models import Finding
from webapp.review.service import decide, store_findings
from webapp.review.vocabulary import Issue, Severity
from webapp.text import control_character_problem

NAME_MAX = 200
COMMENT_MAX = 5000
VALUE_MAX = 500
SEVERITIES = {Status.passed: Severity.info, Status.warning: Severity.warning}


class ReviewInvalid(Invalid):
    code = "review_invalid"


def check_name(name: str | None) -> str:
    name = (name or "").strip()
    if not name:
        raise ReviewInvalid([Problem("Give the review a name.", loc="name")])
    if len(name) > NAME_MAX:
        raise ReviewInvalid([Problem(f"Use at most {NAME_MAX} characters.", loc="name")])
    if problem := control_character_problem(name):
        raise ReviewInvalid([Problem(f"Name: {problem}", loc="name")])
    return name


def create_review(name: str | None, checklist: Checklist | None, user: User | None) -> Review:
    """A new review (flushed) with a record per requirement of its checklist (the bundled
    soil-carbon one unless another is given); its creator reviews it."""
    checklist = checklist or bundled()
    review = Review(
        name=check_name(name),
        checklist=checklist.model_dump(mode="json"),
        created_by=user,
        reviewer=user,
        requirements=requirement_records(checklist),
    )
    db.session.add(review)
    db.session.flush()
    return review


def requirement_records(checklist: Checklist) -> list[ReviewRequirement]:
    """A new record per requirement of the checklist, in its order."""
    return [
        ReviewRequirement(requirement_id=r.requirement_id, position=i, snippets=[])
        for i, r in enumerate(checklist.requirements)
    ]


def delete_review(review: Review) -> list[str]:
    """Delete the review with its documents; returns their files, to remove after commit."""
    stored = [d.stored_name for d in review.documents]
    db.session.delete(review)
    return stored


def requirement(review: Review, requirement_id: str) -> ReviewRequirement | None:
    return next((r for r in review.requirements if r.requirement_id == requirement_id), None)


STYLES = {s.value: s for s in DateStyle}


def chosen_styles(review: Review) -> dict[int, DateStyle]:
    """How a person said documents write their dates, by document id (those said)."""
    mine = decisions(REVIEW, [review.id])[review.id]
    chosen = {d.id: mine.get(style_key(d.id)) for d in review.documents}
    return {i: STYLES[d.value] for i, d in chosen.items() if d and d.value in STYLES}


def styles(review: Review) -> dict[int, DateStyle | None]:
    """How each document writes its dates: as a person said, else as its text shows."""
    chosen = chosen_styles(review)
    return {d.id: chosen.get(d.id) or STYLES.get(d.date_style) for d in review.documents}


def set_date_style(
    review: Review, document: ReviewDocument, style: str | None, user: User | None
) -> str | None:
    """A person says how a document writes its dates (day-first or month-first; empty goes
    back to what its text shows), so that a date such as 06/02/2023 in it is read that way;
    an audited decision. Brings the review up to date; returns the group, None when the
    document was already read that way (nothing to decide)."""
    if style and style not in STYLES:
        raise ReviewInvalid([Problem("Choose day first or month first.", loc="date_style")])
    if chosen_styles(review).get(document.id) == (STYLES[style] if style else None):
        return None
    group = decide(review_decisions, review.id, style_key(document.id), style or None, "", user)
    refresh(review)
    return group


@dataclass(frozen=True)
class EnteredValue:
    """A reviewer's value of one structured field as one document states it (its page), the
    decision that holds it and the decision field it is kept under."""

    field: StructuredField
    value: Any
    document_id: int | None
    page: Any
    decision: Decision
    key: str


def entered(review: Review) -> list[EnteredValue]:
    """The structured fields reviewers entered, every value of a field from each document, in
    field order. A value kept under the field's name alone (entered before values were kept
    per document) counts for its document until one is entered from that document."""
    mine = decisions(REVIEW, [review.id])[review.id]
    found: dict[str, EnteredValue] = {}
    legacy: list[EnteredValue] = []
    for key, decision in mine.items():
        entry = entry_of(key)
        if entry is None:
            continue
        name, document_id = entry
        given = decision.value if isinstance(decision.value, dict) else {}
        value = EnteredValue(
            name, given.get("value"), _document_of(decision, entry), given.get("page"), decision,
            key,
        )  # fmt: skip
        if document_id is None:
            legacy.append(value)
        else:
            found[key] = value
    stated = {(e.field, e.document_id) for e in found.values() if e.value not in (None, "")}
    kept = [*found.values(), *(e for e in legacy if (e.field, e.document_id) not in stated)]
    order = list(StructuredField)
    return sorted(kept, key=lambda e: (order.index(e.field), e.decision.at))


def entered_values(review: Review) -> list[FieldValue]:
    by_id = {d.id: d for d in review.documents}
    date_styles = styles(review)
    values = []
    for entry in entered(review):
        document = by_id.get(entry.document_id)
        if document is None or entry.value in (None, ""):
            continue  # its document was deleted: the value no longer has a source
        values.append(
            FieldValue(
                entry.field,
                entry.value,
                document.filename,
                entry.page,
                date_styles.get(document.id),
                document.id,
                document.document_type == DocumentType.land_tenure,
            )
        )
    return values


def assessment(review: Review) -> Assessment:
    """The review assessed from the evidence its last run stored and what reviewers entered."""
    found = {
        r.requirement_id: [Passage.from_dict(s) for s in r.snippets] for r in review.requirements
    }
    return assess(
        review.methodology,
        docs.source_documents(review),
        styles(review),
        entered_values(review),
        found=found,
    )


def issue_of(check: Check) -> Issue:
    severity = SEVERITIES.get(check.status, Severity.error)
    field = check.field.value if check.field else None
    details = {"status": check.status.value, "values": check.values}
    return Issue(check.check, severity, field, check.message, details)


def check_of(finding: Finding) -> dict[str, Any]:
    """A stored check in the API's shape."""
    return {
        "check": finding.code,
        "field": finding.field,
        "status": finding.details.get("status"),
        "values": finding.details.get("values") or {},
        "message": finding.message,
    }


def refresh(review: Review) -> Assessment:
    """Keep each requirement's status and the checks of the review's run up to date with its
    evidence and what reviewers entered (after a run, an entry, an undo)."""
    result = assessment(review)
    if review.run_id is None:
        return result
    by_id = {r.requirement.requirement_id: r for r in result.requirements}
    for record in review.requirements:
        found = by_id.get(record.requirement_id)
        record.status = found.coverage.value if found else None
    db.session.execute(
        delete(Finding).where(Finding.run_id == review.run_id, Finding.target_type == REVIEW)
    )
    store_findings(review.run_id, REVIEW, [review.id], [issue_of(c) for c in result.checks])
    return result


def checks(review: Review) -> list[dict[str, Any]]:
    """The cross-validation checks of the review's run, in the order they were made."""
    if review.run_id is None:
        return []
    query = select(Finding).where(Finding.run_id == review.run_id, Finding.target_type == REVIEW)
    return [check_of(f) for f in db.session.scalars(query.order_by(Finding.id))]


@dataclass(frozen=True)
class Entry:
    field: StructuredField
    value: str
    document: ReviewDocument
    page: int


def read_entry(review: Review, field: str, given: Any, where: str | None = None) -> Entry:
    """A reviewer's value for one structured field, checked: a known field, a value, and the
    text page of one of the review's documents it is on (a passage's, or typed). where: the
    entry's place in the request, for its problems."""
    where = where or f"fields.{field}"
    if field not in StructuredField.__members__:
        known = ", ".join(StructuredField.__members__)
        raise ReviewInvalid([Problem(f"{field} is not a field; use one of {known}.", loc=field)])
    if not isinstance(given, dict):
        raise ReviewInvalid([Problem("Give {value, document, page}.", loc=where)])
    value = given.get("value")
    value = str(value).strip() if isinstance(value, (str, int, float)) else ""
    problems = []
    if not value:
        problems.append(Problem("Enter the value as the document states it.", loc=f"{where}.value"))
    elif len(value) > VALUE_MAX or control_character_problem(value):
        problems.append(Problem(f"Use one line of at most {VALUE_MAX} characters.", loc=where))
    document = _document(review, given.get("document"))
    if document is None:
        problems.append(Problem("Name one of this review's documents.", loc=f"{where}.document"))
    page = given.get("page")
    if document is not None:
        numbers = {p.number: p for p in docs.pages(document)}
        if page in (None, ""):
            problems.append(
                Problem(
                    f"Give the page of {document.filename} the value is on.", loc=f"{where}.page"
                )
            )
        elif not isinstance(page, int) or isinstance(page, bool) or page not in numbers:
            problems.append(
                Problem(f"{document.filename} has no page {page}.", loc=f"{where}.page")
            )
        elif numbers[page].kind != PageKind.text:
            kind = "a table of contents" if numbers[page].kind == PageKind.contents else "empty"
            problems.append(
                Problem(f"Page {page} of {document.filename} is {kind}.", loc=f"{where}.page")
            )
    if problems:
        raise ReviewInvalid(problems)
    return Entry(StructuredField(field), value, document, page)


def _document(review: Review, given: Any) -> ReviewDocument | None:
    """The document given by its id, else by its name as uploads compare names (unique in a
    review): "PLAN.pdf" names plan.pdf."""
    by_id = next((d for d in review.documents if given in (d.id, str(d.id))), None)
    if by_id is not None or not isinstance(given, str):
        return by_id
    return next(
        (d for d in review.documents if docs.name_key(d.filename) == docs.name_key(given)), None
    )


def read_entries(review: Review, field: str, given: Any) -> list[Entry]:
    """One field's entries: {value, document, page}, or a list of them to enter the field from
    several documents at once (one each)."""
    if not isinstance(given, list):
        return [read_entry(review, field, given)]
    if not given:
        raise ReviewInvalid([Problem("Give at least one {value, document, page}.", loc=field)])
    problems, entries = [], []
    for i, one in enumerate(given):
        try:
            entry = read_entry(review, field, one, f"fields.{field}.{i}")
        except ReviewInvalid as invalid:
            problems += invalid.problems
            continue
        several = entry.field in SEVERAL_PER_DOCUMENT
        same = [e for e in entries if e.document.id == entry.document.id]
        if any(not several or restates(entry.field, e.value, entry.value) for e in same):
            twice = (
                f"“{entry.value}” from {entry.document.filename} is given twice."
                if several
                else f"{entry.document.filename} is given twice: enter one value per document."
            )
            problems.append(Problem(twice, loc=f"fields.{field}.{i}.document"))
        entries.append(entry)
    if problems:
        raise ReviewInvalid(problems)
    return entries


def _cleared_document(review: Review, field: str, given: dict[str, Any]) -> int:
    """The document a field's values are cleared from: {document, "value": None}."""
    if field not in StructuredField.__members__:
        known = ", ".join(StructuredField.__members__)
        raise ReviewInvalid([Problem(f"{field} is not a field; use one of {known}.", loc=field)])
    document = _document(review, given.get("document"))
    if document is None:
        where = f"fields.{field}.document"
        raise ReviewInvalid([Problem("Name one of this review's documents.", loc=where)])
    return document.id


def _document_of(decision: Decision, entry: tuple[StructuredField, int | None]) -> int | None:
    """The document of an entered value: its key's, else (kept under the field alone) its own."""
    given = decision.value if isinstance(decision.value, dict) else {}
    return entry[1] or given.get("document_id")


def enter_fields(review: Review, given: dict[str, Any], user: User | None) -> list[str]:
    """Record reviewers' values ({field: {value, document, page}} or {field: [...]}, each
    checked before any is kept): every value a document states is kept (a plan may name a
    person and a company as owners), the same value again only moves to its new page; all
    documents' values are compared. None clears a field from every document; {document,
    "value": None} from that document. Brings the review up to date; returns the groups."""
    if not isinstance(given, dict) or not given:
        raise ReviewInvalid("Give at least one field: {field: {value, document, page}}.")
    problems, entries, cleared = [], [], []
    for field, value in given.items():
        if value is None and field in StructuredField.__members__:
            cleared.append((StructuredField(field), None))
            continue
        if isinstance(value, dict) and value.get("value", "") is None:
            try:
                cleared.append((StructuredField(field), _cleared_document(review, field, value)))
            except ReviewInvalid as invalid:
                problems += invalid.problems
            continue
        try:
            entries += read_entries(review, field, value)
        except ReviewInvalid as invalid:
            problems += invalid.problems
    if problems:
        raise ReviewInvalid(problems)
    # A value that says again what one from the same document said replaces it.
    current = entered(review)
    restated = {
        e.key
        for entry in entries
        for e in current
        if entry.field in SEVERAL_PER_DOCUMENT
        and (e.field, e.document_id) == (entry.field, entry.document.id)
        and e.key != entry_key(entry.field, entry.document.id, entry.value)
        and restates(e.field, str(e.value), entry.value)
    }
    groups = [decide(review_decisions, review.id, key, None, "", user) for key in restated]
    groups += [
        decide(
            review_decisions,
            review.id,
            entry_key(e.field, e.document.id, e.value),
            {"value": e.value, "document_id": e.document.id, "page": e.page},
            "",
            user,
        )
        for e in entries
    ]
    kept = decisions(REVIEW, [review.id])[review.id]
    groups += [
        decide(review_decisions, review.id, key, None, "", user)
        for key in kept
        if (entry := entry_of(key))
        and kept[key].value is not None
        and ((entry[0], None) in cleared or (entry[0], _document_of(kept[key], entry)) in cleared)
    ]
    refresh(review)
    return groups


def remove_entry(review: Review, key: str, user: User | None) -> str:
    """Take back one value a reviewer entered (by its decision field); the history keeps it
    and undo brings it back. Returns the group."""
    if not any(e.key == key for e in entered(review)):
        gone = "That value is not entered (it may have been removed already)."
        raise ReviewInvalid([Problem(gone, loc="key")])
    group = decide(review_decisions, review.id, key, None, "", user)
    refresh(review)
    return group


def decide_requirement(
    review: Review, requirement_id: str, verdict: str, comment: str | None, user: User | None
) -> str:
    """A reviewer's verdict on one requirement, with their words; returns the group."""
    record = requirement(review, requirement_id)
    if record is None:
        raise ReviewInvalid(
            [Problem(f"The checklist has no requirement {requirement_id}.", loc="requirement_id")]
        )
    return decide(
        requirement_verdicts,
        record.id,
        VERDICT,
        _choice(verdict, VERDICTS, "verdict"),
        _comment(comment),
        user,
    )


def set_outcome(review: Review, outcome: str, comment: str | None, user: User | None) -> str:
    return decide(
        review_decisions,
        review.id,
        OUTCOME,
        _choice(outcome, OUTCOMES, "outcome"),
        _comment(comment),
        user,
    )


def _choice(value: Any, choices: dict[str, str], loc: str) -> str:
    if value not in choices:
        listed = ", ".join(choices)
        raise ReviewInvalid([Problem(f"Choose one of {listed}.", loc=loc)])
    return value


def _comment(comment: str | None) -> str:
    comment = (comment or "").strip()
    if len(comment) > COMMENT_MAX:
        raise ReviewInvalid([Problem(f"Use at most {COMMENT_MAX} characters.", loc="comment")])
    if problem := control_character_problem(comment, multiline=True):
        raise ReviewInvalid([Problem(f"Comment: {problem}", loc="comment")])
    return comment


def verdicts(review: Review) -> dict[str, Decision]:
    """Each requirement's verdict, by requirement id (those decided)."""
    ids = {r.id: r.requirement_id for r in review.requirements}
    found = decisions(requirement_verdicts.kind, list(ids), VERDICT)
    return {ids[i]: d[VERDICT] for i, d in found.items() if VERDICT in d}


def outcome(review: Review) -> Decision | None:
    return decisions(REVIEW, [review.id], OUTCOME)[review.id].get(OUTCOME)


def mark_running(review: Review, run_id: int) -> None:
    """The run whose evidence and checks the review shows from now on."""
    review.run_id = run_id


review_decisions.refreshed_by(refresh)
