"""The checks of a plan's figures that the review shows as its warnings (plain functions over
a Dose, in kg/ha): whatever the method, each figure against every published range for the
crop; a model's totals against the figures of the method the region follows."""

from __future__ import annotations

from webapp.fertilizer.dose import NUTRIENTS, Dose, figure_warning, kg
from webapp.fertilizer.published import ranges, span_words
from webapp.review.vocabulary import Issue

# Further than this from the region's method's figure (both), a total carries a warning.
METHOD_KG, METHOD_SHARE = 10.0, 0.25


def outside(crop_id: str, dose: Dose) -> list[Issue]:
    """A warning for each nutrient whose figure lies outside every published range for the
    crop, naming the ranges and their sources."""
    issues = []
    published = ranges(crop_id)
    for nutrient in NUTRIENTS:
        value = dose.figure(nutrient).value
        spans = [(p, s) for p in published if (s := p.span(nutrient)) is not None]
        if value is None or not spans:
            continue
        if any(
            low - 0.5 <= value <= (high if high is not None else value) + 0.5
            for _, (low, high) in spans
        ):
            continue
        named = "; ".join(f"{span_words(s)} kg/ha ({p.name}, {p.url})" for p, s in spans[:3])
        issues.append(
            figure_warning(
                "outside_published_range",
                nutrient,
                f"{nutrient} {kg(value)} kg/ha is outside every published range for the crop:"
                f" {named}.",
            )
        )
    return issues


def differences(answered: Dose, method: Dose) -> list[Issue]:
    """A warning for each of the model's totals far from the region's method's figure."""
    issues = []
    for nutrient in NUTRIENTS:
        given, expected = answered.figure(nutrient).value, method.figure(nutrient)
        if given is None or expected.value is None:
            continue
        gap = abs(given - expected.value)
        if gap > METHOD_KG and gap > METHOD_SHARE * expected.value:
            issues.append(
                figure_warning(
                    "differs_from_method",
                    nutrient,
                    f"{nutrient} {kg(given)} kg/ha differs from the {kg(expected.value)} kg/ha"
                    f" of {method.method}, the method this region follows ({expected.label}).",
                )
            )
    return issues
