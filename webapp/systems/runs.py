"""Calculating a system's missing values: a run whose items are the empty cells (an
intervention's indicator that has a calculator and no value), each proposed to the review core
as a suggestion on the system's values. Nothing is applied by the run itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from flask import url_for
from sqlalchemy import select

from webapp.auth.models import User
from webapp.extensions import db
from webapp.jobs.kinds import RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress, enqueue_run, live_runs
from webapp.problems import Invalid
from webapp.review.models import Suggestion
from webapp.review.service import store_suggestions, suggestion_row
from webapp.review.vocabulary import SuggestedValue
from webapp.systems.calculators import CALCULATORS, calculate_in
from webapp.systems.document import owner, parse_path, value_path
from webapp.systems.grid import label
from webapp.systems.models import VALUE_TARGET, System


class NothingToCalculate(Invalid):
    code = "nothing_to_calculate"


def cell_name(document: Mapping[str, Any], path: str) -> str:
    """A cell as people read it: "Labour › Ploughing › Fuel"."""
    step_id, intervention_id, key, _status = parse_path(path)
    step = next((s for s in document.get("steps", []) if s.get("id") == step_id), {})
    work = next((i for i in step.get("interventions", []) if i.get("id") == intervention_id), {})
    return " › ".join([step.get("name", step_id), work.get("name", intervention_id), label(key)])


def missing_cells(document: Mapping[str, Any]) -> list[str]:
    """The paths of every intervention's calculable indicator without a value, in document
    order. A cell holding a value — a person's, reviewed or not — is never among them."""
    cells = []
    for step in document.get("steps", []):
        for work in step.get("interventions", []):
            held = {e["key"] for e in work.get("values", []) if e.get("value") is not None}
            cells += [
                value_path(step["id"], work["id"], key) for key in CALCULATORS if key not in held
            ]
    return cells


def one_cell(document: Mapping[str, Any], step_id: str, intervention_id: str, key: str) -> str:
    """The path of one cell to calculate; NothingToCalculate says why it cannot be."""
    if key not in CALCULATORS:
        raise NothingToCalculate(f"There is no calculator for {label(key)}.", loc="key")
    owner(document, step_id, intervention_id)  # a missing step or intervention, by name
    path = value_path(step_id, intervention_id, key)
    if path not in missing_cells(document):
        raise NothingToCalculate(f"{cell_name(document, path)} has a value already.", loc="key")
    return path


def start_calculation(system: System, user: User | None, cells: list[str] | None = None) -> Run:
    """Queue a run over the system's missing cells (or the cells given). RunInProgress when one
    is calculating the system's values already: two would propose the same cells twice."""
    cells = missing_cells(system.document) if cells is None else cells
    if not cells:
        raise NothingToCalculate("Nothing to calculate: every calculable value is filled.")
    for live in live_runs(SystemCalculation):
        if live.params.get("system_id") == system.id:
            raise RunInProgress(live, f"Calculating the values of {system.name}")
    names = {path: cell_name(system.document, path) for path in cells}
    what = names[cells[0]] if len(cells) == 1 else f"{len(cells)} missing values"
    return enqueue_run(
        SystemCalculation,
        user,
        {"system_id": system.id, "cells": cells, "names": names},
        target=(VALUE_TARGET, system.id),
        mode="offline",
        title=f"Calculate {what} of {system.name}",
    )


def calculate_cell(document: Mapping[str, Any], path: str) -> tuple[dict[str, Any], dict | None]:
    """One cell's result as the run keeps it (what was calculated and how, or why not), and
    its suggestion row when there is a value (None when there is not)."""
    step_id, intervention_id, key, _status = parse_path(path)
    result = calculate_in(document, step_id, intervention_id, key)
    kept = {
        "value": result.value,
        "unit": result.unit,
        "assumptions": result.assumptions,
        "calculation_steps": result.calculation_steps,
    }
    if result.value is None:
        why = "; ".join(c.message for c in result.caveats) or "The calculator found no value."
        return kept | {"outcome": "not calculated", "error": why}, None
    suggested = SuggestedValue(result.value, result.unit, result.confidence)
    # The review core matches an issue to its suggestion by field: the cell's path.
    issues = [replace(c, field=path) for c in result.caveats]
    outcome = "suggested" if result.applicable else "out of bounds"
    return kept | {"outcome": outcome}, (suggested, result.sources, issues)


@register_kind
class SystemCalculation(RunKind):
    name = "system_calculation"
    title = "Calculate missing values"
    target_kind = VALUE_TARGET
    result_labels = {"outcome": "Outcome", "value": "Value", "unit": "Unit"}

    def __init__(self) -> None:
        self._document: dict[str, Any] | None = None

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return list(params["cells"])

    def concurrency(self, params: dict[str, Any]) -> int:
        # Above 1, finished cells are saved in batches (keep_results) rather than committed
        # one by one: 310 commits took 7.9 s on PostgreSQL, the calculators 0.4 s.
        return 2

    def stage_for(self, key: str) -> str:
        return "calculating"

    def document(self, system_id: int) -> dict[str, Any] | None:
        """The system's document, read once per run: the calculators only read it."""
        if self._document is None:
            query = select(System.document).where(System.id == system_id)
            self._document = db.session.scalar(query)
        return self._document

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        document = self.document(params["system_id"])
        if document is None:
            return {"outcome": "not calculated", "error": "The system was deleted."}
        if key not in missing_cells(document):
            return {"outcome": "not calculated", "error": "The cell has a value now."}
        kept, proposed = calculate_cell(document, key)
        if proposed is None:
            return kept
        suggested, sources, issues = proposed
        row = suggestion_row(
            run_id, VALUE_TARGET, params["system_id"], key, None, suggested, sources, issues
        )
        return kept | {"suggestion": row}

    def keep_results(self, run: Run, results: dict[str, Any]) -> None:
        """A batch of cells' suggestions in one insert, their results on the run."""
        store_suggestions([r.pop("suggestion") for r in results.values() if "suggestion" in r])
        run.results = {**run.results, **results}

    def target_ids(self, run: Run) -> list[int]:
        return [int(run.params["system_id"])]

    def item_key(self, run: Run, target_id: int) -> str:
        # One record, many cells: the record is done when its last cell is.
        return run.items[-1] if run.items else ""

    def item_names(self, run: Run) -> dict[str, str]:
        return dict(run.params.get("names", {}))

    def item_details(self, run: Run, target: Any) -> dict[str, Any]:
        names = self.item_names(run)
        return {
            "cells": [
                {"path": key, "name": names.get(key, key), **(run.results.get(key) or {})}
                for key in run.items
                if key in run.results
            ]
        }

    def review_url(self, run: Run) -> str:
        return url_for("systems.calculation", system_id=run.params["system_id"], run_id=run.id)


def review_rows(run: Run) -> list[dict[str, Any]]:
    """Every cell of the run in order: its name, its result and its suggestion (if any)."""
    query = select(Suggestion).where(Suggestion.run_id == run.id).order_by(Suggestion.id)
    suggestions = {s.field: s for s in db.session.scalars(query)}
    names = run.params.get("names", {})
    return [
        {
            "path": key,
            "name": names.get(key, key),
            "result": run.results.get(key),
            "error": run.item_errors.get(key),
            "suggestion": suggestions.get(key),
        }
        for key in run.items
    ]
