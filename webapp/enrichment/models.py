"""Change: the audit row written whenever a record's field changes, by hand or by an apply."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db


def jsonable(value: Any) -> Any:
    """A field value as JSON keeps it (Decimal as its exact string)."""
    return str(value) if isinstance(value, Decimal) else value


class Change(db.Model):
    __tablename__ = "changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    target_type: Mapped[str] = mapped_column(String(32))
    target_id: Mapped[int] = mapped_column(Integer)
    field: Mapped[str] = mapped_column(String(64))
    old_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    new_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    # manual | import | apply | undo
    source: Mapped[str] = mapped_column(String(16))
    # The changes made by one save or one apply share a group, so they can be undone together.
    apply_group: Mapped[str] = mapped_column(String(32), index=True)
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)

    user: Mapped[User | None] = relationship()

    __table_args__ = (db.Index("ix_changes_target", "target_type", "target_id"),)
