"""Enrichment runs from the pages: starting one for a culture or a batch, the run's review queue,
and deciding one culture's suggestions."""

from __future__ import annotations

from flask import current_app, flash, redirect, request, url_for
from flask_login import current_user
from sqlalchemy import select
from sqlalchemy.orm import defer

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.cultures import bp
from webapp.cultures.catalog import CultureFilters
from webapp.cultures.fields import ENRICHABLE_FIELDS, LABELS
from webapp.cultures.models import Culture
from webapp.cultures.providers import culture_provider
from webapp.cultures.reference_match import reference_matches
from webapp.cultures.review_queue import LEVEL_CHOICES, PENDING, QueueFilter, review_queue
from webapp.cultures.runs import start_enrichment
from webapp.cultures.views import (
    QUEUE_PER_PAGE,
    culture_or_404,
    enrichment_run_or_404,
    moved_from_show,
    undo_group,
)
from webapp.extensions import db
from webapp.ids import record_ids
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress
from webapp.pagination import page_number, paginate_list
from webapp.problems import Invalid, Unavailable
from webapp.rendering import render_page


def batch_ids() -> list[int]:
    if request.form.get("all_missing"):
        query = CultureFilters(missing="any").query().with_only_columns(Culture.id)
        return list(db.session.scalars(query))
    return sorted(record_ids(request.form.getlist("culture")))


@bp.post("/enrich-batch")
@require_role(Role.editor)
def enrich_batch():
    """First the confirm page with the count; then, confirmed, one run over all of them."""
    ids = batch_ids()
    existing = (
        list(db.session.scalars(select(Culture.id).where(Culture.id.in_(ids)))) if ids else []
    )
    if not existing:
        flash("Select at least one culture.", "warning")
        return redirect(url_for("cultures.index"))
    if not request.form.get("confirmed"):
        try:
            provider = culture_provider(current_app.config["FURROW"].provider)
        except Unavailable as exc:
            flash(str(exc), "error")
            return redirect(url_for("cultures.index"))
        estimate = getattr(provider, "estimate_cost", None)
        return render_page(
            "cultures/batch_confirm.html",
            ids=existing,
            form=EmptyForm(),
            provider=provider.name,
            model=provider.model,
            estimated_cost=estimate(len(existing)) if estimate else None,
            enrich_fields=ENRICHABLE_FIELDS,
            labels=LABELS,
        )
    mode = request.form.get("mode", "complete")
    fields = request.form.getlist("fields") if mode == "reresearch" else []
    try:
        run = start_enrichment(existing, current_user, mode, fields)
    except (Invalid, Unavailable) as exc:
        flash(str(exc), "error")
        return redirect(url_for("cultures.index"))
    except RunInProgress as exc:
        flash(exc.link(), "warning")
        return redirect(url_for("cultures.index"))
    return redirect(url_for("cultures.review_batch", run_id=run.id))


@bp.get("/runs/<int:run_id>/review")
def review_batch(run_id: int):
    if moved := moved_from_show():
        return moved
    # Every culture's notes from the provider (the run's results) are not needed here.
    run = enrichment_run_or_404(run_id, defer(Run.results))
    queue_filter = QueueFilter.of(request.args)
    queue = None if run.is_live else review_queue(run, queue_filter)
    page = paginate_list(queue.items if queue else [], page_number(request.args), QUEUE_PER_PAGE)
    return render_page(
        "cultures/review_queue.html",
        "queue",
        run=run,
        queue=queue,
        page=page,
        matches=reference_matches([item.culture_id for item in page.items]),
        queue_filter=queue_filter,
        level_choices=LEVEL_CHOICES,
        pending_words=PENDING,
        form=EmptyForm(),
        undo_group=undo_group(),
    )


@bp.post("/<int:culture_id>/enrich")
@require_role(Role.editor)
def enrich(culture_id: int):
    culture = culture_or_404(culture_id)
    mode = request.form.get("mode", "complete")
    fields = request.form.getlist("fields") if mode == "reresearch" else []
    try:
        start_enrichment([culture.id], current_user, mode, fields)
    except (Invalid, Unavailable) as exc:
        flash(str(exc), "error")
    except RunInProgress as exc:
        flash(exc.link(), "warning")
    return redirect(url_for("cultures.show", culture_id=culture.id, _anchor="enrichment"))
