"""A farm's totals over its systems, weighted by each system's area (the farm-systems reference:
farm IFT totals are area-weighted per segment). A system states its area among its own
assumptions ("- **Surface**: 40 ha"); one that does not is listed as not counted, in words."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from webapp.systems.assumptions import normalise, parse_assumptions
from webapp.systems.calculators.context import is_area
from webapp.systems.calculators.result import rounded
from webapp.systems.campaigns import SEGMENT_LABELS
from webapp.systems.indicators import INDICATORS
from webapp.systems.summary import CAMPAIGN_COLUMNS, yearly_rows
from webapp.systems.totals import per_year_unit, system_totals
from webapp.units import convert, find_quantity

# The written keys that give a system's area (all read as "Surface" by the calculators, which
# never take the system's as a share treated).
AREA_KEYS = ("surface", "area", "superficie", "surface totale", "sau")
BASIS = (
    "Per hectare and year, weighted by each system's area: Σ (system's value per hectare and "
    "year × its area) ÷ the counted area; IFT segments from each system's treatments over its "
    "rotation's years."
)


def system_area(document: Mapping[str, Any]) -> tuple[float | None, str]:
    """(the system's area in ha, "") or (None, why not, in words)."""
    for assumption in parse_assumptions(document.get("assumptions"), "system"):
        if normalise(assumption.written_key) not in AREA_KEYS:
            continue
        quantity = find_quantity(assumption.value)
        if quantity is None or not is_area(quantity.unit):
            return None, f"its area “{assumption.value}” is not an area in ha"
        hectares = convert(quantity.value, quantity.unit, "ha")
        if not hectares > 0:
            return None, f"its area “{assumption.value}” is not above 0"
        return hectares, ""
    return None, "no “Surface” (e.g. “- **Surface**: 40 ha”) in its assumptions"


# A system's name, area (ha), value (None: lacking) and the part of it no person reviewed.
Entry = tuple[str, float, float | None, float]


@dataclass(frozen=True)
class FarmRow:
    key: str
    label: str
    unit: str
    value: float | None  # area-weighted per hectare and year; None when no counted system has it
    lacking: tuple[str, ...]  # counted systems without a complete value for it, by name
    unreviewed: float = 0.0  # the part of value resting on values no person reviewed


@dataclass
class FarmTotals:
    area_ha: float = 0.0
    counted: list[tuple[str, float]] = field(default_factory=list)  # (system name, ha)
    not_counted: list[tuple[str, str]] = field(default_factory=list)  # (system name, why)
    ift: list[FarmRow] = field(default_factory=list)
    rows: list[FarmRow] = field(default_factory=list)
    basis: str = BASIS

    def to_dict(self) -> dict[str, Any]:
        def row(r: FarmRow) -> dict[str, Any]:
            return {
                "key": r.key,
                "label": r.label,
                "unit": r.unit,
                "value": r.value,
                "lacking": list(r.lacking),
                "unreviewed": r.unreviewed,
            }

        return {
            "basis": self.basis,
            "area_ha": self.area_ha,
            "counted": [{"system": n, "area_ha": a} for n, a in self.counted],
            "not_counted": [{"system": n, "why": w} for n, w in self.not_counted],
            "ift": [row(r) for r in self.ift],
            "values": [row(r) for r in self.rows],
        }


def farm_totals(systems: Iterable[tuple[str, Mapping[str, Any]]]) -> FarmTotals:
    """The area-weighted totals of a farm's systems, given as (name, document)."""
    found = FarmTotals()
    weighted: list[tuple[str, float, Mapping[str, Any]]] = []
    for name, document in systems:
        area, why = system_area(document)
        if area is None:
            found.not_counted.append((name, why))
        else:
            found.counted.append((name, area))
            weighted.append((name, area, document))
    found.area_ha = rounded(sum(area for _, area, _ in weighted))
    if not weighted:
        return found
    ift: dict[str, list[Entry]] = {column: [] for column in CAMPAIGN_COLUMNS}
    by_key: dict[str, list[Entry]] = {}
    for name, area, document in weighted:
        totals = system_totals(document)
        treatments = totals.ift_campaigns.treatments
        # An intervention without an IFT value leaves the system's IFT unknown, never 0.
        complete = not totals.ift_campaigns.missing
        for column in CAMPAIGN_COLUMNS:
            amount = sum(t.total if column == "total" else t.segments[column] for t in treatments)
            yearly = amount / totals.rotation_years if complete else None
            ift[column].append((name, area, yearly, 0.0))
        for row in yearly_rows(document, totals):
            value = row.value if row.complete else None
            by_key.setdefault(row.key, []).append((name, area, value, row.unreviewed))
    found.ift = [
        _weighted(column, SEGMENT_LABELS.get(column, "Total"), "IFT/year", entries)
        for column, entries in ift.items()
    ]
    found.rows = [
        _weighted(key, INDICATORS[key].label_en, per_year_unit(INDICATORS[key].unit), entries)
        for key, entries in by_key.items()
    ]
    return found


def _weighted(key: str, label: str, unit: str, entries: list[Entry]) -> FarmRow:
    """Σ value × area ÷ Σ area over the systems that have a complete value; those that lack
    one are named, and the figure is then partial."""
    have = [(area, value, unsure) for _, area, value, unsure in entries if value is not None]
    lacking = tuple(name for name, _, value, _ in entries if value is None)
    if not have:
        return FarmRow(key, label, unit, None, lacking)
    area = sum(a for a, _, _ in have)
    value = sum(a * v for a, v, _ in have) / area
    unsure = sum(a * u for a, _, u in have) / area
    return FarmRow(key, label, unit, rounded(value), lacking, rounded(unsure))
