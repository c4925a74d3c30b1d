"""EIQ field use rating (Kovach et al. 1992): EIQ of the active ingredient × its rate. Cornell's
rate is in lb of active ingredient per acre; the rate in kg/ha is converted (Pint). A field use
rating the user states ("- **EIQ**: 25") wins; an ingredient the bundled table lacks takes the
EIQ the user states for it ("- **EIQ matière active**: 18")."""

from __future__ import annotations

from webapp.review.vocabulary import Confidence
from webapp.systems.assumptions import normalise
from webapp.systems.calculators.context import (
    Context,
    not_a_treatment,
    read_quantity,
    share_treated,
    stated,
    stated_wins,
)
from webapp.systems.calculators.figures import cited, figures, use
from webapp.systems.calculators.result import Result, needs, rounded, shown
from webapp.units import UnitMismatch, convert


def calculate(context: Context) -> Result:
    """eiq: a stated field use rating; else needs Matière active (its EIQ in the bundled table
    or stated), Concentration (g/L for a dose in L/ha, g/kg or % for a dose in kg/ha) and Dose."""
    result = Result("eiq", "EIQ")
    if (none := not_a_treatment(context, result)) is not None:
        return none
    if (given := stated_wins(context, result, "EIQ", "EIQ")) is not None:
        return given
    active = context.assumptions.text("Matière active")
    if active is None:
        return needs(result, "Matière active")
    eiq = _ingredient_eiq(context, active, result)
    if eiq is None:
        return needs(result, "EIQ matière active", why=f"no EIQ for {active} in the bundled table")
    rate = _active_rate(context, result)
    if rate is None:
        return needs(result, "Concentration", "Dose")
    share = share_treated(context, result)
    per_acre = convert(rate, "kg/ha", "lb/acre")
    result.value = rounded(eiq * per_acre * share)
    result.calculation_steps.append(
        f"{shown(rate)} kg a.i./ha = {shown(per_acre)} lb/acre; field EIQ = {shown(eiq)} × "
        f"{shown(per_acre)} × {shown(share)} = {shown(result.value)}"
    )
    result.confidence = Confidence.medium
    return result


def _ingredient_eiq(context: Context, active: str, result: Result) -> float | None:
    """The ingredient's EIQ: the bundled table's (Kovach et al.), else the one the user states."""
    name = next((n for n in figures()["eiq"] if n in normalise(active)), None)
    if name is not None:
        return use(result, cited("eiq", name), f"EIQ of {name}")
    value = stated(context, "EIQ matière active", result)
    if value is None or not value > 0:
        return None
    result.calculation_steps.append(f"EIQ of {active}: {shown(value)} (stated)")
    return value


def _active_rate(context: Context, result: Result) -> float | None:
    """kg of active ingredient per ha: dose × concentration."""
    held = context.assumptions
    if held.get("Dose") is None or held.get("Concentration") is None:
        return None
    dose = read_quantity(held.text("Dose"), "Dose", result)
    concentration = read_quantity(held.text("Concentration"), "Concentration", result)
    if dose is None or concentration is None:
        return None
    dose_unit = (dose.unit or "").replace(" ", "")
    unit = (concentration.unit or "").replace(" ", "")
    try:
        if unit == "%":
            per_hectare = convert(dose.value, dose_unit, "kg/ha") * concentration.value / 100
        else:
            per_unit = convert(concentration.value, unit, f"kg/{dose_unit.split('/')[0]}")
            per_hectare = dose.value * per_unit
    except UnitMismatch:
        return None
    stated(context, "Dose", result)
    stated(context, "Concentration", result)
    result.calculation_steps.append(
        f"Active ingredient: {dose.value:g} {dose.unit} × {concentration.value:g} "
        f"{concentration.unit} = {shown(per_hectare)} kg/ha"
    )
    return per_hectare
