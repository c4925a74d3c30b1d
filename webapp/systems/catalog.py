"""Farms and systems in the database: creating them, importing and replacing a system's
document, setting one value (audited, undoable), and the review target the core undoes through.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask import url_for
from sqlalchemy import Select, func, select
from sqlalchemy.engine import Row

from webapp.auth.models import User
from webapp.database import among, utcnow
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.problems import Invalid
from webapp.review import service as review
from webapp.review.audit import record_changes
from webapp.review.models import Suggestion
from webapp.review.targets import Applied, Changed, ReviewTarget, WriteRefused, register_target
from webapp.systems import document as doc
from webapp.systems.conversation import assistant_message, pruned, system_message, user_message
from webapp.systems.grid import field_label, labeller
from webapp.systems.models import VALUE_TARGET, Farm, System
from webapp.text import control_character_problem

NAME_LIMIT = 200
NOT_NUMBERS_NAMED = 10  # the values a message names before it counts the rest
# A system's details and their bounds (the columns' sizes, as the API bounds them).
DETAILS = (
    ("description", 20_000, True),
    ("system_type", 100, False),
    ("productions", 255, False),
    ("gps_location", 255, False),
)


class SystemInvalid(Invalid):
    code = "system_invalid"


@dataclass(frozen=True)
class Saved:
    """What a write did: the audit group (None when nothing changed), a size warning, and
    {path: text} of the values a whole document brought that are text but not numbers."""

    group: str | None = None
    warning: str | None = None
    not_numbers: Mapping[str, str] = field(default_factory=dict)

    def not_numbers_said(self, document: dict[str, Any]) -> str | None:
        """The values that are not numbers, by name, in a sentence; None when there are none."""
        if not self.not_numbers:
            return None
        label_of = labeller(document)
        named = [f"{label_of(p)} “{text}”" for p, text in self.not_numbers.items()]
        shown = "; ".join(named[:NOT_NUMBERS_NAMED])
        more = len(named) - NOT_NUMBERS_NAMED
        return (
            f"{len(named)} value(s) are text that is not a number: kept as written, shown as "
            f"invalid and counted in no total until corrected — {shown}"
            + (f"; and {more} more." if more > 0 else ".")
        )


def _name(raw: Any, loc: str, what: str) -> str:
    name = raw.strip() if isinstance(raw, str) else ""
    if not name:
        raise SystemInvalid(f"Give the {what} a name.", loc=loc)
    if len(name) > NAME_LIMIT:
        raise SystemInvalid(f"A name is at most {NAME_LIMIT} characters.", loc=loc)
    if problem := control_character_problem(name):
        raise SystemInvalid(problem, loc=loc)
    return name


def _region(raw: Any) -> str:
    region = raw.strip() if isinstance(raw, str) else ""
    if len(region) > NAME_LIMIT:
        raise SystemInvalid(f"A region is at most {NAME_LIMIT} characters.", loc="region")
    if problem := control_character_problem(region):
        raise SystemInvalid(problem, loc="region")
    return region


def create_farm(name: Any, region: Any = "") -> Farm:
    farm = Farm(name=_name(name, "name", "farm"), region=_region(region))
    db.session.add(farm)
    db.session.flush()
    return farm


def farms_query() -> Select:
    """Farms by name, for the paged list."""
    return select(Farm).order_by(func.lower(Farm.name), Farm.id)


def farm_named(name: str) -> Farm | None:
    query = select(Farm).where(func.lower(Farm.name) == name.strip().lower()).order_by(Farm.id)
    return db.session.scalars(query).first()


def systems() -> list[System]:
    return list(db.session.scalars(select(System).order_by(System.id)))


def import_system(
    farm: Farm, name: Any, document: Any, user: User | None, **details: Any
) -> tuple[System, Saved]:
    """A new system of the farm from a document (checked; its title names it when no name is
    given). Its values are recorded as created, so the audit trail starts from the import.
    details: description, system_type (at most 100 characters), productions and gps_location
    (at most 255), as the API's body bounds them."""
    checked = doc.validate_document(document)
    title = name if isinstance(name, str) and name.strip() else checked.get("title") or ""
    system = System(
        farm=farm, name=_name(title, "name", "system"), document=checked, **_details(details)
    )
    db.session.add(system)
    db.session.flush()
    created = {f: (None, v) for f, v in doc.flat_values(checked).items() if v is not None}
    group = record_changes(VALUE_TARGET, system.id, created, user, "import")
    return system, Saved(group, doc.size_warning(checked), doc.text_values(checked))


def _locked(system: System) -> dict[str, Any]:
    """The system's document, its row locked until commit (PostgreSQL): two edits of one
    document never overwrite each other."""
    query = select(System.document).where(System.id == system.id).with_for_update()
    return db.session.scalar(query) or {}


def _store(system: System, document: dict[str, Any]) -> None:
    system.document = document
    system.updated_at = utcnow()


def _audited(document: dict[str, Any]) -> dict[str, Any]:
    """What the audit trail follows in a document: its values and the levels' assumptions
    (a level without any is no entry: no assumptions and empty ones are the same)."""
    written = {path: text for path, text in doc.flat_assumptions(document).items() if text}
    return doc.flat_values(document) | written


def _changed_values(before: dict[str, Any], after: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Every value (and review status) and every level's assumptions one document has and
    the other has not, or differently."""
    old, new = _audited(before), _audited(after)
    return {
        f: (old.get(f), new.get(f)) for f in dict.fromkeys([*old, *new]) if old.get(f) != new.get(f)
    }


def replace_document(system: System, document: Any, user: User | None) -> Saved:
    """The whole document replaced (checked first); the values it changes are audited."""
    checked = doc.validate_document(document)
    changed = _changed_values(_locked(system), checked)
    _store(system, checked)
    group = record_changes(VALUE_TARGET, system.id, changed, user, "manual")
    _close_suggestions(system.id, checked, user)
    return Saved(group, doc.size_warning(checked), doc.text_values(checked))


def edit_document(
    system: System,
    change: Callable[[dict[str, Any]], dict[str, Any]],
    user: User | None,
    source: str = "edit",
) -> Saved:
    """The document changed by one of webapp.systems.editing's functions, under the row lock:
    the values it removes or moves (a step or an intervention deleted) are audited."""
    before = _locked(system)
    after = change(before)
    if after == before:
        return Saved()
    _store(system, after)
    group = record_changes(VALUE_TARGET, system.id, _changed_values(before, after), user, source)
    _close_suggestions(system.id, after, user)
    return Saved(group, doc.size_warning(after))


def _has_place(places: doc.Places, path: str) -> bool:
    try:
        step_id, intervention_id, _key, _status = doc.parse_path(path)
        places.owner(step_id, intervention_id)
    except doc.DocumentInvalid:
        return False
    return True


def _close_suggestions(system_id: int, document: dict[str, Any], user: User | None) -> None:
    """Open suggestions for values whose step or intervention is gone are rejected: they could
    never be applied, and the review pages say so rather than offering them."""
    query = select(Suggestion.id, Suggestion.field).where(
        Suggestion.target_type == VALUE_TARGET,
        Suggestion.target_id == system_id,
        Suggestion.status.in_([s.value for s in review.OPEN_STATUSES]),
    )
    places = doc.Places(document)
    gone = [i for i, path in db.session.execute(query) if not _has_place(places, path)]
    if gone:
        review.reject(gone, user)


def _details(fields: Mapping[str, Any]) -> dict[str, str]:
    """A system's description, type, productions and GPS location, within the API's bounds."""
    checked = {}
    for key, limit, multiline in DETAILS:
        text = fields.get(key)
        text = text.strip() if isinstance(text, str) else ""
        if len(text) > limit:
            raise SystemInvalid(f"At most {limit:,} characters fit here.", loc=key)
        if problem := control_character_problem(text, multiline):
            raise SystemInvalid(problem, loc=key)
        checked[key] = text
    return checked


def edit_farm(farm: Farm, name: Any, region: Any) -> None:
    """A farm renamed or moved to another region (another farm may not have its name)."""
    new_name = _name(name, "name", "farm")
    same = farm_named(new_name)
    if same is not None and same.id != farm.id:
        raise SystemInvalid(f"Another farm is named “{same.name}”.", loc="name")
    farm.name, farm.region = new_name, _region(region)


def edit_system(system: System, name: Any, **details: Any) -> None:
    """A system's name and details changed (its document is not touched)."""
    checked = _details(details)
    system.name = _name(name, "name", "system")
    for key, text in checked.items():
        setattr(system, key, text)


def delete_system(system: System, user: User | None) -> None:
    """The system deleted; its values are recorded as removed, so the audit trail keeps them."""
    removed = {f: (v, None) for f, v in doc.flat_values(_locked(system)).items() if v is not None}
    record_changes(VALUE_TARGET, system.id, removed, user, "delete")
    _close_suggestions(system.id, {}, user)
    db.session.delete(system)


def delete_farm(farm: Farm, user: User | None) -> int:
    """The farm deleted with its systems (each audited as delete_system does); how many."""
    systems = list(farm.systems)
    for system in systems:
        delete_system(system, user)
    db.session.delete(farm)
    return len(systems)


def set_value(
    system: System,
    step_id: str,
    intervention_id: str | None,
    key: str,
    value: Any,
    user: User | None,
    reviewed: Any = None,
) -> Saved:
    """One value set by a person (reviewed unless they say otherwise), audited and undoable.
    value doc.KEEP sets only its review status. A value with a conversation keeps the edit in
    it; an approval (reviewed true alone) is said in it as set_reviewed says it."""
    document, changed = doc.set_value(
        _locked(system), step_id, intervention_id, key, value, reviewed
    )
    if not changed:
        return Saved()
    path = doc.value_path(step_id, intervention_id, key)
    stamp = document["updatedAt"]
    if path in changed and (doc.value_entry(document, path) or {}).get("conversation"):
        old, new = changed[path]
        said = user_message(f"Set to {new}.", "manual_edit", old, new, stamp)
        document, talk = _with_messages(document, path, [said], stamp)
        changed = changed | talk
    elif path not in changed and changed.get(path + doc.REVIEWED, (None, None))[1] is True:
        document, talk = _said_approved(document, path, stamp)
        changed = changed | talk
    _store(system, document)
    group = record_changes(VALUE_TARGET, system.id, changed, user, "manual")
    return Saved(group, doc.size_warning(document))


def _with_messages(
    document: dict[str, Any], path: str, messages: list[dict[str, Any]], stamp: str
) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]]]:
    """The document with messages in the value's conversation, and that change for the audit
    trail: recorded with the edit they tell of, an undo takes them back with it."""
    before = (doc.value_entry(document, path) or {}).get("conversation")
    document = doc.add_messages(document, path, messages, stamp)
    after = (doc.value_entry(document, path) or {}).get("conversation")
    return document, {path + doc.CONVERSATION: (before, after)}


def _approval_said(entry: Mapping[str, Any], name: str, stamp: str) -> list[dict[str, Any]]:
    """An approval as the value's conversation says it (seed 003's action approve), begun
    with what the value is (name) when it has none yet."""
    value = entry.get("value")
    said = [] if entry.get("conversation") else [system_message(f"{name}.", stamp)]
    return [*said, user_message("Approved as it stands.", "approve", value, value, stamp)]


def _said_approved(
    document: dict[str, Any], path: str, stamp: str
) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]]]:
    """The document with the approval in the value's conversation, and that change."""
    entry = doc.value_entry(document, path) or {}
    said = _approval_said(entry, field_label(document, path), stamp)
    return _with_messages(document, path, said, stamp)


def set_reviewed(
    system: System, step_id: str, intervention_id: str | None, key: str, user: User | None
) -> Saved:
    """A person approves a value as it stands (approve says how). Only a value that is there,
    is a number and applies can be approved."""
    document = _locked(system)
    path = doc.value_path(step_id, intervention_id, key)
    _step, _intervention, holder, list_key = doc.owner(document, step_id, intervention_id)
    entry = next((e for e in holder.get(list_key, []) if e.get("key") == key), None)
    refused = doc.review_refused(entry, "approve", "approving")
    if refused is not None:
        raise SystemInvalid(refused, loc="key")
    return approve(system, [path], user)


def approve(system: System, paths: Collection[str], user: User | None) -> Saved:
    """A person approves these values as they stand: reviewed true, said in each one's
    conversation, audited as one undoable group. A value that may not be approved
    (review_refused: none there, not a number, not applicable) or is marked reviewed already
    is left as it is."""
    document = _locked(system)
    places, label_of, stamp = doc.Places(document), labeller(document), doc.now_stamp()
    fields: dict[str, Any] = {}
    for path in dict.fromkeys(paths):
        entry = places.entry(path)
        if doc.review_refused(entry, "approve", "approving") or doc.review_state(entry) is True:
            continue
        said = _approval_said(entry, label_of(path), stamp)
        fields[path + doc.REVIEWED] = True
        fields[path + doc.CONVERSATION] = pruned([*entry.get("conversation", []), *said])
    if not fields:
        return Saved()
    document, changed = doc.write_fields(document, fields, stamp)
    _store(system, document)
    group = record_changes(VALUE_TARGET, system.id, changed, user, "manual")
    return Saved(group, doc.size_warning(document))


def reopen(system: System, path: str, user: User | None, group: str | None = None) -> str | None:
    """A value someone asked to recalculate or refine is not reviewed any more (until they
    approve the answer): an audited, undoable change; None when it held no reviewed value."""
    document = _locked(system)
    entry = doc.value_entry(document, path)
    if entry is None or entry.get("value") is None or doc.review_state(entry) is False:
        return group
    document, changed = doc.write_fields(document, {path + doc.REVIEWED: False}, doc.now_stamp())
    _store(system, document)
    return record_changes(VALUE_TARGET, system.id, changed, user, "manual", group=group)


def add_assumptions(system: System, path: str, block: str, user: User | None) -> str | None:
    """block added below a level's assumptions (path: doc.assumptions_path), audited and
    undoable; DocumentInvalid when the level would pass its limit."""
    document = _locked(system)
    before = doc.flat_assumptions(document).get(path, "")
    text = doc.appended_assumptions(before, block)
    document, changed = doc.write_fields(document, {path: text}, doc.now_stamp())
    _store(system, document)
    return record_changes(VALUE_TARGET, system.id, changed, user, "manual")


def add_to_conversation(system_id: int, path: str, messages: list[dict[str, Any]]) -> None:
    """messages added to a value's conversation (pruned): not a value, so not audited."""
    system = db.session.get(System, system_id)
    if system is None:
        return
    _store(system, doc.add_messages(_locked(system), path, messages, doc.now_stamp()))


def _suggestions(ids: list[int]) -> dict[int, Row]:
    """The confidence, unit, evidence and issues of these suggestions, as plain rows."""
    columns = (Suggestion.id, Suggestion.unit, Suggestion.confidence, Suggestion.evidence)
    found: dict[int, Row] = {}
    for picked in among(db.session, Suggestion.id, ids):
        query = select(*columns, Suggestion.issues).where(picked)
        found.update((row.id, row) for row in db.session.execute(query))
    return found


def _answer(result: Mapping[str, Any], suggestion: Row | None) -> dict[str, Any]:
    """The answer a suggestion came from, in the seed's fields: the run's result for its cell
    (value, unit, assumptions, steps, the model's words, the inputs a calculator read) and the
    suggestion's confidence, sources and caveats."""
    return {
        "message": result.get("message", ""),
        "value": result.get("value"),
        "unit": result.get("unit") or (suggestion.unit if suggestion else "") or "",
        "assumptions": result.get("assumptions") or [],
        "calculation_steps": result.get("calculation_steps") or [],
        "sources": (suggestion.evidence or []) if suggestion else [],
        "confidence": suggestion.confidence if suggestion else None,
        "caveats": (suggestion.issues or []) if suggestion else [],
        # What a calculator read: the value is stale when one of them changes.
        "inputs": result.get("inputs") or {},
    }


def _told(entry: Mapping[str, Any], answer: Mapping[str, Any], name: str, stamp: str) -> list:
    """The messages that tell a value's conversation the answer it holds: none when the run
    told it already (a cell a person asked for: its question, then the answer), else the
    answer (begun with what the value is when the conversation is empty)."""
    conversation = entry.get("conversation") or []
    asked = [m for m in conversation if m.get("role") == "user"]
    if (
        asked
        and asked[-1].get("action") in ("calculate", "refine")
        and asked[-1].get("new_value") == answer["value"]
    ):
        return []
    said = [] if conversation else [system_message(f"{name}.", stamp)]
    return [*said, assistant_message(answer, stamp)]


def made_by(result: Mapping[str, Any] | None, applied: Any) -> str:
    """itinera's status of a value applied from a run's result for its cell."""
    result = result or {}
    if result.get("value") != applied:
        return "user"
    return "ia" if result.get("by") == "model" else "calculated"


class SystemValueTarget(ReviewTarget):
    """A system's values as the review core sees them: a field is a value's path in the
    document (its number), that path + ".reviewed" (its review status), or the path of a
    level's assumptions (its Markdown)."""

    kind = VALUE_TARGET
    label = "System"
    # A person's edit (a value, an outline's assumptions) is undone like an apply: a value
    # and its review status together.
    undo_sources = ("manual", "apply", "edit")

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        query = select(System.id, System.document).where(System.id.in_(list(ids)))
        return {
            i: doc.flat_values(document or {}) | doc.flat_assumptions(document or {})
            for i, document in db.session.execute(query)
        }

    def write_many(
        self,
        values: Mapping[int, Mapping[str, Any]],
        user: User | None,
        current: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> tuple[dict[int, Changed], list[WriteRefused]]:
        changed: dict[int, Changed] = {}
        refused: list[WriteRefused] = []
        # A value is written with the review status it has: after_apply says what an applied
        # one is (a prediction, or the reviewer's own), and an undo gives back what it
        # recorded. What changes is in `changed`, so the core audits it with the value.
        stamp = doc.now_stamp()
        for system_id, fields in values.items():
            system = db.session.get(System, system_id)
            if system is None:
                refused += [WriteRefused(system_id, f, "The system was deleted.") for f in fields]
                continue
            try:
                document, done = doc.write_fields(_locked(system), dict(fields), stamp, None)
            except Invalid as exc:
                refused += [WriteRefused(system_id, f, str(exc)) for f in fields]
                continue
            if done:
                _store(system, document)
            changed[system_id] = done
        return changed, refused

    def after_apply(self, target_id: int, applied: Sequence[Applied], user: User | None) -> Changed:
        """What an applied value is besides its number, audited in the apply's group (one undo
        takes it all back): a calculator's or a model's value is a prediction (reviewed
        false, the suggestion's confidence, and the answer it came from in its conversation);
        a value the reviewer changed before applying it is theirs (reviewed). In a file whose
        values carry itinera's status, who made it: "ia", "calculated" or "user"."""
        system = db.session.get(System, target_id)
        items = [i for i in applied if not doc.ASSUMPTIONS_PATH.match(i.field)]
        if system is None or not items:
            return {}
        document = _locked(system)
        runs = {item.run_id for item in items if item.run_id is not None}
        results = {
            run.id: run.results for run in db.session.scalars(select(Run).where(Run.id.in_(runs)))
        }
        suggestions = _suggestions([i.id for i in items])
        with_status = doc.uses_statuses(document)
        places, label_of, stamp = doc.Places(document), labeller(document), doc.now_stamp()
        fields: dict[str, Any] = {}
        for item in items:
            result = results.get(item.run_id, {}).get(item.field) or {}
            made = made_by(result, item.value)
            suggestion = suggestions.get(item.id)
            answer = _answer(result, suggestion)
            said = _told(places.entry(item.field) or {}, answer, label_of(item.field), stamp)
            if made == "user":
                said.append(
                    user_message(
                        f"Set to {item.value}.", "manual_edit", answer["value"], item.value, stamp
                    )
                )
            fields |= {
                item.field + doc.REVIEWED: made == "user",
                item.field + doc.CONFIDENCE: None if made == "user" else answer["confidence"],
            }
            if said:
                fields[item.field + doc.CONVERSATION] = pruned(
                    [*(places.entry(item.field) or {}).get("conversation", []), *said]
                )
            if with_status:
                fields[item.field + doc.STATUS] = made
        document, changed = doc.write_fields(document, fields, stamp)
        if changed:
            _store(system, document)
        return changed

    def parse(self, field: str, raw: str) -> Any:
        return raw if doc.ASSUMPTIONS_PATH.match(field) else doc.read_number(raw)

    def names(self, ids: Collection[int]) -> dict[int, str]:
        query = select(System.id, System.name).where(System.id.in_(list(ids)))
        return dict(db.session.execute(query).all())

    def url(self, target_id: int) -> str | None:
        return url_for("systems.show", system_id=target_id)

    def owns(self, ids: Collection[int], sources: Collection[str]) -> bool:
        """A group of one system's changes: a system is reviewed (and undone) on its own."""
        return super().owns(ids, sources) and len(ids) == 1

    def back_url(self, ids: Collection[int]) -> str | None:
        return url_for("systems.show", system_id=min(ids), _anchor="changes")

    def field_labels(self, target_id: int, fields: Iterable[str]) -> list[str]:
        """A value by its step, intervention and indicator, as the system's grid names it."""
        system = db.session.get(System, target_id)
        label_of = labeller(system.document if system else {})
        return list(dict.fromkeys(label_of(f) for f in fields))


VALUES = register_target(SystemValueTarget())


def to_dict(system: System) -> dict[str, Any]:
    """A system as the API lists it, without its document."""
    steps = system.document.get("steps", [])
    return {
        "id": system.id,
        "name": system.name,
        "farm": {"id": system.farm.id, "name": system.farm.name, "region": system.farm.region},
        "description": system.description,
        "system_type": system.system_type,
        "productions": system.productions,
        "gps_location": system.gps_location,
        "steps": len(steps),
        "interventions": sum(len(s.get("interventions", [])) for s in steps),
        "created_at": system.created_at.isoformat().replace("+00:00", "Z"),
        "updated_at": system.updated_at.isoformat().replace("+00:00", "Z"),
    }
