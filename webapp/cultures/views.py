"""Cultures workspace: the catalog pages and its JSON API."""

from __future__ import annotations

import json
from typing import Annotated, Any

from flask import (
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    request,
    url_for,
)
from flask_login import current_user
from pydantic import Field
from sqlalchemy import func, select

from webapp.api import BodyInvalid, json_body
from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.contract import Id, Name, Names, Paging, RequestModel, accepts, spec_model
from webapp.cultures import api, bp
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
from webapp.cultures.enrichment import (
    CULTURES,
    TARGET,
    CultureEnrichment,
    latest_run,
    review_queue,
    start_enrichment,
    suggestions_of,
)
from webapp.cultures.fields import CHOICE_LABELS, ENRICHABLE_FIELDS, FIELDS, LABELS, shown, unit_of
from webapp.cultures.forms import ConfirmImportForm, CultureForm, ImportForm
from webapp.cultures.importing import preview_csv
from webapp.cultures.models import Culture
from webapp.cultures.providers import culture_provider
from webapp.extensions import db
from webapp.fertilizer.models import PlanRecord
from webapp.fertilizer.plans import TARGET as PLAN_TARGET
from webapp.fertilizer.plans import plan_history
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress
from webapp.pagination import Page, page_number, paginate, per_page
from webapp.problems import Invalid, Problem, Unavailable, show_on_form
from webapp.rendering import render_page
from webapp.review import service as review
from webapp.review.audit import history, undoable_groups
from webapp.review.models import Change, Suggestion, SuggestionStatus
from webapp.review.service import findings_for
from webapp.review.vocabulary import Issue, level_counts
from webapp.uploads import CSV_MAX_BYTES, UploadRefused, check_csv_text, read_csv


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


def render_import(form, preview=None, confirm=None, status: int = 200):
    return render_page(
        "cultures/import.html", form=form, preview=preview, confirm=confirm, labels=LABELS
    ), status


@bp.route("/import", methods=["GET", "POST"])
@require_role(Role.editor)
def import_csv():
    form = ImportForm()
    if not form.validate_on_submit():
        return render_import(form, status=422 if form.errors else 200)
    try:
        text = read_csv(form.file.data, CSV_MAX_BYTES)
    except Invalid as exc:
        show_on_form(form, exc.problems)
        return render_import(form, status=422)
    preview = preview_csv(text)
    confirm = ConfirmImportForm(formdata=None, csv_text=text) if preview.can_import else None
    return render_import(ImportForm(formdata=None), preview, confirm, 200 if confirm else 422)


@bp.post("/import/confirm")
@require_role(Role.editor)
def confirm_import():
    confirm = ConfirmImportForm()
    if not confirm.validate_on_submit():
        abort(400, description="The preview to confirm is missing; upload the file again.")
    try:
        check_csv_text(confirm.csv_text.data, CSV_MAX_BYTES)
    except UploadRefused as exc:  # a client put more into the form than an upload may hold
        form = ImportForm(formdata=None)
        show_on_form(form, exc.problems)
        return render_import(form, status=422)
    preview = preview_csv(confirm.csv_text.data)
    if not preview.can_import:
        return render_import(ImportForm(formdata=None), preview, None, 422)
    if preview.implausible_rows and not confirm.save_anyway.data:
        flash("Nothing was imported: tick “Import anyway” to keep the flagged values.", "error")
        return render_import(ImportForm(formdata=None), preview, confirm, 422)
    try:
        created = [create_culture(row.values) for row in preview.rows]
    except CultureInvalid:
        db.session.rollback()  # all or nothing
        return render_import(
            ImportForm(formdata=None), preview_csv(confirm.csv_text.data), None, 422
        )
    db.session.commit()
    flash(f"Imported {len(created)} culture(s).", "success")
    return redirect(url_for("cultures.index"))


def batch_ids() -> list[int]:
    if request.form.get("all_missing"):
        query = CultureFilters(missing="any").query().with_only_columns(Culture.id)
        return list(db.session.scalars(query))
    return sorted({int(i) for i in request.form.getlist("culture") if i.isdigit()})


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
        )
    try:
        run = start_enrichment(existing, current_user, request.form.get("mode", "complete"))
    except (Invalid, Unavailable) as exc:
        flash(str(exc), "error")
        return redirect(url_for("cultures.index"))
    except RunInProgress as exc:
        flash(exc.link(), "warning")
        return redirect(url_for("cultures.index"))
    return redirect(url_for("cultures.review_batch", run_id=run.id))


@bp.get("/runs/<int:run_id>/review")
def review_batch(run_id: int):
    run = db.session.get(Run, run_id)
    if run is None or run.kind != CultureEnrichment.name:
        abort(404, description=f"There is no enrichment run #{run_id}.")
    show = request.args.get("show", "")
    items = [] if run.is_live else review_queue(run, show)
    return render_page("cultures/review_queue.html", "queue", run=run, items=items, show=show)


@bp.get("/check")
def check():
    cultures = db.session.scalars(CultureFilters.from_args(request.args).query()).all()
    return render_page(
        "cultures/check.html", findings=check_catalog(cultures), checked=len(cultures)
    )


def render_culture(culture: Culture, fragment: str | None = None, status: int = 200, **extra):
    run = latest_run(culture)
    suggestions = suggestions_of(culture, run) if run and not run.is_live else []
    review.look_up_now(suggestions)
    changes = history((AUDIT_TARGET, PLAN_TARGET), culture.id) if fragment is None else []
    return render_page(
        "cultures/detail.html",
        fragment,
        culture=culture,
        field_label=CULTURES.field_label,
        choice_labels=CHOICE_LABELS,
        unit_of=unit_of,
        fields=[f for f in FIELDS if f.name not in ("name", "notes", "structured_sources")],
        shown_field=shown,
        form=EmptyForm(),
        # The enrichment block polls every second while a run is live and shows no history.
        history=changes,
        undoable=undoable_groups(changes),
        undo_url=lambda group: url_for("cultures.undo", culture_id=culture.id, group=group),
        plans=plan_history(culture) if fragment is None else [],
        run=run,
        suggestions=suggestions,
        counts=level_counts(s.issues for s in suggestions),
        run_findings=findings_for(run, TARGET, culture.id) if run and not run.is_live else [],
        enrich_fields=ENRICHABLE_FIELDS,
        **extra,
    ), status


@bp.get("/<int:culture_id>")
def show(culture_id: int):
    # After an apply the page offers to undo it; the group comes back in the address.
    undo_group = request.args.get("undo", "")
    return render_culture(
        culture_or_404(culture_id), undo_group=undo_group.isalnum() and undo_group
    )


@bp.get("/<int:culture_id>/enrichment")
def enrichment_panel(culture_id: int):
    """The enrichment block alone: progress while the run is live, then the suggestions."""
    return render_culture(culture_or_404(culture_id), "enrichment")


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


def named(fields: list[str]) -> str:
    """Fields as people call them."""
    return ", ".join(LABELS.get(f, f) for f in dict.fromkeys(fields))


def chosen_suggestions(culture: Culture, ids: list[str]) -> list[Suggestion]:
    wanted = {int(i) for i in ids if i.isdigit()}
    if not wanted:
        return []
    return list(
        db.session.scalars(
            select(Suggestion).where(
                Suggestion.id.in_(wanted),
                Suggestion.target_type == "culture",
                Suggestion.target_id == culture.id,
            )
        )
    )


@bp.post("/<int:culture_id>/suggestions")
@require_role(Role.reviewer)
def decide_suggestions(culture_id: int):
    culture = culture_or_404(culture_id)
    action = request.form.get("action", "apply")
    run = latest_run(culture)
    if action == "apply_valid" and run is not None:
        chosen = [s for s in suggestions_of(culture, run) if s.is_valid and s.status == "pending"]
    else:
        chosen = chosen_suggestions(culture, request.form.getlist("suggestion"))
    if not chosen:
        flash("Select at least one suggestion.", "warning")
        return redirect(url_for("cultures.show", culture_id=culture.id, _anchor="enrichment"))
    if action == "reject":
        rejected = review.reject([s.id for s in chosen], current_user)
        db.session.commit()
        flash(f"Rejected {len(rejected)} suggestion(s).", "info")
        return redirect(url_for("cultures.show", culture_id=culture.id, _anchor="enrichment"))
    reconfirmed = [s.id for s in chosen_suggestions(culture, request.form.getlist("reconfirm"))]
    result = review.apply([s.id for s in chosen], current_user, reconfirmed)
    db.session.commit()
    if result.applied:
        applied = result.applied_fields
        flash(f"Applied {len(applied)} field(s): {named(applied)}.", "success")
    for refusal in result.refused:
        flash(f"Not applied — {named([refusal.field])}: {refusal.message}", "error")
    if result.refused:
        # Refused fields (an invalid one from a forged form, a stale one) answer 422; the valid
        # ones of the same request are applied all the same.
        return render_culture(culture, status=422, undo_group=result.group)
    return redirect(url_for("cultures.show", culture_id=culture.id, undo=result.group))


@bp.post("/<int:culture_id>/undo/<group>")
@require_role(Role.reviewer)
def undo(culture_id: int, group: str):
    culture = culture_or_404(culture_id)
    if review.group_targets(group) - {(TARGET, culture.id)}:
        # An apply that changed other records too is not this culture's to undo.
        flash("There was nothing to undo.", "warning")
        return redirect(url_for("cultures.show", culture_id=culture.id))
    result = review.undo(group, current_user)
    db.session.commit()
    if result.changed_since:
        flash(
            f"Nothing was undone: these fields changed since — {named(result.changed_since)}.",
            "error",
        )
    elif result.restored:
        flash(f"Undone: {named(result.restored)} restored.", "success")
    else:
        flash("There was nothing to undo.", "warning")
    return redirect(url_for("cultures.show", culture_id=culture.id))


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
            Suggestion.target_type.in_((TARGET, PLAN_TARGET)),
            Suggestion.target_id == culture.id,
            Suggestion.status == SuggestionStatus.pending,
        )
    )
    plans = count(select(PlanRecord.id).where(PlanRecord.culture_id == culture.id))
    changes = count(
        select(Change.id).where(Change.target_type == AUDIT_TARGET, Change.target_id == culture.id)
    )
    return (
        f"Its {pending} open suggestion(s) can no longer be reviewed, its {plans} saved "
        f"fertilizer plan(s) are kept without it, and its history of {changes} change(s) is "
        "no longer shown."
    )


# JSON API: the same rules as the pages.


class CultureQuery(Paging):
    q: Annotated[str, Field(max_length=500)] = ""
    missing: Name = ""
    sort: Name = ""
    dir: Name = ""


NewCulture = spec_model("NewCulture", FIELDS, required=("name",), save_anyway=(bool, False))
CultureChange = spec_model("CultureChange", FIELDS, save_anyway=(bool, False))


class EnrichBatch(RequestModel):
    ids: Annotated[list[Id], Field(min_length=1, max_length=10_000)]
    mode: Name = "complete"


class EnrichOne(RequestModel):
    mode: Name = "complete"
    fields: Names = []


class ApplyFields(RequestModel):
    run_id: Id
    fields: Names
    reconfirm: Names = []


@api.get("")
@accepts(query=CultureQuery, summary="Cultures, filtered, sorted and paged.")
def api_index():
    filters = CultureFilters.from_args(request.args)
    page = page_of(filters, page_number(request.args), per_page(request.args, PER_PAGE))
    return jsonify(page.as_json("cultures", [to_dict(c) for c in page.items]))


IMPLAUSIBLE = "Some values are implausible; check them, or send save_anyway: true to keep them."


class Implausible(Invalid):
    """Values a rule finds implausible, not confirmed with "save_anyway": true."""

    code = "implausible_values"

    def __init__(self, findings: list[Issue]) -> None:
        self.findings = findings
        problems = [Problem(i.message, i.field or "", i.code) for i in blocking(findings)]
        super().__init__(problems, summary=IMPLAUSIBLE)

    def error_details(self) -> dict[str, Any]:
        return {"issues": [i.to_dict() for i in self.findings], **super().error_details()}


def api_entry(culture: Culture | None) -> tuple[dict[str, Any], list[Issue]]:
    """The body's culture values and the findings they bring; Invalid refuses invalid values,
    and implausible ones not confirmed with "save_anyway": true."""
    body = dict(json_body())
    save_anyway = body.pop("save_anyway", False)
    if not isinstance(save_anyway, bool):
        raise BodyInvalid("save_anyway is true or false.", loc="save_anyway")
    findings = entry_findings(body, culture)
    if blocking(findings) and not save_anyway:
        raise Implausible(findings)
    return body, findings


@api.post("")
@require_role(Role.editor)
@accepts(NewCulture, answers={201: "Created, with its plausibility findings."})
def api_create():
    """A new culture."""
    values, findings = api_entry(None)
    culture = create_culture(values)
    db.session.commit()
    return jsonify({**to_dict(culture), "issues": [i.to_dict() for i in findings]}), 201


@api.post("/enrich-batch")
@require_role(Role.editor)
@accepts(
    EnrichBatch,
    answers={202: "Queued.", 409: "Already being enriched: details.run_id is that run."},
    summary="Research many cultures in one run.",
)
def api_enrich_batch():
    body = json_body()
    ids = [i for i in body.get("ids") or [] if isinstance(i, int)]
    existing = (
        list(db.session.scalars(select(Culture.id).where(Culture.id.in_(ids)))) if ids else []
    )
    if not existing:
        raise Invalid("Give the ids of existing cultures in `ids`.", code="no_cultures", loc="ids")
    run = start_enrichment(existing, current_user, body.get("mode", "complete"))
    return jsonify(run_id=run.id, cultures=len(existing)), 202


@api.get("/check")
@accepts(query=CultureQuery, summary="Plausibility findings over the catalog.")
def api_check():
    cultures = db.session.scalars(CultureFilters.from_args(request.args).query()).all()
    findings = [
        {"culture_id": f.culture.id, "culture": f.culture.label, **f.issue.to_dict()}
        for f in check_catalog(cultures)
    ]
    return jsonify(checked=len(cultures), findings=findings)


@api.post("/<int:culture_id>/enrich")
@require_role(Role.editor)
@accepts(
    EnrichOne,
    answers={202: "Queued.", 409: "Already being enriched: details.run_id is that run."},
    body_required=False,
    summary="Research one culture.",
)
def api_enrich(culture_id: int):
    culture = culture_or_404(culture_id)
    body = request.get_json(silent=True) or {}
    run = start_enrichment(
        [culture.id], current_user, body.get("mode", "complete"), body.get("fields") or []
    )
    return jsonify(run_id=run.id), 202


@api.post("/<int:culture_id>/apply")
@require_role(Role.reviewer)
@accepts(
    ApplyFields,
    answers={200: "Applied.", 422: "Some were refused, with reasons."},
    summary="Apply a run's suggestions by field (kept for the first API's clients).",
)
def api_apply(culture_id: int):
    """Kept for clients of the first API: POST /api/v1/runs/<id>/apply is the one apply.
    Takes {"run_id", "fields", "reconfirm": [fields]}."""
    culture = culture_or_404(culture_id)
    body = json_body()
    fields = {f for f in body.get("fields") or [] if isinstance(f, str)}
    reconfirm = {f for f in body.get("reconfirm") or [] if isinstance(f, str)}
    run_id = body.get("run_id")
    chosen = list(
        db.session.execute(
            select(Suggestion.id, Suggestion.field).where(
                Suggestion.run_id == (run_id if isinstance(run_id, int) else None),
                Suggestion.target_type == TARGET,
                Suggestion.target_id == culture.id,
                Suggestion.field.in_(fields),
            )
        )
    )
    result = review.apply(
        [i for i, _f in chosen], current_user, [i for i, f in chosen if f in reconfirm]
    )
    db.session.commit()
    missing = fields - {f for _i, f in chosen}
    refused = [r.to_dict() for r in result.refused] + [
        {"field": f, "code": "no_suggestion", "message": "That run suggested nothing for it."}
        for f in sorted(missing)
    ]
    return jsonify(applied=result.applied_fields, refused=refused, undo_group=result.group), (
        422 if refused else 200
    )


@api.get("/<int:culture_id>")
@accepts(summary="One culture.")
def api_show(culture_id: int):
    return jsonify(to_dict(culture_or_404(culture_id)))


@api.patch("/<int:culture_id>")
@require_role(Role.editor)
@accepts(CultureChange, summary="Change some of a culture's fields.")
def api_update(culture_id: int):
    culture = culture_or_404(culture_id)
    values, findings = api_entry(culture)
    edit_culture(culture, values, current_user)
    db.session.commit()
    return jsonify({**to_dict(culture), "issues": [i.to_dict() for i in findings]})


@api.delete("/<int:culture_id>")
@require_role(Role.reviewer)
@accepts(answers={204: "Deleted."}, summary="Delete a culture.")
def api_delete(culture_id: int):
    db.session.delete(culture_or_404(culture_id))
    db.session.commit()
    return "", 204
