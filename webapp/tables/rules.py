"""What a number column's unit says its values can be: a yield per area above what any crop in
the reference library gives (its largest cap: greenhouse tomato in a year) is an error, and a
mass, length, area, duration or yield is never below zero. Checked wherever a value enters a
cell: computed, looked up, typed and imported. A yield above the cap of the row's own crop (a
row whose crop column names a library crop) is a warning: a person checks it."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from webapp.reference.library import Crop, library
from webapp.tables.scope import column_words
from webapp.units import UnitMismatch, convert

YIELD_UNIT = "t/ha"
KG_M2_IN_T_HA = 10
# Quantities that are never negative, by the unit they can be converted to.
NEVER_NEGATIVE = ("kg", "m", "m**2", "day", YIELD_UNIT)
# Column names that hold the row's crop (FAOSTAT's "Item", "Crop", "Kultur", ...).
CROP_WORDS = frozenset(
    {"crop", "crops", "item", "commodity", "culture", "kultur", "fruchtart", "cultivo", "cultura"}
)


def yield_caps(crop: Crop) -> list[tuple[float, str]]:
    """The crop's yield caps in t/ha, each with its setting ("in a greenhouse, a year")."""
    fact = crop.fact("yield_per_sqm_kg")
    if fact is None:
        return []
    settings = [(fact.cap, fact.extra.get("setting"))]
    settings += [(v.get("cap"), label) for label, v in fact.extra.get("variants", {}).items()]
    return [(cap * KG_M2_IN_T_HA, label or "") for cap, label in settings if cap]


@functools.cache
def largest_yield() -> tuple[float, str]:
    """The largest yield cap in the library, t/ha, and whose it is."""
    cap, name, setting = max(
        (cap, crop.name(), setting) for crop in library().crops for cap, setting in yield_caps(crop)
    )
    return cap, f"{name}{f', {setting}' if setting else ''}"


def is_yield(unit: str | None) -> bool:
    """Whether a column in unit holds a yield per area (t/ha, dt/ha, kg/m², bu/ac...)."""
    return bool(unit) and _factor(unit, YIELD_UNIT) is not None


def row_crop(row: Mapping[str, Any]) -> Crop | None:
    """The library crop the row's crop column names ("Wheat", "Maize (corn)"), or None."""
    for name, value in row.items():
        if isinstance(value, str) and value.strip() and _names_crops(name):
            return _crop_named(value)
    return None


@functools.cache
def _names_crops(column: str) -> bool:
    return bool(CROP_WORDS & set(column_words(column)))


@functools.lru_cache(maxsize=4096)
def _crop_named(value: str) -> Crop | None:
    """A table repeats its crops row after row: each name is resolved once."""
    return library().resolve(value)


def above_crop_cap(value: float, unit: str | None, row: Mapping[str, Any]) -> str | None:
    """Why a yield looks too high for the row's own crop (above its largest cap in any
    setting the library cites), or None: a warning, the figure may still be right."""
    if isinstance(value, bool) or not is_yield(unit):
        return None
    factor = _factor(unit, YIELD_UNIT)
    crop = row_crop(row)
    caps = yield_caps(crop) if crop is not None else []
    if not caps:
        return None
    cap = max(cap for cap, _setting in caps)
    if value * factor <= cap:
        return None
    return (
        f"{value:g} {unit} is above the library's cap for {crop.name()} ({cap:g} t/ha):"
        " check the figure and its unit."
    )


@functools.cache
def _factor(unit: str, to: str) -> float | None:
    """unit → to as one factor (these units have no offset), None when they do not convert;
    cached, so a column's values cost a multiplication each, not a unit parse."""
    try:
        return convert(1.0, unit, to)
    except UnitMismatch:
        return None


def implausible(value: float, unit: str | None) -> str | None:
    """Why value cannot be a figure in unit, or None."""
    if not unit or isinstance(value, bool):
        return None
    if value < 0 and any(_factor(unit, kind) is not None for kind in NEVER_NEGATIVE):
        return f"{value:g} {unit} is below zero: no such quantity is negative."
    factor = _factor(unit, YIELD_UNIT)
    if factor is not None:
        cap, whose = largest_yield()
        if value * factor > cap:
            return (
                f"{value:g} {unit} is above any crop's yield: the library's largest is"
                f" {cap:g} t/ha ({whose})."
            )
    return None
