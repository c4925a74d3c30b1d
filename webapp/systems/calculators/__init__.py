"""Offline, cited, deterministic calculators for farm-system indicators. Each takes a Context
(the assumptions that hold for one intervention and its values) and returns a Result: a value
it can justify from cited figures and the user's assumptions, or none and what it needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from webapp.review.vocabulary import Confidence
from webapp.systems.calculators import costs, eiq, ges, ift, nitrogen, operations
from webapp.systems.calculators.context import Context
from webapp.systems.calculators.result import Result, needs
from webapp.systems.indicators import indicator
from webapp.systems.rules import check

CALCULATORS: dict[str, Callable[[Context], Result]] = {
    "ift": ift.calculate,
    "gnr": operations.fuel,
    "tempsTravail": operations.work_time,
    "mecanisation": operations.machinery_cost,
    "coutGnr": costs.fuel_cost,
    "coutsPhytos": costs.crop_protection_cost,
    "azoteMineral": nitrogen.mineral,
    "azoteOrganique": nitrogen.organic,
    "ges": ges.calculate,
    "eiq": eiq.calculate,
}


def calculate(key: str, context: Context) -> Result:
    """key's result for the intervention of context, its value checked against the indicator's
    plausibility bounds (out of bounds: an error caveat, and the result is not applicable)."""
    calculator = CALCULATORS.get(key)
    if calculator is None:
        made = indicator(key).made
        return needs(Result(key, indicator(key).unit), key, why=f"no calculator: {made} value")
    result = calculator(context)
    if result.value is not None:
        if any(c.code == "range_midpoint" for c in result.caveats):
            result.confidence = Confidence.low  # a range's midpoint, cited or written
        result.caveats.extend(check(key, result.value, level="intervention"))
    return result


def calculate_in(
    document: Mapping[str, Any], step_id: str, intervention_id: str, key: str
) -> Result:
    """calculate() for one intervention of a system document (seed 003's shape)."""
    return calculate(key, Context.of(document, step_id, intervention_id))


def calculate_at(
    document: Mapping[str, Any],
    step: Mapping[str, Any],
    intervention: Mapping[str, Any],
    key: str,
) -> Result:
    """calculate_in with the step and intervention at hand (a run over many cells), with the
    inputs it read (Result.inputs: a value applied remembers them, to know when it is stale)."""
    context = Context.at(document, step, intervention).watched()
    result = calculate(key, context)
    result.inputs = context.inputs()
    return result


__all__ = ["CALCULATORS", "Context", "Result", "calculate", "calculate_at", "calculate_in"]
