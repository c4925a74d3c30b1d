"""Run pages: the list, one run with live progress, cancel and resume; and their JSON API."""

from __future__ import annotations

from flask import Response, abort, flash, jsonify, redirect, request, url_for
from flask_login import current_user
from sqlalchemy.orm import defer

from webapp.api import api_error
from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.contract import Name, Paging, accepts
from webapp.exports import csv_text
from webapp.extensions import db
from webapp.jobs import api, bp
from webapp.jobs.kinds import RUN_KINDS
from webapp.jobs.listing import PER_PAGE, RunFilters, kinds_in_use, page_of_runs, run_or_404
from webapp.jobs.maintenance import IntegrityCheck
from webapp.jobs.models import Run
from webapp.jobs.queue import (
    QueueUnavailable,
    RunStateError,
    enqueue_run,
    request_cancel,
    resume_run,
)
from webapp.pagination import page_number, per_page
from webapp.rendering import render_page


def kind_title(name: str) -> str:
    """A run kind in words ("Culture enrichment"); a kind no longer registered by its name."""
    kind = RUN_KINDS.get(name)
    return kind.title if kind else name


def may_control(run: Run) -> bool:
    """The person who started a run, or an administrator, may cancel or resume it."""
    return current_user.can(Role.admin) or (
        current_user.can(Role.editor) and run.requested_by_id == current_user.id
    )


def controlled_run_or_403(run_id: int) -> Run:
    run = run_or_404(run_id)
    if not may_control(run):
        abort(403, description="Only the person who started this run or an administrator may.")
    return run


@bp.route("/runs")
def list_runs():
    filters = RunFilters.from_args(request.args, current_user)
    page = page_of_runs(filters, page_number(request.args))
    return render_page(
        "runs/list.html",
        "run_table",
        page=page,
        filters=filters,
        kinds=[(name, kind_title(name)) for name in kinds_in_use(filters.hidden)],
    )


@bp.route("/runs/export.csv")
def export_runs():
    filters = RunFilters.from_args(request.args, current_user)
    columns = [
        "id",
        "kind",
        "title",
        "status",
        "done",
        "total",
        "requested_by",
        "created_at",
        "started_at",
        "finished_at",
        "error_code",
        "error_message",
    ]
    # Titles name cultures and tables, and error messages quote what providers said.
    body = csv_text(columns, (_export_row(run) for run in db.session.scalars(filters.query())))
    return Response(
        body,
        mimetype="text/csv",
        headers={"Content-Disposition": "attachment; filename=furrow-runs.csv"},
    )


def _export_row(run: Run) -> list:
    data = run.to_dict()
    return [
        run.id,
        run.kind,
        run.title,
        run.status,
        run.done,
        run.total,
        data["requested_by"],
        data["created_at"],
        data["started_at"],
        data["finished_at"],
        run.error_code,
        run.error_message,
    ]


@bp.route("/runs/<int:run_id>")
def show_run(run_id: int):
    run = run_or_404(run_id)
    kind = RUN_KINDS.get(run.kind)
    return render_page(
        "runs/detail.html",
        "run_status",
        run=run,
        kind_title=kind_title(run.kind),
        outcomes=kind().outcomes(run) if kind else [],
        review_url=kind().review_url(run) if kind and not run.is_live else None,
        result_link=kind().result_link(run) if kind else None,
        verdict=kind().verdict(run) if kind else None,
        chunks=run.chunk_summary(),
        may_control=may_control(run),
        form=EmptyForm(),
    )


@bp.route("/runs/<int:run_id>/cancel", methods=["POST"])
def cancel_run(run_id: int):
    run = controlled_run_or_403(run_id)
    try:
        request_cancel(run)
    except RunStateError as exc:
        flash(str(exc), "warning")
    else:
        flash(f"Run #{run.id}: {run.message}", "info")
    return redirect(url_for("runs.show_run", run_id=run.id))


@bp.route("/runs/<int:run_id>/resume", methods=["POST"])
def resume(run_id: int):
    run = controlled_run_or_403(run_id)
    try:
        resume_run(run)
    except (RunStateError, QueueUnavailable) as exc:
        flash(str(exc), "error")
    else:
        flash(f"Run #{run.id} is queued again: {run.message}", "success")
    return redirect(url_for("runs.show_run", run_id=run.id))


@bp.route("/maintenance/integrity-check", methods=["POST"])
@require_role(Role.admin)
def start_integrity_check():
    try:
        run = enqueue_run(IntegrityCheck, current_user)
    except QueueUnavailable as exc:
        flash(str(exc), "error")
        return redirect(request.referrer or url_for("main.home"))
    return redirect(url_for("runs.show_run", run_id=run.id))


# JSON API: the same permissions as the pages.


class RunQuery(Paging):
    status: Name = ""
    kind: Name = ""
    mine: Name = ""


@api.get("/runs")
@accepts(query=RunQuery, summary="Runs, newest first, filtered and paged.")
def api_list_runs():
    filters = RunFilters.from_args(request.args, current_user)
    page = page_of_runs(filters, page_number(request.args), per_page(request.args, PER_PAGE))
    return jsonify(page.as_json("runs", [run.to_dict() for run in page.items]))


@api.get("/runs/<int:run_id>")
@accepts(summary="One run: status, progress, counts of its items, chunks, usage.")
def api_show_run(run_id: int):
    # Results by item may be megabytes of JSON the answer does not show: read only if wanted.
    return jsonify(run_or_404(run_id, defer(Run.results)).to_dict())


# A page of a run's items; a table run's may be 100,000 rows.
ITEMS_PER_PAGE = 100


@api.get("/runs/<int:run_id>/items")
@accepts(query=Paging, summary="A run's items in order, paged: key, status, result, error.")
def api_run_items(run_id: int):
    run = run_or_404(run_id)
    number, size = page_number(request.args), per_page(request.args, ITEMS_PER_PAGE, 500)
    page, items = run.item_page(number, size)
    return jsonify(run_id=run.id, status=run.status, **page.as_json("items", items))


def api_run_action(run_id: int, action) -> tuple[Response, int]:
    run = controlled_run_or_403(run_id)
    try:
        action(run)
    except RunStateError as exc:
        return api_error(409, "run_state_conflict", str(exc), {"status": run.status})
    return jsonify(run.to_dict()), 202


@api.post("/runs/<int:run_id>/cancel")
@accepts(answers={202: "Cancel asked."}, summary="Cancel a run (its owner or an admin).")
def api_cancel_run(run_id: int):
    return api_run_action(run_id, request_cancel)


@api.post("/runs/<int:run_id>/resume")
@accepts(answers={202: "Queued again."}, summary="Resume a run (its owner or an admin).")
def api_resume_run(run_id: int):
    return api_run_action(run_id, resume_run)


@api.get("/runs/<int:run_id>/proposal")
@accepts(summary="A run's proposal as one document (table enrichment).")
def api_run_proposal(run_id: int):
    """The run's proposal as one document, for the kinds that keep one (table enrichment)."""
    run = run_or_404(run_id)
    kind = RUN_KINDS.get(run.kind)
    document = kind().proposal(run) if kind else None
    if document is None:
        abort(404, description=f"Run #{run_id} has no proposal document.")
    return jsonify(status=run.status, **document)


@api.post("/maintenance/integrity-check")
@require_role(Role.admin)
@accepts(answers={202: "Queued."}, summary="Check the data's integrity in a run.")
def api_start_integrity_check():
    run = enqueue_run(IntegrityCheck, current_user)
    return jsonify(run_id=run.id, url=url_for("runs_api.api_show_run", run_id=run.id)), 202
