"""The German Fertiliser Ordinance's N rule (DüV, Anlage 4): the N demand value (Sollwert) of
the crop's row at its reference yield refers to the soil's mineral N (Nmin) measured at the
start of growth, so the dose is

    demand ± the yield difference (Tabelle 3 or 5, pro rata per step, the surcharge capped)
           − Nmin − humus (Tabelle 6) − previous crop (Tabelle 7) − 10 % of last year's
           organic N (§ 4 (1) Nr. 5), never below 0.

Without Nmin the demand is shown as an upper bound, never as the dose."""

from __future__ import annotations

from typing import Any

from webapp.fertilizer.dose import DOSE, UPPER_BOUND, Dose, Figure, kg
from webapp.fertilizer.tables import source_url, table
from webapp.review.vocabulary import Issue, Severity

METHOD = "DüV 2017 (as amended 2020), Anlage 4"


def _data() -> dict[str, Any]:
    return table("duev")


def row_of(crop_id: str) -> dict[str, Any] | None:
    """The crop's row of Tabelle 2 (arable) or Tabelle 4 (vegetables)."""
    data = _data()
    return data.get("arable", {}).get(crop_id) or data.get("vegetables", {}).get(crop_id)


def previous_crops() -> tuple[str, ...]:
    """The previous crops as Tabelle 7 names them."""
    return tuple(_data().get("previous_crop", {}).get("rows", {}))


def vegetable_adjustment(crop_id: str, row: dict[str, Any], yield_dt: float) -> tuple[float, str]:
    """Tabelle 5: per whole step of 20 % of the row's yield, the crop's surcharge or deduction
    (the table allows no part of a step, unlike Tabelle 3's note for arable crops)."""
    table5 = _data().get("yield_adjustment_vegetables", {})
    rows, names = table5.get("rows", {}), table5.get("crop_map", {})
    rule = rows.get(names.get(crop_id) or names.get("*", ""))
    reference = float(row["yield_dt_per_ha"])
    if not rule:
        return 0.0, ""
    percent = (yield_dt - reference) / reference * 100
    steps = int(abs(percent) // rule["step_pct"])
    if not steps:
        return (
            0.0,
            f"{percent:+.0f} % of the row's yield, less than one step of {rule['step_pct']} %",
        )
    per = rule["plus_kg_n"] if percent > 0 else -rule["minus_kg_n"]
    return steps * per, (
        f"{percent:+.0f} % of the row's yield: {steps} step(s) of {rule['step_pct']} % ×"
        f" {per:+g} kg N/ha (Tabelle 5)"
    )


def yield_adjustment(row: dict[str, Any], yield_dt: float) -> tuple[float, str]:
    """Tabelle 3: the surcharge or deduction for a yield level other than the row's, pro rata
    per step of the table (its note 2); the surcharge is capped, and the words that show it."""
    reference = float(row["yield_dt_per_ha"])
    difference = yield_dt - reference
    step = row.get("yield_step_dt_per_ha")
    if not difference or not step:
        return 0.0, ""
    steps = difference / float(step)
    if difference > 0:
        per = row.get("plus_per_step_kg_n")
        if per is None:
            return 0.0, "the table gives no surcharge for a higher yield"
        amount = steps * float(per)
        cap = row.get("max_plus_kg_n")
        capped = min(amount, float(cap)) if cap is not None else amount
        words = f"+{kg(capped)} kg N/ha ({kg(difference)} dt/ha above: {kg(per)} per {kg(step)} dt"
        words += f", at most {kg(cap)})" if cap is not None else ")"
        return capped, words
    per = row.get("minus_per_step_kg_n")
    if per is None:
        return 0.0, "the table gives no deduction for a lower yield"
    amount = steps * float(per)
    cap = row.get("max_minus_kg_n")
    capped = max(amount, -float(cap)) if cap is not None else amount
    return (
        capped,
        f"{kg(capped)} kg N/ha ({kg(-difference)} dt/ha below: {kg(per)} per {kg(step)} dt)",
    )


def humus_deduction(humus_pct: float | None) -> tuple[float, str]:
    rule = _data().get("humus", {})
    for band in rule.get("rule", []):
        if humus_pct is not None and humus_pct > band["humus_above_pct"]:
            return float(band["minus_kg_n"]), (
                f"humus {humus_pct:g} % (above {band['humus_above_pct']:g} %, Tabelle 6):"
                f" −{kg(band['minus_kg_n'])} kg N/ha"
            )
    return 0.0, ""


def n_dose(
    crop_id: str,
    yield_dt: float | None,
    nmin: float | None,
    humus_pct: float | None = None,
    previous_crop: str | None = None,
    organic_n_last_year: float | None = None,
) -> Dose | None:
    """The DüV N dose for the crop, or None when the DüV has no row for it."""
    data = _data()
    row = row_of(crop_id)
    if row is None:
        return None
    url = source_url(data, row.get("source")) or source_url(data, "duev_gii")
    dose = Dose(METHOD, sources=[url] if url else [])
    demand = float(row["n_demand_kg_per_ha"])
    reference = float(row["yield_dt_per_ha"])
    depth = row.get("nmin_depth_cm") or data.get("nmin_rule", {}).get("depth_cm", 90)
    table_name = "Tabelle 2" if crop_id in data.get("arable", {}) else "Tabelle 4"
    dose.steps.append(
        f"N demand (Stickstoffbedarfswert), DüV Anlage 4 {table_name}, row “{row['row']}”:"
        f" {kg(demand)} kg N/ha at {kg(reference)} dt/ha, for the soil's Nmin in 0–{depth} cm."
    )
    total = demand
    if yield_dt is None:
        dose.steps.append(f"Yield level not given: the row's {kg(reference)} dt/ha is used.")
    else:
        if table_name == "Tabelle 2":
            change, words = yield_adjustment(row, yield_dt)
        else:
            change, words = vegetable_adjustment(crop_id, row, yield_dt)
        total += change
        if words:
            dose.steps.append(f"Yield level {kg(yield_dt)} dt/ha: {words}.")
    humus, words = humus_deduction(humus_pct)
    total -= humus
    if words:
        dose.steps.append(f"Soil: {words}.")
    if previous_crop:
        minus = float(data["previous_crop"]["rows"][previous_crop])
        total -= minus
        dose.steps.append(f"Previous crop “{previous_crop}” (Tabelle 7): −{kg(minus)} kg N/ha.")
    if organic_n_last_year:
        share = float(data.get("organic_previous_year", {}).get("share", 0.1))
        minus = organic_n_last_year * share
        total -= minus
        dose.steps.append(
            f"Organic N given last year {kg(organic_n_last_year)} kg N/ha × {share:g}"
            f" (§ 4 (1) Nr. 5): −{kg(minus)} kg N/ha."
        )
    if nmin is None:
        dose.N = Figure(max(0.0, total), UPPER_BOUND, "Nmin not given")
        dose.steps.append(
            f"Nmin not given: the full demand, {kg(max(0.0, total))} kg N/ha, is shown as an"
            f" upper bound. Measure the soil's mineral N in 0–{depth} cm and subtract it."
        )
        dose.issues.append(
            Issue(
                "nmin_not_given",
                Severity.warning,
                "nmin",
                "Nmin not given: the full demand is shown as an upper bound, not as the dose."
                f" Subtract the soil's mineral N (0–{depth} cm) measured at the start of growth.",
            )
        )
        return dose
    total -= nmin
    dose.steps.append(f"Nmin (0–{depth} cm) {kg(nmin)} kg N/ha: −{kg(nmin)} kg N/ha.")
    if total < 0:
        dose.steps.append("The soil supplies more than the demand: no N to apply.")
    dose.N = Figure(max(0.0, total), DOSE, "DüV demand − Nmin")
    return dose
