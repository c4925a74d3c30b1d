"""Farms and systems in the database: creating them, importing and replacing a system's
document, and setting one value (audited, undoable); the review target is target.py."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, func, select

from webapp.auth.models import User
from webapp.database import utcnow
from webapp.extensions import db
from webapp.problems import Invalid
from webapp.review import service as review
from webapp.review.audit import record_changes
from webapp.review.models import Suggestion, SuggestionStatus
from webapp.systems import document as doc
from webapp.systems.conversation import pruned, system_message, user_message
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


def locked_document(system: System) -> dict[str, Any]:
    """The system's document, its row locked until commit (PostgreSQL): two edits of one
    document never overwrite each other."""
    query = select(System.document).where(System.id == system.id).with_for_update()
    return db.session.scalar(query) or {}


def store_document(system: System, document: dict[str, Any]) -> None:
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
    changed = _changed_values(locked_document(system), checked)
    store_document(system, checked)
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
    before = locked_document(system)
    after = change(before)
    if after == before:
        return Saved()
    store_document(system, after)
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
        # Not a person's rejection to undo: the places they were for are gone.
        review.set_status(gone, SuggestionStatus.rejected, user)


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
    removed = {
        f: (v, None) for f, v in doc.flat_values(locked_document(system)).items() if v is not None
    }
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
        locked_document(system), step_id, intervention_id, key, value, reviewed
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
    store_document(system, document)
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
    document = locked_document(system)
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
    document = locked_document(system)
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
    store_document(system, document)
    group = record_changes(VALUE_TARGET, system.id, changed, user, "manual")
    return Saved(group, doc.size_warning(document))


def reopen(system: System, path: str, user: User | None, group: str | None = None) -> str | None:
    """A value someone asked to recalculate or refine is not reviewed any more (until they
    approve the answer): an audited, undoable change; None when it held no reviewed value."""
    document = locked_document(system)
    entry = doc.value_entry(document, path)
    if entry is None or entry.get("value") is None or doc.review_state(entry) is False:
        return group
    document, changed = doc.write_fields(document, {path + doc.REVIEWED: False}, doc.now_stamp())
    store_document(system, document)
    return record_changes(VALUE_TARGET, system.id, changed, user, "manual", group=group)


def add_assumptions(system: System, path: str, block: str, user: User | None) -> str | None:
    """block added below a level's assumptions (path: doc.assumptions_path), audited and
    undoable; DocumentInvalid when the level would pass its limit."""
    document = locked_document(system)
    before = doc.flat_assumptions(document).get(path, "")
    text = doc.appended_assumptions(before, block)
    document, changed = doc.write_fields(document, {path: text}, doc.now_stamp())
    store_document(system, document)
    return record_changes(VALUE_TARGET, system.id, changed, user, "manual")


def add_to_conversation(system_id: int, path: str, messages: list[dict[str, Any]]) -> None:
    """messages added to a value's conversation (pruned): not a value, so not audited."""
    system = db.session.get(System, system_id)
    if system is None:
        return
    store_document(
        system, doc.add_messages(locked_document(system), path, messages, doc.now_stamp())
    )


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
