"""Plausibility bounds per indicator and level: a value outside them is an error Issue, and a
value with an error is never applied. The bounds are checks against typing and unit mistakes
(a fuel cost typed into the fuel cell), wide on purpose; they are not cited facts."""

from __future__ import annotations

from webapp.review.vocabulary import Issue, Severity
from webapp.systems.indicators import indicator

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
    "rendement": (0, 200),  # t/ha: fresh-matter crops (beet, potato) reach ~100
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
