"""The farm systems' JSON API (/api/v1/systems): systems and their documents, values,
calculations and their runs, stale values, doses, edits and the AI's answers."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from flask import jsonify, request
from flask_login import current_user
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from webapp.api import json_body
from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.contract import Id, Name, Number, Paging, RequestModel, Text, accepts
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.pagination import page_number, paginate, per_page
from webapp.problems import Invalid
from webapp.systems import api, catalog, editing, grid, runs, summary
from webapp.systems.document import (
    ASSUMPTIONS_LIMIT,
    KEEP,
    parse_path,
    value_entry,
    value_path,
)
from webapp.systems.models import Farm, System
from webapp.systems.runs import review_rows
from webapp.systems.views import (
    SYSTEMS_PER_PAGE,
    calculation_or_404,
    document_response,
    farm_totals_of,
    stale_of,
    system_or_404,
)


class DocumentBody(BaseModel):
    """An itinera document: its steps are checked by the document's own rules, which name
    each problem's path; any other key is kept."""

    model_config = ConfigDict(extra="allow")
    steps: Annotated[list[dict[str, Any]], Field(max_length=200)]


class NewSystem(RequestModel):
    farm_id: Id | None = None
    farm: Name | None = None
    region: Name = ""
    name: Name | None = None
    description: Text = ""
    system_type: Annotated[str, Field(max_length=100)] = ""
    productions: Name = ""
    gps_location: Name = ""
    document: DocumentBody


class NewValue(RequestModel):
    step_id: Annotated[str, Field(min_length=1, max_length=64)]
    intervention_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    key: Annotated[str, Field(min_length=1, max_length=64)]
    value: Number | Annotated[str, Field(max_length=64)] | None = None
    reviewed: StrictBool | Literal["n/a"] | None = None


def _saved(system: System, saved: catalog.Saved, **more: Any) -> dict[str, Any]:
    answer = catalog.to_dict(system) | more | {"undo_group": saved.group}
    if saved.not_numbers:
        label_of = grid.labeller(system.document)
        answer["not_numbers"] = [
            {"path": path, "label": label_of(path), "value": text}
            for path, text in saved.not_numbers.items()
        ]
        answer["not_numbers_message"] = saved.not_numbers_said(system.document)
    return answer | ({"warning": saved.warning} if saved.warning else {})


@api.get("")
@accepts(query=Paging, summary="Systems with their farm, paged (without their documents).")
def api_index():
    query = db.select(System).order_by(System.id)
    page = paginate(query, page_number(request.args), per_page(request.args, SYSTEMS_PER_PAGE))
    return jsonify(page.as_json("systems", [catalog.to_dict(s) for s in page.items]))


@api.post("")
@require_role(Role.editor)
@takes_upload()
@accepts(
    NewSystem,
    answers={
        201: "Imported; `warning` when the document is over 1 MB; `not_numbers` (path, label, "
        "value) for values that are text but not numbers."
    },
    summary="Import an itinera document as a new system of a farm (by id, or by name).",
)
def api_create():
    body = json_body()
    if body.get("farm_id") is not None:
        farm = db.session.get(Farm, body["farm_id"])
        if farm is None:
            raise Invalid("There is no such farm.", code="farm_missing", loc="farm_id")
    elif body.get("farm"):
        farm = catalog.farm_named(body["farm"]) or catalog.create_farm(
            body["farm"], body.get("region", "")
        )
    else:
        raise Invalid("Name the farm (farm) or give its id (farm_id).", loc="farm")
    details = {
        k: body.get(k, "") for k in ("description", "system_type", "productions", "gps_location")
    }
    system, saved = catalog.import_system(
        farm, body.get("name"), body["document"], current_user, **details
    )
    db.session.commit()
    return jsonify(_saved(system, saved)), 201


@api.get("/<int:system_id>")
@accepts(summary="A system's document, as itinera reads it.")
def api_show(system_id: int):
    return document_response(system_or_404(system_id), download=False)


@api.put("/<int:system_id>")
@require_role(Role.editor)
@takes_upload()
@accepts(DocumentBody, summary="Replace a system's document (checked first; values audited).")
def api_replace(system_id: int):
    system = system_or_404(system_id)
    saved = catalog.replace_document(system, json_body(), current_user)
    db.session.commit()
    return jsonify(_saved(system, saved))


@api.post("/<int:system_id>/values")
@require_role(Role.editor)
@accepts(
    NewValue,
    answers={200: "Set; `undo_group` undoes it through POST /api/v1/undo/<group>."},
    summary="Set one value (a person's: reviewed unless `reviewed` says otherwise); without "
    "`value`, only its review status (`reviewed: true` approves it as it stands); "
    "`value: null` clears it.",
)
def api_set_value(system_id: int):
    system = system_or_404(system_id)
    body = json_body()
    step_id, intervention_id, key = body["step_id"], body.get("intervention_id"), body["key"]
    # Without "value" the value stays (reviewed alone approves it); null clears it.
    value = body.get("value", KEEP)
    saved = catalog.set_value(
        system, step_id, intervention_id, key, value, current_user, body.get("reviewed")
    )
    db.session.commit()
    path = value_path(step_id, intervention_id, key)
    entry = value_entry(system.document, path)
    return jsonify(_saved(system, saved, path=path, entry=entry))


@api.post("/<int:system_id>/calculate-missing")
@require_role(Role.editor)
@accepts(
    answers={202: "Queued; review it through /api/v1/runs/<run_id>/suggestions."},
    summary="Calculate every missing value that has a calculator, offline, as suggestions.",
)
def api_calculate_missing(system_id: int):
    run = runs.start_calculation(system_or_404(system_id), current_user)
    db.session.commit()
    return jsonify(run_id=run.id, cells=run.total), 202


@api.get("/<int:system_id>/stale")
@accepts(
    summary="The system's stale values: each value calculated from an assumption or a value "
    "that reads differently now, with what changed (`input`, `then`, `now`; empty when it "
    "was, or is, not stated)."
)
def api_stale(system_id: int):
    system = system_or_404(system_id)
    label_of = grid.labeller(system.document)
    stale = [
        {
            "path": path,
            "label": label_of(path),
            "changes": [{"input": c.name, "then": c.then, "now": c.now} for c in changes],
        }
        for path, changes in stale_of(system).items()
    ]
    return jsonify(count=len(stale), stale=stale)


@api.post("/<int:system_id>/recalculate-stale")
@require_role(Role.editor)
@accepts(
    answers={202: "Queued; review it through /api/v1/runs/<run_id>/suggestions."},
    summary="Recalculate every stale value, offline, as suggestions (422 when none is stale).",
)
def api_recalculate_stale(system_id: int):
    run = runs.start_stale(system_or_404(system_id), current_user)
    db.session.commit()
    return jsonify(run_id=run.id, cells=run.total), 202


class CellAt(RequestModel):
    """One value of an intervention."""

    step_id: Annotated[str, Field(min_length=1, max_length=64)]
    intervention_id: Annotated[str, Field(min_length=1, max_length=64)]
    key: Annotated[str, Field(min_length=1, max_length=64)]


def cell_args(body: dict[str, Any]) -> tuple[str, str, str]:
    return body["step_id"], body["intervention_id"], body["key"]


class CellBody(CellAt):
    recalculate: StrictBool = False  # a filled cell too: the person asks for this one


@api.post("/<int:system_id>/calculate")
@require_role(Role.editor)
@accepts(
    CellBody,
    answers={202: "Queued: a run of one cell, reviewed like the others."},
    summary="Calculate one empty value of an intervention (or, with recalculate, a filled one), "
    "as a suggestion.",
)
def api_calculate_one(system_id: int):
    system = system_or_404(system_id)
    body = json_body()
    recalculate = body.get("recalculate", False)
    run = runs.start_cell(system, current_user, *cell_args(body), recalculate=recalculate)
    db.session.commit()
    return jsonify(run_id=run.id, cells=run.total), 202


@api.get("/<int:system_id>/runs/<int:run_id>")
@accepts(
    summary="A calculation run as a BatchCalculationSummary: what it calculated, cell by cell."
)
def api_calculation(system_id: int, run_id: int):
    system = system_or_404(system_id)
    return jsonify(batch_summary(calculation_or_404(system, run_id), system.document))


@api.get("/<int:system_id>/totals")
@accepts(
    summary="The system's totals per intervention, step and year, with their units; at system "
    "level each total says whether it is partial, and `missing` what each total that is not "
    "complete lacks, step by step (the interventions or indicators, by name). Predictions "
    "(values no person reviewed) count; each value's `unreviewed` is the part of it that rests "
    "on them."
)
def api_totals(system_id: int):
    return jsonify(summary.totals_answer(system_or_404(system_id).document))


@api.get("/farms/<int:farm_id>/totals")
@accepts(summary="A farm's totals per hectare and year, weighted by its systems' areas.")
def api_farm_totals(farm_id: int):
    farm = db.get_or_404(Farm, farm_id, description=f"There is no farm #{farm_id}.")
    return jsonify(farm_totals_of(farm).to_dict())


class AssumptionsBody(RequestModel):
    """The system's assumptions (no step_id), a step's, or an intervention's (both ids)."""

    step_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    intervention_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    assumptions: Annotated[str, Field(max_length=ASSUMPTIONS_LIMIT)]


@api.put("/<int:system_id>/assumptions")
@require_role(Role.editor)
@accepts(
    AssumptionsBody,
    summary="Replace one level's assumptions: the system's, a step's or an intervention's.",
)
def api_set_assumptions(system_id: int):
    system = system_or_404(system_id)
    body = json_body()
    step_id, intervention_id = body.get("step_id"), body.get("intervention_id")
    if intervention_id and not step_id:
        raise Invalid("Give the intervention's step_id too.", loc="step_id")
    text = body["assumptions"]
    saved = catalog.edit_document(
        system,
        lambda d: editing.set_assumptions(d, step_id, intervention_id, text),
        current_user,
    )
    db.session.commit()
    answer = catalog.to_dict(system) | {"assumptions": text}
    return jsonify(answer | ({"warning": saved.warning} if saved.warning else {}))


@api.delete("/<int:system_id>")
@require_role(Role.editor)
@accepts(
    answers={204: "Deleted; its values stay in the audit trail.", 409: "A run is calculating it."},
    summary="Delete a system; its open suggestions are rejected.",
)
def api_delete(system_id: int):
    system = system_or_404(system_id)
    runs.not_busy(system)  # 409 with the run's id
    catalog.delete_system(system, current_user)
    db.session.commit()
    return "", 204


class RefineBody(CellAt):
    message: Annotated[str, Field(max_length=20_000)]


@api.post("/<int:system_id>/refine")
@require_role(Role.editor)
@accepts(
    RefineBody,
    answers={202: "Queued: a run of one cell, reviewed like the others."},
    summary="Refine one value of an intervention from a message (at most 2,000 characters), "
    "as a suggestion; offline the message must state assumptions (- **Key**: Value).",
)
def api_refine(system_id: int):
    system = system_or_404(system_id)
    body = json_body()
    run = runs.start_refine(system, current_user, *cell_args(body), body["message"])
    db.session.commit()
    return jsonify(run_id=run.id, cells=run.total), 202


def batch_summary(run: Run, document: dict[str, Any]) -> dict[str, Any]:
    """The run as seed 003's BatchCalculationSummary: how many cells it calculated out of how
    many, and each cell's result (its step and intervention by index in the document as it is
    now, None when one was deleted since), with the suggestion to review and its status."""
    steps = document.get("steps", [])
    step_at = {s.get("id"): i for i, s in enumerate(steps)}
    work_at = {
        (s.get("id"), w.get("id")): j
        for s in steps
        for j, w in enumerate(s.get("interventions", []))
    }
    results = []
    for row in review_rows(run):
        step_id, intervention_id, key, _status = parse_path(row["path"])
        suggestion = row["suggestion"]
        result = row["result"] or {}
        error = row["error"] or result.get("error")
        if suggestion is not None and suggestion.errors:
            error = "; ".join(i["message"] for i in suggestion.errors)
        results.append(
            {
                "stepIndex": step_at.get(step_id),
                "interventionIndex": work_at.get((step_id, intervention_id)),
                "indicatorKey": key,
                "name": row["name"],
                "value": result.get("value"),
                "unit": result.get("unit"),
                "confidence": suggestion.confidence if suggestion else None,
                "success": suggestion is not None and suggestion.is_valid,
                "error": error,
                "suggestion_id": suggestion.id if suggestion else None,
                "status": suggestion.status if suggestion else None,
            }
        )
    return {
        "run_id": run.id,
        "status": run.status,
        "calculatedCount": sum(1 for r in results if r["success"]),
        "totalMissing": len(run.items),
        "results": results,
    }
