"""A fertilizer plan as stored: the request it answered, the plan document, its checks, and
the culture a reviewer saved it to."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.crops import MODEL, TABLE, Crop
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db
from webapp.fertilizer.plan import FertilizerPlan, plan_from_dict


class PlanRecord(db.Model):
    __tablename__ = "fertilizer_plans"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("runs.id", ondelete="SET NULL"), index=True
    )
    # Set when a reviewer saves the plan to a culture; the culture's plan history.
    culture_id: Mapped[int | None] = mapped_column(
        ForeignKey(f"{TABLE}.id", ondelete="SET NULL"), index=True
    )
    crop_id: Mapped[str] = mapped_column(String(120))
    crop_name: Mapped[str] = mapped_column(String(200))
    gateway: Mapped[str] = mapped_column(String(32))
    model: Mapped[str | None] = mapped_column(String(100))
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    plan: Mapped[dict[str, Any]] = mapped_column(JSON)
    issues: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    saved_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    saved_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    created_by: Mapped[User | None] = relationship(foreign_keys=[created_by_id])
    saved_by: Mapped[User | None] = relationship(foreign_keys=[saved_by_id])
    culture: Mapped[Crop | None] = relationship(MODEL)

    @property
    def entity(self) -> FertilizerPlan:
        return plan_from_dict(self.plan)

    @property
    def label(self) -> str:
        totals = self.plan["totals"]
        shown = ("—" if totals[e] is None else f"{totals[e]:g}" for e in ("N", "P", "K"))
        return "N {} · P {} · K {} g/m²".format(*shown)
