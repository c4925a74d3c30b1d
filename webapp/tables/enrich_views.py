"""Enriching a table's column: start a run; its progress and review are the review core's run
page. Its JSON API is in api.py."""

from __future__ import annotations

from flask import Response, abort, flash, redirect, request, url_for
from flask_login import current_user

from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.extensions import db, htmx
from webapp.ids import record_ids
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress
from webapp.links import with_args
from webapp.problems import Unavailable
from webapp.rendering import render_page
from webapp.tables import bp
from webapp.tables.models import DataTable
from webapp.tables.runs import EnrichInvalid, TableEnrichment, start_enrichment
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
    target = url_for("review.run_review", run_id=run.id)
    if htmx:
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target)


@bp.get("/<int:table_id>/runs/<int:run_id>")
def enrichment_run(table_id: int, run_id: int):
    """A run's old address: its review is the review core's page."""
    enrichment_run_or_404(run_id, table_or_404(table_id))
    return redirect(with_args(url_for("review.run_review", run_id=run_id), **request.args))


@bp.context_processor
def enrichment_choices() -> dict:
    """The strategies the table page offers in its enrich form."""
    return {"strategies": get_all_strategies()}
