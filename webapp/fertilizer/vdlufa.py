"""P and K by the VDLUFA soil-test classes A–E, with the dose rules German advice applies
(Landwirtschaftskammer Niedersachsen's, as its advisory rings publish them): the crop's
removal at the yield (P2O5 from the DüV's Anlage 7, K2O from a state advisory table) times the
class's share — C is maintenance = removal, labelled so; D about half; E none; A and B 1.2–2.0 ×
removal by crop and nutrient, so their upper end is shown as an upper bound."""

from __future__ import annotations

from typing import Any

from webapp.fertilizer.dose import DOSE, MAINTENANCE, NO_FIGURE, UPPER_BOUND, Figure, kg
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
    rule = table("vdlufa")["classes"][letter]
    urls = [url, source_url(table("vdlufa"), rule.get("rule_source"))]
    if letter == MAINTENANCE_CLASS:
        steps.append(f"Soil {nutrient} {words}, the class to keep: maintenance = removal.")
        return Figure(removed, MAINTENANCE, words), steps, urls, issues
    factor = rule.get("factor_of_removal")
    if factor is not None:
        dose = removed * float(factor)
        about = "about " if rule.get("factor_is_approximate") else ""
        steps.append(
            f"Soil {nutrient} {words}: {about}removal × {factor:g} = {kg(dose)} kg {oxide}/ha"
            f" — “{rule['rule_quote']}”"
        )
        return Figure(dose, DOSE, f"{words}: {about}removal × {factor:g}"), steps, urls, issues
    span = rule["factor_of_removal_range"]
    top = removed * float(span["max"])
    steps.append(
        f"Soil {nutrient} {words}: {span['min']:g}–{span['max']:g} × removal by crop and"
        f" nutrient; the upper end, {kg(top)} kg {oxide}/ha, is shown as an upper bound —"
        f" “{rule['rule_quote']}”"
    )
    reason = f"{words}: {span['min']:g}–{span['max']:g} × removal, the upper end"
    return Figure(top, UPPER_BOUND, reason), steps, urls, issues
