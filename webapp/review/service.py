"""Applying, rejecting and undoing suggestions: the server decides, whatever a form asks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from webapp.auth.models import User
from webapp.database import utcnow
from webapp.extensions import db
from webapp.review.audit import new_group, record_changes
from webapp.review.models import Change, Suggestion, SuggestionStatus, jsonable

# Writes values to the record and returns {field: (old, new)} for what changed; raises a
# ValueError, with an `errors` mapping {field: message} if it can, when the record refuses.
Writer = Callable[[dict[str, Any]], dict[str, tuple[Any, Any]]]
OPEN_STATUSES = (SuggestionStatus.pending, SuggestionStatus.stale)


@dataclass(frozen=True)
class Refusal:
    field: str
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"field": self.field, "code": self.code, "message": self.message}


@dataclass
class ApplyResult:
    applied: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    group: str | None = None


def _decide(suggestion: Suggestion, status: SuggestionStatus, user: User | None) -> None:
    suggestion.status = status
    suggestion.decided_by_id = user.id if user else None
    suggestion.decided_at = utcnow()


def _screen(
    suggestion: Suggestion, current: Mapping[str, Any], reconfirmed: set[str]
) -> Refusal | None:
    """Why this suggestion may not be applied now, or None when it may."""
    name = suggestion.field
    if not suggestion.is_valid:
        suggestion.status = SuggestionStatus.blocked
        reason = suggestion.errors[0].get("message", "it failed a plausibility rule")
        return Refusal(name, "invalid_suggestion", f"Invalid, so it cannot be applied: {reason}")
    if suggestion.status not in OPEN_STATUSES:
        return Refusal(name, "not_open", f"This suggestion is already {suggestion.status}.")
    if jsonable(current.get(name)) != suggestion.current_value and name not in reconfirmed:
        suggestion.status = SuggestionStatus.stale
        return Refusal(
            name,
            "stale_suggestion",
            "The field changed after this suggestion was made; re-confirm it to apply it anyway.",
        )
    return None


def apply_suggestions(
    suggestions: Iterable[Suggestion],
    current: Mapping[str, Any],
    write: Writer,
    user: User | None,
    reconfirmed: Iterable[str] = (),
    group: str | None = None,
) -> ApplyResult:
    """Apply the valid ones together, refuse the rest with reasons; audit as one group (the
    given one, when several records are applied together)."""
    result = ApplyResult()
    ready: dict[str, Suggestion] = {}
    for suggestion in suggestions:
        refusal = _screen(suggestion, current, set(reconfirmed))
        if refusal:
            result.refused.append(refusal)
        else:
            ready[suggestion.field] = suggestion
    changed = _write_what_the_record_accepts(ready, write, result)
    if ready:
        first = next(iter(ready.values()))
        result.group = record_changes(
            first.target_type,
            first.target_id,
            changed,
            user,
            "apply",
            run_id=first.run_id,
            group=group,
        )
        for suggestion in ready.values():
            _decide(suggestion, SuggestionStatus.applied, user)
        result.applied = list(ready)
    return result


def _refusal(name: str, exc: ValueError) -> Refusal:
    errors: Mapping[str, str] = getattr(exc, "errors", None) or {}
    message = errors.get(name) or next(iter(errors.values()), str(exc))
    return Refusal(name, "invalid_value", message)


def _write_what_the_record_accepts(
    ready: dict[str, Suggestion], write: Writer, result: ApplyResult
) -> dict[str, tuple[Any, Any]]:
    """Write all ready values at once; if the record refuses, find and drop the culprits."""
    try:
        return write({name: s.suggested_value for name, s in ready.items()})
    except ValueError:
        pass
    # One by one, in passes: a value refused alone may fit once a field it needs (a seed rate
    # its unit) has been written.
    changed: dict[str, tuple[Any, Any]] = {}
    waiting = dict(ready)
    last_error: dict[str, ValueError] = {}
    progress = True
    while waiting and progress:
        progress = False
        for name, suggestion in list(waiting.items()):
            try:
                changed.update(write({name: suggestion.suggested_value}))
            except ValueError as exc:
                last_error[name] = exc
            else:
                waiting.pop(name)
                progress = True
    for name in waiting:
        result.refused.append(_refusal(name, last_error[name]))
        ready.pop(name)
    return changed


def reject_suggestions(suggestions: Iterable[Suggestion], user: User | None) -> list[str]:
    rejected = []
    for suggestion in suggestions:
        if suggestion.status in (*OPEN_STATUSES, SuggestionStatus.blocked):
            _decide(suggestion, SuggestionStatus.rejected, user)
            rejected.append(suggestion.field)
    return rejected


@dataclass
class UndoResult:
    restored: list[str] = field(default_factory=list)
    changed_since: list[str] = field(default_factory=list)


def undo_group(
    group: str,
    current_of: Callable[[int], Mapping[str, Any]],
    write_of: Callable[[int], Writer],
    user: User | None,
) -> UndoResult:
    """Restore the old values of one apply — across every record it changed — only if none
    of its fields changed since. current_of and write_of give a record's values and writer
    by its id."""
    changes = list(db.session.scalars(select(Change).where(Change.apply_group == group)))
    result = UndoResult()
    by_target: dict[int, list[Change]] = {}
    for change in changes:
        by_target.setdefault(change.target_id, []).append(change)
    for target_id, mine in by_target.items():
        current = current_of(target_id)
        result.changed_since += [
            c.field for c in mine if jsonable(current.get(c.field)) != c.new_value
        ]
    if result.changed_since or not changes:
        return result
    undo = new_group()
    first = changes[0]
    for target_id, mine in by_target.items():
        changed = write_of(target_id)({c.field: c.old_value for c in mine})
        record_changes(
            first.target_type, target_id, changed, user, "undo", run_id=first.run_id, group=undo
        )
        applied = select(Suggestion).where(
            Suggestion.target_type == first.target_type,
            Suggestion.target_id == target_id,
            Suggestion.run_id == first.run_id,
            Suggestion.field.in_([c.field for c in mine]),
            Suggestion.status == SuggestionStatus.applied,
        )
        for suggestion in db.session.scalars(applied):
            suggestion.status = SuggestionStatus.pending
    result.restored = [c.field for c in changes]
    return result
