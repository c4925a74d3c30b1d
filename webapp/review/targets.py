"""What a workspace registers so its records can be reviewed: one ReviewTarget per record kind.

The review service knows records only through this: their present values, how to write values
to them (or that a decision writes nothing), their names and addresses, and their field labels.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.auth.models import User
from webapp.review.audit import latest_changes

# {field: (old, new)} for what a write really changed.
Changed = dict[str, tuple[Any, Any]]


@dataclass(frozen=True)
class Applied:
    """One suggestion as the service applied it: plain data, no ORM object."""

    id: int
    target_id: int
    field: str
    value: Any
    evidence: list[dict[str, Any]]
    run_id: int | None


@dataclass(frozen=True)
class WriteRefused:
    target_id: int
    field: str
    message: str


class ReviewTarget:
    """A kind of record suggestions are made for. Subclass it, set `kind` (stored with every
    suggestion and change) and `label`, implement `current` and `write`, and `register_target`
    an instance. Override `write_many` when a workspace can write many records in one statement.
    """

    kind: str = ""
    label: str = ""
    # False for a target whose decisions write nothing (a verdict on a requirement): its present
    # value of a field is the last decision in the audit trail.
    writes: bool = True
    # True when after_apply reads the applied suggestions' evidence (loaded only then).
    uses_evidence: bool = False
    # Pairs of fields a value is applied with or not at all (new_errors refuses one alone).
    together: tuple[tuple[str, str], ...] = ()
    # How a group of changes was made (Change.source) for an undo to take it back: what a
    # person or an apply decided, never an undo (redone by applying again).
    undo_sources: tuple[str, ...] = ("apply", "decide", "manual", "import")

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        """The present values of these records by id; a deleted record is left out."""
        if self.writes:
            raise NotImplementedError
        return last_decisions(self.kind, ids)

    def write(self, target_id: int, values: Mapping[str, Any], user: User | None) -> Changed:
        """Write values to one record (user: who applies them) and say what changed; raise
        ValueError (with an `errors` mapping {field: message} when it can) if the record refuses
        them."""
        raise NotImplementedError

    def write_many(
        self,
        values: Mapping[int, Mapping[str, Any]],
        user: User | None,
        current: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> tuple[dict[int, Changed], list[WriteRefused]]:
        """Write each record's values; what a record refuses is dropped with its reason and the
        rest of that record's values are still written. current: the records' values as
        `current` just read them, for a target that would otherwise read them again."""
        changed: dict[int, Changed] = {}
        refused: list[WriteRefused] = []
        for target_id, mine in values.items():
            if not self.writes:
                changed[target_id] = dict(mine)
                continue
            done, problems = self._write_what_it_accepts(target_id, dict(mine), user)
            changed[target_id] = done
            refused += problems
        return changed, refused

    def partner(self, field: str) -> str | None:
        """The field a value of this field is applied with or not at all (a yield and its
        harvest method): a review page ticks one with the other."""
        for pair in self.together:
            if field in pair:
                return next(other for other in pair if other != field)
        return None

    def new_errors(self, target_id: int, values: Mapping[str, Any]) -> dict[str, str]:
        """The record as it will be with values, by the target's own rules: each field whose
        write would leave an error the record does not have now, with the reason. A target
        without rules across its fields has none."""
        return {}

    def without_new_errors(
        self, target_id: int, values: dict[str, Any]
    ) -> tuple[dict[str, Any], list[WriteRefused]]:
        """values less those that would leave the record with a new error, each refused with
        its reason; what is left is checked again (a value may have needed a refused one: a
        yield without its harvest method). An apply asks this; an undo restores what was."""
        refused: list[WriteRefused] = []
        while values:
            errors = {f: m for f, m in self.new_errors(target_id, values).items() if f in values}
            if not errors:
                break
            refused += [WriteRefused(target_id, f, m) for f, m in errors.items()]
            values = {f: v for f, v in values.items() if f not in errors}
        return values, refused

    def _write_what_it_accepts(
        self, target_id: int, values: dict[str, Any], user: User | None
    ) -> tuple[Changed, list[WriteRefused]]:
        try:
            return self.write(target_id, values, user), []
        except ValueError:
            pass
        # One by one, in passes: a value refused alone may fit once a field it needs (a seed
        # rate its unit) has been written.
        changed: Changed = {}
        waiting = dict(values)
        last_error: dict[str, ValueError] = {}
        progress = True
        while waiting and progress:
            progress = False
            for name, value in list(waiting.items()):
                try:
                    changed.update(self.write(target_id, {name: value}, user))
                except ValueError as exc:
                    last_error[name] = exc
                else:
                    waiting.pop(name)
                    progress = True
        return changed, [WriteRefused(target_id, n, _message(n, last_error[n])) for n in waiting]

    def parse(self, field: str, raw: str) -> Any:
        """A reviewer's edited value as the field holds it; ValueError says why not."""
        return raw

    def after_apply(self, target_id: int, applied: Sequence[Applied], user: User | None) -> Changed:
        """More values an apply writes with the suggestions (a culture's sources); audited in
        the same group, so one undo restores them too."""
        return {}

    def after_undo(self, ids: Collection[int]) -> None:
        """Bring what a target derives from its values up to date once an undo restored these
        records' values (wherever the undo came from)."""

    def names(self, ids: Collection[int]) -> dict[int, str]:
        """What people call these records; a deleted one is left out."""
        return {i: f"{self.label} {i}" for i in ids}

    def url(self, target_id: int) -> str | None:
        return None

    def history_url(self, target_id: int) -> str | None:
        """Where a person reads the record's changes (its page, unless a target knows better)."""
        return self.url(target_id)

    def field_label(self, field: str) -> str:
        return field

    def labels_of(self, target_id: int, fields: Iterable[str]) -> dict[str, str]:
        """These fields of one record as people call them, by field (a target whose labels
        depend on the record overrides it: a farm system names a value by its step)."""
        return {f: self.field_label(f) for f in fields}

    def field_labels(self, target_id: int, fields: Iterable[str]) -> list[str]:
        """These fields of one record as people call them, each once."""
        return list(dict.fromkeys(self.labels_of(target_id, list(fields)).values()))

    def owns(self, ids: Collection[int], sources: Collection[str]) -> bool:
        """Whether one group of changes to these records, made by sources, is this target's to
        undo as a whole. A target whose records live in a parent (a table's rows) refuses a
        group across parents."""
        return set(sources) <= set(self.undo_sources)

    def back_url(self, ids: Collection[int]) -> str | None:
        """Where a person returns after undoing changes to these records."""
        return self.url(min(ids)) if ids else None


def _message(field: str, exc: ValueError) -> str:
    errors: Mapping[str, str] = getattr(exc, "errors", None) or {}
    return errors.get(field) or next(iter(errors.values()), str(exc))


def last_decisions(kind: str, ids: Collection[int]) -> dict[int, dict[str, Any]]:
    """The newest recorded value of every field of these records, from the audit trail."""
    return {
        i: {name: change.new_value for name, change in fields.items()}
        for i, fields in latest_changes(kind, ids).items()
    }


TARGETS: dict[str, ReviewTarget] = {}


def register_target(target: ReviewTarget) -> ReviewTarget:
    if not target.kind or not target.label:
        raise ValueError("a review target needs a kind and a label")
    TARGETS[target.kind] = target
    return target


def partner_field(kind: str | None, field: str | None) -> str | None:
    """The field a suggestion's field is applied together with, for review pages."""
    target = target_for(kind or "")
    return target.partner(field) if target is not None and field else None


def target_for(kind: str) -> ReviewTarget | None:
    return TARGETS.get(kind)
