"""Writing and reading the audit trail of record changes: every Change row is written by
write_changes (record_changes for one record's fields), and the newest change of each field is
read by latest_changes."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from webapp.auth.models import User
from webapp.database import among, bulk_insert, utcnow
from webapp.extensions import db
from webapp.review.models import Change, jsonable

# Change rows go straight to the table: no ORM bookkeeping per row.
CHANGES = Change.__table__


def change_row(
    target_type: str,
    target_id: int,
    name: str,
    change: tuple[Any, Any],
    user_id: int | None,
    source: str,
    group: str,
    run_id: int | None = None,
    comment: str | None = None,
    suggestion_id: int | None = None,
) -> dict[str, Any]:
    """One field's change as a row of the changes table, for write_changes."""
    old, new = change
    return {
        "target_type": target_type,
        "target_id": target_id,
        "field": name,
        "old_value": jsonable(old),
        "new_value": jsonable(new),
        "source": source,
        "group_id": group,
        "run_id": run_id,
        "user_id": user_id,
        "at": utcnow(),
        "comment": comment,
        "suggestion_id": suggestion_id,
    }


def change_rows(
    target_type: str,
    target_id: int,
    changed: Mapping[str, tuple[Any, Any]],
    user: User | None,
    source: str,
    group: str,
    run_id: int | None = None,
    comment: str | None = None,
) -> list[dict[str, Any]]:
    """The rows of one record's changed fields ({field: (old, new)}), for write_changes."""
    user_id = user.id if user else None  # once: current_user is a proxy
    return [
        change_row(target_type, target_id, name, pair, user_id, source, group, run_id, comment)
        for name, pair in changed.items()
    ]


def write_changes(rows: Sequence[Mapping[str, Any]]) -> None:
    """The one way change rows reach the audit trail: one bulk insert, no ORM object per row
    (the session's Change objects do not see them until re-read)."""
    bulk_insert(db.session, CHANGES, rows)


def record_changes(
    target_type: str,
    target_id: int,
    changed: Mapping[str, tuple[Any, Any]],
    user: User | None,
    source: str,
    run_id: int | None = None,
    group: str | None = None,
    comment: str | None = None,
) -> str | None:
    """One Change per changed field of one record, sharing a group id (new unless one is given:
    changes to several records made together share one), which is returned."""
    if not changed:
        return group
    group = group or new_group()
    write_changes(
        change_rows(target_type, target_id, changed, user, source, group, run_id, comment)
    )
    return group


def new_group() -> str:
    return secrets.token_hex(8)


def history(target_types: tuple[str, ...], target_id: int, limit: int = 100) -> list[Change]:
    """The newest changes of one record, as the targets that share its id record them (a
    culture's fields and its current plan)."""
    query = (
        select(Change)
        .options(selectinload(Change.user))
        .where(Change.target_type.in_(target_types), Change.target_id == target_id)
        .order_by(Change.id.desc())
        .limit(limit)
    )
    return list(db.session.scalars(query))


def latest_changes(
    target_type: str, ids: Collection[int], field: str | None = None
) -> dict[int, dict[str, Change]]:
    """{record id: {field: Change}}: the newest change of every field of these records (only
    `field` when given), with its user; a record without changes maps to {}."""
    found: dict[int, dict[str, Change]] = {i: {} for i in ids}
    newest = select(func.max(Change.id)).where(
        Change.target_type == target_type, among(db.session, Change.target_id, ids)
    )
    if field is not None:
        newest = newest.where(Change.field == field)
    newest = newest.group_by(Change.target_id, Change.field)
    query = select(Change).options(selectinload(Change.user)).where(Change.id.in_(newest))
    for change in db.session.scalars(query):
        found[change.target_id][change.field] = change
    return found


def undoable_groups(changes: Sequence[Change], sources: tuple[str, ...]) -> list[str]:
    """The groups among one record's changes that undo can still reverse, newest first: made
    by one of sources, and every field they set still holds their value (no newer change)."""
    newest: dict[tuple[str, int, str], tuple[int, str]] = {}
    for change in changes:
        key = (change.target_type, change.target_id, change.field)
        if key not in newest or change.id > newest[key][0]:
            newest[key] = (change.id, change.group_id)
    refused = {
        change.group_id
        for change in changes
        if change.source not in sources
        or newest[(change.target_type, change.target_id, change.field)][1] != change.group_id
    }
    ordered = sorted(changes, key=lambda c: c.id, reverse=True)
    return list(dict.fromkeys(c.group_id for c in ordered if c.group_id not in refused))
