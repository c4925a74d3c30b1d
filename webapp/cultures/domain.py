"""What a culture's values must satisfy, whoever writes them: forms, API, import or an apply.

Each value is read by its field's spec (webapp.cultures.fields); the rules across fields are
here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp.cultures.fields import SPECS
from webapp.problems import Invalid, Problem
from webapp.review.fields import FieldProblem


class CultureInvalid(Invalid):
    """Values a culture cannot hold, one problem per field."""

    code = "culture_invalid"

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems, summary="Some values cannot be used.")

    def error_details(self) -> dict[str, Any]:
        # "fields" is the first API's {field: message}; clients read it.
        return {"fields": self.errors, **super().error_details()}


def clean_culture(
    values: Mapping[str, Any], current: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Check and convert values for the given fields; raise CultureInvalid listing every problem.

    Only the fields given are returned, so a partial update cleans just what it changes; the
    cross-field rules see those values over the culture's current ones.
    """
    problems: list[Problem] = []
    clean: dict[str, Any] = {}
    for field, raw in values.items():
        spec = SPECS.get(field)
        if spec is None:
            problems.append(Problem("Not a culture field.", field, "unknown_field"))
            continue
        try:
            clean[field] = spec.read(raw)
        except FieldProblem as problem:
            problems.append(Problem(problem.message, field, problem.code))
    problems += cross_field_problems({**(current or {}), **clean})
    if problems:
        raise CultureInvalid(problems)
    return clean


def cross_field_problems(values: Mapping[str, Any]) -> list[Problem]:
    """A harvest duration needs a harvest method; a seed rate needs its unit."""
    problems = []
    if values.get("harvest_duration_days") is not None and not values.get("harvest_method"):
        message = "A harvest duration needs a harvest method."
        problems.append(Problem(message, "harvest_method", "value_missing"))
    if values.get("seed_rate_value") is not None and not values.get("seed_rate_unit"):
        problems.append(Problem("A seed rate needs its unit.", "seed_rate_unit", "value_missing"))
    return problems
