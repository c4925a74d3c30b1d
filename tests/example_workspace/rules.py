"""A seed lot's rules, plain functions over plain values: what a field may hold, and what a
looked-up weight comes with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp.reference.library import Fact
from webapp.review.vocabulary import Issue, Severity

WEIGHT = "thousand_kernel_weight_g"
GERMINATION = "germination_pct"
LABELS = {WEIGHT: "Thousand-kernel weight", GERMINATION: "Germination"}
UNITS = {WEIGHT: "g", GERMINATION: "%"}


def field_errors(values: Mapping[str, Any]) -> dict[str, str]:
    """Each value a lot cannot hold, with why: a weight is above 0 g, a germination a share."""
    errors = {}
    weight = values.get(WEIGHT)
    if weight is not None and weight <= 0:
        errors[WEIGHT] = "A thousand-kernel weight is more than 0 g."
    germination = values.get(GERMINATION)
    if germination is not None and not 0 <= germination <= 100:
        errors[GERMINATION] = "Germination is a share of the seeds: 0 to 100 %."
    return errors


def looked_up_weight(fact: Fact) -> tuple[float | None, list[Issue]]:
    """The weight to propose from the library's figure, and what it comes with: a range's
    midpoint, said; a derived figure, warned; the place its source speaks of, noted. None when
    the figure is a bound, not a weight."""
    if fact.min is None or fact.max is None:
        return None, []
    issues = []
    if fact.is_range:
        issues.append(
            Issue(
                "range_midpoint",
                Severity.info,
                WEIGHT,
                f"The source gives {fact.min:g}–{fact.max:g} g; its midpoint is proposed.",
            )
        )
    if fact.derived:
        issues.append(
            Issue(
                "derived_figure",
                Severity.warning,
                WEIGHT,
                "The library's figure is worked out, not stated by its source: weigh a sample.",
            )
        )
    if fact.source.scope:
        issues.append(
            Issue(
                "scoped_source",
                Severity.info,
                WEIGHT,
                f"The source speaks of varieties grown in {fact.source.scope[0]}.",
            )
        )
    return round(fact.midpoint, 2), issues
