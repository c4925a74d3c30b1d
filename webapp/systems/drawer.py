"""The drawer of a grid cell: one value with its review state and who made it, its conversation,
the assumptions in effect and how its latest suggestion was made; editors approve, edit and
recalculate it there. htmx gets the drawer alone, any other request the same as a page. And
the approval page: the values waiting for review, approved a selection at a time or every
high-confidence one at once (said first, then confirmed).

Applying a suggestion writes a prediction (reviewed false, with its confidence and
conversation); approving is the separate act that marks a value reviewed."""

from __future__ import annotations

import hashlib
from typing import Any

from flask import flash, redirect, request, url_for
from flask_login import current_user
from sqlalchemy import select

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.extensions import db, htmx
from webapp.jobs.kinds import RUN_KINDS
from webapp.jobs.models import Run
from webapp.problems import Invalid
from webapp.rendering import render_page
from webapp.review.models import Change, Suggestion
from webapp.systems import bp, catalog, grid, runs
from webapp.systems.assumptions import find_step, key_label
from webapp.systems.calculators import CALCULATORS, calculate_in
from webapp.systems.cell_details import (
    Made,
    assumptions_in_effect,
    made_by,
    texts,
    thread,
)
from webapp.systems.document import value_path
from webapp.systems.models import VALUE_TARGET, System
from webapp.systems.views import cell_of, stale_of, system_or_404

SUGGESTION_WORDS = {
    "pending": "waiting for a reviewer",
    "applied": "applied",
    "rejected": "rejected",
    "blocked": "blocked: an error keeps it from being applied",
    "stale": "stale: the value changed after it was suggested",
}


@bp.app_template_global()
def cell_id(step_id: str, intervention_id: str | None, key: str) -> str:
    """The id of a grid cell's <td>, a digest of its path: a document's ids may hold any
    character, an id used as a CSS selector may not."""
    path = value_path(step_id, intervention_id, key)
    return "cell-" + hashlib.sha256(path.encode()).hexdigest()[:12]


def audit_rows(system_id: int, path: str) -> list[Made]:
    query = (
        select(Change)
        .where(
            Change.target_type == VALUE_TARGET,
            Change.target_id == system_id,
            Change.field.in_([path, f"{path}.reviewed"]),
        )
        .order_by(Change.id.desc())
        .limit(20)
    )
    return [
        Made(
            c.field,
            c.source,
            c.user.display_name if c.user else None,
            c.at,
            c.new_value,
            c.group_id,
        )
        for c in db.session.scalars(query)
    ]


def latest_suggestion(system_id: int, path: str) -> Suggestion | None:
    query = (
        select(Suggestion)
        .where(
            Suggestion.target_type == VALUE_TARGET,
            Suggestion.target_id == system_id,
            Suggestion.field == path,
        )
        .order_by(Suggestion.id.desc())
        .limit(1)
    )
    return db.session.scalars(query).first()


def review_url(run: Run) -> str:
    """Where the run's suggestions are reviewed; its own page for a kind without one."""
    kind = RUN_KINDS.get(run.kind)
    found = kind().review_url(run) if kind and not run.is_live else None
    return found or url_for("runs.show_run", run_id=run.id)


def how_made(system: System, path: str) -> dict[str, Any] | None:
    """The latest suggestion for the value, its run, and the steps and assumptions the run
    kept for the cell."""
    suggestion = latest_suggestion(system.id, path)
    if suggestion is None:
        return None
    run = db.session.get(Run, suggestion.run_id) if suggestion.run_id else None
    kept = (run.results or {}).get(path) if run else None
    kept = kept if isinstance(kept, dict) else {}
    return {
        "suggestion": suggestion,
        "status": SUGGESTION_WORDS.get(suggestion.status, suggestion.status),
        "run": run,
        "review_url": review_url(run) if run else None,
        "steps": texts(kept.get("calculation_steps")),
        "assumptions": texts(kept.get("assumptions")),
    }


def drawer_context(system: System, row: grid.Row, cell: grid.Cell, **more: Any) -> dict:
    document = system.document
    path = value_path(row.step_id, row.intervention_id, cell.key)
    editor = current_user.can(Role.editor)
    # What the provider can propose: with openai, seeds and fertiliser too (the model).
    calculable = runs.refinable(row.intervention_id, cell.key)
    needs = None
    if calculable and cell.key in CALCULATORS and cell.state == "empty":
        needs = calculate_in(document, row.step_id, row.intervention_id, cell.key).needs
    # A stale value beside what its calculator gives from what holds now.
    now = calculate_in(document, row.step_id, row.intervention_id, cell.key) if cell.stale else None
    return {
        "system": system,
        "row": row,
        "cell": cell,
        "unit": cell.unit,
        "title": f"{row.name} › {cell.label}" + (f" ({cell.unit})" if cell.unit else ""),
        "step_name": find_step(document, row.step_id).get("name", ""),
        "state": cell.meaning,
        "made": made_by(path, audit_rows(system.id, path)),
        "thread": thread((cell.entry or {}).get("conversation")),
        "assumptions": assumptions_in_effect(document, row.step_id, row.intervention_id),
        "how": how_made(system, path),
        # The keys as the page names them: "Product price", not the calculators' "Prix produit".
        "needs": [key_label(key) for key in needs or ()],
        "now": now,
        "now_needs": [key_label(key) for key in now.needs] if now else [],
        "may_approve": editor and cell.state in grid.UNREVIEWED,
        "may_calculate": editor and calculable and cell.state != "na",
        # Calculate asks a calculator for this value, or (no calculator has it) the model.
        "has_calculator": cell.key in CALCULATORS,
        "may_edit": editor,
        "in_drawer": bool(htmx),
        "close_url": url_for("systems.show", system_id=system.id, _anchor="grid"),
    } | more


def drawer_url(system: System, row: grid.Row, cell: grid.Cell) -> str:
    return url_for(
        "systems.cell_drawer",
        system_id=system.id,
        step=row.step_id,
        intervention=row.intervention_id or "",
        key=cell.key,
    )


@bp.get("/<int:system_id>/cell/drawer")
def cell_drawer(system_id: int):
    system = system_or_404(system_id)
    row, cell = cell_of(system, request.args)
    return render_page("systems/_drawer.html", "drawer", **drawer_context(system, row, cell))


@bp.post("/<int:system_id>/cell/approve")
@require_role(Role.editor)
def approve_cell(system_id: int):
    """The value marked reviewed as it stands; the grid's cell is swapped with the drawer."""
    system = system_or_404(system_id)
    row, cell = cell_of(system, request.form)
    try:
        catalog.set_reviewed(system, row.step_id, row.intervention_id, cell.key, current_user)
    except Invalid as exc:
        db.session.rollback()
        if not htmx:
            flash(str(exc), "error")
            return redirect(drawer_url(system, row, cell))
        context = drawer_context(system, row, cell, problem=str(exc))
        return render_page("systems/_drawer.html", "drawer", **context), 422
    db.session.commit()
    row, cell = cell_of(system, request.form)
    done = f"Approved: {row.name}, {cell.label} is marked reviewed."
    if not htmx:
        flash(done, "success")
        return redirect(drawer_url(system, row, cell))
    context = drawer_context(system, row, cell, done=done, swap_cell=True)
    return render_page("systems/_drawer.html", "drawer", **context)


# The values the approval page lists at once: a system may wait on thousands.
APPROVAL_SHOWN = 300


@bp.get("/<int:system_id>/approve")
@require_role(Role.editor)
def approval(system_id: int):
    """The values waiting for review, to approve a selection of; with ?confidence=high, every
    high-confidence one, listed and counted before it is confirmed."""
    system = system_or_404(system_id)
    confident = request.args.get("confidence") == "high"
    found = grid.waiting(system.document, "high" if confident else None, stale_of(system))
    return render_page(
        "systems/approve.html",
        system=system,
        confident=confident,
        waiting=found[:APPROVAL_SHOWN],
        total=len(found),
        form=EmptyForm(),
    )


@bp.post("/<int:system_id>/approve")
@require_role(Role.editor)
def approve_values(system_id: int):
    """The chosen values (or with all=high every high-confidence one, as the server finds them
    now) marked reviewed as they stand: one audited group, undone from the system page."""
    system = system_or_404(system_id)
    all_high = request.form.get("all") == "high"
    if not all_high and not request.form.getlist("cell"):
        flash("Choose the values to approve.", "warning")
        return redirect(url_for("systems.approval", system_id=system.id))
    wanted = "high" if all_high else None
    found = [w.path for w in grid.waiting(system.document, wanted, stale_of(system))]
    asked = set(request.form.getlist("cell"))
    chosen = found if all_high else [p for p in found if p in asked]
    saved = catalog.approve(system, chosen, current_user)
    db.session.commit()
    if saved.group is None:
        flash("Nothing was approved: none of these values is waiting for review.", "warning")
    else:
        flash(
            f"Approved {len(chosen):,} value(s): marked reviewed. A reviewer can undo it from "
            "Recent changes.",
            "success",
        )
    if saved.warning:
        flash(saved.warning, "warning")
    return redirect(url_for("systems.show", system_id=system.id, _anchor="grid"))
