"""What a culture's values must satisfy, whoever writes them: forms, API, import or an apply.

Each value is read by its field's spec (webapp.cultures.fields); the rules across fields are
here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp.cultures.fields import SPECS
from webapp.review.fields import FieldProblem


class CultureInvalid(ValueError):
    """Values a culture cannot hold; errors maps each field to a message for people."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors


def clean_culture(
    values: Mapping[str, Any], current: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Check and convert values for the given fields; raise CultureInvalid listing every problem.

    Only the fields given are returned, so a partial update cleans just what it changes; the
    cross-field rules see those values over the culture's current ones.
    """
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    for field, raw in values.items():
        spec = SPECS.get(field)
        if spec is None:
            errors[field] = "Not a culture field."
            continue
        try:
            clean[field] = spec.read(raw)
        except FieldProblem as problem:
            errors[field] = problem.message
    errors.update(cross_field_errors({**(current or {}), **clean}))
    if errors:
        raise CultureInvalid(errors)
    return clean


def cross_field_errors(values: Mapping[str, Any]) -> dict[str, str]:
    """A harvest duration needs a harvest method; a seed rate needs its unit."""
    errors = {}
    if values.get("harvest_duration_days") is not None and not values.get("harvest_method"):
        errors["harvest_method"] = "A harvest duration needs a harvest method."
    if values.get("seed_rate_value") is not None and not values.get("seed_rate_unit"):
        errors["seed_rate_unit"] = "A seed rate needs its unit."
    return errors
