"""P and K by the VDLUFA soil-test classes A–E: class C is the class to keep, and its dose is
maintenance = the crop's removal at the yield (P2O5 from the DüV's Anlage 7, K2O from a state
advisory table), labelled so. The bundled tables cite no figure for the other classes' surcharge
or reduction: their P or K is "no cited figure", with the removal shown as information."""

from __future__ import annotations

from typing import Any

from webapp.fertilizer.dose import MAINTENANCE, NO_FIGURE, Figure, kg
from webapp.fertilizer.soil import CLASS_WORDS, as_class
from webapp.fertilizer.tables import source_url, table
from webapp.review.vocabulary import Issue, Severity

METHOD = "VDLUFA soil classes"
MAINTENANCE_CLASS = "C"


def removal_per_dt(crop_id: str, oxide: str) -> tuple[float, str, str | None] | None:
    """kg of P2O5 or K2O removed per dt of harvest, the row it is read from, and its URL."""
    key = f"{oxide.lower()}_kg_per_dt"
    duev, vdlufa = table("duev"), table("vdlufa")
    candidates: list[tuple[dict[str, Any], dict[str, Any] | None]] = [
        (duev, duev.get("removal", {}).get(crop_id)),
        (vdlufa, vdlufa.get("k2o_removal", {}).get(crop_id)),
    ]
    for data, row in candidates:
        if row and row.get(key) is not None:
            # Anlage 7's rows are cited to the regulation itself, not to a copy of it.
            url = source_url(data, "anlage_7" if data is duev else row.get("source"))
            return float(row[key]), row.get("row", crop_id), url
    return None


def pk_dose(
    crop_id: str, oxide: str, status: str | None, yield_dt: float | None
) -> tuple[Figure, list[str], list[str], list[Issue]]:
    """The figure for P2O5 or K2O, the steps that show it, their sources and checks."""
    nutrient = "P" if oxide == "P2O5" else "K"
    removal = removal_per_dt(crop_id, oxide)
    if removal is None or yield_dt is None:
        why = "no cited removal figure" if removal is None else "no yield level to multiply"
        return NO_FIGURE, [f"{oxide}: {why} for this crop; no figure."], [], []
    per_dt, row, url = removal
    removed = per_dt * yield_dt
    steps = [
        f"{oxide} removal: {per_dt:g} kg/dt (“{row}”) × {kg(yield_dt)} dt/ha ="
        f" {kg(removed)} kg {oxide}/ha."
    ]
    issues: list[Issue] = []
    letter, read_as = as_class(status)
    if read_as:
        steps.append(f"Soil {nutrient}: {read_as}.")
    if letter is None:
        if status is not None:
            issues.append(
                Issue(
                    "soil_class_not_vdlufa",
                    Severity.warning,
                    f"soil_{nutrient.lower()}",
                    f"Soil {nutrient} {status} is an RB209 index, not a VDLUFA class (A–E):"
                    " the maintenance dose is shown.",
                )
            )
        steps.append(f"Soil {nutrient} class not given: class C's maintenance dose is shown.")
        issues.append(
            Issue(
                "soil_test_not_given",
                Severity.warning,
                f"soil_{nutrient.lower()}",
                f"Soil {nutrient} class not given: the maintenance dose (= removal, class C) is"
                " shown. Test the soil: another class needs another dose.",
            )
        )
        reason = f"soil {nutrient} class not given"
        return Figure(removed, MAINTENANCE, reason), steps, [url], issues
    words = f"class {letter} ({CLASS_WORDS[letter]})"
    if letter == MAINTENANCE_CLASS:
        steps.append(f"Soil {nutrient} {words}, the class to keep: maintenance = removal.")
        return Figure(removed, MAINTENANCE, words), steps, [url], issues
    # The bundled tables cite no VDLUFA surcharge or reduction for the other classes: the
    # removal is information there, never the dose.
    steps.append(
        f"Soil {nutrient} {words}: the dose for this class is above or below the removal;"
        f" no cited figure for how much ({kg(removed)} kg {oxide}/ha removal — not a dose)."
    )
    return NO_FIGURE, steps, [url], issues
