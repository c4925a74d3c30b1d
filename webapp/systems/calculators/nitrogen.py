"""Nitrogen applied (kg N/ha) from a product's N content and dose: mineral N for a mineral
fertiliser, organic N for manure, slurry or compost."""

from __future__ import annotations

from webapp.review.vocabulary import Confidence
from webapp.systems.assumptions import is_organic, operation_id
from webapp.systems.calculators.context import Context, stated
from webapp.systems.calculators.result import Result, needs, rounded, shown

# Operations that apply a fertiliser; any other applies no nitrogen unless an N content is stated.
_FERTILISING = ("epandage",)


def mineral(context: Context) -> Result:
    """azoteMineral in kg N/ha."""
    return _nitrogen(context, organic=False)


def organic(context: Context) -> Result:
    """azoteOrganique in kg N/ha."""
    return _nitrogen(context, organic=True)


def _nitrogen(context: Context, *, organic: bool) -> Result:
    key = "azoteOrganique" if organic else "azoteMineral"
    result = Result(key, "kg N/ha")
    held = context.assumptions
    product = held.text("Produit") or ""
    nitrogen_type = held.text("Type d'azote") or ""
    product_is_organic = is_organic(f"{product} {nitrogen_type}") or "organi" in nitrogen_type
    content, operation = held.get("Teneur N"), held.get("Opération")
    if content is None and operation and operation_id(operation.value) not in _FERTILISING:
        result.assumptions.append(f"Opération: {operation.value} ({operation.level})")
        result.calculation_steps.append(f"{operation.value} applies no fertiliser: 0 kg N/ha")
        result.value, result.confidence = 0.0, Confidence.medium
        return result
    if content is not None and product_is_organic != organic:
        kind = "organic" if product_is_organic else "mineral"
        result.calculation_steps.append(f"{product or 'The product'} is {kind} N: 0 kg N/ha here")
        result.value, result.confidence = 0.0, Confidence.medium
        return result
    share = stated(context, "Teneur N", result)
    # t/ha, q/ha and g/ha are converted; a volume (L/ha) needs a density, so it is refused.
    dose = stated(context, "Dose", result, "kg/ha")
    missing = [k for k, v in (("Teneur N", share), ("Dose", dose)) if v is None]
    if missing:
        return needs(result, *missing)
    # "33,5 %" is a percentage; a bare number is one too when above 1, else a fraction.
    percent = (held.quantity("Teneur N").unit or "").strip() == "%" or share > 1
    fraction = share / 100 if percent else share
    value = dose * fraction
    result.value = rounded(value)
    step = f"{shown(dose)} kg/ha × {shown(fraction * 100)} % N = {shown(value)} kg N/ha"
    if round(value) != value:
        step += f" (≈ {round(value)} kg N/ha rounded)"
    result.calculation_steps.append(step)
    result.confidence = Confidence.high
    return result
