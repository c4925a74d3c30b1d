"""Farm systems workspace: farms and their systems, importing and exporting itinera's JSON, the
system page (timeline and grid, with a cell edited in place). Its JSON API is api.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user
from werkzeug.utils import secure_filename

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.exports import csv_text
from webapp.extensions import db, htmx
from webapp.jobs.models import Run
from webapp.jobs.queue import QueueUnavailable, RunInProgress
from webapp.links import with_args
from webapp.pagination import page_number, paginate
from webapp.problems import Invalid, show_on_form
from webapp.rendering import render_page
from webapp.review.audit import history, undoable_groups
from webapp.systems import bp, catalog, editing, grid, runs, summary
from webapp.systems.document import (
    DocumentInvalid,
    awaiting_review,
    read_document,
)
from webapp.systems.farm_totals import FarmTotals, farm_totals
from webapp.systems.forms import IMPORT_MAX_BYTES, ImportForm, ValueForm
from webapp.systems.grid import InputChange
from webapp.systems.models import VALUE_TARGET, Farm, System
from webapp.systems.runs import SystemCalculation
from webapp.systems.stale import stale_at, stale_values
from webapp.systems.target import VALUES
from webapp.systems.timeline import layout
from webapp.systems.totals import system_totals
from webapp.uploads import read_text

SYSTEMS_PER_PAGE = 25


def system_or_404(system_id: int) -> System:
    return db.get_or_404(System, system_id, description=f"There is no system #{system_id}.")


@bp.get("")
def index():
    page = paginate(catalog.farms_query(), page_number(request.args), SYSTEMS_PER_PAGE)
    return render_page("systems/list.html", farms=page.items, page=page, totals_of=farm_totals_of)


def farm_totals_of(farm: Farm) -> FarmTotals:
    return farm_totals((system.name, system.document) for system in farm.systems)


def render_import(form: ImportForm, problems=None, status: int = 200):
    return render_page("systems/import.html", form=form, problems=problems), status


@bp.route("/import", methods=["GET", "POST"])
@require_role(Role.editor)
@takes_upload()
def import_file():
    form = ImportForm()
    if not form.validate_on_submit():
        return render_import(form, status=422 if form.errors else 200)
    try:
        text = read_text(
            form.file.data,
            IMPORT_MAX_BYTES,
            too_large="The file is larger than {limit}.",
            advice="Export it again from itinera (JSON, UTF-8).",
        )
        document = read_document(text)
        farm = catalog.farm_named(form.farm.data) or catalog.create_farm(
            form.farm.data, form.region.data
        )
        system, saved = catalog.import_system(farm, form.name.data, document, current_user)
    except DocumentInvalid as exc:
        db.session.rollback()  # nothing is stored
        return render_import(form, exc.problems, 422)
    except Invalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems)
        return render_import(form, status=422)
    db.session.commit()
    steps = system.document.get("steps", [])
    flash(f"Imported “{system.name}” into {farm.name}: {len(steps)} step(s).", "success")
    if saved.warning:
        flash(saved.warning, "warning")
    if said := saved.not_numbers_said(system.document):
        flash(said, "warning")
    return redirect(url_for("systems.show", system_id=system.id))


# What the system page's history offers to undo: a person's edits and applied suggestions.


# The stale values of the systems last shown, by id and last write: they depend on the document
# alone, and every write of one moves its updated_at (store_document). Working them out takes
# about 0.1 s for 2,000 interventions of 10 calculated values each: once per write, not per view.
STALE_KEPT = 16
_stale_kept: dict[tuple[int, Any], dict[str, list[InputChange]]] = {}


def stale_of(system: System) -> dict[str, list[InputChange]]:
    key = (system.id, system.updated_at)
    found = _stale_kept.get(key)
    if found is None:
        if len(_stale_kept) >= STALE_KEPT:
            _stale_kept.clear()  # not one at a time: a server's threads share it
        found = _stale_kept[key] = stale_values(system.document)
    return found


def system_context(system: System, page: int = 1) -> dict[str, Any]:
    """The system page: its grid and its list of steps one page of interventions at a time
    (grid.PAGE_SIZE), its totals, timeline and history whole."""
    keys = grid.columns(system.document)
    shown = grid.window(system.document, page)
    changes = history((VALUE_TARGET,), system.id, limit=20)
    may_undo = current_user.can(Role.reviewer)
    totals = system_totals(system.document)
    stale = stale_of(system)
    return {
        "system": system,
        "rotation_years": totals.rotation_years,
        "yearly": summary.yearly_rows(system.document, totals),
        "campaigns": summary.campaign_table(totals.ift_campaigns),
        "chart": summary.step_chart(system.document, totals),
        "timeline": layout(system.document),
        "outline": editing.outline(system.document, shown.steps),
        "headings": grid.headings(keys, system.document),
        "rows": grid.rows(system.document, keys, shown, stale),
        "stale_count": len(stale),
        "page": shown.page,
        "states": grid.STATES,
        "waiting": len(set(awaiting_review(system.document)) - stale.keys()),
        "waiting_confident": len(set(awaiting_review(system.document, "high")) - stale.keys()),
        "changes": changes,
        "label_of": grid.labeller(system.document),
        "made_by": grid.MADE_BY,
        "undoable": undoable_groups(changes, VALUES.undo_sources) if may_undo else [],
    }


@bp.get("/<int:system_id>")
def show(system_id: int):
    system = system_or_404(system_id)
    return render_page("systems/system.html", **system_context(system, page_number(request.args)))


def _filename(system: System, extension: str) -> str:
    return f"{secure_filename(system.name) or f'system-{system.id}'}.{extension}"


def document_response(system: System, download: bool) -> Response:
    body = json.dumps(system.document, ensure_ascii=False, indent=2)
    headers = {}
    if download:
        headers["Content-Disposition"] = f"attachment; filename={_filename(system, 'json')}"
    return Response(body, mimetype="application/json", headers=headers)


@bp.get("/<int:system_id>.json")
def export(system_id: int):
    """The document as itinera reads it: every key that came in, plus our values."""
    return document_response(system_or_404(system_id), download=True)


@bp.get("/<int:system_id>.csv")
def export_csv(system_id: int):
    """The grid for a spreadsheet: a row per step and per intervention, a column per indicator."""
    system = system_or_404(system_id)
    keys = grid.columns(system.document)
    document = system.document
    body = csv_text(summary.csv_header(keys, document), summary.csv_rows(document, keys))
    return Response(
        body,
        mimetype="text/csv",
        headers={"Content-Disposition": f"attachment; filename={_filename(system, 'csv')}"},
    )


# One cell of the grid: htmx swaps its <td> between _cell.html and _cell_edit.html.


def cell_of(system: System, args) -> tuple[grid.Row, grid.Cell]:
    step_id, intervention_id = args.get("step", ""), args.get("intervention") or None
    key = args.get("key", "")
    stale = stale_at(system.document, step_id, intervention_id)
    row = grid.find_row(system.document, step_id, intervention_id, stale)
    if row is None or key not in [c.key for c in row.cells] or not row.editable(key):
        abort(404, description="The system has no such value.")
    return row, row.cell(key)


def render_cell(system: System, row: grid.Row, cell: grid.Cell, note: str | None = None):
    return render_template("systems/_cell.html", system=system, row=row, cell=cell, note=note)


@bp.get("/<int:system_id>/cell")
def cell(system_id: int):
    system = system_or_404(system_id)
    return render_cell(system, *cell_of(system, request.args))


def value_form(row: grid.Row, cell: grid.Cell, formdata=None) -> ValueForm:
    data = {
        "step": row.step_id,
        "intervention": row.intervention_id or "",
        "key": cell.key,
        "value": "" if cell.value is None else cell.value,
    }
    return ValueForm(formdata=formdata, data=data)


@bp.get("/<int:system_id>/cell/edit")
@require_role(Role.editor)
def edit_cell(system_id: int):
    system = system_or_404(system_id)
    row, cell = cell_of(system, request.args)
    form = value_form(row, cell)
    # An empty intervention value a calculator (or the model) can work out offers to calculate
    # it; any such value can be refined, a filled one recalculated.
    calculable = cell.state == "empty" and runs.refinable(row.intervention_id, cell.key)
    return render_template(
        "systems/_cell_edit.html",
        system=system,
        row=row,
        cell=cell,
        form=form,
        calculable=calculable,
        refinable=runs.refinable(row.intervention_id, cell.key),
    )


@bp.post("/<int:system_id>/cell")
@require_role(Role.editor)
def save_cell(system_id: int):
    system = system_or_404(system_id)
    row, cell = cell_of(system, request.form)
    form = ValueForm()
    if not form.validate():
        abort(400, description="The form expired; reload the page and try again.")
    try:
        saved = catalog.set_value(
            system, row.step_id, row.intervention_id, cell.key, form.value.data, current_user
        )
    except Invalid as exc:
        db.session.rollback()
        form = value_form(row, cell, request.form)
        show_on_form(form, exc.problems, {p.loc: form.value for p in exc.problems})
        page = render_template(
            "systems/_cell_edit.html", system=system, row=row, cell=cell, form=form
        )
        return page, 422
    db.session.commit()
    if not request.headers.get("HX-Request"):
        return redirect(url_for("systems.show", system_id=system.id, _anchor="grid"))
    row, cell = cell_of(system, request.form)
    return render_cell(system, row, cell, saved.warning)


# Calculating missing values: a run proposes them, people review them through the core.


def calculation_or_404(system: System, run_id: int) -> Run:
    run = db.get_or_404(Run, run_id, description=f"There is no run #{run_id}.")
    if run.kind != SystemCalculation.name or run.params.get("system_id") != system.id:
        abort(404, description=f"Run #{run_id} calculated nothing for this system.")
    return run


def run_seconds(cells: int) -> float | None:
    """How long a run over this many cells may take, from the recent runs' mean per cell."""
    query = (
        db.select(Run)
        .where(Run.kind == SystemCalculation.name, Run.finished_at.is_not(None), Run.done > 0)
        .order_by(Run.id.desc())
        .limit(10)
    )
    per_cell = [
        (r.finished_at - r.started_at).total_seconds() / r.done
        for r in db.session.scalars(query)
        if r.started_at
    ]
    return cells * sum(per_cell) / len(per_cell) if per_cell else None


@bp.get("/<int:system_id>/calculate")
@require_role(Role.editor)
def confirm_calculation(system_id: int):
    system = system_or_404(system_id)
    cells = runs.cells_to_calculate(system.document)
    return render_page(
        "systems/calculate.html",
        system=system,
        cells=len(cells),
        seconds=run_seconds(len(cells)),
        form=EmptyForm(),
    )


def start_and_show(system: System, start: Callable[[], Run] | None = None):
    """Start a run (the calculation of every missing value unless start says otherwise) and
    go to its page; a problem is flashed on the system page."""
    try:
        run = start() if start else runs.start_calculation(system, current_user)
    except RunInProgress as exc:
        db.session.rollback()
        flash(str(exc), "warning")
        return go(url_for("review.run_review", run_id=exc.run.id))
    except (Invalid, QueueUnavailable) as exc:
        db.session.rollback()
        flash(str(exc), "error")
        return go(url_for("systems.show", system_id=system.id, _anchor="grid"))
    db.session.commit()
    return go(url_for("review.run_review", run_id=run.id))


def go(target: str):
    """A redirect; asked from a grid cell (htmx), the whole page goes there."""
    if htmx:
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target)


@bp.post("/<int:system_id>/calculate")
@require_role(Role.editor)
def calculate_missing(system_id: int):
    return start_and_show(system_or_404(system_id))


@bp.post("/<int:system_id>/recalculate-stale")
@require_role(Role.editor)
def recalculate_stale(system_id: int):
    """The values calculated from inputs that changed since, recalculated as suggestions."""
    system = system_or_404(system_id)
    return start_and_show(system, partial(runs.start_stale, system, current_user))


@bp.post("/<int:system_id>/cell/calculate")
@require_role(Role.editor)
def calculate_one(system_id: int):
    """One cell calculated; a filled one only with recalculate=1 (this cell, asked for)."""
    system = system_or_404(system_id)
    form = request.form
    start = partial(
        runs.start_cell,
        system,
        current_user,
        form.get("step", ""),
        form.get("intervention", ""),
        form.get("key", ""),
        recalculate=form.get("recalculate") == "1",
    )
    return start_and_show(system, start)


@bp.get("/<int:system_id>/runs/<int:run_id>")
def calculation(system_id: int, run_id: int):
    """A run's old address: its review is the review core's page."""
    calculation_or_404(system_or_404(system_id), run_id)
    args = dict(request.args)
    # Its filter was ?show=, in the words of this page alone.
    if "show" in args:
        show = args.pop("show")
        args["level"] = "nothing" if show == "not_calculated" else show
    return redirect(with_args(url_for("review.run_review", run_id=run_id), **args))
