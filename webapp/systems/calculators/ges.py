"""Greenhouse gases (kg CO2e/ha), each term apart with its cited factor: fuel burnt (3.17 kg
CO2e/L); for mineral N, making it, field N2O direct (4.29 kg CO2e/kg N) and indirect (N
volatilised then redeposited, N leached: IPCC 2019 defaults), and the CO2 urea's carbon gives off
in the soil."""

from __future__ import annotations

import re

from webapp.review.vocabulary import Confidence, Severity
from webapp.systems.assumptions import normalise
from webapp.systems.calculators.context import Context, known_or_calculated, stated
from webapp.systems.calculators.figures import cited, use
from webapp.systems.calculators.nitrogen import mineral
from webapp.systems.calculators.operations import fuel
from webapp.systems.calculators.result import Result, needs, rounded, shown

# kg N2O per kg N2O-N, by molecular mass.
N2O_PER_N = 44 / 28

# Mineral N forms by the words that name them; the N solution first, as "urea ammonium nitrate"
# also names urea and ammonium nitrate.
N_FORMS = (
    ("solution_azotee", ("solution azotee", "uan", "urea ammonium nitrate")),
    ("uree", ("uree", "urea")),
    ("ammonitrate", ("ammonitrate", "ammonium nitrate", "nitrate d'ammonium")),
)


def n_form(product: str) -> str | None:
    """The mineral N form a product's name says ("Urée 46 %" → "uree"), or None."""
    text = normalise(product)
    for form, words in N_FORMS:
        if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in words):
            return form
    return None


def calculate(context: Context) -> Result:
    """ges in kg CO2e/ha; needs the fuel (a value, a stated figure or a cited one) and, when
    mineral N is applied, its manufacture factor (cited for ammonium nitrate, else stated)."""
    result = Result("ges", "kg CO2e/ha")
    volume = known_or_calculated(context, result, "gnr", fuel)
    nitrogen = known_or_calculated(context, result, "azoteMineral", mineral)
    if volume is None or nitrogen is None:
        return result
    fuel_factor = use(result, cited("emission", "gnr"), "Fuel emission factor")
    parts = {"fuel": volume * fuel_factor}
    result.calculation_steps.append(
        f"Fuel: {shown(volume)} L/ha × {shown(fuel_factor)} kg CO2e/L = {shown(parts['fuel'])}"
    )
    if nitrogen:
        product = context.assumptions.text("Produit") or ""
        form = n_form(product)
        making = _manufacture_factor(context, result, form)
        if making is None:
            why = f"no cited manufacture factor for {product or 'this fertiliser'}"
            return needs(result, "Facteur fabrication", why=why)
        parts |= _nitrogen_parts(result, nitrogen, making, form)
    result.parts = {name: rounded(value) for name, value in parts.items()}
    total = sum(parts.values())
    result.value = rounded(total)
    terms = " + ".join(shown(value) for value in parts.values())
    result.calculation_steps.append(f"GES = {terms} = {shown(total)} kg CO2e/ha")
    result.confidence = Confidence.medium
    return result


def _nitrogen_parts(
    result: Result, nitrogen: float, making: float, form: str | None
) -> dict[str, float]:
    """The terms of nitrogen kg N/ha of mineral N, each with its step."""
    n = shown(nitrogen)
    parts = {"n_manufacture": nitrogen * making}
    result.calculation_steps.append(
        f"Making the N: {n} kg N/ha × {shown(making)} kg CO2e/kg N = "
        f"{shown(parts['n_manufacture'])}"
    )
    direct = use(result, cited("emission", "field_n2o"), "Field N2O, direct")
    parts["n2o_direct"] = nitrogen * direct
    result.calculation_steps.append(
        f"Field N2O, direct: {n} kg N/ha × {shown(direct)} kg CO2e/kg N = "
        f"{shown(parts['n2o_direct'])}"
    )
    gwp = use(result, cited("emission", "gwp_n2o"), "GWP100 of N2O")
    for part, share_key, factor_key, what in (
        ("n2o_volatilisation", "frac_gasf", "ef4", "volatilised then redeposited"),
        ("n2o_leaching", "frac_leach", "ef5", "leached"),
    ):
        share = use(result, cited("emission", "indirect_n2o", share_key), f"{share_key} (N {what})")
        factor = use(result, cited("emission", "indirect_n2o", factor_key), f"{factor_key}")
        parts[part] = nitrogen * share * factor * N2O_PER_N * gwp
        result.calculation_steps.append(
            f"Field N2O, indirect, N {what}: {n} kg N/ha × {shown(share)} × {shown(factor)} "
            f"kg N2O-N/kg N × 44/28 × {shown(gwp)} = {shown(parts[part])}"
        )
    result.caveat(
        "leaching_assumed",
        Severity.info,
        "The leached share (IPCC 2019 default 0.24) is for soils water drains through (wet "
        "climates, irrigation); where none drains, that term is 0.",
    )
    if form is not None and (urea := cited("emission", "urea_co2", form)) is not None:
        factor = use(result, urea, "CO2 from urea's carbon")
        parts["urea_co2"] = nitrogen * factor
        result.calculation_steps.append(
            f"CO2 from urea's carbon: {n} kg N/ha × {shown(factor)} kg CO2/kg N = "
            f"{shown(parts['urea_co2'])}"
        )
        result.caveat(
            "urea_carbon_apart",
            Severity.info,
            "Urea's carbon is counted here, apart: a manufacture factor that already counts it "
            "(Base Carbone's do) would count it twice.",
        )
    return parts


def _manufacture_factor(context: Context, result: Result, form: str | None) -> float | None:
    """kg CO2e per kg N made: the stated factor, else the cited one for the product's form."""
    factor = stated(context, "Facteur fabrication", result)
    if factor is not None:
        return factor
    figure = cited("emission", "manufacture", form) if form else None
    return use(result, figure, f"Making {form}") if figure else None
