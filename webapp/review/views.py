"""The one review API every workspace shares: a run's suggestions with their issues and
findings, apply, reject, and undo of a group."""

from __future__ import annotations

from typing import Annotated, Any

from flask import abort, jsonify
from flask_login import current_user
from pydantic import Field
from sqlalchemy import select

from webapp.api import BodyInvalid, api_error, applied_answer, json_body
from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.contract import Ids, Number, RequestModel, Text, Whole, accepts
from webapp.database import among
from webapp.extensions import db
from webapp.jobs.kinds import RUN_KINDS, RunKind
from webapp.jobs.listing import run_or_404
from webapp.jobs.models import Run
from webapp.review import api, rejections, service
from webapp.review.models import Suggestion, SuggestionStatus
from webapp.review.service import RunTarget
from webapp.review.targets import ReviewTarget, target_for

SEVERITY_KEYS = {"error": "errors", "warning": "warnings"}


def reviewed_run_or_404(run_id: int) -> tuple[Run, RunKind, ReviewTarget]:
    run = run_or_404(run_id)
    kind = RUN_KINDS.get(run.kind)
    target = target_for(kind.target_kind) if kind and kind.target_kind else None
    if kind is None or target is None:
        abort(404, description=f"Run #{run_id} proposes no values to review.")
    return run, kind(), target


class Choose(RequestModel):
    suggestions: Ids | None = None
    all_valid: bool | None = None


class ApplyBody(Choose):
    reconfirm: Ids | None = None
    edits: (
        dict[Annotated[str, Field(pattern=r"^[0-9]{1,18}$")], Whole | Number | Text | None] | None
    ) = None


@api.get("/runs/<int:run_id>/suggestions")
@accepts(summary="Every record of a run with its suggestions, issues and findings.")
def run_suggestions(run_id: int):
    """Every record of the run — suggestions or not: a record that got none still says why in
    its validation — with each suggestion's id, status, evidence and issues."""
    run, kind, target = reviewed_run_or_404(run_id)
    items = [
        _item(run, kind, target, entry)
        for entry in service.run_targets(run, target, kind.target_ids(run))
    ]
    return jsonify(run_id=run.id, status=run.status, target_type=target.kind, targets=items)


def _item(run: Run, kind: RunKind, target: ReviewTarget, entry: RunTarget) -> dict[str, Any]:
    key = kind.item_key(run, entry.id)
    item_error = run.item_errors.get(key)
    validation: dict[str, list] = {"errors": [], "warnings": [], "info": []}
    suggestions = []
    labels = target.labels_of(entry.id, [s.field for s in entry.suggestions])
    for s in entry.suggestions:
        suggestions.append(
            {
                "id": s.id,
                "field": s.field,
                "label": labels[s.field],
                "value": s.suggested_value,
                "unit": s.unit,
                "confidence": s.confidence,
                "current_value": s.current_value,
                "status": s.status,
                "evidence": s.evidence,
                "issues": s.issues,
            }
        )
        for issue in s.issues:
            validation[SEVERITY_KEYS.get(issue.get("severity"), "info")].append(issue)
    findings = [f.to_dict() for f in entry.findings]
    for finding in findings:
        validation[SEVERITY_KEYS.get(finding["severity"], "info")].append(finding)
    if item_error:
        validation["errors"].append(
            {"code": "item_failed", "severity": "error", "field": None, "message": item_error}
        )
    done = key in run.done_keys()
    return {
        "type": target.kind,
        "id": entry.id,
        "name": entry.name,
        "url": target.url(entry.id) if entry.name is not None else None,
        "state": "failed" if item_error else "done" if done else "waiting",
        "suggestions": suggestions,
        "findings": findings,
        "validation": validation,
        **kind.item_details(run, entry),
    }


def _ids(body: dict, name: str) -> list[int]:
    """A list of ids from a body the contract (ApplyBody, Choose) has already checked."""
    return body.get(name) or []


def chosen_of_run(run: Run, body: dict) -> tuple[list[int], list[int]]:
    """The suggestion ids a body chooses among the run's ({"suggestions": [ids]} or
    {"all_valid": true}), and those it names that are not the run's."""
    if body.get("all_valid") is True:
        # The service leaves the invalid ones out (skip_invalid).
        query = select(Suggestion.id).where(
            Suggestion.run_id == run.id, Suggestion.status == SuggestionStatus.pending
        )
        return list(db.session.scalars(query)), []
    wanted = _ids(body, "suggestions")
    if not wanted:
        raise BodyInvalid('Send {"suggestions": [ids]} or {"all_valid": true}.', loc="suggestions")
    query = select(Suggestion.id).where(
        Suggestion.run_id == run.id, among(db.session, Suggestion.id, wanted)
    )
    mine = set(db.session.scalars(query))
    return [i for i in wanted if i in mine], [i for i in wanted if i not in mine]


def _not_the_runs(ids: list[int]) -> list[dict[str, Any]]:
    return [
        service.Refusal(i, "", 0, "", "no_suggestion", "The run made no such suggestion.").to_dict()
        for i in ids
    ]


@api.post("/runs/<int:run_id>/apply")
@require_role(Role.reviewer)
@accepts(
    ApplyBody,
    answers={200: "Applied; `undo_group` undoes it.", 422: "Some were refused, with reasons."},
    summary="Apply chosen suggestions (or all valid ones) as one undoable group.",
)
def apply(run_id: int):
    """{"suggestions": [ids]} or {"all_valid": true}, with "reconfirm": [ids] and
    "edits": {id: value}; answers what was applied, what was refused and why, and the group
    to undo."""
    run, _kind, _target = reviewed_run_or_404(run_id)
    body = json_body()
    chosen, foreign = chosen_of_run(run, body)
    edits = body.get("edits") or {}
    result = service.apply(
        chosen,
        current_user,
        reconfirm=_ids(body, "reconfirm"),
        edits={int(k): v for k, v in edits.items()},
        skip_invalid=body.get("all_valid") is True,
    )
    db.session.commit()
    refused = [r.to_dict() for r in result.refused] + _not_the_runs(foreign)
    answer = {"applied": result.applied_ids, "refused": refused, "undo_group": result.group}
    return applied_answer(answer, refused)


@api.post("/runs/<int:run_id>/reject")
@require_role(Role.reviewer)
@accepts(Choose, summary="Reject chosen suggestions (or all valid ones).")
def reject(run_id: int):
    run, _kind, _target = reviewed_run_or_404(run_id)
    chosen, foreign = chosen_of_run(run, json_body())
    done = rejections.reject(chosen, current_user)
    db.session.commit()
    return jsonify(rejected=done.ids, refused=_not_the_runs(foreign), undo_group=done.group)


@api.post("/undo/<group>")
@require_role(Role.reviewer)
@accepts(
    answers={200: "Undone.", 409: "Nothing undone: a value changed since."},
    summary="Undo one apply (or decision) across every record it changed.",
)
def undo(group: str):
    """Undo one apply (or decision) across every record it changed, unless one changed since."""
    if service.undoable_group(group) is None:
        return api_error(404, "not_found", "There is no such group of changes to undo.")
    result = service.undo(group, current_user)
    db.session.commit()
    if result.changed_since:
        return api_error(
            409,
            "changed_since",
            "Nothing was undone: some values changed since.",
            {"fields": sorted(set(result.changed_since))},
        )
    return jsonify(restored=result.restored, undo_group=result.group)
