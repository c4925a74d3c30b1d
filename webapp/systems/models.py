"""Farms and their systems: a system's rotation lives in one JSON document (seed 003's shape,
itinera's files as they are), checked by webapp.systems.document on every write."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db

# A system's values are audited as Changes with this target type; the field is the value's path.
VALUE_TARGET = "system_value"


class Farm(db.Model):
    __tablename__ = "farms"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    region: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    systems: Mapped[list[System]] = relationship(
        order_by="System.id",
        cascade="all, delete-orphan",
        passive_deletes=True,
        back_populates="farm",
    )


class System(db.Model):
    __tablename__ = "systems"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    farm_id: Mapped[int] = mapped_column(ForeignKey("farms.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    system_type: Mapped[str] = mapped_column(String(100), default="")
    productions: Mapped[str] = mapped_column(String(255), default="")
    gps_location: Mapped[str] = mapped_column(String(255), default="")
    document: Mapped[dict[str, Any]] = mapped_column(
        JSON().with_variant(JSONB, "postgresql"), default=dict
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    farm: Mapped[Farm] = relationship(back_populates="systems")
