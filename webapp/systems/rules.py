"""Plausibility bounds per indicator and level: a value outside them is an error Issue, and a
value with an error is never applied. The bounds are checks against typing and unit mistakes
(a fuel cost typed into the fuel cell), wide on purpose; they are not cited facts. A sale price
whose unit may not be the one it is read in (€/t, against a yield in quintals) is warned."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webapp.reference.library import library
from webapp.review.vocabulary import Evidence, Issue, Severity, SourceKind
from webapp.systems.assumptions import normalise, parse_assumptions
from webapp.systems.indicators import indicator
from webapp.units import convert

# (low, high) per intervention and application; None: no bound on that side. Margins may be
# negative; nothing else may.
INTERVENTION_BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "frequence": (0, 20),
    "gnr": (0, 150),
    "coutGnr": (0, 300),
    "tempsTravail": (0, 20),
    "ift": (0, 10),
    "eiq": (0, 500),
    "azoteMineral": (0, 400),
    "azoteOrganique": (0, 600),
    "ges": (0, 3000),
    "semences": (0, 1500),
    "engrais": (0, 1500),
    "coutsPhytos": (0, 1500),
    "mecanisation": (0, 1500),
    "irrigation": (0, 2000),
    "totalCharges": (0, 10000),
}
STEP_BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "rendement": (0, 200),  # t/ha, any crop: fresh-matter crops (beet, potato) reach ~100
    "prixVente": (0, 10000),  # €/t
    "totalProduits": (0, 50000),
    "totalCharges": (0, 20000),
    "margeBrute": (None, 50000),
    "ift": (0, 60),
    "gnr": (0, 400),
    "tempsTravail": (0, 100),
}


def bounds_for(key: str, level: str = "intervention") -> tuple[float | None, float | None]:
    """(low, high) for key at level; a step's or a system's own bound when it has one, else
    the intervention's."""
    if level != "intervention" and key in STEP_BOUNDS:
        return STEP_BOUNDS[key]
    return INTERVENTION_BOUNDS.get(key, (None, None))


def check(key: str, value: float, level: str = "intervention") -> list[Issue]:
    """An error Issue when value is out of key's bounds at level; [] when it is plausible."""
    low, high = bounds_for(key, level)
    if (low is None or value >= low) and (high is None or value <= high):
        return []
    unit = indicator(key).unit
    shown_low = "" if low is None else f"{low:g}"
    shown_high = "" if high is None else f"{high:g}"
    return [
        Issue(
            "out_of_bounds",
            Severity.error,
            key,
            f"{value:g} {unit} is outside the plausible range {shown_low}–{shown_high} {unit} "
            f"for {indicator(key).label('en').lower()} per {level}: it is not applied.",
            {"value": value, "low": low, "high": high, "level": level},
        )
    ]


# A step's yield is checked against its crop's typical yield in the reference library: this
# multiple of it is the widest plausible yield, a check against unit mistakes (a yield in q/ha
# typed as t/ha is 10×), not a cited fact.
YIELD_MULTIPLE = 3
YIELD_FACT = "yield_per_sqm_kg"
# The library's yields are of the harvested grain or root; a whole-plant or forage harvest of the
# same crop (silage maize, a CIVE) weighs several times more, so it keeps the generic bound.
_WHOLE_PLANT = ("ensilage", "silage", "fourrage", "forage", "cive", "plante entiere", "tms")


@dataclass(frozen=True)
class YieldBound:
    low: float
    high: float
    unit: str
    basis: str  # in words: "3 × the typical yield of Winter wheat, 8 t/ha" or "generic"
    evidence: Evidence | None = None  # the library's source for the typical yield


def yield_bound(crop: str | None, unit: str = "t/ha") -> YieldBound:
    """The plausible yields of crop (a step's name or its "Culture"), in unit (t/ha or q/ha):
    0 to YIELD_MULTIPLE × the library's typical yield where the library states one (not a
    derived range) for that crop; else the generic step bound."""
    generic_low, generic_high = STEP_BOUNDS["rendement"]  # in t/ha
    found = _typical_yield(crop)
    if found is None:
        high, basis, evidence = generic_high, "the generic bound for any crop", None
    else:
        name, tonnes, evidence = found
        high = min(generic_high, YIELD_MULTIPLE * tonnes)
        basis = (
            f"{YIELD_MULTIPLE} × the typical yield of {name}, {tonnes:g} t/ha ({evidence.title})"
        )
    return YieldBound(
        convert(generic_low, "t/ha", unit), convert(high, "t/ha", unit), unit, basis, evidence
    )


def _typical_yield(crop: str | None) -> tuple[str, float, Evidence] | None:
    """(crop name, typical yield in t/ha, its evidence) from the reference library, or None."""
    if not crop or any(word in normalise(crop) for word in _WHOLE_PLANT):
        return None
    found = library().resolve(crop)
    fact = found.fact(YIELD_FACT) if found else None
    if fact is None or fact.derived or fact.max is None:
        return None
    tonnes = convert(fact.max, "kg/m²", "t/ha")
    evidence = Evidence(
        source_url=fact.source.url,
        title=fact.source.title,
        claim_summary=fact.claim,
        source_kind=SourceKind.reference,
    )
    return found.name("en"), tonnes, evidence


def check_yield(value: float, crop: str | None, unit: str = "t/ha") -> list[Issue]:
    """An error Issue when a step's yield (in unit) is outside its crop's plausible range."""
    bound = yield_bound(crop, unit)
    if bound.low <= value <= bound.high:
        return []
    return [
        Issue(
            "out_of_bounds",
            Severity.error,
            "rendement",
            f"{value:g} {unit} is outside the plausible yield {bound.low:g}–{bound.high:g} {unit}"
            f" ({bound.basis}): it is not applied.",
            {
                "value": value,
                "low": bound.low,
                "high": bound.high,
                "unit": unit,
                "level": "step",
                "source_url": bound.evidence.source_url if bound.evidence else None,
            },
        )
    ]


# The sale price is kept per tonne (€/t); a step may confirm it ("- **Unité prix**: €/t").
PRICE_UNIT_KEYS = ("unité prix", "unite prix", "price unit")


def check_price_unit(
    step: Mapping[str, Any], price: float, crop_yield: float, yield_unit: str
) -> list[Issue]:
    """A warning when the step's sale price may not be per tonne, as totalProduits reads it: the
    step states another unit (€/q), or its yield is in q/ha and it does not state €/t — a price
    per quintal read as per tonne makes the products 10 times too small, silently."""
    stated = next(
        (
            a.value.replace(" ", "")
            for a in parse_assumptions(step.get("assumptions"), "step")
            if a.key.casefold() in PRICE_UNIT_KEYS
        ),
        None,
    )
    if stated == "€/t" or (stated is None and yield_unit == "t/ha"):
        return []
    tonnes = convert(crop_yield, yield_unit, "t/ha")
    read, per_quintal = tonnes * price, convert(crop_yield, yield_unit, "q/ha") * price
    if stated is None:
        code = "price_unit_unstated"
        said = f"The yield is in {yield_unit} and the sale price, {price:g}, is read in €/t"
    else:
        code = "price_unit_not_per_tonne"
        said = f"The step states its price in {stated}, but the sale price is read in €/t"
    message = (
        f"{said}: {tonnes:g} t/ha × {price:g} €/t = {read:g} €/ha. If {price:g} is per quintal, "
        f"enter {price * 10:g} €/t (the products are then {per_quintal:g} €/ha); state "
        "“Unité prix: €/t” once the price is per tonne."
    )
    details = {"price": price, "unit": stated, "yield_unit": yield_unit, "read": read}
    return [Issue(code, Severity.warning, "prixVente", message, details)]
