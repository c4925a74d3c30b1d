"""Stale values: a calculated value remembers what it was calculated from — the assumptions
read and the intervention's values used, as read (Result.inputs) — in the answer of its
conversation that gave it. When one of them reads differently now, the value is stale: shown
so with both readings, never as reviewed, until it is recalculated (the new value reviewed as
any suggestion) or a person sets their own. Plain functions over a document: no database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp.numbers import display_number
from webapp.systems.assumptions import Assumptions, resolve_at
from webapp.systems.calculators.context import ASSUMPTION, CALCULATED, known_values
from webapp.systems.calculators.result import shown
from webapp.systems.document import DocumentInvalid, Places, has_value, value_number, value_path
from webapp.systems.grid import InputChange, label
from webapp.systems.indicators import INDICATORS


def basis(entry: Mapping[str, Any]) -> dict[str, str] | None:
    """The inputs the entry's value was calculated from: those of the latest calculator
    answer in its conversation that gave this very value, unless a person set the value since
    (their own is never stale); None when it was not calculated so."""
    value = value_number(entry.get("value"))
    if value is None:
        return None
    for message in reversed(entry.get("conversation") or ()):
        if message.get("role") == "user" and message.get("action") == "manual_edit":
            return None
        inputs = message.get("inputs")
        # Only what a calculator wrote: a file's conversation may hold anything.
        calculated = (
            message.get("role") == "assistant"
            and isinstance(inputs, dict)
            and all(isinstance(text, str) for text in inputs.values())
        )
        if calculated and value_number(message.get("value")) == value:
            return inputs
    return None


def _with_unit(key: str, number: str) -> str:
    """A value of the intervention as people read it: "88 L/ha" (text that is not a number
    as it is)."""
    found = value_number(number)
    if found is None:
        return number
    unit = INDICATORS[key].unit if key in INDICATORS else ""
    return f"{display_number(found)} {unit}".strip()


def _reading(name: str, held: Assumptions, known: Mapping[str, float]) -> str:
    """What an input reads now, as a watched context notes it (Context.inputs)."""
    if name.startswith(ASSUMPTION):
        found = held.get(name.removeprefix(ASSUMPTION))
        return found.value if found else ""
    number = known.get(name.partition(":")[2])
    return "" if number is None else shown(number)


def _change(name: str, then: str, now: str, held: Assumptions) -> InputChange:
    """An input that reads differently now, in people's words: an assumption as written
    ("Prix du GNR"), a value by its indicator's name and unit."""
    if name.startswith(ASSUMPTION):
        key = name.removeprefix(ASSUMPTION)
        found = held.get(key)
        return InputChange(found.written_key if found else key, then, now)
    key = name.partition(":")[2]
    return InputChange(label(key), _with_unit(key, then), _with_unit(key, now))


def stale_values(document: Mapping[str, Any]) -> dict[str, list[InputChange]]:
    """{path: what changed} for every calculated value of the document's interventions
    whose inputs read differently now, in document order."""
    found: dict[str, list[InputChange]] = {}
    for step in document.get("steps") or ():
        for work in step.get("interventions") or ():
            found |= _stale_in(document, step, work)
    return found


def stale_at(
    document: Mapping[str, Any], step_id: str, intervention_id: str | None
) -> dict[str, list[InputChange]]:
    """stale_values of one intervention ({} for a step's own row, or an id it has not)."""
    try:
        step, work, _holder, _list = Places(document).owner(step_id, intervention_id)
    except DocumentInvalid:
        return {}
    return _stale_in(document, step, work) if work is not None else {}


def _stale_in(
    document: Mapping[str, Any], step: Mapping[str, Any], work: Mapping[str, Any]
) -> dict[str, list[InputChange]]:
    remembered = [
        (entry["key"], inputs)
        for entry in work.get("values") or ()
        if has_value(entry.get("value")) and (inputs := basis(entry))
    ]
    if not remembered:
        return {}
    held, known = resolve_at(document, step, work), known_values(work)
    now: dict[str, str] = {}  # each input read once: the values of one intervention share most
    found = {}
    for key, inputs in remembered:
        changes = []
        for name, then in inputs.items():
            if name not in now:
                now[name] = _reading(name, held, known)
            # A value worked out on the way is not a change while the intervention holds none
            # (what it rests on is noted too) or holds that same value.
            if now[name] != then and (now[name] or not name.startswith(CALCULATED)):
                changes.append(_change(name, then, now[name], held))
        if changes:
            found[value_path(step["id"], work["id"], key)] = changes
    return found
