"""Changing a system's document by hand: a level's assumptions, steps and interventions added,
edited, moved or deleted.

Plain functions over the document: each works on a copy and returns it checked by
document.validate_document, with updatedAt moved up from what changed to the system. A problem
names the key it is about ("name", "startDate", "day", "assumptions"), so a form can put it
under its input. Keys the document carries and these functions do not know are kept.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from webapp.problems import Problem
from webapp.review.vocabulary import Issue
from webapp.systems.assumptions import normalise, parse_assumptions, propose_assumptions, resolve
from webapp.systems.document import (
    ASSUMPTIONS_LIMIT,
    BOTTOM,
    COLOR,
    TOP,
    DocumentInvalid,
    appended_assumptions,
    assumptions_path,
    moment,
    now_stamp,
    owner,
    path_text,
    validate_document,
    write_fields,
)
from webapp.text import control_character_problem

LANES = {TOP: "main crop", BOTTOM: "cover crop"}
DAYS_PER_MONTH = 30.44  # itinera's `duration` is a step's length in whole months


def _checked(document: dict[str, Any], where: tuple[Any, ...] = ()) -> dict[str, Any]:
    """The document checked; problems inside the object at `where` are named by its own keys."""
    try:
        return validate_document(document)
    except DocumentInvalid as exc:
        prefix = path_text(where) + "." if where else ""
        problems = [replace(p, loc=p.loc.removeprefix(prefix)) for p in exc.problems]
        raise DocumentInvalid(problems) from None


def _touch(stamp: str, document: dict[str, Any], *parts: dict[str, Any] | None) -> None:
    for part in (*parts, document):
        if part is not None:
            part["updatedAt"] = stamp


def _text(raw: Any, loc: str, limit: int, what: str, required: bool = False) -> str:
    text = raw.strip() if isinstance(raw, str) else ""
    if required and not text:
        raise DocumentInvalid(f"Give the {what} a name.", loc=loc)
    if len(text) > limit:
        raise DocumentInvalid(
            f"This text has {len(text):,} characters; at most {limit:,} fit.", loc=loc
        )
    if problem := control_character_problem(text, multiline=loc != "name"):
        raise DocumentInvalid(problem, loc=loc)
    return text


def _locate(document: dict[str, Any], step_id: str, intervention_id: str | None = None):
    """The step's index, the intervention's index (None for the step) and the object."""
    step, intervention, _holder, _key = owner(document, step_id, intervention_id)
    s = _position(document["steps"], step)
    if intervention is None:
        return s, None, step
    return s, _position(step["interventions"], intervention), intervention


def _position(items: list[Any], item: Any) -> int:
    # By identity: list.index compares every object before it, value by value.
    return next(n for n, other in enumerate(items) if other is item)


# Assumptions


def set_assumptions(
    document: dict[str, Any],
    step_id: str | None,
    intervention_id: str | None,
    text: Any,
    stamp: str | None = None,
) -> dict[str, Any]:
    """One level's assumptions replaced: the system's (no step), a step's or an
    intervention's. At most ASSUMPTIONS_LIMIT characters of Markdown."""
    text = text.replace("\r\n", "\n") if isinstance(text, str) else ""
    if len(text) > ASSUMPTIONS_LIMIT:
        raise DocumentInvalid(
            f"The assumptions have {len(text):,} characters; at most {ASSUMPTIONS_LIMIT:,} fit. "
            "Shorten them and save again.",
            loc="assumptions",
        )
    if problem := control_character_problem(text, multiline=True):
        raise DocumentInvalid(problem, loc="assumptions")
    # The document's one writer of a level's Markdown (the review core's undo writes through it).
    path = assumptions_path(step_id, intervention_id if step_id else None)
    return write_fields(document, {path: text}, stamp or now_stamp())[0]


def level_text(document: Mapping[str, Any], step_id: str | None, intervention_id: str | None):
    """The assumptions Markdown of one level as stored ("" when it has none)."""
    if step_id is None:
        return document.get("assumptions") or ""
    return _locate(dict(document), step_id, intervention_id)[2].get("assumptions") or ""


def append_assumption(
    document: dict[str, Any],
    step_id: str,
    intervention_id: str | None,
    line: str,
    stamp: str | None = None,
) -> dict[str, Any]:
    """A "- **Key**: Value" line added at the end of a level's assumptions (a line already
    there is not added twice)."""
    text = level_text(document, step_id, intervention_id)
    if line.strip() in (existing.strip() for existing in text.splitlines()):
        return document
    joined = appended_assumptions(text, line)
    return set_assumptions(document, step_id, intervention_id, joined, stamp)


# Steps


def document_date(raw: Any, loc: str) -> str:
    """A date as a form gives it (2026-03-01) in the document's form (2026-03-01T00:00:00.000Z)."""
    try:
        day = date.fromisoformat(raw.strip() if isinstance(raw, str) else "")
    except ValueError:
        raise DocumentInvalid("Give a date such as 2026-03-01.", loc=loc) from None
    return f"{day.isoformat()}T00:00:00.000Z"


def form_date(text: str | None) -> str:
    """A document's date as a date input shows it."""
    return moment(text).date().isoformat() if text else ""


def _step_fields(step: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """Set the step's name, dates, colour and lane from fields (the document's keys)."""
    problems: list[Problem] = []
    for key, check in (
        ("name", lambda v: _text(v, "name", 500, "step", required=True)),
        ("startDate", lambda v: document_date(v, "startDate")),
        ("endDate", lambda v: document_date(v, "endDate")),
        ("description", lambda v: _text(v, "description", 20_000, "step")),
    ):
        if key not in fields:
            continue
        try:
            new = check(fields[key])
        except DocumentInvalid as exc:
            problems += exc.problems
            continue
        # A date on the same day keeps the time itinera wrote with it.
        if key in ("startDate", "endDate") and form_date(step.get(key)) == new[:10]:
            continue
        step[key] = new
    color = (fields.get("color") or "").strip()
    if color and not COLOR.match(color):
        problems.append(Problem('Give a colour such as "#d2b48c", or leave it empty.', "color"))
    if problems:
        raise DocumentInvalid(problems)
    if "color" in fields:
        if color:
            step["color"] = color
            if "useDefaultColor" in step:
                step["useDefaultColor"] = False
        else:
            step.pop("color", None)
    if "secondary_crop" in fields:
        step["secondary_crop"] = bool(fields["secondary_crop"])
    if moment(step["endDate"]) < moment(step["startDate"]):
        raise DocumentInvalid("The step ends before it starts.", loc="endDate")
    if isinstance(step.get("duration"), int | float):
        days = (moment(step["endDate"]) - moment(step["startDate"])).days
        step["duration"] = round(days / DAYS_PER_MONTH)


def add_step(
    document: dict[str, Any], fields: Mapping[str, Any], stamp: str | None = None
) -> tuple[dict[str, Any], str]:
    """A new step (name, startDate, endDate, color?, secondary_crop?), placed among the
    others by its start date; its id is returned with the document."""
    document = copy.deepcopy(document)
    step: dict[str, Any] = {"id": str(uuid.uuid4()), "interventions": []}
    _step_fields(step, {"name": "", "startDate": "", "endDate": ""} | dict(fields))
    steps = document.setdefault("steps", [])
    later = [i for i, s in enumerate(steps) if moment(s["startDate"]) > moment(step["startDate"])]
    at = later[0] if later else len(steps)
    steps.insert(at, step)
    _touch(stamp or now_stamp(), document, step)
    return _checked(document, ("steps", at)), step["id"]


def edit_step(
    document: dict[str, Any], step_id: str, fields: Mapping[str, Any], stamp: str | None = None
) -> dict[str, Any]:
    """A step's name, dates, colour or lane changed; everything else it holds is kept."""
    document = copy.deepcopy(document)
    s, _i, step = _locate(document, step_id)
    _step_fields(step, fields)
    _touch(stamp or now_stamp(), document, step)
    return _checked(document, ("steps", s))


def delete_step(document: dict[str, Any], step_id: str, stamp: str | None = None) -> dict[str, Any]:
    """The document without the step, its interventions and their values."""
    document = copy.deepcopy(document)
    s, _i, _step = _locate(document, step_id)
    del document["steps"][s]
    _touch(stamp or now_stamp(), document)
    return _checked(document)


def move_step(
    document: dict[str, Any], step_id: str, offset: int, stamp: str | None = None
) -> dict[str, Any]:
    """The step moved up (-1) or down (+1) in the list; at an end it stays."""
    document = copy.deepcopy(document)
    s, _i, _step = _locate(document, step_id)
    to = min(max(s + offset, 0), len(document["steps"]) - 1)
    if to == s:
        return _checked(document)
    document["steps"].insert(to, document["steps"].pop(s))
    _touch(stamp or now_stamp(), document)
    return _checked(document)


# Interventions


def _intervention_fields(intervention: dict[str, Any], fields: Mapping[str, Any]) -> None:
    problems: list[Problem] = []
    checks = {
        "name": lambda v: _text(v, "name", 500, "intervention", required=True),
        "description": lambda v: _text(v, "description", 20_000, "intervention"),
        "day": lambda v: (v.strip() if isinstance(v, str) else "") or "0",
    }
    for key, check in checks.items():
        if key in fields:
            try:
                intervention[key] = check(fields[key])
            except DocumentInvalid as exc:
                problems += exc.problems
    if "type" in fields:
        if fields["type"] in LANES:
            intervention["type"] = fields["type"]
        else:
            problems.append(Problem("Choose the main crop or the cover crop.", "type"))
    if problems:
        raise DocumentInvalid(problems)


def add_intervention(
    document: dict[str, Any], step_id: str, fields: Mapping[str, Any], stamp: str | None = None
) -> tuple[dict[str, Any], str]:
    """A new intervention of the step (name, description, day, type); its id is returned."""
    document = copy.deepcopy(document)
    s, _i, step = _locate(document, step_id)
    intervention: dict[str, Any] = {"id": str(uuid.uuid4()), "day": "0", "type": TOP}
    _intervention_fields(intervention, fields)
    interventions = step.setdefault("interventions", [])
    interventions.append(intervention)
    _touch(stamp or now_stamp(), document, intervention, step)
    where = ("steps", s, "interventions", len(interventions) - 1)
    return _checked(document, where), intervention["id"]


def edit_intervention(
    document: dict[str, Any],
    step_id: str,
    intervention_id: str,
    fields: Mapping[str, Any],
    stamp: str | None = None,
) -> dict[str, Any]:
    """An intervention's name, description, day or lane changed; its values are kept."""
    document = copy.deepcopy(document)
    s, i, intervention = _locate(document, step_id, intervention_id)
    _intervention_fields(intervention, fields)
    _touch(stamp or now_stamp(), document, intervention, document["steps"][s])
    return _checked(document, ("steps", s, "interventions", i))


def move_intervention(
    document: dict[str, Any],
    step_id: str,
    intervention_id: str,
    to_step_id: str,
    stamp: str | None = None,
) -> dict[str, Any]:
    """The intervention, with its values, moved to another step (its day now counts from that
    step's start)."""
    if to_step_id == step_id:
        return document
    document = copy.deepcopy(document)
    s, i, intervention = _locate(document, step_id, intervention_id)
    _t, _none, target = _locate(document, to_step_id)
    if any(w.get("id") == intervention_id for w in target.get("interventions", [])):
        raise DocumentInvalid(
            f"The step “{target['name']}” already has an intervention with this id.", loc="step"
        )
    del document["steps"][s]["interventions"][i]
    target.setdefault("interventions", []).append(intervention)
    _touch(stamp or now_stamp(), document, intervention, document["steps"][s], target)
    return _checked(document)


def delete_intervention(
    document: dict[str, Any], step_id: str, intervention_id: str, stamp: str | None = None
) -> dict[str, Any]:
    """The document without the intervention and its values."""
    document = copy.deepcopy(document)
    s, i, _intervention = _locate(document, step_id, intervention_id)
    step = document["steps"][s]
    del step["interventions"][i]
    _touch(stamp or now_stamp(), document, step)
    return _checked(document)


def value_count(part: Mapping[str, Any]) -> int:
    """How many values a step (its own and its interventions') or an intervention holds."""
    own = [*part.get("stepValues", []), *part.get("values", [])]
    count = sum(1 for entry in own if entry.get("value") is not None)
    return count + sum(value_count(i) for i in part.get("interventions", []))


# What the system page shows of each level


@dataclass(frozen=True)
class Proposal:
    """An assumption an intervention's name and description propose, beside what its own
    assumptions already say for that key ("" when they say nothing)."""

    key: str
    value: str
    line: str
    written: str = ""

    @property
    def taken(self) -> bool:
        return normalise(self.written) == normalise(self.value)


@dataclass(frozen=True)
class Level:
    """A step or an intervention as the page lists it, with its assumptions and their notes."""

    id: str
    name: str
    assumptions: str
    conflicts: list[Issue]
    lane: str
    when: str = ""
    description: str = ""
    values: int = 0
    proposals: list[Proposal] = field(default_factory=list)
    interventions: list[Level] = field(default_factory=list)
    # A step's place among all the steps (1 is the first) and how many interventions it has
    # in all: a page may show some of them only.
    number: int = 0
    last: bool = False
    count: int = 0


def _day(intervention: Mapping[str, Any]) -> int:
    day = str(intervention.get("day", "0")).strip()
    return int(day) if day.lstrip("-").isdigit() else 0


def _conflicts(found: list[Issue], level: str) -> list[Issue]:
    """The keys people wrote differently at two levels, one of them `level` (a proposal the
    intervention's text overrides is said beside the proposal)."""
    return [
        i for i in found if i.code == "assumption_conflict" and level in i.details.get("levels", ())
    ]


def outline(
    document: Mapping[str, Any],
    shown: list[tuple[dict[str, Any], list[dict[str, Any]]]] | None = None,
) -> list[Level]:
    """Each step with its interventions (by day), their assumptions, the proposals of each
    intervention's name and description, and the keys two levels set differently; only the
    steps and interventions shown (a page's: grid.window) when given."""
    system = document.get("assumptions") or ""
    steps = []
    every = document.get("steps", [])
    place = {id(step): n for n, step in enumerate(every, 1)}
    if shown is None:
        shown = [(s, sorted(s.get("interventions", []), key=_day)) for s in every]
    for step, works in shown:
        interventions = []
        for work in works:
            proposed = propose_assumptions(work.get("name") or "", work.get("description") or "")
            written = {a.key: a.value for a in parse_assumptions(work.get("assumptions"))}
            held = resolve(system, step.get("assumptions"), work.get("assumptions"), proposed)
            interventions.append(
                Level(
                    id=work["id"],
                    name=work.get("name") or "",
                    assumptions=work.get("assumptions") or "",
                    conflicts=_conflicts(held.issues, "intervention"),
                    lane=LANES.get(work.get("type", TOP), LANES[TOP]),
                    when=str(work.get("day", "0")),
                    description=work.get("description") or "",
                    values=value_count(work),
                    proposals=[
                        Proposal(a.key, a.value, a.line, written.get(a.key, "")) for a in proposed
                    ],
                )
            )
        steps.append(
            Level(
                id=step["id"],
                name=step.get("name") or "",
                assumptions=step.get("assumptions") or "",
                conflicts=_conflicts(resolve(system, step.get("assumptions")).issues, "step"),
                lane=LANES[BOTTOM if step.get("secondary_crop") else TOP],
                when=f"{form_date(step['startDate'])} to {form_date(step['endDate'])}",
                values=value_count(step),
                interventions=interventions,
                number=place[id(step)],
                last=place[id(step)] == len(every),
                count=len(step.get("interventions", [])),
            )
        )
    return steps
