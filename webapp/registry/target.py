"""What a person decides in a review, as the review core's targets whose decisions write
nothing: a verdict on each requirement, and on the review itself its overall outcome and the
structured fields a reviewer enters (from a snippet, or a document and a page typed), one
decision per field and document ("owner_name@12") so that documents can be compared, and how a
document writes its dates when a person says so ("date_style@12"). Every decision is a Change,
audited and undone by the core; the newest one of a field is its present value."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from webapp.extensions import db
from webapp.ids import record_id
from webapp.registry.checklist import FIELD_LABELS, StructuredField
from webapp.registry.models import Review, ReviewDocument, ReviewRequirement
from webapp.registry.words import DELETED_DOCUMENT
from webapp.review.audit import latest_changes
from webapp.review.targets import ReviewTarget, register_target

REQUIREMENT = "registry_requirement"
REVIEW = "registry_review"
VERDICT, OUTCOME = "verdict", "outcome"
ENTRY_SEPARATOR = "@"
VALUE_DIGEST = 12  # hex digits of a value's hash in its entry's key
# Fields a document may state several values of: joint owners, land partly owned, partly leased.
SEVERAL_PER_DOCUMENT = frozenset({StructuredField.owner_name, StructuredField.tenure_type})
DATE_STYLE = "date_style"

VERDICTS = {
    "approved": "Approved",
    "needs_changes": "Needs changes",
    "not_applicable": "Not applicable",
}
OUTCOMES = {
    "approved": "Approved",
    "needs_changes": "Needs changes",
    "rejected": "Rejected",
}


class RequirementVerdicts(ReviewTarget):
    kind = REQUIREMENT
    label = "Requirement"
    writes = False
    undo_sources = ("decide",)

    def names(self, ids: Collection[int]) -> dict[int, str]:
        rows = db.session.execute(
            select(ReviewRequirement.id, ReviewRequirement.requirement_id, Review.name)
            .join(Review, Review.id == ReviewRequirement.review_id)
            .where(ReviewRequirement.id.in_(list(ids)))
        )
        return {i: f"{review} — {requirement}" for i, requirement, review in rows}

    def url(self, target_id: int) -> str | None:
        review_id = db.session.scalar(
            select(ReviewRequirement.review_id).where(ReviewRequirement.id == target_id)
        )
        return f"/registry/{review_id}#requirement-{target_id}" if review_id else None

    def field_label(self, field: str) -> str:
        return "Verdict" if field == VERDICT else field


class ReviewDecisions(ReviewTarget):
    kind = REVIEW
    label = "Registry review"
    writes = False
    undo_sources = ("decide",)

    def names(self, ids: Collection[int]) -> dict[int, str]:
        rows = db.session.execute(select(Review.id, Review.name).where(Review.id.in_(list(ids))))
        return dict(rows.all())

    def url(self, target_id: int) -> str | None:
        return f"/registry/{target_id}"

    def __init__(self) -> None:
        # What brings a review's checks and statuses up to date: review_state's refresh, which
        # builds on these targets and so hands it over (refreshed_by) rather than be imported.
        self.refresh: Callable[[Review], Any] | None = None

    def refreshed_by(self, refresh: Callable[[Review], Any]) -> None:
        self.refresh = refresh

    def after_undo(self, ids: Collection[int]) -> None:
        """An undone entry or date style changes the review's checks and statuses."""
        if self.refresh is None:
            return
        for review in db.session.scalars(select(Review).where(Review.id.in_(list(ids)))):
            self.refresh(review)

    def field_label(self, field: str) -> str:
        if field == OUTCOME:
            return "Overall outcome"
        name, _, rest = field.partition(ENTRY_SEPARATOR)
        document_id = rest.partition(ENTRY_SEPARATOR)[0]
        if name == DATE_STYLE:
            what = "Date style"
        elif name in StructuredField.__members__:
            what = FIELD_LABELS[StructuredField(name)]
        else:
            return field
        if (document_key := record_id(document_id)) is None:
            return what
        document = db.session.get(ReviewDocument, document_key)
        return f"{what} ({document.filename if document else DELETED_DOCUMENT})"


def entry_key(name: StructuredField, document_id: int, value: str) -> str:
    """The decision field a reviewer's value of one field from one document is kept under: one
    per document (a newer value replaces it), but for a field a document may state several of
    (a person and a company as owners) one per value, the same value in any case or spacing
    being the same entry."""
    key = f"{name.value}{ENTRY_SEPARATOR}{document_id}"
    if name not in SEVERAL_PER_DOCUMENT:
        return key
    plain = " ".join(value.split()).casefold()
    return f"{key}{ENTRY_SEPARATOR}{hashlib.sha256(plain.encode()).hexdigest()[:VALUE_DIGEST]}"


def style_key(document_id: int) -> str:
    """The decision field of how a person says one document writes its dates."""
    return f"{DATE_STYLE}{ENTRY_SEPARATOR}{document_id}"


def entry_of(key: str) -> tuple[StructuredField, int | None] | None:
    """The structured field and document a decision field holds a reviewer's value of; the
    document is None for a value kept under the field's name alone (entered before values
    were kept per document: its document is in the value). None for any other decision."""
    name, separator, rest = key.partition(ENTRY_SEPARATOR)
    if name not in StructuredField.__members__:
        return None
    if not separator:
        return StructuredField(name), None
    document, _separator, digest = rest.partition(ENTRY_SEPARATOR)
    document_id = record_id(document)
    if document_id is None or not re.fullmatch(rf"(?:[0-9a-f]{{{VALUE_DIGEST}}})?", digest):
        return None
    return StructuredField(name), document_id


requirement_verdicts = register_target(RequirementVerdicts())
review_decisions = register_target(ReviewDecisions())


@dataclass(frozen=True)
class Decision:
    """The newest decision of one field of one record: the value, the reviewer's words,
    who and when, and the group an undo takes."""

    value: Any
    comment: str | None
    by: str | None
    at: datetime
    group: str


def decisions(kind: str, ids: Collection[int], field: str | None = None) -> dict[int, dict]:
    """{record id: {field: Decision}} of the newest decision of each field (only `field`
    when given); a field whose newest decision is None (undone to nothing) is left out."""
    found: dict[int, dict[str, Decision]] = {}
    for target_id, changes in latest_changes(kind, ids, field).items():
        found[target_id] = {
            name: Decision(
                change.new_value,
                change.comment,
                change.user.display_name if change.user else None,
                change.at,
                change.group_id,
            )
            for name, change in changes.items()
            if change.new_value is not None
        }
    return found
