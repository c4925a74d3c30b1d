"""The fertilizer workspace: ask for a plan (a run), watch it, read it, save it to a culture,
export it. Its JSON API is api.py."""

from __future__ import annotations

import json
from typing import Any

from flask import (
    Response,
    abort,
    current_app,
    flash,
    redirect,
    request,
    url_for,
)
from flask_login import current_user
from sqlalchemy import select
from sqlalchemy.orm import selectinload
from wtforms.fields.choices import SelectChoice

from webapp.ai.client import provider_words
from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.crops import Crop, catalog
from webapp.extensions import db, htmx
from webapp.fertilizer import bp
from webapp.fertilizer.chart import season_chart
from webapp.fertilizer.forms import (
    PlanForm,
    form_document,
    labelled,
    parse_profile_text,
    read_upload,
)
from webapp.fertilizer.gateways.reference import ReferenceGateway
from webapp.fertilizer.models import PlanRecord
from webapp.fertilizer.plan import K_PER_K2O, P_PER_P2O5
from webapp.fertilizer.plans import plan_of_run, plan_or_404
from webapp.fertilizer.request import RequestInvalid, parse_request
from webapp.fertilizer.runs import start_plan_run
from webapp.fertilizer.season import season_of
from webapp.fertilizer.target import current_plan, save_to_culture
from webapp.ids import record_id
from webapp.jobs.models import Run
from webapp.pagination import page_number, paginate
from webapp.problems import Invalid, Problem, Unavailable, show_on_form
from webapp.reference.library import library
from webapp.rendering import render_page

PER_PAGE = 20


def culture_choices() -> list[SelectChoice]:
    return [SelectChoice("", "—")] + [
        SelectChoice(str(i), label) for i, label in catalog().choices()
    ]


def provider_choices() -> list[SelectChoice]:
    settings = current_app.config["FURROW"]
    choices = [SelectChoice("offline", "Reference library (offline)")]
    if settings.openai_api_key or settings.openai_base_url:
        choices.append(SelectChoice("openai", provider_words(settings)))
    return choices


def prepared_form() -> PlanForm:
    form = PlanForm()
    form.culture.choices = culture_choices()
    form.provider.choices = provider_choices()
    if not form.is_submitted():
        form.provider.data = current_app.config["FURROW"].provider
        form.culture.data = request.args.get("culture", "")
    return form


def render_index(form: PlanForm, status: int = 200):
    # The list names the culture each plan was saved to.
    query = select(PlanRecord).options(selectinload(PlanRecord.culture))
    query = query.order_by(PlanRecord.id.desc())
    page = paginate(query, page_number(request.args), PER_PAGE)
    return render_page("fertilizer/index.html", "plans", form=form, page=page), status


@bp.get("")
def index():
    return render_index(prepared_form())


def chosen_profile(form: PlanForm) -> tuple[Any, Crop | None]:
    """The crop profile: the upload, else the pasted text, else the picked culture's."""
    upload = form.profile_file.data
    if upload and getattr(upload, "filename", ""):
        text = read_upload(upload)
        # Shown again in the text box: a problem anywhere costs no second upload.
        form.profile_json.data = text
        return parse_profile_text(text, "profile_file"), None
    if (form.profile_json.data or "").strip():
        return parse_profile_text(form.profile_json.data, "profile_json"), None
    if form.culture.data:
        culture_id = record_id(form.culture.data)
        culture = catalog().get(culture_id) if culture_id else None
        if culture is None:
            raise Invalid("That culture no longer exists.", loc="culture")
        return catalog().profile(culture), culture
    raise Invalid("Upload a crop profile, paste one, or pick a culture.", loc="profile_file")


def culture_defaults(values: dict[str, str], culture: Crop | None) -> dict[str, str]:
    """A picked culture fills the growth period and (per m²) target yield left empty. The
    season is growth to first harvest plus the harvest period; with no harvest period, the
    growth duration alone is the season, and the plan says its harvest window is unknown."""
    if culture is None:
        return values
    filled = dict(values)
    if not filled.get("growth_period_days") and culture.growth_duration_days:
        harvest = culture.harvest_duration_days
        filled["growth_period_days"] = str(culture.growth_duration_days + (harvest or 0))
        if harvest is None:
            filled["growth_period_basis"] = "to_first_harvest"
    if (
        not filled.get("target_yield")
        and culture.harvest_method == "per_sqm"
        and culture.expected_yield
    ):
        filled["target_yield"] = str(culture.expected_yield)
    return filled


@bp.post("")
@require_role(Role.editor)
@takes_upload()
def create():
    form = prepared_form()
    if not form.validate_on_submit():
        return render_index(form, 422)
    # Every problem at once: the profile, the numbers, then the request they make.
    problems: list[Problem] = []
    try:
        profile, culture = chosen_profile(form)
    except Invalid as exc:
        problems, profile, culture = exc.problems, None, None
    values = culture_defaults(
        {name: field.data for name, field in form._fields.items() if isinstance(field.data, str)},
        culture,
    )
    try:
        document = form_document(values, profile)
        if not problems:
            run = start_plan_run(document, current_user, form.provider.data, culture)
    except RequestInvalid as exc:
        problems = [*problems, *labelled(form, exc.details)]
    except Invalid as exc:
        problems = [*problems, *exc.problems]
    except Unavailable as exc:
        flash(str(exc), "error")
        return render_index(form, 503)
    if problems:
        # A problem shows under the input it came from.
        show_on_form(form, problems, {p.loc: form[p.loc] for p in problems if p.loc in form})
        return render_index(form, 422)
    return redirect(url_for("fertilizer.show_run", run_id=run.id))


def fertilizer_run_or_404(run_id: int) -> Run:
    run = db.get_or_404(Run, run_id)
    if run.kind != "fertilizer_plan":
        abort(404)
    return run


@bp.get("/runs/<int:run_id>")
def show_run(run_id: int):
    run = fertilizer_run_or_404(run_id)
    record = plan_of_run(run)
    if record is not None:
        target = url_for("fertilizer.show_plan", plan_id=record.id)
        if htmx:
            return Response(status=204, headers={"HX-Redirect": target})
        return redirect(target)
    return render_page("fertilizer/run.html", "run_status", run=run)


@bp.get("/plans/<int:plan_id>")
def show_plan(plan_id: int):
    record = plan_or_404(plan_id)
    plan = record.entity
    request_data = parse_request(record.request)
    days = season_of(request_data, ReferenceGateway().find_crop(request_data)).days
    save_form = EmptyForm()
    run = db.session.get(Run, record.run_id) if record.run_id else None
    suggested_culture = (run.params or {}).get("culture_id") if run else None
    saved_to = catalog().get(record.culture_id) if record.culture_id else None
    return render_page(
        "fertilizer/plan.html",
        record=record,
        plan=plan,
        request_data=request_data,
        chart=season_chart(plan, request_data.profile.stages, days),
        save_form=save_form,
        cultures=culture_choices()[1:],
        suggested_culture=str(suggested_culture or record.culture_id or ""),
        saved_to=saved_to,
        # The crop by the library's name, never its key ("dry_bean").
        reference_crop=known.name() if (known := library().get(plan.crop_id)) else None,
        undo_group=request.args.get("undo", "") if request.args.get("undo", "").isalnum() else "",
        factors={"P": P_PER_P2O5, "K": K_PER_K2O},
    )


@bp.get("/plans/<int:plan_id>.json")
def export_plan(plan_id: int):
    record = plan_or_404(plan_id)
    body = json.dumps(record.plan, ensure_ascii=False, indent=2) + "\n"
    filename = f"fertilizer-plan-{record.id}.json"
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f"attachment; filename={filename}"},
    )


@bp.post("/plans/<int:plan_id>/save")
@require_role(Role.reviewer)
def save_plan(plan_id: int):
    record = plan_or_404(plan_id)
    form = EmptyForm()
    if not form.validate_on_submit():
        abort(400, description="The form expired; reload the page and save again.")
    culture_id = record_id(request.form.get("culture"))
    culture = catalog().get(culture_id) if culture_id else None
    if culture is None:
        flash("Pick the culture to save the plan to.", "error")
        return redirect(url_for("fertilizer.show_plan", plan_id=record.id))
    result = save_to_culture(record, culture, current_user)
    db.session.commit()
    for refusal in result.refused:
        flash(f"Not saved to {culture.label}: {refusal.message}", "error")
    saved = current_plan(culture)
    if not result.refused:
        flash(f"Saved to {culture.label}: it is the culture's current plan.", "success")
    target = saved.id if saved and not result.refused else record.id
    return redirect(url_for("fertilizer.show_plan", plan_id=target, undo=result.group))
