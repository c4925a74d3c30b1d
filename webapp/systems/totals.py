"""Totals of a system document: per intervention, per step (Σ value × frequence, with the step's
own overrides) and per hectare and year over the rotation, each with its unit; derived
totalProduits, totalCharges and margeBrute."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from webapp.review.vocabulary import Issue, Severity
from webapp.systems.assumptions import parse_assumptions
from webapp.systems.calculators.context import known_values
from webapp.systems.calculators.result import rounded
from webapp.systems.campaigns import CampaignIft, ift_by_campaign
from webapp.systems.document import review_state
from webapp.systems.indicators import (
    CHARGE_KEYS,
    DERIVED_KEYS,
    INDICATORS,
    STEP_OVERRIDES,
    YIELD_UNITS,
    Level,
)
from webapp.systems.rules import check, check_price_unit, check_yield
from webapp.units import convert

# What interventions add up to: every intervention-level indicator but frequence (it weighs
# them) and the derived ones (made again from the sums).
SUMMED = tuple(
    k
    for k, i in INDICATORS.items()
    if Level.intervention in i.levels and k != "frequence" and k not in DERIVED_KEYS
)
DAYS_PER_YEAR = 365.25
YEARLY_BASIS = (
    "Per hectare and year over the rotation: the steps' totals (Σ value × frequence) added "
    "and divided by the rotation's years (first start to last end, at least 1)."
)


@dataclass
class Totals:
    """Values by key with their units; missing: per key, the interventions without a value;
    unreviewed: per key, the part of its value that rests on values no person reviewed (a
    calculation's or a model's prediction, an imported value never approved) — 0 when none."""

    values: dict[str, float] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    missing: dict[str, list[str]] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    unreviewed: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "values": {
                k: {"value": v, "unit": self.units[k], "unreviewed": self.unreviewed.get(k, 0.0)}
                for k, v in self.values.items()
            },
            "missing": self.missing,
            "issues": [i.to_dict() for i in self.issues],
        }


@dataclass
class StepTotals(Totals):
    step_id: str = ""
    interventions: dict[str, Totals] = field(default_factory=dict)


@dataclass
class SystemTotals(Totals):
    rotation_years: float = 1.0
    steps: list[StepTotals] = field(default_factory=list)
    ift_campaigns: CampaignIft = field(default_factory=CampaignIft)

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "basis": YEARLY_BASIS,
            "ift_by_campaign": self.ift_campaigns.to_dict(),
            "rotation_years": self.rotation_years,
            "steps": [
                {
                    "step_id": s.step_id,
                    **s.to_dict(),
                    "interventions": {i: t.to_dict() for i, t in s.interventions.items()},
                }
                for s in self.steps
            ],
        }


def unreviewed_keys(item: Mapping[str, Any]) -> set[str]:
    """The keys of an intervention's (or step's) values no person reviewed."""
    entries = item.get("values") or item.get("stepValues") or ()
    return {e["key"] for e in entries if "key" in e and review_state(e) is not True}


def intervention_totals(intervention: Mapping[str, Any]) -> Totals:
    """An intervention's own numeric values (per application) and its totalCharges."""
    found = known_values(intervention)
    unsure = unreviewed_keys(intervention)
    totals = Totals()
    for key, value in found.items():
        if key in INDICATORS:
            totals.values[key], totals.units[key] = value, INDICATORS[key].unit
            totals.unreviewed[key] = value if key in unsure else 0.0
    _charges(totals, intervention.get("id", ""))
    return totals


def step_totals(step: Mapping[str, Any]) -> StepTotals:
    """Σ over the step's interventions of value × frequence (1 when unset, which is said), the
    step's overrides (rendement, prixVente, irrigation, totalProduits), then the derived ones."""
    totals = StepTotals(step_id=step.get("id", ""))
    for intervention in step.get("interventions") or ():
        own = intervention_totals(intervention)
        ident = intervention.get("id", "")
        totals.interventions[ident] = own
        frequency = own.values.get("frequence")
        # A value × a frequence no person reviewed rests on that frequence whole.
        frequency_unsure = own.unreviewed.get("frequence", 0.0) != 0.0
        if frequency is None:
            frequency = 1.0
            totals.issues.append(
                Issue(
                    "frequence_missing",
                    Severity.info,
                    "frequence",
                    f"{intervention.get('name') or ident}: no frequence, counted once a year.",
                    {"intervention_id": ident},
                )
            )
        for key in SUMMED:
            if key in own.values:
                part = own.values[key] * frequency
                unsure = part if frequency_unsure else own.unreviewed[key] * frequency
                totals.values[key] = totals.values.get(key, 0.0) + part
                totals.unreviewed[key] = totals.unreviewed.get(key, 0.0) + unsure
            else:
                totals.missing.setdefault(key, []).append(ident)
    totals.values = {k: rounded(v) for k, v in totals.values.items()}
    totals.unreviewed = {k: rounded(v) for k, v in totals.unreviewed.items()}
    totals.units = {k: INDICATORS[k].unit for k in totals.values}
    own_values = {"stepValues": step.get("stepValues") or ()}
    overrides, unsure = known_values(own_values), unreviewed_keys(own_values)
    for key in STEP_OVERRIDES:
        if key in overrides:
            totals.values[key], totals.units[key] = overrides[key], INDICATORS[key].unit
            totals.unreviewed[key] = overrides[key] if key in unsure else 0.0
            totals.missing.pop(key, None)
    _products(totals, step)
    _charges(totals, totals.step_id)
    for key, value in totals.values.items():
        if key == "rendement":
            totals.issues.extend(check_yield(value, step_crop(step), totals.units[key]))
        else:
            totals.issues.extend(check(key, value, level="step"))
    return totals


def step_crop(step: Mapping[str, Any]) -> str | None:
    """The step's crop: its "Culture" assumption, else its name ("Blé tendre d'hiver")."""
    for assumption in parse_assumptions(step.get("assumptions"), "step"):
        if assumption.key == "Culture":
            return assumption.value
    return step.get("name") or None


def yield_unit(step: Mapping[str, Any]) -> str:
    """The step's yield unit: "- **Unité rendement**: q/ha" in its assumptions, else t/ha."""
    for assumption in parse_assumptions(step.get("assumptions"), "step"):
        if assumption.key.casefold() in ("unité rendement", "yield unit"):
            unit = assumption.value.replace(" ", "")
            if unit in YIELD_UNITS:
                return unit
    return "t/ha"


def _products(totals: StepTotals, step: Mapping[str, Any]) -> None:
    """totalProduits = rendement × prixVente (€/t; a yield in q/ha is converted to t/ha)."""
    unit = yield_unit(step)
    if "rendement" in totals.values:
        totals.units["rendement"] = unit
    if "totalProduits" in totals.values:
        return
    crop_yield, price = totals.values.get("rendement"), totals.values.get("prixVente")
    if crop_yield is None or price is None:
        totals.missing["totalProduits"] = [
            k for k in ("rendement", "prixVente") if k not in totals.values
        ]
        return
    tonnes = convert(crop_yield, unit, "t/ha")
    totals.values["totalProduits"] = rounded(tonnes * price)
    # A product rests whole on its yield and its price.
    unsure = any(totals.unreviewed.get(k, 0.0) != 0.0 for k in ("rendement", "prixVente"))
    totals.unreviewed["totalProduits"] = totals.values["totalProduits"] if unsure else 0.0
    totals.issues.extend(check_price_unit(step, price, crop_yield, unit))
    totals.units["totalProduits"] = INDICATORS["totalProduits"].unit


def _charges(totals: Totals, ident: str) -> None:
    """totalCharges = Σ of the charges present (those absent are listed as missing), and
    margeBrute = totalProduits − totalCharges when there are products."""
    present = [k for k in CHARGE_KEYS if k in totals.values]
    if not present:
        return
    totals.values["totalCharges"] = rounded(sum(totals.values[k] for k in present))
    totals.unreviewed["totalCharges"] = rounded(sum(totals.unreviewed.get(k, 0.0) for k in present))
    totals.units["totalCharges"] = INDICATORS["totalCharges"].unit
    absent = [k for k in CHARGE_KEYS if k not in totals.values]
    if absent:
        totals.missing.setdefault("totalCharges", absent)
    if "totalProduits" in totals.values:
        margin = totals.values["totalProduits"] - totals.values["totalCharges"]
        totals.values["margeBrute"] = rounded(margin)
        # The margin's unreviewed part: the products' less the charges' (a difference, so
        # it may be below 0).
        unsure = totals.unreviewed.get("totalProduits", 0.0) - totals.unreviewed["totalCharges"]
        totals.unreviewed["margeBrute"] = rounded(unsure)
        totals.units["margeBrute"] = INDICATORS["margeBrute"].unit


def rotation_years(document: Mapping[str, Any]) -> float:
    """Years from the first step's start to the last step's end, at least 1."""
    starts = [_date(s.get("startDate")) for s in document.get("steps") or ()]
    ends = [_date(s.get("endDate")) for s in document.get("steps") or ()]
    starts, ends = [d for d in starts if d], [d for d in ends if d]
    if not starts or not ends:
        return 1.0
    return max(1.0, (max(ends) - min(starts)).days / DAYS_PER_YEAR)


def _date(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def per_year_unit(unit: str) -> str:
    return f"{unit}/year"


def system_totals(document: Mapping[str, Any]) -> SystemTotals:
    """Every step's totals, and per hectare and year: Σ of the steps ÷ rotation years. Cover
    crops are steps like the others and count. A sum of yields (or prices) over different crops
    means nothing, so the yearly totals leave them out. The IFT is also counted by campaign,
    as the official method does (webapp.systems.campaigns)."""
    years = rotation_years(document)
    totals = SystemTotals(rotation_years=round(years, 4), ift_campaigns=ift_by_campaign(document))
    for step in document.get("steps") or ():
        totals.steps.append(step_totals(step))
    sums: dict[str, float] = {}
    unsure: dict[str, float] = {}
    for step in totals.steps:
        for key, value in step.values.items():
            if key not in ("rendement", "prixVente"):
                sums[key] = sums.get(key, 0.0) + value
                unsure[key] = unsure.get(key, 0.0) + step.unreviewed.get(key, 0.0)
    for key, value in sums.items():
        totals.values[key] = rounded(value / years)
        totals.unreviewed[key] = rounded(unsure[key] / years)
        totals.units[key] = per_year_unit(INDICATORS[key].unit)
    return totals
