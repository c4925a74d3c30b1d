"""A culture: one crop (and variety) in the team's catalog, with its growing figures."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Boolean, Float, Integer, Numeric, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db


class Culture(db.Model):
    __tablename__ = "cultures"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    variety: Mapped[str] = mapped_column(String(120), default="")
    crop_family: Mapped[str] = mapped_column(String(80), default="")
    reference_crop: Mapped[str | None] = mapped_column(String(64))
    # A crop a person chose stands even where the name is a known confusion of it; one found
    # from the name is found again when the name changes.
    reference_crop_chosen: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false()
    )
    cultivation_types: Mapped[list[str]] = mapped_column(JSON, default=list)
    nutrient_demand: Mapped[str | None] = mapped_column(String(8))
    growth_duration_days: Mapped[int | None] = mapped_column(Integer)
    harvest_duration_days: Mapped[int | None] = mapped_column(Integer)
    propagation_duration_days: Mapped[int | None] = mapped_column(Integer)
    harvest_method: Mapped[str | None] = mapped_column(String(16))
    expected_yield: Mapped[Decimal | None] = mapped_column(Numeric(10, 2))
    distance_within_row_cm: Mapped[float | None] = mapped_column(Float)
    row_spacing_cm: Mapped[float | None] = mapped_column(Float)
    sowing_depth_cm: Mapped[float | None] = mapped_column(Float)
    seed_rate_value: Mapped[float | None] = mapped_column(Float)
    seed_rate_unit: Mapped[str | None] = mapped_column(String(16))
    thousand_kernel_weight_g: Mapped[float | None] = mapped_column(Float)
    seed_packages: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    notes: Mapped[str] = mapped_column(Text, default="")
    structured_sources: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    @property
    def label(self) -> str:
        return culture_label(self.name, self.variety)


def culture_label(name: str, variety: str | None) -> str:
    """A culture as people tell it apart: “Tomato ‘Harzfeuer’”."""
    return f"{name} ‘{variety}’" if variety else name
