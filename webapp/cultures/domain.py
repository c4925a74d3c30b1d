"""What a culture's values must satisfy, whoever writes them: forms, API, import or an apply."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from webapp.cultures.fields import ENUM_ALIASES, NUMERIC_FIELDS

# The fields of a culture, in the order the API, exports and imports use.
CULTURE_FIELDS = (
    "name",
    "variety",
    "crop_family",
    "reference_crop",
    "cultivation_types",
    "nutrient_demand",
    "growth_duration_days",
    "harvest_duration_days",
    "propagation_duration_days",
    "harvest_method",
    "expected_yield",
    "distance_within_row_cm",
    "row_spacing_cm",
    "sowing_depth_cm",
    "seed_rate_value",
    "seed_rate_unit",
    "thousand_kernel_weight_g",
    "seed_packages",
    "notes",
    "structured_sources",
)
TEXT_LIMITS = {"name": 120, "variety": 120, "crop_family": 80, "reference_crop": 64}
WHOLE_DAYS = frozenset(
    {"growth_duration_days", "harvest_duration_days", "propagation_duration_days"}
)
CHOICE_FIELDS = ("nutrient_demand", "harvest_method", "seed_rate_unit")
EXPECTED_YIELD_MAX = Decimal("99999999.99")  # Numeric(10, 2)


class CultureInvalid(ValueError):
    """Values a culture cannot hold; errors maps each field to a message for people."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors


def _number(field: str, raw: Any, errors: dict[str, str]) -> Any:
    if raw is None or raw == "":
        return None
    try:
        value = Decimal(str(raw).strip().replace(",", "."))
    except InvalidOperation:
        errors[field] = f"“{raw}” is not a number."
        return None
    if not value.is_finite():
        errors[field] = "Give a finite number."
        return None
    if value < 0:
        errors[field] = "Must not be negative."
        return None
    if field in WHOLE_DAYS:
        if value != value.to_integral_value():
            errors[field] = "Give whole days."
            return None
        return int(value)
    if field == "expected_yield":
        if value > EXPECTED_YIELD_MAX:
            errors[field] = "Too large."
            return None
        return value.quantize(Decimal("0.01"))
    return float(value)


def _seed_packages(raw: Any, errors: dict[str, str]) -> list[dict[str, Any]]:
    if raw in (None, ""):
        return []
    if not isinstance(raw, list):
        errors["seed_packages"] = "Give a list of packages."
        return []
    packages = []
    for n, item in enumerate(raw, start=1):
        if not isinstance(item, Mapping):
            errors["seed_packages"] = f"Package {n} is not an object."
            return []
        try:
            size = float(item.get("size_value"))
        except (TypeError, ValueError):
            size = 0.0
        if size <= 0 or item.get("size_unit") not in ("g", "seeds"):
            errors["seed_packages"] = f"Package {n} needs a size above 0 in g or seeds."
            return []
        packages.append(
            {
                "size_value": size,
                "size_unit": item["size_unit"],
                "evidence_text": str(item.get("evidence_text") or ""),
            }
        )
    return packages


def _sources(raw: Any, errors: dict[str, str]) -> list[dict[str, Any]]:
    if raw in (None, ""):
        return []
    if not isinstance(raw, list) or not all(isinstance(s, Mapping) for s in raw):
        errors["structured_sources"] = "Give a list of {title, url, claim_summary, retrieved_at}."
        return []
    keys = ("title", "url", "claim_summary", "retrieved_at")
    return [{key: str(source.get(key) or "") for key in keys} for source in raw]


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
        if field not in CULTURE_FIELDS:
            errors[field] = "Not a culture field."
        elif field in TEXT_LIMITS or field == "notes":
            text = "" if raw is None else str(raw).strip()
            if field in TEXT_LIMITS and len(text) > TEXT_LIMITS[field]:
                errors[field] = f"At most {TEXT_LIMITS[field]} characters."
            clean[field] = text or (None if field == "reference_crop" else "")
        elif field in NUMERIC_FIELDS:
            clean[field] = _number(field, raw, errors)
        elif field in CHOICE_FIELDS:
            if raw in (None, ""):
                clean[field] = None
            elif raw in ENUM_ALIASES[field]:
                clean[field] = raw
            else:
                errors[field] = f"Choose one of {', '.join(ENUM_ALIASES[field])}."
        elif field == "cultivation_types":
            items = raw if isinstance(raw, list) else [] if raw in (None, "") else [raw]
            unknown = [t for t in items if t not in ENUM_ALIASES["cultivation_types"]]
            if unknown:
                allowed = ", ".join(ENUM_ALIASES["cultivation_types"])
                errors[field] = f"Unknown: {', '.join(map(str, unknown))}; use {allowed}."
            clean[field] = list(dict.fromkeys(items))
        elif field == "seed_packages":
            clean[field] = _seed_packages(raw, errors)
        else:
            clean[field] = _sources(raw, errors)
    if "name" in clean and not clean["name"]:
        errors["name"] = "A culture needs a name."
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
