"""What a number column's unit says its values can be: a yield per area above what any crop in
the reference library gives (its largest cap: greenhouse tomato in a year) is an error, and a
mass, length, area, duration or yield is never below zero. Checked wherever a value enters a
cell: computed, looked up, typed and imported."""

from __future__ import annotations

import functools

from webapp.reference.library import library
from webapp.units import UnitMismatch, convert

YIELD_UNIT = "t/ha"
KG_M2_IN_T_HA = 10
# Quantities that are never negative, by the unit they can be converted to.
NEVER_NEGATIVE = ("kg", "m", "m**2", "day", YIELD_UNIT)


@functools.cache
def largest_yield() -> tuple[float, str]:
    """The largest yield cap in the library, t/ha, and whose it is."""
    caps = []
    for crop in library().crops:
        fact = crop.fact("yield_per_sqm_kg")
        if fact is None:
            continue
        settings = [(fact.cap, fact.extra.get("setting"))]
        settings += [(v.get("cap"), label) for label, v in fact.extra.get("variants", {}).items()]
        caps += [(cap * KG_M2_IN_T_HA, crop.name(), label) for cap, label in settings if cap]
    cap, name, setting = max(caps)
    return cap, f"{name}{f', {setting}' if setting else ''}"


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
