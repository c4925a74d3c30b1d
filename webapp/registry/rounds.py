"""Registration or issuance: which bundled checklist a review's documents call for, and moving a
review to the other one. A registration submits its project plan and land-tenure papers; an
issuance (a monitoring round) its monitoring and GHG emissions reports. When most of a
review's documents are of the other round's kinds, its checklist is likely the wrong one."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webapp.extensions import db
from webapp.problems import Invalid
from webapp.registry.checklist import BUNDLED_LABELS, ISSUANCE, REGISTRATION, bundled, bundled_name
from webapp.registry.discovery import DocumentType
from webapp.registry.models import Review, ReviewStatus
from webapp.registry.review_state import ReviewInvalid, requirement_records, verdicts
from webapp.registry.runs import ReviewBusy, live_run

ROUND_KINDS = {
    REGISTRATION: frozenset({DocumentType.project_plan, DocumentType.land_tenure}),
    ISSUANCE: frozenset({DocumentType.monitoring_report, DocumentType.ghg_emissions_report}),
}
KIND_WORDS = {
    REGISTRATION: "project plans and land-tenure papers, as a registration submits",
    ISSUANCE: "monitoring and GHG emissions reports, as an issuance submits",
}


def called_for(current: str | None, kinds: Iterable[str]) -> str | None:
    """The other bundled checklist, when more than half of the documents (their kinds) are of
    its round; None for an imported checklist or documents that do not say."""
    kinds = list(kinds)
    if current not in ROUND_KINDS or not kinds:
        return None
    other = next(name for name in ROUND_KINDS if name != current)
    theirs = sum(1 for kind in kinds if kind in ROUND_KINDS[other])
    return other if theirs * 2 > len(kinds) else None


def label(name: str) -> str:
    """A bundled checklist as a sentence names it: "the issuance (monitoring round) checklist"."""
    return f"the {BUNDLED_LABELS[name].lower()} checklist"


@dataclass(frozen=True)
class Suggestion:
    checklist: str  # the bundled checklist's name
    message: str
    # Why the review cannot be moved to it now (a new review with it is the way); None: it can.
    refused: str | None

    @property
    def label(self) -> str:
        return BUNDLED_LABELS[self.checklist]

    def to_dict(self) -> dict[str, Any]:
        return {
            "checklist": self.checklist,
            "label": self.label,
            "message": self.message,
            "can_switch": self.refused is None,
            "refused": self.refused,
        }


def suggestion(review: Review) -> Suggestion | None:
    """The other bundled checklist, in one sentence, when the review's documents call for it."""
    current = bundled_name(review.checklist)
    other = called_for(current, [d.document_type for d in review.documents])
    if current is None or other is None:
        return None
    message = (
        f"Most of these documents are {KIND_WORDS[other]}: {label(other)} fits them better "
        f"than {label(current)} this review uses."
    )
    try:
        check_switch(review)
    except Invalid as refused:
        return Suggestion(other, message, refused.message)
    return Suggestion(other, message, None)


def check_switch(review: Review) -> None:
    """Refuse to replace the review's checklist while a run reads it, or once verdicts were
    given on its requirements (they would go with them)."""
    if live_run(review) is not None:
        raise ReviewBusy("The review is being assessed: wait for its run to end.")
    if verdicts(review):
        raise ReviewInvalid(
            "Verdicts were given on this checklist's requirements: create a new review with "
            "the other checklist instead."
        )


def switch_checklist(review: Review, name: str) -> None:
    """Move the review to a bundled checklist: its requirements replace the old ones, their
    evidence with them (the review is to be assessed again); what reviewers entered (fields,
    date styles) and the outcome stay."""
    checklist = bundled(name)
    if bundled_name(review.checklist) == name:
        raise ReviewInvalid(f"The review already uses {label(name)}.", loc="bundled_checklist")
    check_switch(review)
    review.checklist = checklist.model_dump(mode="json")
    # The old records go first: an imported checklist may share requirement ids with this one.
    review.requirements.clear()
    db.session.flush()
    review.requirements.extend(requirement_records(checklist))
    # The last run read the other checklist: its evidence and checks are not this one's.
    review.run_id = None
    review.status = ReviewStatus.draft
