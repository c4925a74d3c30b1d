"""A seed lot. Its own metadata, created by its test: the app's migrations and the tables the
other tests empty know nothing of it."""

from __future__ import annotations

from sqlalchemy import Float, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class SeedLot(Base):
    __tablename__ = "example_seed_lots"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    crop: Mapped[str] = mapped_column(String(80))
    thousand_kernel_weight_g: Mapped[float | None] = mapped_column(Float)
    germination_pct: Mapped[float | None] = mapped_column(Float)
