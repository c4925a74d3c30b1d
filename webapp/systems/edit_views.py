"""Editing a system on its page: each level's assumptions (and the proposals of an
intervention's description added to them), steps and interventions added, edited, moved and
deleted, the system's details and its farm renamed or deleted. Editors only; every write goes
through webapp.systems.editing under the row lock, and PRG with a flash message after it. The
API (api.py) sets one level's assumptions and deletes a system."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import abort, flash, redirect, request, url_for
from flask_login import current_user
from flask_wtf import FlaskForm
from wtforms.fields.choices import SelectChoice

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.extensions import db
from webapp.jobs.queue import RunInProgress
from webapp.problems import Invalid, show_on_form
from webapp.rendering import render_page
from webapp.systems import bp, catalog, editing, runs
from webapp.systems.assumptions import propose_assumptions
from webapp.systems.document import TOP, DocumentInvalid, owner
from webapp.systems.edit_forms import (
    AssumptionsForm,
    FarmForm,
    InterventionForm,
    ProposalForm,
    StepForm,
    SystemForm,
)
from webapp.systems.models import Farm, System
from webapp.systems.views import system_or_404

EXPIRED = "The form expired; reload the page and try again."


def system_url(system: System, anchor: str | None = None) -> str:
    return url_for("systems.show", system_id=system.id, _anchor=anchor)


def located(system: System, step_id: str | None, intervention_id: str | None = None):
    """The step and intervention (None) the request names, or 404."""
    try:
        step, intervention, _holder, _key = owner(system.document, step_id or "", intervention_id)
    except DocumentInvalid:
        abort(404, description="The system has no such step or intervention.")
    return step, intervention


def step_of(system_id: int) -> tuple[System, dict[str, Any]]:
    """The system and the step (?step=) a request is about, or 404."""
    system = system_or_404(system_id)
    return system, located(system, request.args.get("step"))[0]


def intervention_of(system_id: int) -> tuple[System, dict[str, Any], dict[str, Any]]:
    """The system, step and intervention (?step=&intervention=) a request is about, or 404."""
    system = system_or_404(system_id)
    step, work = located(system, request.args.get("step"), request.args.get("intervention") or "-")
    return system, step, work


def level_name(step: dict[str, Any] | None, intervention: dict[str, Any] | None) -> str:
    if intervention is not None:
        return f"the intervention “{intervention['name']}” ({step['name']})"
    return f"the step “{step['name']}”" if step is not None else "the system"


def write(system: System, change: Callable[[dict[str, Any]], dict[str, Any]], source="edit"):
    """The document changed under the row lock (committed by the caller)."""
    saved = catalog.edit_document(system, change, current_user, source)
    if saved.warning:
        flash(saved.warning, "warning")


@dataclass
class FormPage:
    """A form's page: its title, where it posts, where Back goes, and the inputs that set each
    document key a problem may name (a form field of that name otherwise)."""

    form: FlaskForm
    title: str
    action: str
    back: str
    inputs: dict[str, str] = field(default_factory=dict)

    def render(self, status: int = 200):
        page = render_page(
            "systems/edit_form.html",
            form=self.form,
            title=self.title,
            action=self.action,
            back=self.back,
        )
        return page, status


def form_page(page: FormPage, save: Callable[[], tuple[str, str]]):
    """GET: the form. POST: save() and its message, then its page (PRG); refused, the form
    again with each problem under its input and what was typed kept (422)."""
    form = page.form
    if not form.validate_on_submit():
        if form.errors:
            abort(400, description=EXPIRED)
        return page.render()
    try:
        message, target = save()
    except Invalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems, {loc: form[name] for loc, name in page.inputs.items()})
        return page.render(422)
    db.session.commit()
    flash(message, "success")
    return redirect(target)


def confirmed(do: Callable[[], Any], message: str, target: str):
    """A confirmed POST: done, committed, then its page with a message."""
    do()
    db.session.commit()
    flash(message, "success")
    return redirect(target)


def busy_run(systems: list[System]):
    """A system being calculated is not deleted: its run's page, with why, instead."""
    try:
        for system in systems:
            runs.not_busy(system)
    except RunInProgress as exc:
        flash(f"{exc} Cancel it or wait for its end, then delete.", "warning")
        return redirect(url_for("runs.show_run", run_id=exc.run.id))
    return None


# Assumptions


@bp.route("/<int:system_id>/assumptions", methods=["GET", "POST"])
@require_role(Role.editor)
def edit_assumptions(system_id: int):
    system = system_or_404(system_id)
    source = request.form if request.method == "POST" else request.args
    step_id, intervention_id = source.get("step") or None, source.get("intervention") or None
    if intervention_id and not step_id:
        abort(404, description="The system has no such step or intervention.")
    step, intervention = located(system, step_id, intervention_id) if step_id else (None, None)
    anchor = f"intervention-{intervention_id}" if intervention else f"step-{step_id}"
    back = system_url(system, anchor if step else "assumptions")
    what = level_name(step, intervention)
    text = editing.level_text(system.document, step_id, intervention_id)
    data = {"step": step_id or "", "intervention": intervention_id or "", "assumptions": text}
    form = AssumptionsForm(data=data)
    action = url_for("systems.edit_assumptions", system_id=system.id)

    def save():
        text = form.assumptions.data
        write(system, lambda d: editing.set_assumptions(d, step_id, intervention_id, text))
        return f"Saved the assumptions of {what}.", back

    return form_page(FormPage(form, f"Assumptions of {what}", action, back), save)


@bp.post("/<int:system_id>/assumptions/proposal")
@require_role(Role.editor)
def add_proposal(system_id: int):
    """A proposal of the intervention's name and description added to its assumptions: the
    line is made again here from the document, not taken from the form."""
    system = system_or_404(system_id)
    form = ProposalForm()
    if not form.validate_on_submit():
        abort(400, description=EXPIRED)
    step, work = located(system, form.step.data, form.intervention.data or "-")
    proposed = propose_assumptions(work.get("name") or "", work.get("description") or "")
    proposal = next((p for p in proposed if p.key == form.key.data), None)
    back = system_url(system, f"intervention-{work['id']}")
    if proposal is None:
        flash("That proposal is no longer made: the description changed.", "warning")
        return redirect(back)
    try:
        write(system, lambda d: editing.append_assumption(d, step["id"], work["id"], proposal.line))
    except Invalid as exc:
        db.session.rollback()
        flash(f"Not added: {exc}", "error")
        return redirect(back)
    db.session.commit()
    added = f"“{proposal.key}: {proposal.value}”"
    flash(
        f"Added {added} to the assumptions of “{work['name']}”; correct it there if needed.",
        "success",
    )
    return redirect(back)


# Steps


def step_fields(form: StepForm) -> dict[str, Any]:
    return {
        "name": form.name.data,
        "startDate": form.start.data,
        "endDate": form.end.data,
        "color": form.color.data,
        "secondary_crop": form.lane.data == "cover",
    }


# A problem about a step's date goes under the input that sets it.
STEP_INPUTS = {"startDate": "start", "endDate": "end"}


@bp.route("/<int:system_id>/steps/new", methods=["GET", "POST"])
@require_role(Role.editor)
def add_step(system_id: int):
    system = system_or_404(system_id)
    form = StepForm()
    action = url_for("systems.add_step", system_id=system.id)
    page = FormPage(form, f"Add a step to {system.name}", action, system_url(system, "steps"))
    page.inputs = STEP_INPUTS

    def save():
        added = []

        def change(document):
            document, step_id = editing.add_step(document, step_fields(form))
            added.append(step_id)
            return document

        write(system, change)
        name = form.name.data.strip()
        return f"Added the step “{name}”.", system_url(system, f"step-{added[0]}")

    return form_page(page, save)


@bp.route("/<int:system_id>/steps/edit", methods=["GET", "POST"])
@require_role(Role.editor)
def edit_step(system_id: int):
    system, step = step_of(system_id)
    data = {
        "name": step["name"],
        "start": editing.form_date(step["startDate"]),
        "end": editing.form_date(step["endDate"]),
        "color": step.get("color") or "",
        "lane": "cover" if step.get("secondary_crop") else "main",
    }
    form = StepForm(data=data)
    action = url_for("systems.edit_step", system_id=system.id, step=step["id"])
    back = system_url(system, f"step-{step['id']}")
    page = FormPage(form, f"Edit the step {step['name']}", action, back, STEP_INPUTS)

    def save():
        write(system, lambda d: editing.edit_step(d, step["id"], step_fields(form)))
        return f"Saved the step “{form.name.data.strip()}”.", back

    return form_page(page, save)


@bp.post("/<int:system_id>/steps/move")
@require_role(Role.editor)
def move_step(system_id: int):
    system, step = step_of(system_id)
    offset = -1 if request.args.get("by") == "up" else 1
    return confirmed(
        lambda: write(system, lambda d: editing.move_step(d, step["id"], offset)),
        f"Moved the step “{step['name']}” {'up' if offset < 0 else 'down'}.",
        system_url(system, f"step-{step['id']}"),
    )


def confirm_delete(what: str, question: str, action: str, back: str, button: str):
    return render_page(
        "tables/confirm.html",
        form=EmptyForm(),
        title=f"Delete {what}",
        question=question,
        action=action,
        hidden=[],
        button=button,
        back=back,
    )


def counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


@bp.route("/<int:system_id>/steps/delete", methods=["GET", "POST"])
@require_role(Role.editor)
def delete_step(system_id: int):
    system, step = step_of(system_id)
    if request.method == "POST":
        return confirmed(
            lambda: write(system, lambda d: editing.delete_step(d, step["id"]), "delete"),
            f"Deleted the step “{step['name']}”.",
            system_url(system, "steps"),
        )
    interventions = counted(len(step.get("interventions", [])), "intervention", "interventions")
    values = counted(editing.value_count(step), "value", "values")
    return confirm_delete(
        f"the step {step['name']}",
        f"Delete the step “{step['name']}” with its {interventions} and {values}? The history "
        "keeps the values.",
        url_for("systems.delete_step", system_id=system.id, step=step["id"]),
        system_url(system, f"step-{step['id']}"),
        "Delete the step",
    )


# Interventions


def intervention_fields(form: InterventionForm) -> dict[str, Any]:
    return {
        "name": form.name.data,
        "description": form.description.data,
        "day": form.day.data,
        "type": form.type.data,
    }


@bp.route("/<int:system_id>/interventions/new", methods=["GET", "POST"])
@require_role(Role.editor)
def add_intervention(system_id: int):
    system, step = step_of(system_id)
    form = InterventionForm()
    del form.step  # a new intervention belongs to the step it is added to
    action = url_for("systems.add_intervention", system_id=system.id, step=step["id"])
    back = system_url(system, f"step-{step['id']}")
    page = FormPage(form, f"Add an intervention to {step['name']}", action, back)

    def save():
        added = []

        def change(document):
            document, work_id = editing.add_intervention(
                document, step["id"], intervention_fields(form)
            )
            added.append(work_id)
            return document

        write(system, change)
        name = form.name.data.strip()
        message = f"Added the intervention “{name}” to “{step['name']}”."
        return message, system_url(system, f"intervention-{added[0]}")

    return form_page(page, save)


@bp.route("/<int:system_id>/interventions/edit", methods=["GET", "POST"])
@require_role(Role.editor)
def edit_intervention(system_id: int):
    system, step, work = intervention_of(system_id)
    data = {k: work.get(k, "") for k in ("name", "description")}
    data |= {"day": work.get("day", "0"), "type": work.get("type", TOP), "step": step["id"]}
    form = InterventionForm(data=data)
    form.step.choices = [SelectChoice(s["id"], s["name"]) for s in system.document["steps"]]
    form.step.description = (
        "Another step takes it with its values; its day then counts from that step's start."
    )
    action = url_for(
        "systems.edit_intervention", system_id=system.id, step=step["id"], intervention=work["id"]
    )
    back = system_url(system, f"intervention-{work['id']}")
    page = FormPage(form, f"Edit the intervention {work['name']}", action, back)

    def save():
        ids = [choice.value for choice in form.step.choices]
        to_step = form.step.data if form.step.data in ids else step["id"]

        def change(document):
            fields = intervention_fields(form)
            document = editing.edit_intervention(document, step["id"], work["id"], fields)
            return editing.move_intervention(document, step["id"], work["id"], to_step)

        write(system, change)
        return f"Saved the intervention “{form.name.data.strip()}”.", back

    return form_page(page, save)


@bp.route("/<int:system_id>/interventions/delete", methods=["GET", "POST"])
@require_role(Role.editor)
def delete_intervention(system_id: int):
    system, step, work = intervention_of(system_id)
    if request.method == "POST":
        return confirmed(
            lambda: write(
                system, lambda d: editing.delete_intervention(d, step["id"], work["id"]), "delete"
            ),
            f"Deleted the intervention “{work['name']}” of “{step['name']}”.",
            system_url(system, f"step-{step['id']}"),
        )
    values = counted(editing.value_count(work), "value", "values")
    return confirm_delete(
        f"the intervention {work['name']}",
        f"Delete the intervention “{work['name']}” of “{step['name']}” with its {values}? The "
        "history keeps the values.",
        url_for(
            "systems.delete_intervention",
            system_id=system.id,
            step=step["id"],
            intervention=work["id"],
        ),
        system_url(system, f"intervention-{work['id']}"),
        "Delete the intervention",
    )


# The system and its farm


@bp.route("/<int:system_id>/edit", methods=["GET", "POST"])
@require_role(Role.editor)
def edit_system(system_id: int):
    system = system_or_404(system_id)
    form = SystemForm(obj=system)
    action = url_for("systems.edit_system", system_id=system.id)

    def save():
        details = {key: form[key].data for key, _limit, _lines in catalog.DETAILS}
        catalog.edit_system(system, form.name.data, **details)
        return f"Saved “{system.name}”.", system_url(system)

    return form_page(FormPage(form, f"Edit {system.name}", action, system_url(system)), save)


@bp.route("/<int:system_id>/delete", methods=["GET", "POST"])
@require_role(Role.editor)
def delete_system(system_id: int):
    system = system_or_404(system_id)
    if request.method == "POST":
        busy = busy_run([system])
        if busy is not None:
            return busy
        return confirmed(
            lambda: catalog.delete_system(system, current_user),
            f"Deleted the system “{system.name}”.",
            url_for("systems.index"),
        )
    steps = system.document.get("steps", [])
    values = counted(sum(editing.value_count(s) for s in steps), "value", "values")
    return confirm_delete(
        system.name,
        f"Delete the system “{system.name}” of {system.farm.name} with its "
        f"{counted(len(steps), 'step', 'steps')} and {values}? Its open suggestions are "
        "rejected; the history keeps the values. This cannot be undone.",
        url_for("systems.delete_system", system_id=system.id),
        system_url(system),
        "Delete the system",
    )


def farm_or_404(farm_id: int) -> Farm:
    return db.get_or_404(Farm, farm_id, description=f"There is no farm #{farm_id}.")


@bp.route("/farms/<int:farm_id>/edit", methods=["GET", "POST"])
@require_role(Role.editor)
def edit_farm(farm_id: int):
    farm = farm_or_404(farm_id)
    form = FarmForm(obj=farm)
    action = url_for("systems.edit_farm", farm_id=farm.id)
    back = url_for("systems.index", _anchor=f"farm-{farm.id}")

    def save():
        catalog.edit_farm(farm, form.name.data, form.region.data)
        return f"Saved the farm “{farm.name}”.", back

    return form_page(FormPage(form, f"Edit the farm {farm.name}", action, back), save)


@bp.route("/farms/<int:farm_id>/delete", methods=["GET", "POST"])
@require_role(Role.editor)
def delete_farm(farm_id: int):
    farm = farm_or_404(farm_id)
    count = len(farm.systems)
    systems = f" with its {counted(count, 'system', 'systems')}" if count else ""
    if request.method == "POST":
        busy = busy_run(farm.systems)
        if busy is not None:
            return busy
        return confirmed(
            lambda: catalog.delete_farm(farm, current_user),
            f"Deleted the farm “{farm.name}”{systems}.",
            url_for("systems.index"),
        )
    names = ", ".join(f"“{s.name}”" for s in farm.systems)
    also = f" Deleted with it: {names}; the history keeps their values." if count else ""
    return confirm_delete(
        f"the farm {farm.name}",
        f"Delete the farm “{farm.name}”{systems}?{also} This cannot be undone.",
        url_for("systems.delete_farm", farm_id=farm.id),
        url_for("systems.index", _anchor=f"farm-{farm.id}"),
        "Delete the farm" + (" and its systems" if count else ""),
    )
