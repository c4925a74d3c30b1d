"""Greenhouse gases (kg CO2e/ha) = fuel × 3.17 kg CO2e/L + mineral N × (its manufacture factor +
4.29 kg CO2e/kg N field N2O), each factor shown with its source."""

from __future__ import annotations

from webapp.review.vocabulary import Confidence
from webapp.systems.assumptions import normalise
from webapp.systems.calculators.context import Context, known_or_calculated, stated
from webapp.systems.calculators.figures import Figure, cited, figures, use
from webapp.systems.calculators.nitrogen import mineral
from webapp.systems.calculators.operations import fuel
from webapp.systems.calculators.result import Result, needs, rounded, shown


def calculate(context: Context) -> Result:
    """ges in kg CO2e/ha; needs the fuel (a value, a stated figure or a cited one) and, when
    mineral N is applied, its manufacture factor (cited for ammonium nitrate, else stated)."""
    result = Result("ges", "kg CO2e/ha")
    volume = known_or_calculated(context, result, "gnr", fuel)
    nitrogen = known_or_calculated(context, result, "azoteMineral", mineral)
    if volume is None or nitrogen is None:
        return result
    fuel_factor = use(result, cited("emission", "gnr"), "Fuel emission factor")
    fuel_part = volume * fuel_factor
    result.calculation_steps.append(
        f"Fuel: {shown(volume)} L/ha × {shown(fuel_factor)} kg CO2e/L = {shown(fuel_part)}"
    )
    n_part = 0.0
    if nitrogen:
        making = _manufacture_factor(context, result)
        if making is None:
            return needs(result, "Facteur fabrication", why="no cited factor for this fertiliser")
        field = use(result, cited("emission", "field_n2o"), "Field N2O")
        n_part = nitrogen * (making + field)
        result.calculation_steps.append(
            f"Mineral N: {shown(nitrogen)} kg N/ha × ({shown(making)} + {shown(field)}) "
            f"kg CO2e/kg N = {shown(n_part)}"
        )
    result.parts = {"fuel": rounded(fuel_part), "mineral_n": rounded(n_part)}
    result.value = rounded(fuel_part + n_part)
    result.calculation_steps.append(f"GES = {shown(fuel_part)} + {shown(n_part)} kg CO2e/ha")
    result.confidence = Confidence.medium
    return result


def _manufacture_factor(context: Context, result: Result) -> float | None:
    """kg CO2e per kg N made: the stated factor, else the cited one for the product."""
    factor = stated(context, "Facteur fabrication", result)
    if factor is not None:
        return factor
    product = normalise(context.assumptions.text("Produit") or "")
    for name in figures()["emission"]["manufacture"]:
        if name in product:
            figure: Figure = cited("emission", "manufacture", name)
            return use(result, figure, f"Making {name}")
    return None
