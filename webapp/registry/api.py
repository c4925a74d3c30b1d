"""The registry reviews' JSON API (/api/v1/reviews): reviews and their documents, the run,
evidence, reviewer input, validation, verdicts, the outcome, the report in three formats, and the
evidence and validation as JSON downloads (`evidence.json`, `validation.json`).
Editors and up for all of it (project documents name their owners); verdicts and the overall
outcome need a reviewer. API tokens carry their user's role."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from typing import Annotated, Any, Literal

from flask import Response, abort, jsonify, render_template, request
from flask_login import current_user
from pydantic import Field, RootModel

from webapp.api import api_error, json_body
from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.contract import Name, Paging, RequestModel, Text, accepts
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.library.documents import read_upload
from webapp.pagination import page_number, paginate, per_page
from webapp.problems import Problem
from webapp.registry import api, report, review_state, rounds
from webapp.registry import documents as docs
from webapp.registry.checklist import (
    BUNDLED,
    REGISTRATION,
    ChecklistInvalid,
    StructuredField,
    bundled,
    bundled_name,
    read_checklist,
)
from webapp.registry.dates import DateStyle
from webapp.registry.discovery import DocumentType
from webapp.registry.models import Review, ReviewDocument
from webapp.registry.pages import PageKind
from webapp.registry.runs import ReviewBusy, latest_runs, live_run, start_review_run
from webapp.registry.target import OUTCOMES, VERDICTS, Decision
from webapp.uploads import UploadRefused

PER_PAGE = 25
MOST_DOCUMENTS_AT_ONCE = 50
RUN_ANSWERS = {202: "Queued: run_id is the run.", 409: "A run is live: details.run_id."}


def iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def review_or_404(review_id: int) -> Review:
    return db.get_or_404(Review, review_id, description=f"There is no review #{review_id}.")


def document_or_404(review: Review, document_id: int) -> ReviewDocument:
    found = next((d for d in review.documents if d.id == document_id), None)
    if found is None:
        abort(404, description=f"The review has no document #{document_id}.")
    return found


def decision_dict(decision: Decision) -> dict[str, Any]:
    return {"comment": decision.comment or "", "by": decision.by, "at": iso(decision.at)}


def document_dict(document: ReviewDocument, chosen: DateStyle | None = None) -> dict[str, Any]:
    """A document as the API shows it; chosen: how a person said it writes dates."""
    kinds = [p.kind for p in docs.pages(document)] if document.pages is not None else None
    return {
        "id": document.id,
        "filename": document.filename,
        "kind": document.kind,
        "size": document.size_bytes,
        "document_type": document.document_type,
        "type_set_by_person": document.type_set_by_person,
        "date_style": chosen.value if chosen else document.date_style,
        "date_style_set_by_person": chosen is not None,
        "pages": len(kinds) if kinds is not None else None,
        "contents_pages": kinds.count(PageKind.contents) if kinds is not None else None,
        "no_text_pages": kinds.count(PageKind.no_text) if kinds is not None else None,
        "error": document.error,
    }


def run_dict(run: Run | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {
        "id": run.id,
        "status": run.status,
        "created_at": iso(run.created_at),
        "finished_at": iso(run.finished_at),
        "provider": run.provider,
        "cost_usd": float(run.cost_usd or 0),
    }


def summary_dict(review: Review, run: Run | None) -> dict[str, Any]:
    return {
        "id": review.id,
        "name": review.name,
        "checklist": review.checklist_name,
        "status": review.status,
        "reviewer": review.reviewer.display_name if review.reviewer else None,
        "documents": len(review.documents),
        "run_id": run.id if run else None,
        "run_status": run.status if run else None,
        "created_at": iso(review.created_at),
    }


def review_dict(review: Review) -> dict[str, Any]:
    run = db.session.get(Run, review.run_id) if review.run_id else None
    outcome = review_state.outcome(review)
    chosen = review_state.chosen_styles(review)
    suggestion = rounds.suggestion(review)
    return summary_dict(review, run) | {
        "bundled_checklist": bundled_name(review.checklist),
        "suggested_checklist": suggestion.to_dict() if suggestion else None,
        "documents": [document_dict(d, chosen.get(d.id)) for d in review.documents],
        "outcome": {"outcome": outcome.value, **decision_dict(outcome)} if outcome else None,
    }


def entered_dict(review: Review) -> dict[str, dict[str, Any]]:
    """The fields reviewers entered, by name: the newest entry's value, document (by name),
    page, who and when, and `entries`, the field's value from each document it was entered
    from."""
    names = {d.id: d.filename for d in review.documents}
    found: dict[str, dict[str, Any]] = {}
    for entry in review_state.entered(review):
        one = {
            "value": entry.value,
            "document": names.get(entry.document_id),
            "document_id": entry.document_id,
            "page": entry.page,
            **decision_dict(entry.decision),
        }
        field = found.setdefault(entry.field.value, {"entries": []})
        field["entries"].append(one)
        if field.get("at") is None or one["at"] >= field["at"]:
            field.update(one)
    return found


def requirements_of(review: Review) -> list[dict[str, Any]]:
    """Each requirement with its stored status (None before the first run), the evidence of
    the review's assessment and the problems its last run recorded (a passage not on its
    page, an unusable or refused answer)."""
    stored = {r.requirement_id: r for r in review.requirements}
    found = []
    for result in review_state.assessment(review).requirements:
        wanted = result.requirement
        record = stored.get(wanted.requirement_id)
        found.append(
            {
                "requirement_id": wanted.requirement_id,
                "category": wanted.category,
                "requirement_text": wanted.requirement_text,
                "validation_type": wanted.validation_type.value,
                "structured_fields": [f.value for f in wanted.structured_fields],
                "figures": [f.value for f in wanted.figures],
                "mandatory": wanted.mandatory,
                "status": record.status if record else None,
                "snippets": [s.snippet_dict() for s in result.snippets],
                "problems": list(record.problems or []) if record else [],
            }
        )
    return found


def report_of(review: Review) -> dict[str, Any]:
    run = db.session.get(Run, review.run_id) if review.run_id else None
    outcome = review_state.outcome(review)
    chosen = review_state.chosen_styles(review)
    return report.build(
        summary_dict(review, run),
        requirements_of(review),
        entered_dict(review),
        review_state.checks(review),
        {
            rid: {"verdict": d.value, **decision_dict(d)}
            for rid, d in review_state.verdicts(review).items()
        },
        {"outcome": outcome.value, **decision_dict(outcome)} if outcome else None,
        [document_dict(d, chosen.get(d.id)) for d in review.documents],
        run_dict(run),
    )


# Requests


BundledName = Literal[tuple(BUNDLED)]  # type: ignore[valid-type]


class NewReview(RequestModel):
    name: Name
    # A bundled checklist by name (registration when neither is given), or a checklist of
    # their shape: read_checklist names each problem by its path.
    bundled_checklist: BundledName | None = None
    checklist: Annotated[dict[str, Any], Field(max_length=20)] | None = None


class ChecklistChoice(RequestModel):
    bundled_checklist: BundledName


class DocumentCorrection(RequestModel):
    """Either or both: the kind (null: the kind its name and pages show) and how the document
    writes dates (null: as its text shows)."""

    document_type: Literal[tuple(t.value for t in DocumentType)] | None = None  # type: ignore[valid-type]
    date_style: Literal[tuple(s.value for s in DateStyle)] | None = None  # type: ignore[valid-type]


Entry = dict[Name, Any]
Entries = Annotated[list[Entry], Field(max_length=MOST_DOCUMENTS_AT_ONCE)]


class EnteredFields(RootModel[Annotated[dict[Name, Entry | Entries | None], Field(max_length=50)]]):
    """{field: {value, document, page}}, or {field: [{value, document, page}, ...]} to enter a
    field from several documents at once: each entry is checked by the review
    (`fields.<name>` or `fields.<name>.<index>`); null clears the field from every document."""


class NewVerdict(RequestModel):
    requirement_id: Name
    verdict: Literal[tuple(VERDICTS)]  # type: ignore[valid-type]
    comment: Text | None = None


class NewOutcome(RequestModel):
    outcome: Literal[tuple(OUTCOMES)]  # type: ignore[valid-type]
    comment: Text | None = None


def checklist_from(given: dict[str, Any] | None):
    if given is None:
        return None
    try:
        return read_checklist(json.dumps(given))
    except ChecklistInvalid as invalid:
        raise ChecklistInvalid(
            [replace(p, loc=f"checklist.{p.loc}") for p in invalid.problems],
            summary="The checklist does not fit: " + invalid.message,
        ) from None


# Reviews


@api.get("")
@require_role(Role.editor)
@accepts(query=Paging, summary="Registry reviews, newest first, paged.")
def api_reviews():
    query = db.select(Review).order_by(Review.created_at.desc(), Review.id.desc())
    page = paginate(query, page_number(request.args), per_page(request.args, PER_PAGE))
    runs = latest_runs([r.id for r in page.items])
    return jsonify(page.as_json("reviews", [summary_dict(r, runs.get(r.id)) for r in page.items]))


@api.post("")
@require_role(Role.editor)
@accepts(
    NewReview,
    answers={201: "Created."},
    summary="A review with a bundled checklist (registration or issuance) or its own.",
)
def api_create():
    body = json_body()
    given = body.get("checklist")
    if given is not None and body.get("bundled_checklist") is not None:
        raise ChecklistInvalid(
            "Give checklist or bundled_checklist, not both.", loc="bundled_checklist"
        )
    checklist = checklist_from(given) or bundled(body.get("bundled_checklist") or REGISTRATION)
    review = review_state.create_review(body["name"], checklist, current_user)
    db.session.commit()
    return jsonify(review_dict(review)), 201


@api.get("/<int:review_id>")
@require_role(Role.editor)
@accepts(summary="A review, its documents and its run.")
def api_review(review_id: int):
    return jsonify(review_dict(review_or_404(review_id)))


@api.delete("/<int:review_id>")
@require_role(Role.reviewer)
@accepts(
    answers={204: "Deleted, with its files.", 409: "A run is assessing it."},
    summary="Delete a review and its files.",
)
def api_delete(review_id: int):
    review = review_or_404(review_id)
    if live_run(review) is not None:
        message = "The review is being assessed; wait for its run to end, then delete it."
        return api_error(409, ReviewBusy.code, message, {"run_id": review.run_id})
    stored = review_state.delete_review(review)
    db.session.commit()
    docs.remove_files(stored)
    return "", 204


@api.post("/<int:review_id>/checklist")
@require_role(Role.editor)
@accepts(
    ChecklistChoice,
    answers={200: "The review, with the new checklist's requirements.", 409: RUN_ANSWERS[409]},
    summary="Move a review to a bundled checklist (its requirements replace the old ones; "
    "entered fields stay); refused once verdicts were given.",
)
def api_switch_checklist(review_id: int):
    review = review_or_404(review_id)
    try:
        rounds.switch_checklist(review, json_body()["bundled_checklist"])
    except ReviewBusy as busy:
        db.session.rollback()
        return api_error(409, busy.code, busy.message, {"run_id": review.run_id})
    db.session.commit()
    return jsonify(review_dict(review))


# Documents


@api.post("/<int:review_id>/documents")
@require_role(Role.editor)
@takes_upload()
@accepts(answers={201: "Stored."}, summary="Add a document (multipart: file).")
def api_add_document(review_id: int):
    review = review_or_404(review_id)
    try:
        document = docs.add_document(review, *read_upload(request.files.get("file")), current_user)
    except UploadRefused as exc:
        raise UploadRefused(exc.code, f"{exc} Nothing was stored.") from exc
    db.session.commit()
    return jsonify(document_dict(document)), 201


@api.patch("/<int:review_id>/documents/<int:document_id>")
@require_role(Role.editor)
@accepts(DocumentCorrection, summary="Correct a document's kind or how it writes dates.")
def api_set_type(review_id: int, document_id: int):
    review = review_or_404(review_id)
    document = document_or_404(review, document_id)
    given = json_body()
    if not {"document_type", "date_style"} & given.keys():
        raise review_state.ReviewInvalid("Give document_type, date_style or both.")
    if "document_type" in given:
        docs.set_type(document, given["document_type"])
    if "date_style" in given:
        review_state.set_date_style(review, document, given["date_style"], current_user)
    db.session.commit()
    return jsonify(document_dict(document, review_state.chosen_styles(review).get(document.id)))


# The run and what it found


@api.post("/<int:review_id>/run")
@require_role(Role.editor)
@accepts(answers=RUN_ANSWERS, summary="Assess the review: discovery to report.")
def api_run(review_id: int):
    review = review_or_404(review_id)
    try:
        run = start_review_run(review, current_user)
    except ReviewBusy as busy:
        db.session.rollback()
        return api_error(409, busy.code, busy.message, {"run_id": review.run_id})
    return jsonify(run_id=run.id), 202


@api.get("/<int:review_id>/evidence")
@require_role(Role.editor)
@accepts(summary="Each requirement's status, evidence, entered fields and run's problems.")
def api_evidence(review_id: int):
    review = review_or_404(review_id)
    return jsonify(report.evidence(requirements_of(review), entered_dict(review)))


@api.get("/<int:review_id>/requirements/<requirement_id>")
@require_role(Role.editor)
@accepts(
    answers={200: "The requirement.", 404: "No such review or requirement."},
    summary="One requirement: status, verdict, evidence, entered fields, checks and the "
    "problems of its last run.",
)
def api_requirement(review_id: int, requirement_id: str):
    review = review_or_404(review_id)
    found = next(
        (r for r in requirements_of(review) if r["requirement_id"] == requirement_id), None
    )
    wanted = review.methodology.requirement(requirement_id)
    if found is None or wanted is None:
        abort(404, description=f"The checklist has no requirement {requirement_id}.")
    verdict = review_state.verdicts(review).get(requirement_id)
    asked = set(report.asked(found))
    return jsonify(
        found
        | report.evidence([found], entered_dict(review))["requirements"][0]
        | {
            "accepted_evidence": wanted.accepted_evidence,
            "verdict": {"verdict": verdict.value, **decision_dict(verdict)} if verdict else None,
            "checks": [c for c in review_state.checks(review) if c["field"] in asked],
        }
    )


@api.put("/<int:review_id>/fields")
@require_role(Role.editor)
@accepts(EnteredFields, summary="Enter fields, one per document and page (null clears).")
def api_fields(review_id: int):
    review = review_or_404(review_id)
    given = json_body()
    unknown = [f for f in given if f not in StructuredField.__members__]
    known = ", ".join(StructuredField.__members__)
    if unknown:
        raise review_state.ReviewInvalid(
            [
                Problem(f"{f} is not a field; use one of {known}.", loc=f"fields.{f}")
                for f in unknown
            ]
        )
    review_state.enter_fields(review, given, current_user)
    db.session.commit()
    return jsonify(fields=entered_dict(review))


@api.get("/<int:review_id>/validation")
@require_role(Role.editor)
@accepts(summary="The cross-validation checks of the review's run.")
def api_validation(review_id: int):
    return jsonify(checks=review_state.checks(review_or_404(review_id)))


# Decisions


@api.post("/<int:review_id>/verdicts")
@require_role(Role.reviewer)
@accepts(NewVerdict, answers={201: "Recorded."}, summary="A verdict on one requirement.")
def api_verdict(review_id: int):
    review = review_or_404(review_id)
    body = json_body()
    group = review_state.decide_requirement(
        review, body["requirement_id"], body["verdict"], body.get("comment"), current_user
    )
    db.session.commit()
    verdict = review_state.verdicts(review)[body["requirement_id"]]
    return jsonify(
        requirement_id=body["requirement_id"],
        verdict=verdict.value,
        **decision_dict(verdict),
        undo_group=group,
    ), 201


@api.post("/<int:review_id>/outcome")
@require_role(Role.reviewer)
@accepts(NewOutcome, answers={201: "Recorded."}, summary="The review's overall outcome.")
def api_outcome(review_id: int):
    review = review_or_404(review_id)
    body = json_body()
    group = review_state.set_outcome(review, body["outcome"], body.get("comment"), current_user)
    db.session.commit()
    outcome = review_state.outcome(review)
    return jsonify(outcome=outcome.value, **decision_dict(outcome), undo_group=group), 201


# Reports


def download(body: str, mimetype: str, review: Review, extension: str) -> Response:
    filename = report.download_name(review.name, review.id, extension)
    disposition = f'attachment; filename="{filename}"'
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": disposition})


@api.get("/<int:review_id>/report.html")
@require_role(Role.editor)
@accepts(media="text/html", summary="The report as a printable page.")
def api_report_html(review_id: int):
    review = review_or_404(review_id)
    return render_template("registry/report.html", report=report_of(review), when=report.when)


@api.get("/<int:review_id>/report.md")
@require_role(Role.editor)
@accepts(media="text/markdown", summary="The report as Markdown (a download).")
def api_report_md(review_id: int):
    review = review_or_404(review_id)
    # A downloaded file is read away from the site: its page links carry the site's address.
    text = report.to_markdown(report_of(review), base_url=request.host_url)
    return download(text, "text/markdown", review, "md")


@api.get("/<int:review_id>/report.json")
@require_role(Role.editor)
@accepts(summary="The report as JSON: summary, verdicts, evidence, validation (a download).")
def api_report_json(review_id: int):
    review = review_or_404(review_id)
    return download(report.to_json(report_of(review)), "application/json", review, "json")


def json_download(data: object, review: Review, what: str) -> Response:
    filename = report.download_name(review.name, review.id, "json", what)
    return Response(
        report.json_file(data),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@api.get("/<int:review_id>/evidence.json")
@require_role(Role.editor)
@accepts(summary="The evidence call's answer as a JSON file (a download).")
def api_evidence_json(review_id: int):
    review = review_or_404(review_id)
    found = report.evidence(requirements_of(review), entered_dict(review))
    return json_download(found, review, "evidence")


@api.get("/<int:review_id>/validation.json")
@require_role(Role.editor)
@accepts(summary="The validation call's answer as a JSON file (a download).")
def api_validation_json(review_id: int):
    review = review_or_404(review_id)
    return json_download(report.validation(review_state.checks(review)), review, "validation")
