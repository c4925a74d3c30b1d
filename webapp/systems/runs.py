"""Calculating a system's values: a run whose items are cells — the empty ones (an
intervention's indicator that has a calculator, or with the openai provider one a model may
propose, and no value), or the one cell a person asked to calculate, recalculate or refine —
each proposed to the review core as a suggestion on the system's values. The offline
calculators answer first; with the openai provider the model answers what they cannot (and
every refinement). Nothing is applied by the run itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from flask import current_app, url_for
from sqlalchemy import select

from webapp.ai import ProviderError
from webapp.auth.models import User
from webapp.extensions import db
from webapp.jobs.kinds import NOTHING_FOUND, ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress, enqueue_run, live_runs
from webapp.jobs.runner import add_usage
from webapp.pagination import Page, paginate_list
from webapp.problems import Invalid
from webapp.review.looks import RowLook, Unproposed
from webapp.review.models import Suggestion
from webapp.review.service import store_suggestions, suggestion_row
from webapp.review.vocabulary import Issue, Severity, SuggestedValue
from webapp.systems import ai, catalog
from webapp.systems import conversation as talk
from webapp.systems.assumptions import canonical_key, is_known_key, parse_assumptions
from webapp.systems.calculators import CALCULATORS, calculate_at
from webapp.systems.document import (
    DocumentInvalid,
    Places,
    appended_assumptions,
    assumptions_path,
    flat_assumptions,
    has_value,
    now_stamp,
    owner,
    parse_path,
    review_state,
    value_path,
)
from webapp.systems.grid import label
from webapp.systems.indicators import INDICATORS, Level, Made
from webapp.systems.models import VALUE_TARGET, System
from webapp.systems.stale import stale_values

# What a person may ask of one value; "missing" is the batch over the empty cells, "stale" the
# batch over the values whose inputs changed (webapp.systems.stale).
ACTIONS = ("missing", "stale", "calculate", "recalculate", "refine")
BATCHES = ("missing", "stale")
MESSAGE_LIMIT = 2_000
# Indicators of an intervention a model may propose where no calculator does (no cited figure).
MODEL_KEYS = tuple(
    k for k, i in INDICATORS.items() if i.made == Made.ai and Level.intervention in i.levels
)


class NothingToCalculate(Invalid):
    code = "nothing_to_calculate"


class RefineInvalid(Invalid):
    code = "refine_invalid"


def askable_keys(provider: str) -> tuple[str, ...]:
    """The indicators a run may propose with this provider: the calculators', and with the
    openai provider those a model may propose too."""
    return (*CALCULATORS, *MODEL_KEYS) if provider == "openai" else tuple(CALCULATORS)


def provider_name() -> str:
    return current_app.config["FURROW"].provider


def refinable(intervention_id: str | None, key: str) -> bool:
    """Whether a cell may be recalculated or refined: an intervention's, with an indicator the
    provider can propose."""
    return intervention_id is not None and key in askable_keys(provider_name())


def cell_name(document: Mapping[str, Any], path: str) -> str:
    """A cell as people read it: "Labour › Ploughing › Fuel"."""
    return cell_names(document, [path])[path]


def cell_names(document: Mapping[str, Any], paths: list[str]) -> dict[str, str]:
    """{path: cell_name} for many cells of one document, read once."""
    places = Places(document)
    names = {}
    for path in paths:
        step_id, intervention_id, key, _status = parse_path(path)
        step = places.steps.get(step_id, {})
        work = places.interventions.get((step_id, intervention_id), {})
        names[path] = " › ".join(
            [step.get("name", step_id), work.get("name", intervention_id), label(key)]
        )
    return names


def missing_cells(document: Mapping[str, Any], keys: tuple[str, ...] | None = None) -> list[str]:
    """The paths of every intervention's indicator among keys (the calculators' by default)
    without a value, in document order. A cell holding a value — a person's, reviewed or
    not — or marked not applicable is never among them."""
    cells = []
    for step in document.get("steps", []):
        for work in step.get("interventions", []):
            held = {
                e["key"]
                for e in work.get("values", [])
                if has_value(e.get("value")) or review_state(e) == "n/a"
            }
            cells += [
                value_path(step["id"], work["id"], key)
                for key in keys or CALCULATORS
                if key not in held
            ]
    return cells


def cells_to_calculate(document: Mapping[str, Any]) -> list[str]:
    """The empty cells "calculate all missing" works on with the provider configured."""
    return missing_cells(document, askable_keys(provider_name()))


def is_filled(places: Places, path: str) -> bool:
    entry = places.entry(path)
    return entry is not None and has_value(entry.get("value"))


def one_cell(
    document: Mapping[str, Any],
    step_id: str,
    intervention_id: str,
    key: str,
    recalculate: bool = False,
    keys: tuple[str, ...] | None = None,
) -> str:
    """The path of one cell to calculate (a filled one only when recalculate says so: the
    person asked for that cell); NothingToCalculate says why it cannot be."""
    if key not in (keys or CALCULATORS):
        raise NothingToCalculate(f"There is no calculator for {label(key)}.", loc="key")
    owner(dict(document), step_id, intervention_id)  # a missing step or intervention, by name
    path = value_path(step_id, intervention_id, key)
    if not recalculate and is_filled(Places(document), path):
        raise NothingToCalculate(
            f"{cell_name(document, path)} has a value already: recalculate it to replace it.",
            loc="key",
        )
    return path


def not_busy(system: System) -> None:
    """RunInProgress when a run is calculating the system's values already: two would
    propose the same cells twice, and a deleted system would leave it writing to nothing."""
    for live in live_runs(SystemCalculation):
        if live.params.get("system_id") == system.id:
            raise RunInProgress(live, f"Calculating the values of {system.name}")


def _enqueue(
    system: System, user: User | None, cells: list[str], action: str, message: str = ""
) -> Run:
    settings = current_app.config["FURROW"]
    names = cell_names(system.document, cells)
    which = "stale" if action == "stale" else "missing"
    what = names[cells[0]] if len(cells) == 1 else f"{len(cells)} {which} values"
    verb = {"recalculate": "Recalculate", "stale": "Recalculate", "refine": "Refine"}.get(
        action, "Calculate"
    )
    return enqueue_run(
        SystemCalculation,
        user,
        {
            "system_id": system.id,
            "cells": cells,
            "names": names,
            "action": action,
            "message": message,
        },
        target=(VALUE_TARGET, system.id),
        mode=action,
        provider=settings.provider,
        model=settings.openai_model if settings.provider == "openai" else None,
        title=f"{verb} {what} of {system.name}",
    )


def start_calculation(system: System, user: User | None, cells: list[str] | None = None) -> Run:
    """Queue a run over the system's missing cells (or the empty cells given)."""
    action = "missing" if cells is None else "calculate"
    if cells is None:
        cells = cells_to_calculate(system.document)
    if not cells:
        raise NothingToCalculate("Nothing to calculate: every calculable value is filled.")
    not_busy(system)
    return _enqueue(system, user, cells, action)


def start_stale(system: System, user: User | None) -> Run:
    """Queue a run recalculating the system's stale values: each new value is a suggestion,
    reviewed as any (the stale one stays, shown stale, until one is applied)."""
    cells = list(stale_values(system.document))
    if not cells:
        raise NothingToCalculate(
            "Nothing to recalculate: no value is stale (none was calculated from an assumption "
            "or value that has changed since)."
        )
    not_busy(system)
    return _enqueue(system, user, cells, "stale")


def start_cell(
    system: System,
    user: User | None,
    step_id: str,
    intervention_id: str,
    key: str,
    recalculate: bool = False,
) -> Run:
    """Queue the calculation of one cell; a filled one when recalculate (the person asked for
    it), whose value is then not reviewed any more (an audited, undoable change)."""
    keys = askable_keys(provider_name())
    path = one_cell(system.document, step_id, intervention_id, key, recalculate, keys)
    not_busy(system)
    if recalculate:
        catalog.reopen(system, path, user)
    return _enqueue(system, user, [path], "recalculate" if recalculate else "calculate")


def assumption_lines(message: str) -> list[str]:
    """The assumptions a message states, as "- **Key**: Value" lines: those lines themselves,
    and a plain "Key: Value" line whose key the calculators know ("Corps: 4")."""
    found = []
    for line in message.splitlines():
        if parse_assumptions(line):
            found.append(line.strip())
            continue
        written, colon, value = line.partition(":")
        written = written.strip(" -*")
        if colon and value.strip() and is_known_key(written):
            found.append(f"- **{canonical_key(written)}**: {value.strip()}")
    return found


def refine_message(message: Any) -> str:
    """A refinement's message, trimmed; RefineInvalid when it is empty or too long, or
    offline when it states no assumption (the only thing offline can read in it)."""
    text = message.strip() if isinstance(message, str) else ""
    if not text:
        raise RefineInvalid("Write what to change about this value.", loc="message")
    if len(text) > MESSAGE_LIMIT:
        raise RefineInvalid(
            f"A message is at most {MESSAGE_LIMIT:,} characters (this one has {len(text):,}).",
            loc="message",
        )
    if provider_name() != "openai" and not assumption_lines(text):
        raise RefineInvalid(
            "Offline, a refinement is read for assumptions: write one per line, such as "
            "“- **Corps**: 4” or “Corps: 4” (or use the openai provider to write freely).",
            loc="message",
        )
    return text


def start_refine(
    system: System,
    user: User | None,
    step_id: str,
    intervention_id: str,
    key: str,
    message: Any,
) -> Run:
    """Queue a refinement of one cell from a person's message. With the openai provider the
    model reads it with the value's conversation; offline, its assumption lines are added to
    the intervention's assumptions (audited) and the cell is recalculated. Either way the
    value is not reviewed any more until the answer is approved."""
    text = refine_message(message)
    provider = provider_name()
    keys = askable_keys(provider)
    path = one_cell(system.document, step_id, intervention_id, key, recalculate=True, keys=keys)
    not_busy(system)
    group = None  # what the refinement changes is undone as one
    if provider != "openai":
        block = "\n".join(assumption_lines(text))
        where = assumptions_path(step_id, intervention_id)
        group = catalog.add_assumptions(system, where, block, user)
    catalog.reopen(system, path, user, group)
    return _enqueue(system, user, [path], "refine", text)


def calculate_cell(
    document: Mapping[str, Any], path: str, places: Places | None = None
) -> tuple[dict[str, Any], dict | None]:
    """One cell's result as the run keeps it (what was calculated and how, or why not), and
    its suggestion row when there is a value (None when there is not); places: the
    document's, when a run has it at hand."""
    step_id, intervention_id, key, _status = parse_path(path)
    step, work, _holder, _list = (places or Places(document)).owner(step_id, intervention_id)
    result = calculate_at(document, step, work, key)
    kept = {
        "value": result.value,
        "unit": result.unit,
        "assumptions": result.assumptions,
        "calculation_steps": result.calculation_steps,
        "inputs": result.inputs,
    }
    if result.value is None:
        why = "; ".join(c.message for c in result.caveats) or "The calculator found no value."
        return kept | {"outcome": "not calculated", "error": why}, None
    suggested = SuggestedValue(result.value, result.unit, result.confidence)
    # The review core matches an issue to its suggestion by field: the cell's path.
    issues = [replace(c, field=path) for c in result.caveats]
    outcome = "suggested" if result.applicable else "out of bounds"
    return kept | {"outcome": outcome}, (suggested, result.sources, issues)


def assumptions_row(
    run_id: int, system_id: int, document: dict[str, Any], path: str, answered: ai.Answered
) -> tuple[dict[str, Any] | None, Issue | None]:
    """The model's new assumptions as a suggestion on its level's Markdown (what is there,
    then the new lines: nothing anyone wrote is rewritten), or the issue saying why not."""
    step_id, intervention_id, _key, _status = parse_path(path)
    ids = {"system": (None, None), "step": (step_id, None)}.get(
        answered.level, (step_id, intervention_id)
    )
    field = assumptions_path(*ids)
    before = flat_assumptions(document).get(field, "")
    try:
        text = appended_assumptions(before, answered.new_assumptions)
    except DocumentInvalid as exc:
        return None, Issue("assumptions_too_long", Severity.warning, path, str(exc))
    suggested = SuggestedValue(text, None, answered.confidence)
    return suggestion_row(run_id, VALUE_TARGET, system_id, field, before, suggested, [], []), None


def converse(
    system_id: int,
    document: dict[str, Any],
    path: str,
    entry: Mapping[str, Any],
    action: str,
    params: dict[str, Any],
    kept: dict[str, Any],
    proposed: tuple | None,
) -> dict[str, Any]:
    """What was asked of the value and what was answered, added to its conversation; {} or,
    when the document cannot take it, a note for the run's result."""
    stamp = now_stamp()
    name = cell_name(document, path)
    asked = {
        "refine": params.get("message", ""),
        "recalculate": f"Recalculate {name}.",
        "stale": f"Recalculate {name}: what it was calculated from has changed.",
    }.get(action, f"Calculate {name}.")
    suggested, sources, issues = proposed or (None, [], [])
    answer = {
        "message": kept.get("message") or kept.get("error", ""),
        "value": suggested.value if suggested else None,
        "unit": kept.get("unit", ""),
        "assumptions": kept.get("assumptions", []),
        "calculation_steps": kept.get("calculation_steps", []),
        "sources": [e.to_dict() for e in sources],
        "confidence": suggested.confidence.value if suggested and suggested.confidence else None,
        "caveats": [i.to_dict() for i in issues],
        "inputs": kept.get("inputs"),
    }
    messages = [] if entry.get("conversation") else [talk.system_message(f"{name}.", stamp)]
    messages += [
        talk.user_message(
            asked,
            "refine" if action == "refine" else "calculate",
            entry.get("value"),
            answer["value"],
            stamp,
        ),
        talk.assistant_message(answer, stamp),
    ]
    try:
        catalog.add_to_conversation(system_id, path, messages)
    except DocumentInvalid as exc:
        return {"note": f"The conversation was not kept: {exc}"}
    return {}


@register_kind
class SystemCalculation(RunKind):
    name = "system_calculation"
    title = "Calculate missing values"
    item_params = ("cells", "names")
    target_kind = VALUE_TARGET
    applied_note = (
        "Applied values are predictions, not reviewed, until a person approves them (in a "
        "cell's drawer, or on the approval page)."
    )
    result_labels = {"outcome": "Outcome", "value": "Value", "unit": "Unit"}

    def __init__(self) -> None:
        self._document: dict[str, Any] | None = None
        self._places: Places | None = None

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return list(params["cells"])

    def concurrency(self, params: dict[str, Any]) -> int:
        # Above 1, finished cells are saved in batches (keep_results) rather than committed
        # one by one: 310 commits took 7.9 s on PostgreSQL, the calculators 0.4 s. A run that
        # writes conversations (one cell asked for, or a model answering) goes one cell at a
        # time: two cells' writes to one document must not cross.
        offline_batch = params.get("action", "missing") in BATCHES and provider_name() != "openai"
        return 2 if offline_batch else 1

    def chunk_size(self, params: dict[str, Any]) -> int | None:
        # Only an offline batch may be shared by workers: a run that writes conversations
        # stays one job, so two writes to one document never cross.
        return super().chunk_size(params) if self.concurrency(params) > 1 else None

    def stage_for(self, key: str) -> str:
        return "calculating"

    def document(self, system_id: int) -> dict[str, Any] | None:
        """The system's document, read once per run: the calculators only read it."""
        if self._document is None:
            query = select(System.document).where(System.id == system_id)
            self._document = db.session.scalar(query)
            self._places = Places(self._document or {})
        return self._document

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        result = self._work_on(key, params, run_id)
        # A cell that got no value says why, so a run that calculated nothing ends "nothing
        # found", never green.
        if result.get("outcome") == "not calculated":
            result[NOTHING_FOUND] = result.get("error") or "nothing was calculated"
        return result

    def _work_on(self, key: str, params: dict[str, Any], run_id: int) -> dict[str, Any]:
        system = db.session.get(System, params["system_id"])
        document = self.document(params["system_id"])
        if system is None or document is None:
            return {"outcome": "not calculated", "error": "The system was deleted."}
        action = params.get("action", "missing")
        # Only the cell a person asked to recalculate or refine may hold a value.
        if action in ("missing", "calculate") and is_filled(self._places, key):
            return {"outcome": "not calculated", "error": "The cell has a value now."}
        entry = self._places.entry(key) or {}
        kept, proposed = calculate_cell(document, key, self._places)
        answered = None
        settings = current_app.config["FURROW"]
        if settings.provider == "openai" and (proposed is None or action == "refine"):
            answered = self.ask_model(system, document, key, entry, params, run_id)
            kept, proposed = answered.kept, answered.proposed()
        rows = []
        if answered is not None and answered.new_assumptions:
            row, problem = assumptions_row(run_id, system.id, document, key, answered)
            rows += [row] if row else []
            if problem is not None and proposed is not None:
                proposed[2].append(problem)
            kept |= {"assumptions_field": row["field"]} if row else {"note": problem.message}
        if proposed is not None:
            suggested, sources, issues = proposed
            current = entry.get("value")
            rows.insert(
                0,
                suggestion_row(
                    run_id, VALUE_TARGET, system.id, key, current, suggested, sources, issues
                ),
            )
        if self.concurrency(params) > 1:
            return kept | {"suggestions": rows}  # saved with their batch (keep_results)
        store_suggestions(rows)
        if action not in BATCHES or answered is not None:
            kept |= converse(system.id, document, key, entry, action, params, kept, proposed)
        return kept

    def keep_results(self, run: Run, results: dict[str, Any]) -> None:
        """A batch of cells' suggestions in one insert, their results on the run."""
        store_suggestions([row for r in results.values() for row in r.pop("suggestions", [])])
        run.results = {**run.results, **results}

    def ask_model(
        self,
        system: System,
        document: dict[str, Any],
        path: str,
        entry: Mapping[str, Any],
        params: dict[str, Any],
        run_id: int,
    ) -> ai.Answered:
        """The model's answer for the cell, its usage added to the run's; a provider that
        fails is this item's error (the run goes on)."""
        about = {
            "name": system.name,
            "description": system.description,
            "system_type": system.system_type,
            "productions": system.productions,
        }
        message = params.get("message", "") if params.get("action") == "refine" else ""
        settings = current_app.config["FURROW"]
        db.session.commit()  # end the read: no database lock waits on the model
        try:
            answered = ai.ask(
                settings, about, document, path, entry.get("conversation", []), message
            )
        except ProviderError as exc:
            add_usage(run_id, exc.usage)
            raise ItemError(str(exc)) from exc
        add_usage(run_id, answered.usage)
        return answered

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

    review_detail = ("How", "systems/_how.html")
    row_heading = "Value"

    def back_link(self, run: Run) -> tuple[str, str] | None:
        system = db.session.get(System, run.params["system_id"])
        if system is None:
            return None
        return f"Back to {system.name}", url_for(
            "systems.show", system_id=system.id, _anchor="grid"
        )

    def after_apply(self, run: Run) -> tuple[str, str]:
        # Applied values are predictions until a person approves them.
        return "Approve values…", url_for("systems.approval", system_id=run.params["system_id"])

    def review_looks(self, run: Run, suggestions: list[Suggestion]) -> dict[int, RowLook]:
        """A cell's value by its name, in three significant figures, with how it was worked
        out; the assumptions its answer adds as text, under its cell's name."""
        names = run.params.get("names", {})
        added = {
            result["assumptions_field"]: key
            for key, result in run.results.items()
            if isinstance(result, dict) and result.get("assumptions_field")
        }
        looks = {}
        for s in suggestions:
            if s.field in added:
                key = added[s.field]
                name = f"{names.get(key, key)}: new assumptions of the "
                looks[s.id] = RowLook(name + assumptions_level(s.field), "markdown")
            else:
                looks[s.id] = RowLook(
                    names.get(s.field, s.field), "figures", run.results.get(s.field)
                )
        return looks

    def unproposed(self, run: Run, number: int, per_page: int, status: str | None = None) -> Page:
        """The cells the run calculated nothing for, each with why (one list: no status)."""
        cells = [
            Unproposed(
                row["name"],
                row["error"] or (row["result"] or {}).get("error") or "Not worked on.",
                "not calculated",
                detail=row["result"],
            )
            for row in review_rows(run)
            if row["suggestion"] is None
        ]
        return paginate_list(cells, number, per_page)


def assumptions_level(field: str) -> str:
    """Whose assumptions a path is: the system's, a step's or an intervention's."""
    if field.count("[") >= 2:
        return "intervention"
    return "step" if field.startswith("steps[") else "system"


def review_rows(run: Run) -> list[dict[str, Any]]:
    """Every cell of the run in order: its name, its result, its suggestion (if any) and the
    suggestion of the assumptions its answer adds (if any)."""
    query = select(Suggestion).where(Suggestion.run_id == run.id).order_by(Suggestion.id)
    suggestions: dict[str, list[Suggestion]] = {}
    for suggestion in db.session.scalars(query):
        suggestions.setdefault(suggestion.field, []).append(suggestion)
    names = run.params.get("names", {})
    rows = []
    for key in run.items:
        result = run.results.get(key)
        field = (result or {}).get("assumptions_field") if isinstance(result, dict) else None
        rows.append(
            {
                "path": key,
                "name": names.get(key, key),
                "result": result,
                "error": run.item_errors.get(key),
                "suggestion": (suggestions.get(key) or [None]).pop(0),
                "assumptions": (suggestions.get(field) or [None]).pop(0) if field else None,
                "assumptions_name": f"{names.get(key, key)}: new assumptions of the "
                + assumptions_level(field or ""),
            }
        )
    return rows
