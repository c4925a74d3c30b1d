"""Suggestion (one proposed value of one field of one target), Finding (a check about a run's
targets that is not one suggestion's) and Change (the audit row of every value change).

A target is (target_type, target_id): a workspace's record kind, as its ReviewTarget registers
it, and the record's integer id. A field is a name or a path inside a document (up to 255
characters), whatever the target's field spec says."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db
from webapp.review.vocabulary import worst_level

FIELD_LENGTH = 255


def jsonable(value: Any) -> Any:
    """A field value as JSON keeps it (Decimal as its exact string)."""
    return str(value) if isinstance(value, Decimal) else value


class Change(db.Model):
    __tablename__ = "changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    target_type: Mapped[str] = mapped_column(String(32))
    target_id: Mapped[int] = mapped_column(Integer)
    field: Mapped[str] = mapped_column(String(FIELD_LENGTH))
    old_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    new_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    # manual | import | apply | undo | decide | plan
    source: Mapped[str] = mapped_column(String(16))
    # The suggestion this change applied, so undoing it reopens exactly that suggestion.
    suggestion_id: Mapped[int | None] = mapped_column(
        ForeignKey("suggestions.id", ondelete="SET NULL"), index=True
    )
    # A reviewer's words with a decision (a verdict on a requirement), shown in the history.
    comment: Mapped[str | None] = mapped_column(Text)
    # The changes made together (one save, apply, decision, import or undo) share a group id,
    # so one undo takes them back together.
    group_id: Mapped[str] = mapped_column(String(32), index=True)
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)

    user: Mapped[User | None] = relationship()

    __table_args__ = (db.Index("ix_changes_target", "target_type", "target_id"),)


def _level_of_issues(context) -> str | None:
    """The level of a suggestion added as an object; store_suggestions sets it itself."""
    return worst_level(context.get_current_parameters().get("issues") or ())


class SuggestionStatus(StrEnum):
    pending = "pending"
    applied = "applied"
    rejected = "rejected"
    blocked = "blocked"  # an error makes it invalid: it can never be applied
    stale = "stale"  # the field changed since the suggestion was made


class Suggestion(db.Model):
    """One field of one record as a provider proposes it, with its evidence and issues."""

    __tablename__ = "suggestions"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("runs.id", ondelete="CASCADE"), index=True
    )
    target_type: Mapped[str] = mapped_column(String(32))
    target_id: Mapped[int] = mapped_column(Integer)
    field: Mapped[str] = mapped_column(String(FIELD_LENGTH))
    current_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    suggested_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    unit: Mapped[str | None] = mapped_column(String(32))
    # A Confidence level: high | medium | low.
    confidence: Mapped[str | None] = mapped_column(String(8))
    evidence: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    issues: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    # The worst level of its issues (None without any), kept beside them so a review counts
    # and filters a run's suggestions by level without reading every issue list.
    level: Mapped[str | None] = mapped_column(String(8), default=_level_of_issues)
    status: Mapped[str] = mapped_column(String(16), default=SuggestionStatus.pending)
    decided_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (
        db.Index("ix_suggestions_target", "target_type", "target_id"),
        db.Index("ix_suggestions_run_level", "run_id", "level"),
    )

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [i for i in self.issues if i.get("severity") == "error"]

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return [i for i in self.issues if i.get("severity") == "warning"]

    @property
    def is_valid(self) -> bool:
        return not self.errors

    @property
    def worst(self) -> str | None:
        return worst_level(self.issues or ())

    # What a review page looked up (service.look_up_now): the field's value now, and whether
    # it differs from the value the suggestion was made against.
    looked_up = False
    now = None
    changed_since = False


class FindingStatus(StrEnum):
    open = "open"
    resolved = "resolved"
    dismissed = "dismissed"


class Finding(db.Model):
    """What a run's checks found about one or more of its targets that is no one suggestion's:
    an unknown crop, a value two documents disagree on. Shown with the targets it concerns."""

    __tablename__ = "findings"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    target_type: Mapped[str] = mapped_column(String(32))
    # The ids of the targets it concerns (one, or several for a check across records).
    target_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    code: Mapped[str] = mapped_column(String(64))
    severity: Mapped[str] = mapped_column(String(8))
    field: Mapped[str | None] = mapped_column(String(FIELD_LENGTH))
    message: Mapped[str] = mapped_column(Text)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default=FindingStatus.open)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "targets": [{"type": self.target_type, "id": i} for i in self.target_ids],
            "code": self.code,
            "severity": self.severity,
            "field": self.field,
            "message": self.message,
            "details": self.details,
            "status": self.status,
        }
