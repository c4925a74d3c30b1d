"""The review run: one item per step, so its stage shows in the progress — discovery (each
document read and classified), mapping (each category to the kinds of document that can hold
its evidence), evidence (each requirement), cross-validation, report."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from webapp.auth.models import User
from webapp.extensions import db
from webapp.jobs.kinds import ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.problems import Invalid
from webapp.registry import documents as docs
from webapp.registry.discovery import DocumentType, sources_for
from webapp.registry.evidence import coverage, find_evidence
from webapp.registry.models import Review, ReviewStatus
from webapp.registry.pages import PageKind
from webapp.registry.reviews import entered_values, mark_running, refresh, requirement
from webapp.registry.targets import REVIEW

DISCOVER, MAP, EVIDENCE, VALIDATE, REPORT = "discover", "map", "evidence", "validate", "report"
STAGES = {
    DISCOVER: "discovery",
    MAP: "mapping",
    EVIDENCE: "evidence",
    VALIDATE: "cross-validation",
    REPORT: "report",
}


class ReviewBusy(Invalid):
    code = "run_in_progress"


def live_run(review: Review) -> Run | None:
    """The review's run while it is queued or running."""
    run = db.session.get(Run, review.run_id) if review.run_id else None
    return run if run is not None and run.is_live else None


def start_review_run(review: Review, user: User | None) -> Run:
    """Queue the review's run (commits). ReviewBusy while one is live; a review without
    documents cannot be assessed."""
    if live_run(review) is not None:
        raise ReviewBusy("The review is being assessed; wait for its run to end.")
    if not review.documents:
        raise Invalid(
            "Add the project's documents before assessing the review.", code="no_documents"
        )
    run = enqueue_run(
        ReviewAssessment, user, {"review_id": review.id}, target=(REVIEW, review.id),
        title=f"Assess {review.name}",
    )  # fmt: skip
    mark_running(review, run.id)
    db.session.commit()
    return run


def _review(params: dict[str, Any]) -> Review:
    review = db.session.get(Review, params["review_id"])
    if review is None:
        raise ItemError("The review was deleted.")
    return review


@register_kind
class ReviewAssessment(RunKind):
    name = "registry_review"
    title = "Assess a registry review"
    result_labels = {
        "type": "Kind",
        "pages": "Pages",
        "contents": "Contents pages",
        "no_text": "Pages without text",
        "snippets": "Snippets",
        "status": "Status",
        "checks": "Checks",
        "failed": "Failed",
        "warnings": "Warnings",
    }

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        review = db.session.get(Review, params["review_id"])
        if review is None:
            return []
        return [
            *(f"{DISCOVER}:{d.id}" for d in review.documents),
            MAP,
            *(f"{EVIDENCE}:{r.requirement_id}" for r in review.requirements),
            VALIDATE,
            REPORT,
        ]

    def stage_for(self, key: str) -> str:
        return STAGES[key.partition(":")[0]]

    def item_names(self, run: Any) -> dict[str, str]:
        review = db.session.get(Review, run.params["review_id"])
        documents = {str(d.id): d.filename for d in review.documents} if review else {}
        names = {}
        for key in run.items:
            step, _, what = key.partition(":")
            shown = documents.get(what, what) if step == DISCOVER else what
            names[key] = (
                f"{STAGES[step].capitalize()}: {shown}" if shown else STAGES[step].capitalize()
            )
        return names

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        review = _review(params)
        step, _, what = key.partition(":")
        if step == DISCOVER:
            return self.discover(review, int(what))
        if step == MAP:
            present = {DocumentType(d.document_type) for d in review.documents}
            categories = dict.fromkeys(r.category for r in review.methodology.requirements)
            return {
                category: [t.value for t in sources_for(category) if t in present]
                for category in categories
            }
        if step == EVIDENCE:
            return self.evidence(review, what)
        if step == VALIDATE:
            found = refresh(review)
            statuses = [c.status.value for c in found.checks]
            return {
                "checks": len(statuses),
                "failed": statuses.count("fail"),
                "warnings": statuses.count("warning"),
            }
        review.status = ReviewStatus.assessed
        counts: dict[str, int] = {}
        for record in review.requirements:
            counts[record.status or "missing"] = counts.get(record.status or "missing", 0) + 1
        return counts

    def discover(self, review: Review, document_id: int) -> dict[str, Any]:
        document = next((d for d in review.documents if d.id == document_id), None)
        if document is None:
            raise ItemError("The document was deleted.")
        if document.pages is None and document.kind == "pdf":
            docs.read_pdf(document)
        if document.error:
            raise ItemError(f"{document.filename}: {document.error}")
        kinds = [p.kind for p in docs.pages(document)]
        return {
            "type": document.document_type,
            "pages": len(kinds),
            "contents": kinds.count(PageKind.contents),
            "no_text": kinds.count(PageKind.no_text),
        }

    def evidence(self, review: Review, requirement_id: str) -> dict[str, Any]:
        record = requirement(review, requirement_id)
        wanted = review.methodology.requirement(requirement_id)
        if record is None or wanted is None:
            raise ItemError(f"The checklist has no requirement {requirement_id}.")
        snippets = find_evidence(wanted, docs.source_documents(review))
        record.snippets = [s.to_dict() for s in snippets]
        record.problems = []
        fields = {v.field.value for v in entered_values(review)}
        record.status = coverage(wanted, snippets, fields).value
        return {"snippets": len(snippets), "status": record.status}

    def failed_items(self, run: Any) -> int:
        return len(run.item_errors)

    def review_url(self, run: Any) -> str | None:
        return f"/registry/{run.params['review_id']}"


def latest_runs(review_ids: list[int]) -> dict[int, Run]:
    """Each review's latest run."""
    query = (
        select(Run).where(Run.target_type == REVIEW, Run.target_id.in_(review_ids)).order_by(Run.id)
    )
    return {run.target_id: run for run in db.session.scalars(query)}
