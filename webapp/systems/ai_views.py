"""Refining one value: a person writes what to change ("la charrue n'a que 4 corps") and a run
recalculates the value with it — the model reads it with the value's conversation (openai
provider), or its assumption lines are added to the intervention's (offline). The page route;
its JSON API is in api.py."""

from __future__ import annotations

from functools import partial

from flask import flash, render_template, request
from flask_login import current_user

from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.extensions import htmx
from webapp.problems import Invalid
from webapp.rendering import render_page
from webapp.systems import bp, runs
from webapp.systems.views import (
    cell_of,
    start_and_show,
    system_context,
    system_or_404,
    value_form,
)


@bp.post("/<int:system_id>/cell/refine")
@require_role(Role.editor)
def refine_cell(system_id: int):
    """A refinement of one value from the form's message, then its run's page; a message that
    cannot be used is shown again with what is wrong (422)."""
    system = system_or_404(system_id)
    form = request.form
    message = form.get("message", "")
    try:
        text = runs.refine_message(message)
    except Invalid as exc:
        return refine_refused(system, str(exc), message)
    start = partial(
        runs.start_refine,
        system,
        current_user,
        form.get("step", ""),
        form.get("intervention", ""),
        form.get("key", ""),
        text,
    )
    return start_and_show(system, start)


def refine_refused(system, problem: str, message: str):
    """The cell's editor again (htmx) or the system page, with the problem and the message."""
    if htmx:
        row, cell = cell_of(system, request.form)
        page = render_template(
            "systems/_cell_edit.html",
            system=system,
            row=row,
            cell=cell,
            form=value_form(row, cell),
            refinable=runs.refinable(row.intervention_id, cell.key),
            refine_error=problem,
            refine_message=message,
        )
        return page, 422
    flash(problem, "error")
    return render_page("systems/system.html", **system_context(system)), 422
