"""The interventions × indicators grid of a system page, as plain rows: each step, then its
interventions in the order of their day, with the value entry under each indicator key, its
unit (a step's yield in the unit the step states) and the state people see it in (reviewed,
not reviewed with high confidence or not, not a number, not applicable, empty)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from webapp.pagination import Page
from webapp.systems.document import (
    ASSUMPTIONS_PATH,
    TOP,
    DocumentInvalid,
    Places,
    awaiting_review,
    has_value,
    indicator_keys,
    moment,
    not_a_number,
    owner,
    parse_path,
    review_state,
    value_number,
    value_path,
)
from webapp.systems.indicators import DERIVED_KEYS, INDICATORS, STEP_OVERRIDES, Level, keys_at
from webapp.systems.totals import step_totals, yield_unit


@dataclass(frozen=True)
class InputChange:
    """One input of a value that reads differently now: its name, then and now as people
    read them ("" when it was, or is, not there)."""

    name: str
    then: str
    now: str

    def __str__(self) -> str:
        return f"{self.name} {self.then or 'not stated'} → {self.now or 'not stated'}"


# {path: what changed} of a document's stale values (webapp.systems.stale.stale_values).
Stale = Mapping[str, list[InputChange]]

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
# Each state's mark and meaning, in the legend's order.
STATES = {
    "reviewed": ("✓", "reviewed by a person"),
    "confident": ("★", "a prediction with high confidence, not reviewed yet"),
    "unreviewed": ("?", "not reviewed yet: a prediction (calculated or AI) or an imported value"),
    "stale": ("↻", "stale: calculated from an assumption or value that has changed since"),
    "invalid": ("!", "not a number: kept as written, counted in no total"),
    "na": ("n/a", "not applicable"),
    "empty": ("—", "no value yet"),
}
# itinera's status of a value (who made it) as people read it.
MADE_BY = {
    "user": "a person",
    "calculated": "a calculation",
    "ia": "a model",
    "n/a": "not applicable",
}
# The states of a value waiting for a person's review.
UNREVIEWED = ("confident", "unreviewed")
# What a value no person reviewed is, by itinera's status (who made it).
PREDICTED_BY = {"ia": "AI prediction", "calculated": "calculated"}


@dataclass(frozen=True)
class Cell:
    key: str
    entry: dict[str, Any] | None
    unit: str = ""
    unit_in_cell: bool = False  # the column's cells differ in unit: each says its own
    stale: tuple[InputChange, ...] = ()  # what changed since it was calculated

    @property
    def state(self) -> str:
        entry = self.entry or {}
        reviewed = review_state(entry)
        if reviewed == "n/a":
            return "na"
        if not has_value(entry.get("value")):
            return "empty"
        if not_a_number(entry["value"]):
            return "invalid"
        if self.stale:  # never shown reviewed: no one checked it against what holds now
            return "stale"
        if reviewed is True:
            return "reviewed"
        return "confident" if entry.get("confidence") == "high" else "unreviewed"

    @property
    def mark(self) -> str:
        return STATES[self.state][0]

    @property
    def label(self) -> str:
        return label(self.key)

    @property
    def meaning(self) -> str:
        """The state in words; a value waiting for review says what it is and how sure:
        "AI prediction · high confidence · not reviewed", "calculated · not reviewed"; a stale
        one what changed."""
        if self.stale:
            return "stale: " + "; ".join(str(change) for change in self.stale)
        if self.state not in UNREVIEWED:
            return STATES[self.state][1]
        entry = self.entry or {}
        confidence = entry.get("confidence")
        made = PREDICTED_BY.get(entry.get("status")) or ("prediction" if confidence else "")
        words = [made, f"{confidence} confidence" if confidence else "", "not reviewed"]
        return " · ".join(w for w in words if w)

    @property
    def value(self) -> Any:
        """The value as the document holds it (a number, or text as an itinera file has it)."""
        return (self.entry or {}).get("value")

    @property
    def number(self) -> float | None:
        """The value as a number (text such as "3,5" read as one); None when it is none."""
        return value_number(self.value)

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
    unit: str  # "" when there is none, or when the column's cells differ (each says its own)
    units_differ: bool = False


def yield_units(document: dict[str, Any]) -> dict[str, str]:
    """{step id: the unit its yield is in} (t/ha unless the step states q/ha)."""
    return {step["id"]: yield_unit(step) for step in document.get("steps", [])}


def column_units(document: dict[str, Any], key: str) -> set[str]:
    """The units a column's values are in: one, but a yield in each step's own."""
    if key == "rendement":
        return set(yield_units(document).values()) or {INDICATORS[key].unit}
    known = INDICATORS.get(key)
    return {known.unit if known else ""}


def headings(keys: list[str], document: dict[str, Any]) -> list[Heading]:
    """Each column as people read it: the indicator's label and unit, or the bare key; a
    column whose steps state different units (t/ha and q/ha yields) says so."""
    found = []
    for key in keys:
        known = INDICATORS.get(key)
        units = column_units(document, key)
        label = known.label_en if known else key
        if len(units) > 1:
            found.append(Heading(key, label, "", units_differ=True))
        else:
            found.append(Heading(key, label, next(iter(units))))
    return found


def label(key: str) -> str:
    known = INDICATORS.get(key)
    return known.label_en if known else key


# Interventions one page of the system shows (in its grid and its list of steps): a system
# holds up to document.INTERVENTIONS_LIMIT, and a page of all of them is megabytes.
PAGE_SIZE = 100


def _by_day(step: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(step.get("interventions", []), key=lambda i: int(i.get("day", "0")))


@dataclass(frozen=True)
class Window:
    """One page of a system's interventions, in the grid's order (each step's by day): the
    steps it shows, each with the interventions of this page (a step without any is shown on
    the page where its place falls), and the page as pagination() reads it."""

    steps: list[tuple[dict[str, Any], list[dict[str, Any]]]]
    page: Page


def window(document: dict[str, Any], number: int = 1, size: int = PAGE_SIZE) -> Window:
    steps = document.get("steps", [])
    total = sum(len(s.get("interventions", [])) for s in steps)
    pages = max(1, -(-total // size))
    number = min(max(number, 1), pages)
    first, end = (number - 1) * size, number * size
    shown, passed = [], 0
    for step in steps:
        work = _by_day(step)
        here = work[max(first - passed, 0) : max(end - passed, 0)]
        empty_here = not work and (first <= passed < end or (number == pages and passed >= end))
        if here or empty_here:
            shown.append((step, here))
        passed += len(work)
    return Window(shown, Page([], number, size, total))


def _cells(
    keys: list[str],
    differ: set[str],
    units: dict[str, str],
    entries,
    stale: Mapping[str, list[InputChange]] | None = None,
) -> tuple[Cell, ...]:
    """The row's cells; stale: {key: what changed} of its stale values."""
    by_key = {e["key"]: e for e in entries}
    stale = stale or {}
    return tuple(
        Cell(k, by_key.get(k), units[k], unit_in_cell=k in differ, stale=tuple(stale.get(k, ())))
        for k in keys
    )


def _step_row(step: dict[str, Any], keys: list[str], differ: set[str]) -> Row:
    cells = _cells(keys, differ, units_of(step, keys), step.get("stepValues", []))
    start = moment(step["startDate"]).date()
    top = not step.get("secondary_crop")
    return Row(step["id"], None, step["name"], start, top, cells, step_totals(step).values)


def _intervention_row(
    step: dict[str, Any],
    work: dict[str, Any],
    keys: list[str],
    differ: set[str],
    stale: Stale | None = None,
) -> Row:
    here = {}  # the row's stale values, by key
    for key in keys if stale else ():
        if found := stale.get(value_path(step["id"], work["id"], key)):
            here[key] = found
    cells = _cells(keys, differ, units_of(step, keys), work.get("values", []), here)
    when = moment(step["startDate"]).date() + timedelta(days=int(work.get("day", "0")))
    top = work.get("type", TOP) == TOP
    return Row(step["id"], work["id"], work["name"], when, top, cells)


def rows(
    document: dict[str, Any],
    keys: list[str],
    shown: Window | None = None,
    stale: Stale | None = None,
) -> list[Row]:
    """Each step's row then its interventions' by day: every step, or those of one page;
    stale: the document's stale values, shown so."""
    differ = {k for k in keys if len(column_units(document, k)) > 1}
    steps = shown.steps if shown else [(s, _by_day(s)) for s in document.get("steps", [])]
    found: list[Row] = []
    for step, work in steps:
        found.append(_step_row(step, keys, differ))
        found += [_intervention_row(step, w, keys, differ, stale) for w in work]
    return found


def units_of(step: dict[str, Any], keys: list[str]) -> dict[str, str]:
    """The unit of each key's values in the step: the indicator's, a yield's as the step
    states it, none for a key the registry does not know."""
    units = {k: INDICATORS[k].unit if k in INDICATORS else "" for k in keys}
    if "rendement" in units:
        units["rendement"] = yield_unit(step)
    return units


def find_row(
    document: dict[str, Any], step_id: str, intervention_id: str | None, stale: Stale | None = None
) -> Row | None:
    """The row of one step or intervention (None when the document has no such one)."""
    try:
        step, work, _holder, _key = owner(document, step_id, intervention_id)
    except DocumentInvalid:
        return None
    keys = columns(document)
    differ = {k for k in keys if len(column_units(document, k)) > 1}
    return (
        _step_row(step, keys, differ)
        if work is None
        else _intervention_row(step, work, keys, differ, stale)
    )


def _level_name(places: Places, step_id: str | None, intervention_id: str | None) -> str:
    """Whose assumptions: the system, a step by its name, an intervention by its name and its
    step's (or that it was deleted)."""
    if step_id is None:
        return "System"
    step = places.steps.get(step_id)
    if step is None:
        return "A deleted step"
    if intervention_id is None:
        return step["name"]
    work = places.interventions.get((step_id, intervention_id))
    return f"{work['name']} ({step['name']})" if work else f"{step['name']}: a deleted intervention"


def field_label(document: dict[str, Any], path: str) -> str:
    """A value's path as people read it: "Labour (Orge + Lupin): ift", "… reviewed", "…
    origin" (itinera's status), "… confidence", "… conversation", and a level's assumptions:
    "Labour (Orge + Lupin): assumptions", "System: assumptions"."""
    return labeller(document)(path)


def labeller(document: dict[str, Any]) -> Callable[[str], str]:
    """field_label for many paths of one document: the document is read once."""
    places = Places(document)

    def field_label(path: str) -> str:
        if (match := ASSUMPTIONS_PATH.match(path)) is not None:
            return f"{_level_name(places, match['step'], match['intervention'])}: assumptions"
        try:
            step_id, intervention_id, key, part = parse_path(path)
        except DocumentInvalid:
            return path
        status = {
            "reviewed": ", reviewed",
            "status": ", origin",
            "confidence": ", confidence",
            "conversation": ", conversation",
        }.get(part, "")
        step = places.steps.get(step_id)
        if step is None:
            return f"{label(key)} (a deleted step){status}"
        where = step["name"]
        if intervention_id is not None:
            work = places.interventions.get((step_id, intervention_id))
            if work is None:
                return f"{where}: {label(key)} (a deleted intervention){status}"
            where = f"{work['name']} ({step['name']})"
        return f"{where}: {label(key)}{status}"

    return field_label


@dataclass(frozen=True)
class Waiting:
    """A value waiting for a person's review, as the approval page lists it."""

    path: str
    name: str  # field_label's: "Labour (Orge + Lupin): Fuel"
    cell: Cell


def waiting(
    document: dict[str, Any], confidence: str | None = None, stale: Collection[str] = ()
) -> list[Waiting]:
    """The values a person may approve and has not (only those that sure, with confidence),
    in document order, each with its name, unit and state; never a stale one (approving
    would not make it current)."""
    places, name_of = Places(document), labeller(document)
    found = []
    for path in awaiting_review(document, confidence):
        if path in stale:
            continue
        step_id, _intervention_id, key, _part = parse_path(path)
        unit = units_of(places.steps[step_id], [key])[key]
        found.append(Waiting(path, name_of(path), Cell(key, places.entry(path), unit)))
    return found
