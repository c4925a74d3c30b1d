"""Rejections, undoable like an apply: a rejection audits each suggestion's status it replaced
(target "suggestion", field "status", source "reject") in one group, so the core's undo opens
them again as they were (open, re-confirm or invalid) unless one was decided since."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import url_for
from sqlalchemy import select, update

from webapp.auth.models import User
from webapp.database import among
from webapp.extensions import db
from webapp.review.audit import change_row, new_group, write_changes
from webapp.review.models import Suggestion, SuggestionStatus
from webapp.review.service import REJECTABLE, forget, set_status
from webapp.review.targets import Changed, ReviewTarget, WriteRefused, register_target, target_for

SUGGESTION_TARGET = "suggestion"
STATUS = "status"


class SuggestionTarget(ReviewTarget):
    """A suggestion's status, as a rejection set it and its undo sets it back."""

    kind = SUGGESTION_TARGET
    label = "Suggestion"
    undo_sources = ("reject",)

    def _rows(self, ids: Collection[int]) -> list[Any]:
        query = select(
            Suggestion.id,
            Suggestion.status,
            Suggestion.run_id,
            Suggestion.target_type,
            Suggestion.target_id,
            Suggestion.field,
        ).where(among(db.session, Suggestion.id, ids))
        return list(db.session.execute(query))

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {row.id: {STATUS: row.status} for row in self._rows(ids)}

    def write_many(
        self,
        values: Mapping[int, Mapping[str, Any]],
        user: User | None,
        current: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> tuple[dict[int, Changed], list[WriteRefused]]:
        """Only an undo writes here: each suggestion back to the status it had, undecided (one
        UPDATE per status, whatever the count)."""
        present = current if current is not None else self.current(values)
        by_status: dict[SuggestionStatus, list[int]] = {}
        for suggestion_id, mine in values.items():
            by_status.setdefault(SuggestionStatus(mine[STATUS]), []).append(suggestion_id)
        for status, ids in by_status.items():
            db.session.execute(
                update(Suggestion)
                .where(among(db.session, Suggestion.id, ids))
                .values(status=status, decided_by_id=None, decided_at=None)
                .execution_options(synchronize_session=False)
            )
        forget(Suggestion, values)
        changed = {i: {STATUS: (present[i][STATUS], mine[STATUS])} for i, mine in values.items()}
        return changed, []

    def names(self, ids: Collection[int]) -> dict[int, str]:
        """“Carrot: Growth duration”: the record and field each suggestion was for."""
        rows = self._rows(ids)
        named: dict[int, str] = {}
        for kind in {row.target_type for row in rows}:
            target = target_for(kind)
            mine = [row for row in rows if row.target_type == kind]
            records = target.names({row.target_id for row in mine}) if target else {}
            for row in mine:
                record = records.get(row.target_id, f"{kind} {row.target_id}")
                field = target.field_label(row.field) if target else row.field
                named[row.id] = f"{record}: {field}"
        return named

    def field_label(self, field: str) -> str:
        return "Rejected" if field == STATUS else field

    def field_labels(self, target_id: int, fields) -> list[str]:
        return []  # its name says the record and field; "Rejected" would only repeat the act

    def url(self, target_id: int) -> str | None:
        run_id = db.session.scalar(select(Suggestion.run_id).where(Suggestion.id == target_id))
        return url_for("review.run_review", run_id=run_id) if run_id else None

    def history_url(self, target_id: int) -> str | None:
        return None  # a suggestion's decisions are its run's review page


SUGGESTIONS = register_target(SuggestionTarget())


@dataclass(frozen=True)
class Rejected:
    ids: list[int]
    group: str | None  # what undoes it; None when nothing was rejected


def reject(suggestion_ids: Iterable[int], user: User | None) -> Rejected:
    """Reject the open (or invalid) ones among these, as one undoable group."""
    wanted = list(dict.fromkeys(int(i) for i in suggestion_ids))
    open_now = [row for row in SUGGESTIONS._rows(wanted) if row.status in REJECTABLE]
    if not open_now:
        return Rejected([], None)
    set_status([row.id for row in open_now], SuggestionStatus.rejected, user)
    group = new_group()
    user_id = user.id if user else None
    rejected = SuggestionStatus.rejected.value
    write_changes(
        [
            change_row(
                SUGGESTION_TARGET,
                row.id,
                STATUS,
                (row.status, rejected),
                user_id,
                "reject",
                group,
                row.run_id,
            )
            for row in open_now
        ]
    )
    by_id = {row.id for row in open_now}
    return Rejected([i for i in wanted if i in by_id], group)
