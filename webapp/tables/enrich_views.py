"""Enriching a table's column: start a run, watch its research log live, review the proposal
row by row, apply, undo; and the API for the same."""

from __future__ import annotations

from typing import Annotated, Any

from flask import Response, abort, flash, jsonify, redirect, request, url_for
from flask_login import current_user
from pydantic import Field

from webapp.api import json_body
from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.contract import Ids, Name, RequestModel, accepts
from webapp.extensions import db, htmx
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress
from webapp.problems import Unavailable
from webapp.rendering import render_page
from webapp.tables import api, bp
from webapp.tables.enrichment import (
    API_ROW_LIMIT,
    EnrichInvalid,
    TableEnrichment,
    apply_rows,
    reasoning,
    research_log,
    row_suggestions,
    start_enrichment,
    undo_table_apply,
)
from webapp.tables.models import DataTable
from webapp.tables.strategies import get_all_strategies
from webapp.tables.views import table_or_404


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
    if not EmptyForm().validate_on_submit():
        abort(400, description="The form expired; reload the page and try again.")
    selected = [int(i) for i in request.form.getlist("row") if i.isdigit()]
    try:
        run = start_enrichment(
            table,
            request.form.get("column", ""),
            request.form.get("strategy", ""),
            strategy_params(request.form),
            selected or None,
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


@bp.get("/<int:table_id>/runs/<int:run_id>")
def enrichment_run(table_id: int, run_id: int):
    table = table_or_404(table_id)
    run = enrichment_run_or_404(run_id, table)
    log = research_log(run)
    suggestions = row_suggestions(run) if not run.is_live else {}
    return render_page(
        "tables/enrichment.html",
        "live",
        table=table,
        run=run,
        log=log,
        suggestions=suggestions,
        reasoning=run.params["reasoning"] if run.is_live else reasoning(run, log),
        undo_group=request.args.get("undo", "") if request.args.get("undo", "").isalnum() else "",
        form=EmptyForm(),
    )


@bp.post("/<int:table_id>/runs/<int:run_id>/apply")
@require_role(Role.reviewer)
def apply(table_id: int, run_id: int):
    table = table_or_404(table_id)
    run = enrichment_run_or_404(run_id, table)
    if not EmptyForm().validate_on_submit():
        abort(400, description="The form expired; reload the page and apply again.")
    chosen = [int(i) for i in request.form.getlist("apply") if i.isdigit()]
    edits = {
        int(key.removeprefix("value-")): value
        for key, value in request.form.items()
        if key.startswith("value-") and key.removeprefix("value-").isdigit()
    }
    if not chosen:
        flash("Choose the rows to apply.", "warning")
        return redirect(url_for("tables.enrichment_run", table_id=table.id, run_id=run.id))
    reconfirm = [int(i) for i in request.form.getlist("reconfirm") if i.isdigit()]
    result = apply_rows(
        run, chosen, current_user, {i: edits[i] for i in chosen if i in edits}, reconfirm
    )
    db.session.commit()
    if result.applied:
        flash(f"Applied {len(result.applied)} row(s).", "success")
    for refusal in result.refused:
        flash(f"Row {refusal['row_id']} not applied: {refusal['message']}", "error")
    return redirect(
        url_for(
            "tables.enrichment_run",
            table_id=table.id,
            run_id=run.id,
            undo=result.group or None,
        )
    )


@bp.post("/<int:table_id>/undo/<group>")
@require_role(Role.reviewer)
def undo(table_id: int, group: str):
    table = table_or_404(table_id)
    if not EmptyForm().validate_on_submit():
        abort(400, description="The form expired; reload the page and undo again.")
    changed_since = undo_table_apply(table, group, current_user)
    db.session.commit()
    if changed_since is None:
        abort(404, description="There is no such apply on this table.")
    if changed_since:
        flash(f"Not undone: {len(changed_since)} cell(s) changed since the apply.", "error")
    else:
        flash("Undone: the cells have their earlier values again.", "success")
    back = request.form.get("back", "")
    return redirect(
        back if back.startswith("/tables/") else url_for("tables.show", table_id=table.id)
    )


class EnrichRows(RequestModel):
    target_column: Name
    strategy: Name
    # Each strategy reads its own parameters and says what it needs.
    params: Annotated[dict[Name, Any], Field(max_length=20)] = {}
    row_ids: Ids | None = None


@api.post("/<int:table_id>/enrich")
@require_role(Role.editor)
@accepts(
    EnrichRows,
    answers={202: "Queued.", 409: "Already being enriched: details.run_id is that run."},
    summary="Fill a column for up to 20 rows.",
)
def api_enrich(table_id: int):
    table = table_or_404(table_id)
    body = json_body()  # its shape checked by EnrichRows before this runs
    run = start_enrichment(
        table,
        body["target_column"],
        body["strategy"],
        body.get("params") or {},
        body.get("row_ids"),
        current_user,
        limit=API_ROW_LIMIT,
    )
    return jsonify(run_id=run.id), 202


@bp.context_processor
def enrichment_choices() -> dict:
    """The strategies the table page offers in its enrich form."""
    return {"strategies": get_all_strategies()}
