"""What the system page shows under its grid, from system_totals: the system per hectare and year
with what is missing said in words, the charges and products of each step as a bar chart, and
the grid as CSV rows. Plain data in, plain data out; the templates only draw them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webapp.systems import grid
from webapp.systems.campaigns import BASIS, SEGMENT_LABELS, CampaignIft
from webapp.systems.indicators import CHARGE_KEYS, DERIVED_KEYS, IFT_TOTAL_SEGMENTS, INDICATORS
from webapp.systems.totals import SUMMED, StepTotals, SystemTotals, per_year_unit, system_totals

# The yearly table's rows: what interventions add up to, then the margins. A yield or a price
# summed over different crops means nothing (system_totals leaves them out too).
YEARLY_KEYS = tuple(k for k in (*SUMMED, *DERIVED_KEYS) if k not in ("rendement", "prixVente"))
# What a step lacks for its products, as people say it.
PRODUCT_NEEDS = {"rendement": "yield", "prixVente": "price"}


def _words(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _label(key: str) -> str:
    return INDICATORS[key].label_en


@dataclass(frozen=True)
class Gap:
    """What one step lacks for a yearly total to be complete: the interventions without a value
    (every one when the step has none), or the indicators a derived total is made from."""

    step_id: str
    step: str  # the step's name
    needs: str  # in words: "values for 2 of the 3 interventions", "the yield and price"
    interventions: tuple[tuple[str, str], ...] = ()  # (id, name) of those without a value
    indicators: tuple[str, ...] = ()  # the keys the step lacks (yield, price, a charge)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step_id": self.step_id,
            "step": self.step,
            "needs": self.needs,
            "interventions": [{"id": i, "name": n} for i, n in self.interventions],
            "indicators": [{"key": k, "label": _label(k)} for k in self.indicators],
        }


def _gap(key: str, step: Mapping[str, Any], totals: StepTotals) -> Gap | None:
    """What step lacks for its total of key to be complete; None when nothing."""
    name = step.get("name") or totals.step_id
    if key in ("totalProduits", "totalCharges", "margeBrute"):
        products = list(totals.missing.get("totalProduits", ()))
        if key == "totalProduits":
            lacking = products
        elif key == "totalCharges":
            lacking = _charges_lacking(totals)
        else:
            # Output first: without it there is no margin; the costs' gaps then make it partial.
            lacking = products or _charges_lacking(totals)
        if not lacking:
            return None
        words = [PRODUCT_NEEDS.get(k) or _label(k).lower() for k in lacking]
        return Gap(totals.step_id, name, f"the {_words(words)}", indicators=tuple(lacking))
    works = list(step.get("interventions") or ())
    without = set(totals.missing.get(key, ()))
    if key in totals.values and not without:
        return None
    if not works:
        return Gap(totals.step_id, name, "interventions")
    lacking = tuple(
        (w.get("id", ""), w.get("name") or w.get("id", ""))
        for w in works
        if w.get("id", "") in without
    )
    if not lacking:
        return None
    if len(lacking) == len(works):
        needs = "values for every intervention"
    else:
        needs = f"values for {len(lacking)} of the {len(works)} interventions"
    return Gap(totals.step_id, name, needs, interventions=lacking)


def _charges_lacking(step: StepTotals) -> list[str]:
    if "totalCharges" not in step.values:
        return list(CHARGE_KEYS)
    return list(step.missing.get("totalCharges", ()))


@dataclass(frozen=True)
class YearlyRow:
    key: str
    label: str
    unit: str
    value: float | None  # None: no step has any of it
    missing: str  # what the total lacks, in words; "" when complete
    gaps: tuple[Gap, ...] = ()  # the same, step by step
    unreviewed: float = 0.0  # the part of value resting on values no person reviewed

    @property
    def complete(self) -> bool:
        return self.value is not None and not self.missing

    @property
    def partial(self) -> bool:
        """A figure that leaves something out (shown with a "partial" badge)."""
        return self.value is not None and bool(self.missing)


def yearly_rows(document: Mapping[str, Any], totals: SystemTotals) -> list[YearlyRow]:
    """Each indicator per hectare and year, with its label and unit, and what its steps lack
    ("needs the yield and price of Colza d'hiver"): a missing value never counts as 0 in a
    total shown as complete."""
    steps = list(document.get("steps") or ())
    found = []
    for key in YEARLY_KEYS:
        gaps = tuple(
            gap
            for step, step_total in zip(steps, totals.steps, strict=True)
            if (gap := _gap(key, step, step_total))
        )
        by_need: dict[str, list[str]] = {}
        for gap in gaps:
            by_need.setdefault(gap.needs, []).append(gap.step)
        missing = "; ".join(
            # Naming every step of a long rotation says less than "every step".
            f"needs {need} of {'every step' if len(names) == len(steps) > 2 else _words(names)}"
            for need, names in by_need.items()
        )
        if not steps:
            missing = "needs steps"
        found.append(
            YearlyRow(
                key,
                _label(key),
                per_year_unit(INDICATORS[key].unit),
                totals.values.get(key),
                missing,
                gaps,
                totals.unreviewed.get(key, 0.0),
            )
        )
    return found


def totals_answer(document: Mapping[str, Any]) -> dict[str, Any]:
    """The system's totals as the API gives them: system_totals, and at system level what the
    page's yearly table says from the same rows: each total partial or not, and for each one
    that is not complete what it misses, in words and step by step (the interventions without a
    value, or the indicators a derived total lacks), by id and name."""
    totals = system_totals(document)
    answer = totals.to_dict()
    rows = yearly_rows(document, totals)
    partial = {row.key: row.partial for row in rows}
    for key, entry in answer["values"].items():
        entry["partial"] = partial.get(key, False)
    answer["missing"] = {
        row.key: {
            "label": row.label,
            "unit": row.unit,
            "value": row.value,  # None: no step has any of it
            "partial": row.partial,
            "says": f"{row.label}: {row.missing}",
            "steps": [gap.to_dict() for gap in row.gaps],
        }
        for row in rows
        if not row.complete
    }
    return answer


# The IFT by campaign table's columns: the compliance segments and their total, then the two
# reported apart.
CAMPAIGN_COLUMNS = (
    *IFT_TOTAL_SEGMENTS,
    "total",
    "biocontrol",
    "seed_treatment",
)


@dataclass(frozen=True)
class CampaignRow:
    label: str
    values: tuple[float, ...]  # in CAMPAIGN_COLUMNS' order


@dataclass(frozen=True)
class CampaignTable:
    headings: tuple[str, ...]
    rows: tuple[CampaignRow, ...]  # one per campaign, oldest first
    missing: tuple[str, ...]  # the interventions without an IFT value, by name
    notes: tuple[str, ...]  # how a treatment's segment was chosen, when not by the calculator
    basis: str = BASIS


def campaign_table(found: CampaignIft) -> CampaignTable:
    """The IFT by campaign: each segment and the compliance total per campaign, in words what
    it lacks and how a segment was chosen where the calculator did not split it."""
    rows = tuple(
        CampaignRow(
            tally.label,
            tuple(tally.total if c == "total" else tally.segments[c] for c in CAMPAIGN_COLUMNS),
        )
        for _, tally in sorted(found.campaigns.items())
    )
    return CampaignTable(
        tuple(SEGMENT_LABELS.get(c, "Total") for c in CAMPAIGN_COLUMNS),
        rows,
        tuple(dict.fromkeys(found.missing)),
        tuple(f"{t.name} ({t.day:%d/%m/%Y}): {t.note}" for t in found.treatments if t.note),
    )


CHART_WIDTH = 1000  # viewBox units across; the SVG scales to its box
CHART_LEFT = 240  # room for the step names
CHART_RIGHT = 110  # room for the number at a bar's end
ROW_HEIGHT = 44
BAR_HEIGHT = 16


@dataclass(frozen=True)
class ChartBar:
    kind: str  # "products" or "charges": its class, so its colour
    label: str
    value: float
    x: int
    y: int
    width: float


@dataclass(frozen=True)
class ChartRow:
    name: str
    y: int  # the baseline of its name
    bars: tuple[ChartBar, ...]  # empty: the step has no charges nor products yet
    margin: float | None


@dataclass(frozen=True)
class Chart:
    rows: tuple[ChartRow, ...]
    width: int = CHART_WIDTH
    left: int = CHART_LEFT

    @property
    def height(self) -> int:
        return len(self.rows) * ROW_HEIGHT + 8

    @property
    def has_data(self) -> bool:
        return any(row.bars for row in self.rows)


CHART_SERIES = (("totalProduits", "products"), ("totalCharges", "charges"))


def step_chart(document: Mapping[str, Any], totals: SystemTotals) -> Chart:
    """Per step, a bar for its products and one for its charges (€/ha), on one scale from 0;
    a step with neither gets no bar, and the template says so."""
    names = [step.get("name") or "" for step in document.get("steps") or ()]
    largest = max(
        (max(s.values.get(k, 0.0), 0.0) for s in totals.steps for k, _ in CHART_SERIES),
        default=0.0,
    )
    scale = (CHART_WIDTH - CHART_LEFT - CHART_RIGHT) / largest if largest else 0.0
    rows = []
    for index, (name, step) in enumerate(zip(names, totals.steps, strict=True)):
        top = index * ROW_HEIGHT + 6
        bars = tuple(
            ChartBar(
                kind,
                _label(key),
                step.values[key],
                CHART_LEFT,
                top + offset * (BAR_HEIGHT + 2),
                round(max(step.values[key], 0.0) * scale, 2),
            )
            for offset, (key, kind) in enumerate(CHART_SERIES)
            if key in step.values
        )
        rows.append(ChartRow(name, top + BAR_HEIGHT + 4, bars, step.values.get("margeBrute")))
    return Chart(tuple(rows))


def csv_header(keys: list[str], document: dict[str, Any]) -> list[str]:
    """Step, intervention, date, then each indicator as "label (unit)"; a column whose steps
    state different units (t/ha and q/ha yields) is followed by a column of each row's unit."""
    header = ["Step", "Intervention", "Date"]
    for h in grid.headings(keys, document):
        header.append(f"{h.label} ({h.unit})" if h.unit else h.label)
        if h.units_differ:
            header.append(f"{h.label} unit")
    return header


def csv_rows(document: dict[str, Any], keys: list[str]) -> list[list[Any]]:
    """One row per step (its own values, else its totals) and per intervention; numbers as
    they are (text that reads as one as its number), text that is not a number as written,
    empty where there is none."""
    step_names = {s.get("id"): s.get("name") for s in document.get("steps") or ()}
    found = []
    for row in grid.rows(document, keys):
        values: list[Any] = []
        for cell in row.cells:
            if cell.state == "invalid":
                values.append(cell.value)
            else:
                own = cell.number
                values.append(own if own is not None else row.totals.get(cell.key))
            if cell.unit_in_cell:
                values.append(cell.unit if values[-1] is not None else None)
        intervention = "" if row.intervention_id is None else row.name
        found.append([step_names[row.step_id], intervention, row.when.isoformat(), *values])
    return found
