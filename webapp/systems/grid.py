"""The interventions × indicators grid of a system page, as plain rows: each step, then its
interventions in the order of their day, with the value entry under each indicator key and
the state people see it in (reviewed, not reviewed, not applicable, empty)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from webapp.systems.document import (
    ASSUMPTIONS_PATH,
    TOP,
    DocumentInvalid,
    indicator_keys,
    moment,
    parse_path,
)
from webapp.systems.indicators import DERIVED_KEYS, INDICATORS, STEP_OVERRIDES, Level, keys_at
from webapp.systems.totals import step_totals

# The registry's indicators a person or a calculator sets per intervention, then what a step
# sets for itself; the derived ones (totals, margin) are the totals' to compute.
REGISTRY_KEYS = tuple(
    dict.fromkeys(
        [
            *(k for k in keys_at(Level.intervention) if k not in DERIVED_KEYS),
            *STEP_OVERRIDES,
        ]
    )
)
STATES = {
    "reviewed": ("✓", "reviewed by a person"),
    "unreviewed": ("?", "not reviewed yet (calculated, AI or imported)"),
    "na": ("n/a", "not applicable"),
    "empty": ("—", "no value yet"),
}


@dataclass(frozen=True)
class Cell:
    key: str
    entry: dict[str, Any] | None

    @property
    def state(self) -> str:
        entry = self.entry or {}
        if entry.get("reviewed") == "n/a":
            return "na"
        if entry.get("value") is None:
            return "empty"
        return "reviewed" if entry.get("reviewed") is True else "unreviewed"

    @property
    def mark(self) -> str:
        return STATES[self.state][0]

    @property
    def label(self) -> str:
        return label(self.key)

    @property
    def meaning(self) -> str:
        return STATES[self.state][1]

    @property
    def value(self) -> Any:
        return (self.entry or {}).get("value")

    @property
    def confidence(self) -> str | None:
        return (self.entry or {}).get("confidence")


@dataclass(frozen=True)
class Row:
    step_id: str
    intervention_id: str | None  # None: the step's own row
    name: str
    when: date
    top: bool
    cells: tuple[Cell, ...]
    # A step's totals (Σ of its interventions' values × frequence) for the cells it does not set.
    totals: dict[str, float] = field(default_factory=dict)

    def cell(self, key: str) -> Cell:
        return next(c for c in self.cells if c.key == key)

    def editable(self, key: str) -> bool:
        """A step sets only its overrides (its other cells are left for the step totals); an
        intervention every indicator of its level, and any key its document brings."""
        if self.intervention_id is None:
            return key in STEP_OVERRIDES
        known = INDICATORS.get(key)
        return known is None or (Level.intervention in known.levels and key not in DERIVED_KEYS)


def columns(document: dict[str, Any]) -> list[str]:
    """The registry's keys, then any other key the document holds."""
    return list(dict.fromkeys([*REGISTRY_KEYS, *indicator_keys(document)]))


@dataclass(frozen=True)
class Heading:
    key: str
    label: str
    unit: str


def headings(keys: list[str]) -> list[Heading]:
    """Each column as people read it: the indicator's label and unit, or the bare key."""
    found = []
    for key in keys:
        known = INDICATORS.get(key)
        found.append(Heading(key, known.label_en, known.unit) if known else Heading(key, key, ""))
    return found


def label(key: str) -> str:
    known = INDICATORS.get(key)
    return known.label_en if known else key


def rows(document: dict[str, Any], keys: list[str]) -> list[Row]:
    found: list[Row] = []
    for step in document.get("steps", []):
        start = moment(step["startDate"]).date()
        own = {e["key"]: e for e in step.get("stepValues", [])}
        found.append(
            Row(
                step["id"],
                None,
                step["name"],
                start,
                not step.get("secondary_crop"),
                tuple(Cell(k, own.get(k)) for k in keys),
                step_totals(step).values,
            )
        )
        work = sorted(step.get("interventions", []), key=lambda i: int(i.get("day", "0")))
        for intervention in work:
            values = {e["key"]: e for e in intervention.get("values", [])}
            found.append(
                Row(
                    step["id"],
                    intervention["id"],
                    intervention["name"],
                    start + timedelta(days=int(intervention.get("day", "0"))),
                    intervention.get("type", TOP) == TOP,
                    tuple(Cell(k, values.get(k)) for k in keys),
                )
            )
    return found


def find_row(document: dict[str, Any], step_id: str, intervention_id: str | None) -> Row | None:
    return next(
        (
            r
            for r in rows(document, columns(document))
            if (r.step_id, r.intervention_id) == (step_id, intervention_id)
        ),
        None,
    )


def _level_name(document: dict[str, Any], step_id: str | None, intervention_id: str | None) -> str:
    """Whose assumptions: the system, a step by its name, an intervention by its name and its
    step's (or that it was deleted)."""
    if step_id is None:
        return "System"
    step = next((s for s in document.get("steps", []) if s.get("id") == step_id), None)
    if step is None:
        return "A deleted step"
    if intervention_id is None:
        return step["name"]
    work = next((i for i in step.get("interventions", []) if i.get("id") == intervention_id), None)
    return f"{work['name']} ({step['name']})" if work else f"{step['name']}: a deleted intervention"


def field_label(document: dict[str, Any], path: str) -> str:
    """A value's path as people read it: "Labour (Orge + Lupin): ift", "… reviewed", and a
    level's assumptions: "Labour (Orge + Lupin): assumptions", "System: assumptions"."""
    if (match := ASSUMPTIONS_PATH.match(path)) is not None:
        return f"{_level_name(document, match['step'], match['intervention'])}: assumptions"
    try:
        step_id, intervention_id, key, is_status = parse_path(path)
    except DocumentInvalid:
        return path
    status = ", reviewed" if is_status else ""
    step = next((s for s in document.get("steps", []) if s.get("id") == step_id), None)
    if step is None:
        return f"{label(key)} (a deleted step){status}"
    where = step["name"]
    if intervention_id is not None:
        work = next(
            (i for i in step.get("interventions", []) if i.get("id") == intervention_id), None
        )
        if work is None:
            return f"{where}: {label(key)} (a deleted intervention){status}"
        where = f"{work['name']} ({step['name']})"
    return f"{where}: {label(key)}{status}"
