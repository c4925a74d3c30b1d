"""The interventions × indicators grid of a system page, as plain rows: each step, then its
interventions in the order of their day, with the value entry under each indicator key and
the state people see it in (reviewed, not reviewed, not applicable, empty)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from webapp.systems.document import TOP, DocumentInvalid, indicator_keys, moment, parse_path

# itinera's intervention indicators (issue 13), shown as columns even before they hold values.
STARTER_KEYS = (
    "frequence",
    "ift",
    "azoteMineral",
    "azoteOrganique",
    "gnr",
    "tempsTravail",
    "ges",
    "semences",
    "engrais",
    "coutsPhytos",
    "mecanisation",
    "coutGnr",
    "irrigation",
    "eiq",
    "rendement",
    "prixVente",
)
# What a step sets for itself rather than summing its interventions (issue 13); its other
# cells are left for the step totals.
STEP_OVERRIDES = frozenset({"rendement", "prixVente", "irrigation", "totalProduits"})
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

    def cell(self, key: str) -> Cell:
        return next(c for c in self.cells if c.key == key)

    def editable(self, key: str) -> bool:
        return self.intervention_id is not None or key in STEP_OVERRIDES


def columns(document: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys([*STARTER_KEYS, *indicator_keys(document)]))


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


def field_label(document: dict[str, Any], path: str) -> str:
    """A value's path as people read it: "Labour (Orge + Lupin): ift", "… reviewed"."""
    try:
        step_id, intervention_id, key, is_status = parse_path(path)
    except DocumentInvalid:
        return path
    step = next((s for s in document.get("steps", []) if s.get("id") == step_id), None)
    if step is None:
        return path
    where = step["name"]
    if intervention_id is not None:
        work = next(
            (i for i in step.get("interventions", []) if i.get("id") == intervention_id), None
        )
        where = f"{work['name']} ({step['name']})" if work else where
    return f"{where}: {key}" + (", reviewed" if is_status else "")
