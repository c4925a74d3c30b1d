"""Costs in €/ha: fuel (coutGnr = gnr × fuel price, volume and cost kept apart; none on top of a
machinery cost that includes fuel) and crop protection (coutsPhytos = Σ dose × product price ×
share treated)."""

from __future__ import annotations

from webapp.review.vocabulary import Confidence
from webapp.systems.assumptions import normalise
from webapp.systems.calculators.context import (
    Context,
    known_or_calculated,
    not_a_treatment,
    read_quantity,
    share_treated,
    split_list,
    stated,
)
from webapp.systems.calculators.figures import Figure, cited, figures, use
from webapp.systems.calculators.operations import fuel, fuel_in_machinery_cost
from webapp.systems.calculators.result import Result, needs, rounded, shown


def fuel_cost(context: Context) -> Result:
    """coutGnr in €/ha: gnr × the stated fuel price, else the cited 2024 average; 0 when the
    machinery cost is a job in full that includes fuel, which would otherwise count twice."""
    result = Result("coutGnr", "€/ha")
    if (included := fuel_in_machinery_cost(context)) is not None:
        cost, evidence = included
        result.sources.append(evidence)
        result.calculation_steps.append(
            f"The machinery cost, {cost}, includes fuel: no fuel cost is added to it, 0 €/ha."
        )
        result.value, result.confidence = 0.0, Confidence.medium
        return result
    volume = known_or_calculated(context, result, "gnr", fuel)
    if volume is None:
        return result
    price = stated(context, "Prix GNR", result)
    if price is None:
        price = use(result, cited("fuel_price"), "Fuel price")
    result.value = rounded(volume * price)
    result.calculation_steps.append(
        f"{shown(volume)} L/ha × {shown(price)} €/L = {shown(result.value)} €/ha"
    )
    result.confidence = Confidence.medium
    return result


def crop_protection_cost(context: Context) -> Result:
    """coutsPhytos in €/ha of the field: Σ dose × price per product (the stated "Prix produit"
    or the cited price, in €/L for doses in L/ha) × the share treated, as the IFT counts it."""
    result = Result("coutsPhytos", "€/ha")
    if (none := not_a_treatment(context, result)) is not None:
        return none
    held = context.assumptions
    products, doses = split_list(held.text("Produit")), split_list(held.text("Dose"))
    if not doses or len(products) != len(doses):
        return needs(result, *(["Produit"] if not products else []), "Dose")
    stated_prices = split_list(held.text("Prix produit"))
    if stated_prices and len(stated_prices) != len(products):
        return needs(result, "Prix produit", why="one price per product")
    share = share_treated(context, result)
    result.assumptions.extend(held.lines(["Produit", "Dose", "Prix produit"]))
    total = 0.0
    for index, (product, dose_text) in enumerate(zip(products, doses, strict=True)):
        dose = read_quantity(dose_text, f"Dose of {product}", result)
        if dose is None:
            return needs(result, "Dose")
        if stated_prices:
            price = read_quantity(stated_prices[index], f"Prix produit of {product}", result)
            if price is None:
                return needs(result, "Prix produit")
            price_value = price.value
        else:
            raw = _bundled_price(product)
            if raw is None or (dose.unit or "").replace(" ", "").casefold() != "l/ha":
                return needs(result, "Prix produit", why=f"no cited price for {product}")
            price_value = use(result, raw, f"Price of {product}")
        cost = dose.value * price_value
        result.calculation_steps.append(
            f"{product}: {shown(dose.value)} × {shown(price_value)} € = {shown(cost)} €/ha"
        )
        total += cost
    if share != 1:
        result.calculation_steps.append(
            f"{shown(total)} €/ha treated × share treated {shown(share)} = "
            f"{shown(total * share)} €/ha"
        )
    result.value = rounded(total * share)
    result.confidence = Confidence.medium
    return result


def _bundled_price(product: str) -> Figure | None:
    for name in figures()["product_prices"]:
        if normalise(name) == normalise(product):
            return cited("product_prices", name)
    return None
