"""Filling one row of a column (seed 002's orchestrator): the row through its strategy, the
answer coerced to the column's type and logged with its trace. The run that works through many
rows is runs.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.jobs.runner import report_stage
from webapp.tables.coerce import coerce_value
from webapp.tables.models import TableColumn
from webapp.tables.rules import above_crop_cap
from webapp.tables.strategies import get_strategy
from webapp.tables.strategies.base import (
    EmptyReference,
    RowStep,
    StrategyError,
)

CONFIDENCE_ORDER = ("none", "low", "medium", "high")


STEP_STAGES = {"search": "searching", "fetch": "fetching", "compute": "computing"}


@dataclass(frozen=True)
class Target:
    """The column being filled, as plain data (worker threads share no ORM objects)."""

    id: int
    key: str
    name: str
    type: str
    unit: str | None
    options: tuple[str, ...]

    @classmethod
    def of(cls, column: TableColumn) -> Target:
        return cls(
            column.id,
            column.key,
            column.name,
            column.type,
            column.unit,
            tuple(column.options or ()),
        )


def _weaker(confidence: str, cap: str) -> str:
    return min(confidence, cap, key=CONFIDENCE_ORDER.index)


def _sources(steps: Sequence[RowStep]) -> list[dict[str, Any]]:
    """The links a trace cites, for the review's evidence."""
    links: dict[str, dict[str, Any]] = {}
    for step in steps:
        for source in step.data.get("sources", []):
            if source.get("url"):
                links.setdefault(source["url"], source)
        if step.type == "fetch" and step.data.get("url"):
            links.setdefault(step.data["url"], {"title": step.detail, "url": step.data["url"]})
    return list(links.values())


def work_on_row(
    row: Mapping[str, Any], params: Mapping[str, Any], target: Target, tools, key: str = ""
) -> dict[str, Any]:
    """One row through the strategy and the coercion layer: its research-log entry."""
    strategy = get_strategy(params["strategy"])
    strategy_params = params["params"]
    entry: dict[str, Any] = {
        "strategy": strategy.name,
        "thoroughness": strategy.thoroughness(strategy_params),
        "value": None,
        "confidence": "none",
        "raw_value": None,
        "valid": True,
        "error": None,
    }
    steps: list[RowStep] = []
    try:
        for step in strategy.execute_one(row, strategy_params, tools, target):
            steps.append(step)
            if key and step.type in STEP_STAGES:
                report_stage(key, STEP_STAGES[step.type])
    except EmptyReference as exc:
        entry.update(status="skipped", error=f"Skipped: {exc}.")
        return entry | {"steps": [s.to_dict() for s in steps]}
    except StrategyError as exc:
        steps.append(RowStep("error", str(exc)))
    answers = [s for s in steps if s.type == "answer"]
    errors = [s for s in steps if s.type == "error"]
    if not answers:
        message = errors[-1].detail if errors else "The strategy gave no answer."
        entry.update(status="error", error=message)
        return entry | {"steps": [s.to_dict() for s in steps]}
    raw = answers[-1].detail
    computed = [s.data["result"] for s in steps if s.type == "compute" and "result" in s.data]
    # A number the safe evaluator computed is read as it is, not parsed again from its text.
    typed = computed[-1] if computed and isinstance(computed[-1], int | float) else raw
    coerced = coerce_value(typed, target.type, target.options, target.unit)
    if coerced.note:
        steps.append(RowStep("thinking", coerced.note))
    # A value the safe evaluator computed exactly is as sure as its inputs, whoever answers.
    exact = bool(computed)
    confidence = coerced.confidence if exact else _weaker(coerced.confidence, tools.best_confidence)
    coverage = next((s.detail for s in reversed(steps) if s.type == "coverage"), None)
    if coverage in CONFIDENCE_ORDER:
        confidence = _weaker(confidence, coverage)
    if coerced.valid and coerced.value is not None and target.type == "number":
        entry["warning"] = above_crop_cap(coerced.value, target.unit, row)
    entry.update(
        status="found" if coerced.value is not None else "not_found",
        value=coerced.value,
        confidence=confidence if coerced.value is not None else "none",
        raw_value=raw,
        valid=coerced.valid,
        error=coerced.error,
        error_code=coerced.code,
        coverage=coverage,
        sources=_sources(steps),
    )
    return entry | {"steps": [s.to_dict() for s in steps]}
