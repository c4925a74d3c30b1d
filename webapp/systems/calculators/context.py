"""What a calculator reads for one intervention: the assumptions that hold for it and the values
it already has (a fuel figure a person entered is used as it is)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.review.vocabulary import Confidence, Severity
from webapp.systems.assumptions import (
    Assumptions,
    find_intervention,
    find_step,
    operation_id,
    resolve,
    resolve_at,
)
from webapp.systems.calculators.figures import assumption_evidence
from webapp.systems.calculators.result import Result, needs, rounded, shown
from webapp.systems.document import LARGEST_VALUE, review_state, value_number
from webapp.systems.indicators import indicator
from webapp.units import Quantity, UnitMismatch, convert, find_quantity

EXPONENT = re.compile(r"[eE][+-]?\d")


# How a calculated value names what it read (Result.inputs): an assumption by its key, a value
# of the intervention by its indicator key, as held or as calculated on the way.
ASSUMPTION, VALUE, CALCULATED = "assumption:", "value:", "calculated:"


@dataclass
class Context:
    assumptions: Assumptions = field(default_factory=resolve)
    values: dict[str, float] = field(default_factory=dict)
    # When watched: the intervention's values read (by VALUE or CALCULATED + key), as written.
    read: dict[str, str] | None = None

    @classmethod
    def of(cls, document: Mapping[str, Any], step_id: str, intervention_id: str) -> Context:
        """The context of one intervention of a system document (seed 003's shape)."""
        step = find_step(document, step_id)
        return cls.at(document, step, find_intervention(step, intervention_id))

    @classmethod
    def at(
        cls,
        document: Mapping[str, Any],
        step: Mapping[str, Any],
        intervention: Mapping[str, Any],
    ) -> Context:
        """Context.of with the step and intervention at hand: a loop over many interventions
        does not search the document for each."""
        return cls(resolve_at(document, step, intervention), known_values(intervention))

    def value(self, key: str) -> float | None:
        found = self.values.get(key)
        if self.read is not None:
            self.read[VALUE + key] = "" if found is None else shown(found)
        return found

    def watched(self) -> Context:
        """This context noting every input read, for inputs() to say after a calculation."""
        return replace(self, assumptions=self.assumptions.watched(), read={})

    def inputs(self) -> dict[str, str]:
        """What a watched context's calculation read: {input: the value as read, "" for an
        assumption not stated or a value the intervention does not hold}."""
        read = self.assumptions.read or {}
        return {ASSUMPTION + key: text for key, text in read.items()} | (self.read or {})


def known_values(item: Mapping[str, Any]) -> dict[str, float]:
    """An intervention's (or step's) values by key, those that are numbers and apply (a value
    marked "n/a" counts nowhere, as the grid shows it)."""
    found = {}
    for entry in item.get("values") or item.get("stepValues") or ():
        number = value_number(entry.get("value"))
        if "key" in entry and number is not None and review_state(entry) != "n/a":
            found[entry["key"]] = float(number)
    return found


def stated(context: Context, key: str, result: Result, unit: str | None = None) -> float | None:
    """The number the user's assumption key states, in unit when given (converted when it can
    be; a caveat when it cannot), recorded in result's assumptions and sources; None if unset."""
    assumption = context.assumptions.get(key)
    if assumption is None:
        return None
    quantity = read_quantity(assumption.value, key, result)
    if quantity is None:
        result.caveat(
            "assumption_not_a_number",
            Severity.warning,
            f"{key}: “{assumption.value}” gives no number.",
        )
        return None
    value = quantity.value
    if unit is not None and quantity.unit and quantity.unit.replace(" ", "") != unit:
        try:
            value = convert(value, quantity.unit, unit)
        except UnitMismatch:
            result.caveat(
                "assumption_unit",
                Severity.warning,
                f"{key}: “{assumption.value}” is not in {unit}.",
                unit=quantity.unit,
            )
            return None
    result.assumptions.append(f"{key}: {assumption.value} ({assumption.level})")
    result.sources.append(assumption_evidence(key, assumption.value))
    return value


def read_quantity(text: str, key: str, result: Result) -> Quantity | None:
    """The number (with its unit) text states for key; a range ("15-20 L/ha") is its midpoint,
    with a caveat saying the range, as a cited range is (calculate() lowers the confidence).
    None when it states none, or one beyond any value of a hectare, or a "unit" that is the
    rest of a number ("1e308" read as 1 "e308")."""
    quantity = find_quantity(text)
    if quantity is None:
        return None
    numbers = (quantity.value, *(quantity.bounds or ()))
    if any(abs(n) > LARGEST_VALUE for n in numbers) or EXPONENT.match(quantity.unit or ""):
        return None
    if quantity.bounds is None:
        return quantity
    low, high = quantity.bounds
    middle = (low + high) / 2
    unit = f" {quantity.unit}" if quantity.unit else ""
    message = (
        f"{key} is written as a range, “{text.strip()}”; the midpoint {shown(middle)}{unit} "
        "is used."
    )
    if all(c.message != message for c in result.caveats):
        result.caveat("range_midpoint", Severity.warning, message, low=low, high=high)
    return replace(quantity, value=middle, is_range=False, high=None)


def share_treated(context: Context, result: Result) -> float:
    """The share of the field treated, 0–1, from "Surface traitée" ("30 %", or 0.3), or an
    intervention's or step's "Surface" in %; the whole field when it is not stated, which the
    result says. The system's "Surface" is its area, never a share treated."""
    assumption = context.assumptions.get("Surface traitée")
    if assumption is None and (area := context.assumptions.get("Surface")) is not None:
        assumption = area if area.level != "system" else None
    quantity = read_quantity(assumption.value, assumption.key, result) if assumption else None
    if quantity is not None and is_area(quantity.unit):
        result.caveat(
            "share_treated_impossible",
            Severity.error,
            f"{assumption.key} “{assumption.value}” is an area, not a share of the field: "
            "write it in % (“30 %”).",
        )
    if quantity is None:
        result.assumptions.append("Surface traitée: 100 % (not stated: the whole field)")
        result.caveat(
            "share_treated_assumed",
            Severity.info,
            "The share treated is not stated: the whole field is assumed.",
        )
        return 1.0
    share = quantity.value / 100 if quantity.unit == "%" or quantity.value > 1 else quantity.value
    if not 0 < share <= 1:
        result.caveat(
            "share_treated_impossible",
            Severity.error,
            f"{assumption.key} “{assumption.value}” is not a share of the field (0–100 %).",
        )
    result.assumptions.append(f"{assumption.key}: {assumption.value} ({assumption.level})")
    result.calculation_steps.append(f"Share treated: {shown(share)}")
    return share


def is_area(unit: str | None) -> bool:
    """Whether unit is an area (ha, m², a): a surface, not a share."""
    if not unit or unit == "%":
        return False
    try:
        convert(1, unit, "ha")
    except UnitMismatch:
        return False
    return True


def split_list(text: str | None) -> list[str]:
    """ "A + B" → ["A", "B"]: how a mixture's products and doses are written."""
    return [part.strip() for part in (text or "").split("+") if part.strip()]


def not_a_treatment(context: Context, result: Result) -> Result | None:
    """result at 0 with the reason when the intervention is a known operation other than
    spraying and states no treatment segment (a ploughing has no IFT); None otherwise."""
    operation = context.assumptions.get("Opération")
    if operation is None or context.assumptions.get("Segment"):
        return None
    if operation_id(operation.value) == "pulverisation":
        return None
    result.assumptions.append(f"Opération: {operation.value} ({operation.level})")
    result.calculation_steps.append(f"{operation.value} is not a crop-protection treatment: 0")
    result.value, result.confidence = 0.0, Confidence.medium
    return result


def known_or_calculated(
    context: Context, result: Result, key: str, calculator: Callable[[Context], Result]
) -> float | None:
    """key's value for result: the intervention's own when it has one, else calculator's (its
    steps and sources join result's); None, with result needing what it needs, otherwise."""
    known = context.value(key)
    if known is not None:
        wanted = indicator(key)
        result.calculation_steps.append(
            f"{wanted.label_en}: {shown(known)} {wanted.unit} (the intervention's value)"
        )
        return known
    found = calculator(context)
    result.absorb(found)
    if context.read is not None:
        # Worked out on the way: the value as calculated, whose own inputs are noted too.
        context.read.pop(VALUE + key, None)
        context.read[CALCULATED + key] = "" if found.value is None else shown(found.value)
    if found.value is None:
        needs(result, *found.needs)
    return found.value


def stated_wins(context: Context, result: Result, key: str, unit: str) -> Result | None:
    """result with the user's stated figure for key (in unit) as its value, or None."""
    value = stated(context, key, result, unit)
    if value is None:
        return None
    result.value, result.confidence = rounded(value), Confidence.high
    result.calculation_steps.append(f"Stated {key}: {shown(value)} {unit}")
    return result
