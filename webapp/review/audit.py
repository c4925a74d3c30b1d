"""Writing and reading the audit trail of record changes."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from webapp.auth.models import User
from webapp.extensions import db
from webapp.review.models import Change, jsonable


def record_changes(
    target_type: str,
    target_id: int,
    changed: Mapping[str, tuple[Any, Any]],
    user: User | None,
    source: str,
    run_id: int | None = None,
    group: str | None = None,
) -> str | None:
    """One Change per changed field, sharing a group id (new unless one is given: changes to
    several records made together share one), which is returned."""
    if not changed:
        return group
    group = group or new_group()
    for field, (old, new) in changed.items():
        db.session.add(
            Change(
                target_type=target_type,
                target_id=target_id,
                field=field,
                old_value=jsonable(old),
                new_value=jsonable(new),
                source=source,
                apply_group=group,
                run_id=run_id,
                user=user,
            )
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


def undoable_groups(changes: Sequence[Change], sources: tuple[str, ...]) -> list[str]:
    """The groups among one record's changes that undo can still reverse, newest first: made
    by one of sources, and every field they set still holds their value (no newer change)."""
    newest: dict[tuple[str, int, str], tuple[int, str]] = {}
    for change in changes:
        key = (change.target_type, change.target_id, change.field)
        if key not in newest or change.id > newest[key][0]:
            newest[key] = (change.id, change.apply_group)
    refused = {
        change.apply_group
        for change in changes
        if change.source not in sources
        or newest[(change.target_type, change.target_id, change.field)][1] != change.apply_group
    }
    ordered = sorted(changes, key=lambda c: c.id, reverse=True)
    return list(dict.fromkeys(c.apply_group for c in ordered if c.apply_group not in refused))
