"""The review run: one item per step, so its stage shows in the progress — discovery (each
document read and classified), mapping (each category to the kinds of document that can hold
its evidence), evidence (each requirement), cross-validation, report."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from flask import current_app
from sqlalchemy import select

from webapp.ai import ProviderError, ProviderUnavailable
from webapp.auth.models import User
from webapp.auth.roles import Role
from webapp.database import insert_unless_there, utcnow
from webapp.extensions import db
from webapp.jobs.kinds import ItemError, ItemOutcome, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.jobs.runner import add_usage
from webapp.problems import Invalid
from webapp.registry import documents as docs
from webapp.registry import extraction
from webapp.registry.answers import asked_in
from webapp.registry.assessment import field_values
from webapp.registry.checklist import Requirement
from webapp.registry.discovery import DocumentType, sources_for
from webapp.registry.evidence import (
    COVERAGE_LABELS,
    SNIPPETS_PER_DOCUMENT,
    Coverage,
    Passage,
    SourceDocument,
    coverage,
    find_evidence,
    same_passage,
)
from webapp.registry.models import EvidenceAnswer, Review, ReviewStatus
from webapp.registry.pages import PageKind
from webapp.registry.review_state import entered_values, mark_running, refresh, requirement, styles
from webapp.registry.target import REVIEW
from webapp.registry.words import status_label, type_label

DISCOVER, MAP, EVIDENCE, VALIDATE, REPORT = "discover", "map", "evidence", "validate", "report"
STAGES = {
    DISCOVER: "discovery",
    MAP: "mapping",
    EVIDENCE: "evidence",
    VALIDATE: "cross-validation",
    REPORT: "report",
}


if TYPE_CHECKING:
    from webapp.ai.client import StructuredClient


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
    settings = current_app.config["FURROW"]
    run = enqueue_run(
        ReviewAssessment, user, {"review_id": review.id}, target=(REVIEW, review.id),
        provider=settings.provider,
        model=settings.openai_model if settings.provider == "openai" else None,
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
    seen_by = Role.editor  # registry reviews are for editors and up
    result_labels = {
        "type": "Kind",
        "pages": "Pages",
        "contents": "Contents pages",
        "no_text": "Pages without text",
        "categories": "Categories",
        "unmapped": "Categories without their kinds of document",
        "snippets": "Snippets",
        "status": "Status",
        "checks": "Checks",
        "failed": "Failed",
        "warnings": "Warnings",
        **{coverage.value: label for coverage, label in COVERAGE_LABELS.items()},
    }
    # Results keep their codes (the API's); the run page shows them in words.
    shown_as = {"Kind": type_label, "Status": status_label}

    def __init__(self) -> None:
        self._client: StructuredClient | None = None
        self._sources: list[SourceDocument] | None = None

    def sources(self, review: Review) -> list[SourceDocument]:
        """The review's documents as read by discovery, made into pages once per run: every
        requirement's evidence is looked for in the same pages."""
        if self._sources is None:
            self._sources = docs.source_documents(review)
        return self._sources

    def client(self) -> StructuredClient:
        """The openai provider's client, made once per run (the SDK client is thread-safe)."""
        if self._client is None:
            from webapp.ai.client import StructuredClient  # the SDK loads only when asked

            try:
                self._client = StructuredClient(current_app.config["FURROW"])
            except ProviderUnavailable as exc:
                raise ItemError(str(exc)) from exc
        return self._client

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

    def chunk_size(self, params: dict[str, Any]) -> int | None:
        # Its items run in order: evidence needs discovery done, the report everything.
        return None

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
            fields: dict[str, list[str]] = {}
            for wanted in review.methodology.requirements:
                fields.setdefault(wanted.category, []).extend(wanted.structured_fields)
            mapping = {
                category: [t.value for t in sources_for(category, named) if t in present]
                for category, named in fields.items()
            }
            unmapped = sum(1 for kinds in mapping.values() if not kinds)
            return {"categories": len(mapping), "unmapped": unmapped, "mapping": mapping}
        if step == EVIDENCE:
            return self.evidence(review, what, run_id)
        if step == VALIDATE:
            found = refresh(review)
            statuses = [c.status.value for c in found.checks]
            return {
                "checks": len(statuses),
                "failed": statuses.count("fail"),
                "warnings": statuses.count("warning"),
            }
        review.status = ReviewStatus.assessed
        counts = Counter(record.status or Coverage.missing.value for record in review.requirements)
        return {c.value: counts[c.value] for c in Coverage if counts[c.value]}

    def outcomes(self, run: Any) -> list[ItemOutcome]:
        return [
            replace(
                outcome,
                counts=tuple(
                    (label, self.shown_as[label](value) if label in self.shown_as else value)
                    for label, value in outcome.counts
                ),
            )
            for outcome in super().outcomes(run)
        ]

    def discover(self, review: Review, document_id: int) -> dict[str, Any]:
        document = next((d for d in review.documents if d.id == document_id), None)
        if document is None:
            raise ItemError("The document was deleted.")
        if document.pages is None and document.kind in docs.READ_BY_RUN:
            docs.read_in_sandbox(document)
        if document.error:
            raise ItemError(f"{document.filename}: {document.error}")
        kinds = [p.kind for p in docs.pages(document)]
        return {
            "type": document.document_type,
            "pages": len(kinds),
            "contents": kinds.count(PageKind.contents),
            "no_text": kinds.count(PageKind.no_text),
        }

    def evidence(self, review: Review, requirement_id: str, run_id: int) -> dict[str, Any]:
        """The requirement's snippets: offline, the passages that name its terms; with the
        openai provider, the model's (fields included), and why the others are not evidence."""
        record = requirement(review, requirement_id)
        wanted = review.methodology.requirement(requirement_id)
        if record is None or wanted is None:
            raise ItemError(f"The checklist has no requirement {requirement_id}.")
        sources = self.sources(review)
        problems: list[str] = []
        if current_app.config["FURROW"].provider == "openai":
            snippets, problems = model_evidence(self.client(), review, wanted, sources, run_id)
        else:
            snippets = find_evidence(wanted, sources, asked=asked_in(review.methodology))
        record.snippets = [s.to_dict() for s in snippets]
        record.problems = problems
        asked = set(wanted.structured_fields)
        carried = [v for v in field_values(snippets, styles(review)) if v.field in asked]
        fields = {v.field.value for v in [*entered_values(review), *carried]}
        record.status = coverage(wanted, snippets, fields).value
        return {"snippets": len(snippets), "status": record.status}

    def failed_items(self, run: Any) -> int:
        return len(run.item_errors)

    def review_url(self, run: Any) -> str | None:
        return f"/registry/{run.params['review_id']}"


def model_evidence(
    client: StructuredClient,
    review: Review,
    wanted: Requirement,
    sources: list[SourceDocument],
    run_id: int,
) -> tuple[list[Passage], list[str]]:
    """The model's snippets for one requirement from the documents its category maps to
    (every document when none of those kinds is there), best first, and the problems with its
    answers. Each answer is cached by document and requirement; those not cached are asked in
    parallel (the database is read and written on this thread only), their cost on the run.
    A provider that fails is this item's error, the answers it gave kept."""
    kinds = set(sources_for(wanted.category, wanted.structured_fields))
    chosen = [d for d in sources if d.type in kinds] or sources
    hashes = {d.id: d.sha256 for d in review.documents}
    keys = {d.key: extraction.cache_key(hashes[d.key], wanted) for d in chosen}
    query = select(EvidenceAnswer).where(EvidenceAnswer.key.in_(keys.values()))
    answers = {a.key: a.answer for a in db.session.scalars(query)}
    to_ask = [d for d in chosen if keys[d.key] not in answers and extraction.parts(d.pages)]
    problems: list[str] = []
    if to_ask:
        problems, failures = ask_documents(client, wanted, to_ask, keys, answers, run_id)
        if failures:
            raise ItemError("; ".join(failures))
    snippets = []
    seen: set[str] = set()  # a passage two documents share (a public copy) counts once
    date_styles = styles(review)  # a person's word on how a document writes dates decides
    for document in chosen:
        answer = answers.get(keys[document.key])
        parsed = extraction.read_answer_json(wanted, answer) if answer is not None else None
        if parsed is None:
            continue
        found, wrong = extraction.read_snippets(
            parsed, document.key, document.name, document.pages,
            date_styles.get(document.key), wanted,
        )  # fmt: skip
        kept = 0
        for snippet in sorted(found, key=lambda s: -s.confidence):
            if kept < SNIPPETS_PER_DOCUMENT and same_passage(snippet.text) not in seen:
                seen.add(same_passage(snippet.text))
                snippets.append(snippet)
                kept += 1
        problems += wrong
    snippets.sort(key=lambda s: -s.confidence)
    return snippets, problems


def ask_documents(
    client: StructuredClient,
    wanted: Requirement,
    documents: list[SourceDocument],
    keys: dict[int, str],
    answers: dict[str, Any],
    run_id: int,
) -> tuple[list[str], list[str]]:
    """Ask the model about each document at once; keep (commit) each usable answer in the
    cache and in answers, and the usage on the run. Returns the answers' problems and the
    provider's failures."""
    db.session.commit()  # end the read: no database lock waits on the model
    at_once = min(client.settings.model_concurrency, len(documents))
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        futures = [
            (d, pool.submit(extraction.ask_document, client, wanted, d.name, d.pages))
            for d in documents
        ]
    problems, failures = [], []
    for document, future in futures:
        try:
            asked = future.result()
        except ProviderError as exc:
            add_usage(run_id, exc.usage)
            failures.append(f"{document.name}: {exc}")
            continue
        problems += asked.problems
        if asked.answer is not None:
            key = keys[document.key]
            answers[key] = asked.answer
            cost = asked.usage.cost_usd
            row = {"key": key, "answer": asked.answer, "cost_usd": cost, "created_at": utcnow()}
            insert_unless_there(db.session, EvidenceAnswer.__table__, row)
        add_usage(run_id, asked.usage)  # commits the answer with it
    db.session.commit()
    return problems, failures


def latest_runs(review_ids: list[int]) -> dict[int, Run]:
    """Each review's latest run."""
    query = (
        select(Run).where(Run.target_type == REVIEW, Run.target_id.in_(review_ids)).order_by(Run.id)
    )
    return {run.target_id: run for run in db.session.scalars(query)}
