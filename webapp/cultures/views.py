"""Cultures workspace: the catalog pages — the list, its export and check, a culture's page with
the run it reviews, and the forms to add, edit and delete one."""

from __future__ import annotations

import json
from typing import Any

from flask import Response, abort, flash, redirect, request, url_for
from flask_login import current_user
from sqlalchemy import func, or_, select
from sqlalchemy.orm import defer

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.crops import plan_targets, plan_words, plans_of
from webapp.cultures import bp
from webapp.cultures.catalog import (
    AUDIT_TARGET,
    PER_PAGE,
    SORT_LABELS,
    CultureFilters,
    blocking,
    check_catalog,
    create_culture,
    edit_culture,
    entry_findings,
    export_csv,
    to_dict,
    values_of,
)
from webapp.cultures.domain import CultureInvalid
from webapp.cultures.fields import (
    CHOICE_LABELS,
    ENRICHABLE_FIELDS,
    FIELDS,
    LABELS,
    shown,
    shown_value,
)
from webapp.cultures.forms import CultureForm
from webapp.cultures.models import Culture
from webapp.cultures.reference_match import culture_match
from webapp.cultures.review_queue import OLD_SHOW, QueueFilter, review_queue
from webapp.cultures.runs import CultureEnrichment, latest_run, run_summary, suggestions_of
from webapp.cultures.target import CULTURES, TARGET
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.pagination import Page, count_of, page_number, paginate
from webapp.problems import show_on_form
from webapp.rendering import render_page
from webapp.review import service as review
from webapp.review.audit import history, undoable_groups
from webapp.review.models import Change, Suggestion, SuggestionStatus
from webapp.review.service import findings_for
from webapp.review.vocabulary import level_counts


def culture_or_404(culture_id: int) -> Culture:
    return db.get_or_404(Culture, culture_id, description=f"There is no culture #{culture_id}.")


def page_of(filters: CultureFilters, number: int, per_page: int = PER_PAGE) -> Page:
    return paginate(filters.query(), number, per_page)


@bp.get("")
def index():
    filters = CultureFilters.from_args(request.args)
    return render_page(
        "cultures/list.html",
        "culture_table",
        page=page_of(filters, page_number(request.args)),
        filters=filters,
        missing_choices=[(f, LABELS.get(f, f)) for f in ENRICHABLE_FIELDS],
        sort_choices=SORT_LABELS.items(),
        shown_field=shown,
    )


@bp.get("/export.<fmt>")
def export(fmt: str):
    cultures = db.session.scalars(CultureFilters.from_args(request.args).query()).all()
    if fmt == "csv":
        body, mimetype = export_csv(cultures), "text/csv"
    elif fmt == "json":
        body = json.dumps([to_dict(c) for c in cultures], ensure_ascii=False, indent=2)
        mimetype = "application/json"
    else:
        abort(404)
    disposition = f"attachment; filename=furrow-cultures.{fmt}"
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": disposition})


QUEUE_PER_PAGE = 100


def enrichment_run_or_404(run_id: int | None, *options) -> Run:
    run = db.session.get(Run, run_id, options=options) if run_id else None
    if run is None or run.kind != CultureEnrichment.name:
        abort(404, description=f"There is no enrichment run #{run_id or ''}.")
    return run


@bp.get("/check")
def check():
    cultures = db.session.scalars(CultureFilters.from_args(request.args).query()).all()
    return render_page(
        "cultures/check.html",
        findings=check_catalog(cultures),
        checked=len(cultures),
        field_label=CULTURES.field_label,
    )


def reviewed_run(culture: Culture) -> tuple[Run | None, bool]:
    """The run whose suggestions the culture's page shows: the one ?run= (or a form's run)
    names — any of its runs, not only the newest — else its newest; and whether one was
    named, so the page keeps it in its addresses."""
    raw = request.values.get("run", "")
    if raw:
        return enrichment_run_or_404(count_of(raw), defer(Run.results)), True
    return latest_run(culture), False


def review_args(run: Run | None, named: bool, queue_filter: QueueFilter) -> dict[str, Any]:
    """What a culture page reviewing a run keeps in its addresses: the run and the queue's
    filter."""
    return {"run": run.id, **queue_filter.args} if run and named else {}


def moved_from_show():
    """A redirect from a queue's or culture page's address of before ?level= (?show=errors…)
    to the same address with the new arguments; None for any other address."""
    args = request.args.to_dict()
    old = args.pop("show", None)
    if old is None:
        return None
    return redirect(url_for(request.endpoint, **request.view_args, **args | OLD_SHOW.get(old, {})))


def queue_around(run: Run, culture: Culture, queue_filter: QueueFilter) -> dict[str, Any]:
    """The cultures before and after this one in the run's queue (its filter applied), and the
    queue page it stands on: a culture that left the filter (all decided) still has both."""
    queue = review_queue(run, queue_filter)
    order = {i: n for n, i in enumerate(CultureEnrichment().target_ids(run))}
    here = order.get(culture.id, -1)
    before = [item for item in queue.items if order[item.culture_id] < here]
    after = [item for item in queue.items if order[item.culture_id] > here]
    return {
        "previous": before[-1] if before else None,
        "next": after[0] if after else None,
        "queue_page": len(before) // QUEUE_PER_PAGE + 1,
        "queue_size": len(queue.items),
    }


def undoable_here(changes: list[Change], culture: Culture) -> list[str]:
    """The culture's undoable groups that changed it alone: an apply across a batch is undone
    from its run's queue, not one culture's page."""
    groups = undoable_groups(changes, CULTURES.undo_sources)
    if not groups:
        return []
    beyond = db.session.scalars(
        select(Change.group_id)
        .where(
            Change.group_id.in_(groups),
            or_(Change.target_type != TARGET, Change.target_id != culture.id),
        )
        .distinct()
    )
    return [g for g in groups if g not in set(beyond)]


def render_culture(culture: Culture, fragment: str | None = None, **extra):
    run, named = reviewed_run(culture)
    queue_filter = QueueFilter.of(request.values)
    args = review_args(run, named, queue_filter)
    suggestions = suggestions_of(culture, run) if run and not run.is_live else []
    review.look_up_now(suggestions)
    changes = history((AUDIT_TARGET, *plan_targets()), culture.id) if fragment is None else []
    around = queue_around(run, culture, queue_filter) if named and not run.is_live else {}
    return render_page(
        "cultures/detail.html",
        fragment,
        culture=culture,
        field_label=CULTURES.field_label,
        choice_labels=CHOICE_LABELS,
        fields=[
            f
            for f in FIELDS
            if f.name not in ("name", "notes", "structured_sources", "reference_crop")
        ],
        reference=culture_match(culture),
        shown_field=shown,
        history_value=lambda value, field: (
            plan_words(field, value) or shown_value(field, value, culture)
        ),
        form=EmptyForm(),
        # The enrichment block polls every second while a run is live and shows no history.
        history=changes,
        undoable=undoable_here(changes, culture),
        plans=plans_of(culture.id) if fragment is None else [],
        run=run,
        summary=run_summary(run, culture.id) if run and not run.is_live else {},
        review_args=args,
        queue_filter=queue_filter,
        around=around,
        suggestions=suggestions,
        counts=level_counts(s.issues for s in suggestions),
        run_findings=findings_for(run, TARGET, culture.id) if run and not run.is_live else [],
        enrich_fields=ENRICHABLE_FIELDS,
        **extra,
    )


def undo_group() -> str:
    """After an apply the page offers to undo it; the group comes back in the address."""
    group = request.args.get("undo", "")
    return group if group.isalnum() else ""


@bp.get("/<int:culture_id>")
def show(culture_id: int):
    return moved_from_show() or render_culture(culture_or_404(culture_id), undo_group=undo_group())


@bp.get("/<int:culture_id>/enrichment")
def enrichment_panel(culture_id: int):
    """The enrichment block alone: progress while the run is live, then the suggestions."""
    return moved_from_show() or render_culture(culture_or_404(culture_id), "enrichment")


def render_form(form: CultureForm, culture: Culture | None, status: int = 200, findings=()):
    return render_page(
        "cultures/form.html", form=form, culture=culture, findings=findings, labels=LABELS
    ), status


def flash_findings(findings) -> None:
    """What a saved culture's values look like to the plausibility rules, said on its page."""
    for issue in findings:
        category = "error" if issue.severity == "error" else "warning"
        flash(f"{LABELS.get(issue.field, issue.field)}: {issue.message}", category)


def checked_entry(form: CultureForm, culture: Culture | None):
    """The findings the form's values bring, or the form re-rendered: with its field errors,
    or with the implausible values a person has not confirmed with "save anyway"."""
    try:
        findings = entry_findings(form.values(), culture)
    except CultureInvalid as exc:
        show_on_form(form, exc.problems)
        return None, render_form(form, culture, 422)
    if blocking(findings) and not form.save_anyway.data:
        return None, render_form(form, culture, 422, findings)
    return findings, None


@bp.route("/new", methods=["GET", "POST"])
@require_role(Role.editor)
def new():
    form = CultureForm()
    if form.is_submitted():
        findings, refused = checked_entry(form, None)
        if refused:
            return refused
        culture = create_culture(form.values())
        db.session.commit()
        flash(f"{culture.label} is in the catalog.", "success")
        flash_findings(findings)
        return redirect(url_for("cultures.show", culture_id=culture.id))
    return render_form(form, None)


@bp.route("/<int:culture_id>/edit", methods=["GET", "POST"])
@require_role(Role.editor)
def edit(culture_id: int):
    culture = culture_or_404(culture_id)
    if request.method == "GET":
        data = {k: v if v is not None else "" for k, v in values_of(culture).items()}
        if not culture.reference_crop_chosen:
            data["reference_crop"] = ""  # found from the name: left so, it is found again
        return render_form(CultureForm(data=data), culture)
    form = CultureForm()
    findings, refused = checked_entry(form, culture)
    if refused:
        return refused
    changed = edit_culture(culture, form.values(), current_user)
    db.session.commit()
    flash(f"Saved {len(changed)} change(s) to {culture.label}.", "success")
    flash_findings(findings)
    return redirect(url_for("cultures.show", culture_id=culture.id))


@bp.route("/<int:culture_id>/delete", methods=["GET", "POST"])
@require_role(Role.reviewer)
def delete(culture_id: int):
    """First a confirmation that says what goes with the culture; confirmed, it is deleted."""
    culture = culture_or_404(culture_id)
    if request.method == "GET":
        return render_page(
            "tables/confirm.html",
            form=EmptyForm(),
            title=f"Delete {culture.label}",
            question=f"Delete “{culture.label}”? {what_goes_with(culture)} This cannot be undone.",
            action=url_for("cultures.delete", culture_id=culture.id),
            hidden=[],
            button="Delete the culture",
            back=url_for("cultures.show", culture_id=culture.id),
        )
    db.session.delete(culture)
    db.session.commit()
    flash(f"{culture.label} was deleted.", "success")
    return redirect(url_for("cultures.index"))


def what_goes_with(culture: Culture) -> str:
    """What deleting the culture takes with it, in counts: its open suggestions can no longer
    be reviewed, its saved plans leave it, its history is no longer shown."""

    def count(query) -> int:
        return db.session.scalar(select(func.count()).select_from(query.subquery())) or 0

    pending = count(
        select(Suggestion.id).where(
            Suggestion.target_type.in_((TARGET, *plan_targets())),
            Suggestion.target_id == culture.id,
            Suggestion.status == SuggestionStatus.pending,
        )
    )
    plans = len(plans_of(culture.id))
    changes = count(
        select(Change.id).where(Change.target_type == AUDIT_TARGET, Change.target_id == culture.id)
    )
    return (
        f"Its {pending} open suggestion(s) can no longer be reviewed, its {plans} saved "
        f"fertilizer plan(s) are kept without it, and its history of {changes} change(s) is "
        "no longer shown."
    )
