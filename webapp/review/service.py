"""Storing, applying, rejecting, deciding and undoing suggestions for every workspace: the server
decides, whatever a form asks. Set-based: an apply of 10,000 suggestions is a few
statements, never an ORM object per row. Services flush; the view that called them commits."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, case, func, insert, select, update
from sqlalchemy.engine import Row
from sqlalchemy.orm import load_only

from webapp.auth.models import User
from webapp.database import among, bulk_insert, utcnow
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.pagination import Page, paginate
from webapp.review.audit import change_row, change_rows, new_group, write_changes
from webapp.review.models import Change, Finding, Suggestion, SuggestionStatus, jsonable
from webapp.review.targets import Applied, Changed, ReviewTarget, target_for
from webapp.review.vocabulary import (
    Evidence,
    Issue,
    Proposal,
    Severity,
    SuggestedValue,
    count_levels,
    worst_level,
)

OPEN_STATUSES = (SuggestionStatus.pending, SuggestionStatus.stale)
REJECTABLE = (*OPEN_STATUSES, SuggestionStatus.blocked)

_COLUMNS = (
    Suggestion.id,
    Suggestion.run_id,
    Suggestion.target_type,
    Suggestion.target_id,
    Suggestion.field,
    Suggestion.current_value,
    Suggestion.suggested_value,
    Suggestion.status,
    Suggestion.issues,
)


@dataclass(frozen=True)
class Refusal:
    """Why one suggestion was not applied: the one shape every workspace and the API use."""

    suggestion: int | None
    target_type: str
    target_id: int
    field: str
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "suggestion": self.suggestion,
            "target": {"type": self.target_type, "id": self.target_id},
            "field": self.field,
            "code": self.code,
            "message": self.message,
        }


@dataclass
class ApplyResult:
    applied: list[Applied] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    group: str | None = None

    @property
    def applied_ids(self) -> list[int]:
        return [a.id for a in self.applied]

    @property
    def applied_fields(self) -> list[str]:
        return [a.field for a in self.applied]


def store_proposal(
    run_id: int | None,
    target_type: str,
    target_id: int,
    current: Mapping[str, Any],
    proposal: Proposal,
) -> list[Issue]:
    """One Suggestion per proposed field (a malformed value too: blocked, shown as text);
    returns the issues that concern no stored suggestion, for the caller to keep as findings.

    current: the record's values the proposal was made against."""
    stored: dict[str, SuggestedValue] = {**proposal.suggested, **proposal.malformed}
    rows = [
        suggestion_row(
            run_id,
            target_type,
            target_id,
            name,
            current.get(name),
            suggested,
            proposal.evidence.get(name, []),
            proposal.issues_for(name),
        )
        for name, suggested in stored.items()
    ]
    store_suggestions(rows)
    return [i for i in proposal.issues if i.field not in stored]


def suggestion_row(
    run_id: int | None,
    target_type: str,
    target_id: int,
    name: str,
    current: Any,
    suggested: SuggestedValue,
    evidence: Iterable[Evidence],
    issues: Iterable[Issue],
) -> dict[str, Any]:
    """One suggestion as a row for store_suggestions: blocked when an issue is an error."""
    issues = list(issues)
    invalid = any(i.severity == Severity.error for i in issues)
    return {
        "run_id": run_id,
        "target_type": target_type,
        "target_id": target_id,
        "field": name,
        "current_value": jsonable(current),
        "suggested_value": jsonable(suggested.value),
        "unit": suggested.unit,
        "confidence": suggested.confidence.value if suggested.confidence else None,
        "evidence": [e.to_dict() for e in evidence],
        "issues": [i.to_dict() for i in issues],
        "status": (SuggestionStatus.blocked if invalid else SuggestionStatus.pending).value,
    }


SUGGESTIONS = Suggestion.__table__
# What a suggestion row may leave out.
SUGGESTION_DEFAULTS = {
    "unit": None,
    "confidence": None,
    "evidence": [],
    "issues": [],
    "status": SuggestionStatus.pending.value,
    "decided_by_id": None,
    "decided_at": None,
}


def store_suggestions(rows: Sequence[Mapping[str, Any]], with_ids: bool = False) -> list[int]:
    """Suggestions as plain rows (Suggestion's columns), in one bulk insert; with_ids: in one
    INSERT … RETURNING instead, answering their ids in the rows' order (else [])."""
    now = utcnow()
    full = [
        {
            **SUGGESTION_DEFAULTS,
            **row,
            "level": worst_level(row.get("issues") or ()),
            "created_at": now,
        }
        for row in rows
    ]
    if not with_ids:
        bulk_insert(db.session, SUGGESTIONS, full)
        return []
    if not full:
        return []
    returning = SUGGESTIONS.insert().returning(SUGGESTIONS.c.id, sort_by_parameter_order=True)
    return list(db.session.scalars(returning, full))


def store_findings(
    run_id: int, target_type: str, target_ids: Sequence[int], issues: Iterable[Issue]
) -> None:
    """Issues about records rather than one suggestion, kept as the run's findings."""
    rows = [
        {
            "run_id": run_id,
            "target_type": target_type,
            "target_ids": list(target_ids),
            "code": i.code,
            "severity": i.severity.value,
            "field": i.field,
            "message": i.message,
            "details": i.details,
        }
        for i in issues
    ]
    if rows:
        db.session.execute(insert(Finding), rows)


def _load(ids: Sequence[int]) -> dict[int, Row]:
    # Through the connection: plain rows, without the ORM's result handling per row.
    query = select(*_COLUMNS).where(among(db.session, Suggestion.id, ids))
    return {row.id: row for row in db.session.connection().execute(query)}


def _evidence(ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    query = select(Suggestion.id, Suggestion.evidence).where(among(db.session, Suggestion.id, ids))
    return {i: evidence or [] for i, evidence in db.session.execute(query)}


def set_status(ids: Collection[int], status: SuggestionStatus, user: User | None) -> None:
    decided = {"decided_by_id": user.id if user else None, "decided_at": utcnow()}
    values = decided if status != SuggestionStatus.stale else {}
    if ids:  # an UPDATE, even of nothing, takes SQLite's write lock
        db.session.execute(
            update(Suggestion)
            .where(among(db.session, Suggestion.id, ids))
            .values(status=status, **values)
            .execution_options(synchronize_session=False)
        )
    forget(Suggestion, ids)


def hold_for_reconfirm(ids: Collection[int]) -> None:
    """These open suggestions' fields changed since the run: they wait for a person to
    re-confirm them one by one."""
    set_status(ids, SuggestionStatus.stale, None)


def forget(model: type, ids: Collection[int] | None = None) -> None:
    """Objects of these rows (of every row, without ids) the session holds are re-read on
    next access: a set-based statement changed them around the session."""
    wanted = None if ids is None else set(ids)
    for obj in list(db.session.identity_map.values()):
        if isinstance(obj, model) and (wanted is None or obj.id in wanted):
            db.session.expire(obj)


def _errors(issues: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [i for i in issues or [] if i.get("severity") == "error"]


def apply(
    suggestion_ids: Iterable[int],
    user: User | None,
    reconfirm: Iterable[int] = (),
    edits: Mapping[int, str] | None = None,
    group: str | None = None,
    skip_invalid: bool = False,
) -> ApplyResult:
    """Apply the chosen suggestions as one audited, undoable group; refuse the rest with reasons.

    reconfirm: stale suggestions (their field changed since the run) to apply all the same.
    edits: {suggestion id: text} a reviewer typed instead of the suggested value; read by the
    target's field rules, it replaces the suggestion (and its issues) before the apply.
    skip_invalid: leave out invalid ones without a refusal ("apply all valid")."""
    wanted = list(dict.fromkeys(int(i) for i in suggestion_ids))
    rows = _load(wanted)
    result = ApplyResult(group=None)
    refuse = result.refused.append
    for missing in (i for i in wanted if i not in rows):
        refuse(Refusal(missing, "", 0, "", "no_suggestion", "There is no such suggestion."))
    rows = _apply_edits(rows, edits or {}, refuse)
    blocked, ready = [], []
    for row in rows.values():
        errors = _errors(row.issues)
        if errors and skip_invalid:
            continue
        if errors and row.status in (*OPEN_STATUSES, SuggestionStatus.blocked):
            blocked.append(row.id)
            reason = errors[0].get("message") or "it failed a plausibility rule"
            message = f"Invalid, so it cannot be applied: {reason}"
            refuse(_refusal(row, "invalid_suggestion", message))
        elif row.status not in OPEN_STATUSES:
            refuse(_refusal(row, "not_open", f"This suggestion is already {row.status}."))
        else:
            ready.append(row)
    set_status(blocked, SuggestionStatus.blocked, user)
    by_kind: dict[str, list[Row]] = {}
    for row in ready:
        by_kind.setdefault(row.target_type, []).append(row)
    group = group or new_group()
    for kind, mine in by_kind.items():
        _apply_kind(kind, mine, set(reconfirm), user, group, result)
    if result.applied:
        result.group = group
    # Answered in the order asked, whatever order the rows came back in.
    asked = {suggestion_id: n for n, suggestion_id in enumerate(wanted)}
    result.applied.sort(key=lambda a: asked[a.id])
    return result


def _refusal(row: Row, code: str, message: str) -> Refusal:
    return Refusal(row.id, row.target_type, row.target_id, row.field, code, message)


def _apply_edits(rows: dict[int, Row], edits: Mapping[int, str], refuse) -> dict[int, Row]:
    """Read each edited value through its target's rules; an edited suggestion is the
    reviewer's value, without the issues the model's value had."""
    changed = False
    for suggestion_id, text in edits.items():
        row = rows.get(suggestion_id)
        if row is None or text is None or str(text).strip() == "":
            continue
        if row.status not in (*OPEN_STATUSES, SuggestionStatus.blocked):
            continue
        target = target_for(row.target_type)
        try:
            value = target.parse(row.field, str(text)) if target else text
        except ValueError as exc:
            refuse(_refusal(row, "invalid_value", str(exc)))
            rows.pop(suggestion_id)
            continue
        db.session.execute(
            update(Suggestion)
            .where(Suggestion.id == suggestion_id)
            .values(
                suggested_value=jsonable(value),
                issues=[],
                level=None,
                status=SuggestionStatus.pending,
            )
            .execution_options(synchronize_session=False)
        )
        changed = True
    if not changed:
        return rows
    forget(Suggestion, list(edits))
    return {**rows, **_load([i for i in edits if i in rows])}


def _apply_kind(
    kind: str,
    rows: list[Row],
    reconfirm: set[int],
    user: User | None,
    group: str,
    result: ApplyResult,
) -> None:
    target = target_for(kind)
    if target is None:
        for row in rows:
            result.refused.append(_refusal(row, "no_target", "Nothing can take this value now."))
        return
    current = target.current({row.target_id for row in rows})
    stale, values, chosen = [], {}, {}
    for row in rows:
        present = current.get(row.target_id)
        if present is None:
            result.refused.append(_refusal(row, "no_target", "The record was deleted."))
        elif (row.target_id, row.field) in chosen:
            result.refused.append(
                _refusal(row, "duplicate", "Another chosen suggestion sets this field; pick one.")
            )
        elif jsonable(present.get(row.field)) != row.current_value and row.id not in reconfirm:
            stale.append(row.id)
            result.refused.append(
                _refusal(
                    row,
                    "stale_suggestion",
                    "The field changed after this suggestion was made; "
                    "re-confirm it to apply it anyway.",
                )
            )
        else:
            chosen[(row.target_id, row.field)] = row
            values.setdefault(row.target_id, {})[row.field] = row.suggested_value
    set_status(stale, SuggestionStatus.stale, user)
    if not target.writes:
        written = {
            i: {f: (current[i].get(f), v) for f, v in mine.items() if current[i].get(f) != v}
            for i, mine in values.items()
        }
        refused = []
    else:
        # The record as it will be: a value that would leave it with a new error is refused.
        refused = []
        for target_id in list(values):
            values[target_id], blocked = target.without_new_errors(target_id, values[target_id])
            refused += blocked
        written, write_refused = target.write_many(values, user, current)
        refused += write_refused
    for problem in refused:
        row = chosen.pop((problem.target_id, problem.field))
        result.refused.append(_refusal(row, "invalid_value", problem.message))
    evidence = _evidence([r.id for r in chosen.values()]) if target.uses_evidence else {}
    applied = [
        Applied(r.id, r.target_id, r.field, r.suggested_value, evidence.get(r.id, []), r.run_id)
        for r in chosen.values()
    ]
    changes = _change_rows(kind, applied, written, user, group)
    by_target: dict[int, list[Applied]] = {}
    for item in applied:
        by_target.setdefault(item.target_id, []).append(item)
    for target_id, mine in by_target.items():
        more = target.after_apply(target_id, mine, user)
        if more:
            run_id = mine[0].run_id
            changes += change_rows(kind, target_id, more, user, "apply", group, run_id=run_id)
    write_changes(changes)
    set_status([a.id for a in applied], SuggestionStatus.applied, user)
    result.applied += applied


def _change_rows(
    kind: str,
    applied: Sequence[Applied],
    written: Mapping[int, Changed],
    user: User | None,
    group: str,
) -> list[dict[str, Any]]:
    rows = []
    user_id = user.id if user else None  # once: current_user is a proxy
    asked: set[tuple[int, str]] = set()
    for item in applied:
        asked.add((item.target_id, item.field))
        change = written.get(item.target_id, {}).get(item.field)
        if change is None:
            continue  # the record already held this value
        rows.append(
            change_row(
                kind,
                item.target_id,
                item.field,
                change,
                user_id,
                "apply",
                group,
                item.run_id,
                suggestion_id=item.id,
            )
        )
    # A field the write changed along with those asked (a value's review status) is audited in
    # the same group, so one undo restores the record whole.
    run_id = applied[0].run_id if applied else None
    for target_id, changed in written.items():
        for name, change in changed.items():
            if (target_id, name) not in asked:
                rows.append(
                    change_row(kind, target_id, name, change, user_id, "apply", group, run_id)
                )
    return rows


def decide(
    target: ReviewTarget,
    target_id: int,
    name: str,
    verdict: Any,
    comment: str,
    user: User | None,
    suggestion_id: int | None = None,
    run_id: int | None = None,
) -> str:
    """A reviewer's verdict on one field of a target that writes nothing, with their words;
    recorded in the audit trail (undoable like an apply). The suggestion it answers, if any, is
    applied when the verdict agrees with it and rejected when it does not. Returns the group."""
    if target.writes:
        raise ValueError(f"{target.label} values are applied, not decided.")
    old = target.current([target_id]).get(target_id, {}).get(name)
    group = new_group()
    user_id = user.id if user else None
    row = change_row(
        target.kind,
        target_id,
        name,
        (old, verdict),
        user_id,
        "decide",
        group,
        run_id,
        comment,
        suggestion_id,
    )
    write_changes([row])
    if suggestion_id is not None:
        suggested = db.session.scalar(
            select(Suggestion.suggested_value).where(Suggestion.id == suggestion_id)
        )
        agrees = suggested == jsonable(verdict)
        status = SuggestionStatus.applied if agrees else SuggestionStatus.rejected
        set_status([suggestion_id], status, user)
    return group


@dataclass
class UndoResult:
    restored: list[str] = field(default_factory=list)
    changed_since: list[str] = field(default_factory=list)
    group: str | None = None
    # The same per record, (kind, id, field): an undo that spans records names them.
    restored_in: list[tuple[str, int, str]] = field(default_factory=list)
    changed_since_in: list[tuple[str, int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Group:
    """One group of changes as an undo sees it: the records it changed by kind, and the target
    that answers for it (where a person returns, how its fields are named)."""

    records: dict[str, set[int]]
    target: ReviewTarget

    @property
    def ids(self) -> set[int]:
        return self.records[self.target.kind]


def undoable_group(group: str) -> Group | None:
    """The group if an undo may take it back: it exists, and each kind of record it changed is
    a registered target that owns its part (ReviewTarget.owns); else None."""
    if not group.isalnum():
        return None
    query = (
        select(Change.target_type, Change.target_id, Change.source)
        .where(Change.group_id == group)
        .distinct()
    )
    records: dict[str, set[int]] = {}
    sources: dict[str, set[str]] = {}
    for kind, target_id, source in db.session.execute(query):
        records.setdefault(kind, set()).add(target_id)
        sources.setdefault(kind, set()).add(source)
    targets = [target_for(kind) for kind in sorted(records)]
    if not targets:
        return None
    for target in targets:
        if target is None or not target.owns(records[target.kind], sources[target.kind]):
            return None
    return Group(records, targets[0])


def undone_in_words(changed: Sequence[tuple[str, int, str]], at_most: int = 3) -> str:
    """“Pea: Yield, Harvest method; Bean: Yield; and 4 more”: the first few records of an undo
    (in the order they were added) by name, each with its fields by label, on one line
    whatever its size."""
    fields: dict[tuple[str, int], list[str]] = {}
    for kind, target_id, name in changed:
        fields.setdefault((kind, target_id), []).append(name)
    said = []
    for (kind, target_id), names in sorted(fields.items())[:at_most]:
        target = target_for(kind)
        if target is None:
            continue
        record = target.names([target_id]).get(target_id, f"{target.label} {target_id}")
        labels = target.field_labels(target_id, names)
        shown = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
        said.append(f"{record}: {shown}" if labels else record)
    more = len(fields) - at_most
    return "; ".join(said) + (f"; and {more} more" if more > 0 else "")


# A field of a record a group changed: (kind, target id, field).
FieldKey = tuple[str, int, str]


def undo(group: str, user: User | None) -> UndoResult:
    """Restore the old values of one group — across every record it changed — only if none of
    them changed since; the suggestions it applied are open again."""
    result = UndoResult()
    first, last, run_id = _group_span(group)
    if not last:
        return result
    targets, current = _present(last)
    result.changed_since_in = _changed_since(last, targets, current)
    if result.changed_since_in:
        result.changed_since = [name for _k, _i, name in result.changed_since_in]
        return result
    undo_group = new_group()
    changes: list[dict[str, Any]] = []
    for kind, target in targets.items():
        written, refused = _restore(target, first, current, user)
        result.changed_since_in += refused
        for target_id, changed in written.items():
            changes += change_rows(kind, target_id, changed, user, "undo", undo_group, run_id)
    write_changes(changes)
    for kind, target in targets.items():
        target.after_undo({i for k, i, _f in first if k == kind})
    _reopen(group)
    result.changed_since = [name for _k, _i, name in result.changed_since_in]
    result.restored_in = list(first)
    result.restored = [name for _k, _i, name in first]
    result.group = undo_group
    return result


def _group_span(group: str) -> tuple[dict[FieldKey, Any], dict[FieldKey, Any], int | None]:
    """Per field a group changed, the value before its first change and after its last; and
    the run it came from."""
    query = (
        select(
            Change.target_type,
            Change.target_id,
            Change.field,
            Change.old_value,
            Change.new_value,
            Change.run_id,
        )
        .where(Change.group_id == group)
        .order_by(Change.id)
    )
    first: dict[FieldKey, Any] = {}
    last: dict[FieldKey, Any] = {}
    run_id = None
    for kind, target_id, name, old, new, run in db.session.execute(query):
        first.setdefault((kind, target_id, name), old)
        last[(kind, target_id, name)] = new
        run_id = run_id or run
    return first, last, run_id


def _present(
    fields: Collection[FieldKey],
) -> tuple[dict[str, ReviewTarget], dict[tuple[str, int], dict[str, Any]]]:
    """The registered targets of these fields' kinds, and their records' values now."""
    targets: dict[str, ReviewTarget] = {}
    current: dict[tuple[str, int], dict[str, Any]] = {}
    for kind in {k for k, _i, _f in fields}:
        target = target_for(kind)
        if target is None:
            continue
        targets[kind] = target
        ids = {i for k, i, _f in fields if k == kind}
        current.update({(kind, i): v for i, v in target.current(ids).items()})
    return targets, current


def _changed_since(
    last: Mapping[FieldKey, Any],
    targets: Mapping[str, ReviewTarget],
    current: Mapping[tuple[str, int], Mapping[str, Any]],
) -> list[FieldKey]:
    """The fields that no longer hold what the group set: a deleted record's, a kind no
    target takes any more, and a value changed since."""
    changed = []
    for (kind, target_id, name), new in last.items():
        present = current.get((kind, target_id))
        if kind not in targets or present is None or jsonable(present.get(name)) != new:
            changed.append((kind, target_id, name))
    return changed


def _restore(
    target: ReviewTarget,
    first: Mapping[FieldKey, Any],
    current: Mapping[tuple[str, int], Mapping[str, Any]],
    user: User | None,
) -> tuple[dict[int, Changed], list[FieldKey]]:
    """Write back the values before the group to one target's records: what changed, and the
    fields its records refused."""
    kind = target.kind
    values: dict[int, dict[str, Any]] = {}
    for (k, target_id, name), old in first.items():
        if k == kind:
            values.setdefault(target_id, {})[name] = old
    if not target.writes:
        written = {
            i: {f: (current[(kind, i)].get(f), v) for f, v in mine.items()}
            for i, mine in values.items()
        }
        return written, []
    present = {i: current[(kind, i)] for i in values}
    written, refused = target.write_many(values, user, present)
    return written, [(kind, p.target_id, p.field) for p in refused]


def _reopen(group: str) -> None:
    """The suggestions a group applied are open again."""
    reopened = select(Change.suggestion_id).where(
        Change.group_id == group, Change.suggestion_id.is_not(None)
    )
    db.session.execute(
        update(Suggestion)
        .where(Suggestion.id.in_(reopened), Suggestion.status == SuggestionStatus.applied)
        .values(status=SuggestionStatus.pending, decided_by_id=None, decided_at=None)
        .execution_options(synchronize_session=False)
    )
    forget(Suggestion)


@dataclass
class RunTarget:
    """One record a run worked on, with what it proposed and found for it."""

    id: int
    name: str | None  # None once the record is deleted
    suggestions: list[Suggestion]
    findings: list[Finding]


def look_up_now(suggestions: Iterable[Suggestion]) -> None:
    """Each open suggestion learns its field's value now and whether that differs from the
    value it was made against: a page shows a stale suggestion before anyone applies it."""
    by_kind: dict[str, list[Suggestion]] = {}
    for suggestion in suggestions:
        if suggestion.status in OPEN_STATUSES:
            by_kind.setdefault(suggestion.target_type, []).append(suggestion)
    for kind, mine in by_kind.items():
        target = target_for(kind)
        if target is None:
            continue
        current = target.current({s.target_id for s in mine})
        for suggestion in mine:
            present = current.get(suggestion.target_id)
            if present is None:
                continue
            suggestion.looked_up = True
            suggestion.now = present.get(suggestion.field)
            # Compared as apply compares, so the page and apply agree on what is stale.
            suggestion.changed_since = jsonable(suggestion.now) != suggestion.current_value


@dataclass
class ApplyPlan:
    """What "apply all valid" over some suggestions would do, said before it is done: the
    ones it applies, and those it leaves out — invalid, changed since the run, or already
    decided."""

    ready: list[Suggestion] = field(default_factory=list)
    invalid: list[Suggestion] = field(default_factory=list)
    stale: list[Suggestion] = field(default_factory=list)
    decided: list[Suggestion] = field(default_factory=list)
    deleted: list[Suggestion] = field(default_factory=list)  # its record is gone

    @property
    def skipped(self) -> int:
        return len(self.invalid) + len(self.stale) + len(self.decided) + len(self.deleted)

    def left_out(self, reconfirm_where: str) -> str | None:
        """What the apply left out, and why, in words; reconfirm_where says where a changed
        value is re-confirmed ("on the culture's page")."""
        parts = [
            f"{len(self.invalid)} invalid" if self.invalid else "",
            f"{len(self.stale)} changed since the run (re-confirm them {reconfirm_where})"
            if self.stale
            else "",
            f"{len(self.decided)} already decided" if self.decided else "",
            f"{len(self.deleted)} of deleted records" if self.deleted else "",
        ]
        said = ", ".join(p for p in parts if p)
        return f"Left out: {said}." if said else None


def at_level(query: Select, level: str | None) -> Select:
    """query's suggestions whose worst level is level ("none": without issues); all of
    them for None."""
    if level is None:
        return query
    return query.where(Suggestion.level.is_(None) if level == "none" else Suggestion.level == level)


def plan_apply(suggestions: Iterable[Suggestion]) -> ApplyPlan:
    """Sort suggestions as "apply all valid" treats them. Stale, in one sense everywhere: its
    field changed since the run, or an apply refused it as changed (it waits for a person's
    re-confirm even where the field holds its old value again)."""
    suggestions = list(suggestions)
    look_up_now(suggestions)
    plan = ApplyPlan()
    for s in suggestions:
        if s.status not in (*OPEN_STATUSES, SuggestionStatus.blocked):
            plan.decided.append(s)
        elif not s.is_valid or s.status == SuggestionStatus.blocked:
            plan.invalid.append(s)
        elif not s.looked_up:
            plan.deleted.append(s)
        elif s.changed_since or s.status == SuggestionStatus.stale:
            plan.stale.append(s)
        else:
            plan.ready.append(s)
    return plan


# The suggestions a run's review page shows at once.
REVIEW_PAGE_SIZE = 50


@dataclass(frozen=True)
class ReviewPage:
    """One page of a run's suggestions as its review reads it, with what is said over the
    whole run: counts by worst level, how many "apply all valid" would apply, how many wait
    for a re-confirm, how many are still open."""

    page: Page  # Suggestions: held for a re-confirm first, then as stored
    counts: dict[str, int]
    valid_pending: int
    held: int
    still_open: int  # what "reject all" would reject


def review_page(
    run: Run, level: str | None, number: int, rows: bool = True, per_page: int = REVIEW_PAGE_SIZE
) -> ReviewPage:
    """A page of a run's suggestions at one level (every level: None), by record. Stale up
    front: those an apply held for a re-confirm lead the run, and on each page those whose field
    changed since (found by comparing the page's values with their records now) lead the page.
    Without rows, only what is said over the whole run."""
    # What is said over the whole run, from one count by level and status.
    counts, held, valid_pending, still_open = count_levels(()), 0, 0, 0
    query = (
        select(Suggestion.level, Suggestion.status, func.count())
        .where(Suggestion.run_id == run.id)
        .group_by(Suggestion.level, Suggestion.status)
    )
    for worst, status, n in db.session.execute(query):
        counts[worst or "none"] += n
        held += n if status == SuggestionStatus.stale else 0
        still_open += n if status in REJECTABLE else 0
        # "Apply all valid" at this level: pending, without an error.
        if status == SuggestionStatus.pending and worst != "error":
            valid_pending += n if level is None or (worst or "none") == level else 0
    query = at_level(select(Suggestion).where(Suggestion.run_id == run.id), level)
    # Records in the order they were made (a table's rows, a catalog's cultures).
    order = (Suggestion.target_id, Suggestion.id)
    if held:
        stale = SuggestionStatus.stale
        order = (case((Suggestion.status == stale, 0), else_=1), *order)
    page = paginate(query.order_by(*order), number, per_page) if rows else Page([], 1, per_page, 0)
    look_up_now(page.items)
    items = sorted(page.items, key=lambda s: not s.changed_since)
    return ReviewPage(
        Page(items, page.number, page.per_page, page.total),
        counts,
        valid_pending,
        held,
        still_open,
    )


def chosen_suggestions(
    run: Run, level: str | None = None, records: Collection[int] | None = None
) -> list[Suggestion]:
    """A run's suggestions at one level (every level: None) of some of its records (all:
    None), with only the columns a plan and a decision read."""
    query = at_level(
        select(Suggestion)
        .where(Suggestion.run_id == run.id)
        .options(
            load_only(
                Suggestion.target_type,
                Suggestion.target_id,
                Suggestion.field,
                Suggestion.current_value,
                Suggestion.status,
                Suggestion.issues,
            )
        )
        .order_by(Suggestion.id),
        level,
    )
    if records is not None:
        query = query.where(among(db.session, Suggestion.target_id, records))
    return list(db.session.scalars(query))


def run_targets(run: Run, target: ReviewTarget, ids: Sequence[int]) -> list[RunTarget]:
    """Every record of a run (ids, in order) — those it suggested nothing for too — in three
    queries whatever the run's size."""
    suggestions: dict[int, list[Suggestion]] = {}
    query = select(Suggestion).where(Suggestion.run_id == run.id).order_by(Suggestion.id)
    for suggestion in db.session.scalars(query):
        suggestions.setdefault(suggestion.target_id, []).append(suggestion)
    findings: dict[int, list[Finding]] = {}
    for finding in db.session.scalars(
        select(Finding).where(Finding.run_id == run.id).order_by(Finding.id)
    ):
        for target_id in finding.target_ids:
            findings.setdefault(target_id, []).append(finding)
    names = target.names(ids)
    return [RunTarget(i, names.get(i), suggestions.get(i, []), findings.get(i, [])) for i in ids]


def findings_for(run: Run, target_type: str, target_id: int) -> list[Finding]:
    query = select(Finding).where(Finding.run_id == run.id, Finding.target_type == target_type)
    return [f for f in db.session.scalars(query.order_by(Finding.id)) if target_id in f.target_ids]
