"""Enriching a table's column: start a run, watch its research log live, review the proposal
row by row, apply, undo. Its JSON API is in api.py."""

from __future__ import annotations

from typing import Any

from flask import Response, abort, flash, redirect, request, url_for
from flask_login import current_user

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.extensions import db, htmx
from webapp.ids import record_id, record_ids
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress
from webapp.pagination import page_number
from webapp.problems import Unavailable
from webapp.rendering import render_page
from webapp.review import service as review
from webapp.review.vocabulary import level_filter
from webapp.tables import bp
from webapp.tables.models import DataTable
from webapp.tables.proposals import (
    latest_log,
    log_page,
    outcome_counts,
    refusal_messages,
    reject_rows,
    run_level_counts,
)
from webapp.tables.runs import (
    EnrichInvalid,
    TableEnrichment,
    reasoning,
    row_labels,
    row_suggestions,
    start_enrichment,
)
from webapp.tables.strategies import get_all_strategies
from webapp.tables.target import TableApply, apply_rows
from webapp.tables.views import table_or_404
from webapp.text import listed


def enrichment_run_or_404(run_id: int, table: DataTable | None = None) -> Run:
    run = db.get_or_404(Run, run_id)
    if run.kind != TableEnrichment.name or (table and run.params.get("table_id") != table.id):
        abort(404)
    return run


def strategy_params(form) -> dict:
    params = {}
    for name in ("question", "formula", "thoroughness"):
        value = (form.get(name) or "").strip()
        if value:
            params[name] = value
    return params


@bp.post("/<int:table_id>/enrich")
@require_role(Role.editor)
def enrich(table_id: int):
    table = table_or_404(table_id)
    # No row ticked is every row; rows ticked that name none of the table's are no row at all.
    ticked = request.form.getlist("row")
    try:
        run = start_enrichment(
            table,
            request.form.get("column", ""),
            request.form.get("strategy", ""),
            strategy_params(request.form),
            record_ids(ticked) if ticked else None,
            current_user,
        )
    except (EnrichInvalid, Unavailable) as exc:
        if htmx:
            return render_page("tables/_enrich_error.html", message=str(exc)), 422
        flash(str(exc), "error")
        return redirect(url_for("tables.show", table_id=table.id))
    except RunInProgress as exc:
        if htmx:
            return render_page("tables/_enrich_error.html", message=exc.link()), 422
        flash(exc.link(), "warning")
        return redirect(url_for("tables.show", table_id=table.id))
    target = url_for("tables.enrichment_run", table_id=table.id, run_id=run.id)
    if htmx:
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target)


def review_args(values) -> dict[str, Any]:
    """Where in a review a request stands (its page and level filter), to come back to."""
    number = page_number(values)
    return {"page": number if number > 1 else None, "level": level_filter(values.get("level"))}


def back_to_review(table: DataTable, run: Run, **extra):
    return redirect(
        url_for(
            "tables.enrichment_run",
            table_id=table.id,
            run_id=run.id,
            **review_args(request.form),
            **extra,
        )
    )


@bp.get("/<int:table_id>/runs/<int:run_id>")
def enrichment_run(table_id: int, run_id: int):
    """A live run's newest rows, polled; a finished one's proposal a page of rows at a time,
    with counts over all of them."""
    table = table_or_404(table_id)
    run = enrichment_run_or_404(run_id, table)
    outcomes = outcome_counts(run)
    context: dict[str, Any] = {"outcomes": outcomes}
    if run.is_live:
        context.update(log=latest_log(run), reasoning=run.params["reasoning"])
    else:
        level = level_filter(request.args.get("level"))
        page = log_page(run, page_number(request.args), level)
        suggestions = row_suggestions(run, [e["row_id"] for e in page.items])
        review.look_up_now(suggestions.values())
        undo = request.args.get("undo", "")
        context.update(
            log=page.items,
            page=page,
            level=level,
            suggestions=suggestions,
            counts=run_level_counts(run),
            valid_pending=review.valid_pending_count(run, level),
            reasoning=reasoning(run, outcomes.get("found", 0)),
            undo_group=undo if undo.isalnum() else "",
        )
    return render_page(
        "tables/enrichment.html", "live", table=table, run=run, form=EmptyForm(), **context
    )


def chosen_rows() -> list[int]:
    return record_ids(request.form.getlist("apply"))


def flash_refusals(run: Run, refused: list[dict[str, Any]]) -> None:
    labels = row_labels(run, {r["row_id"] for r in refused})
    for message in refusal_messages(refused, labels):
        flash(message, "error")


def posted_to(table_id: int, run_id: int) -> tuple[DataTable, Run]:
    """The table and run a review form posts to (its CSRF token checked for every POST)."""
    table = table_or_404(table_id)
    run = enrichment_run_or_404(run_id, table)
    return table, run


def answer_apply(table: DataTable, run: Run, result: TableApply):
    """Committed, said (refusals by row label, a few per reason), and back to the review
    with the apply's undo (POST, redirect, GET)."""
    db.session.commit()
    if result.applied:
        flash(f"Applied {len(result.applied):,} row(s).", "success")
    elif not result.refused:
        flash("Nothing was applied.", "warning")
    flash_refusals(run, result.refused)
    return back_to_review(table, run, undo=result.group or None)


@bp.post("/<int:table_id>/runs/<int:run_id>/apply")
@require_role(Role.reviewer)
def apply(table_id: int, run_id: int):
    table, run = posted_to(table_id, run_id)
    chosen = chosen_rows()
    edits = {
        row_id: value
        for key, value in request.form.items()
        if key.startswith("value-") and (row_id := record_id(key.removeprefix("value-")))
    }
    if not chosen:
        flash("Choose the rows to apply.", "warning")
        return back_to_review(table, run)
    reconfirm = record_ids(request.form.getlist("reconfirm"))
    result = apply_rows(
        run, chosen, current_user, {i: edits[i] for i in chosen if i in edits}, reconfirm
    )
    return answer_apply(table, run, result)


@bp.post("/<int:table_id>/runs/<int:run_id>/reject")
@require_role(Role.reviewer)
def reject(table_id: int, run_id: int):
    table, run = posted_to(table_id, run_id)
    chosen = chosen_rows()
    if not chosen:
        flash("Choose the rows to reject.", "warning")
        return back_to_review(table, run)
    rejected = reject_rows(run, chosen, current_user)
    db.session.commit()
    if rejected:
        names = row_labels(run, rejected)
        flash(
            f"Rejected {len(rejected)} row(s): {listed(sorted(names[i] for i in rejected))}.",
            "info",
        )
    else:
        flash("Nothing was rejected: those rows are decided already.", "warning")
    return back_to_review(table, run)


@bp.context_processor
def enrichment_choices() -> dict:
    """The strategies the table page offers in its enrich form."""
    return {"strategies": get_all_strategies()}
