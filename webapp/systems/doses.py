"""The imported IFT reference-dose table. It lives in the database, not in an instance file:
calculations run in RQ workers that may sit on other machines than the web server, and every
one of them must read the same table. The newest import is the table in force; its CSV text is
kept as it came (read again by read_reference_doses_csv, once per import and process)."""

from __future__ import annotations

import functools
from datetime import datetime

from flask import has_app_context
from sqlalchemy import ForeignKey, Integer, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db
from webapp.problems import Invalid
from webapp.systems.calculators.ift import ReferenceDoses, read_reference_doses_csv

DOSES_MAX_BYTES = 20 * 1024 * 1024  # the ministry's full table per crop and target is large


class ReferenceDoseImport(db.Model):
    __tablename__ = "reference_dose_imports"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    filename: Mapped[str] = mapped_column(String(255))
    rows: Mapped[int] = mapped_column(Integer)
    csv_text: Mapped[str] = mapped_column(Text)
    imported_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    imported_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    imported_by: Mapped[User | None] = relationship()

    @property
    def label(self) -> str:
        """How the IFT calculator names it as its source."""
        return source_label(self.id, self.filename, self.imported_at)


def source_label(import_id: int, filename: str, imported_at: datetime) -> str:
    return f"imported table “{filename}” (#{import_id}, {imported_at:%Y-%m-%d})"


def import_doses(text: str, filename: str, user: User | None) -> ReferenceDoseImport:
    """Store a reference-dose CSV as the table in force, once it reads without a problem
    (Invalid naming every bad line otherwise, and nothing stored). The caller commits."""
    name = (filename.strip() or "reference doses")[:255]
    table = read_reference_doses_csv(text, source=f"imported table “{name}”")
    if not len(table):
        raise Invalid("The CSV has no dose rows.", code="csv_empty")
    stored = ReferenceDoseImport(filename=name, rows=len(table), csv_text=text, imported_by=user)
    db.session.add(stored)
    db.session.flush()
    return stored


def current_import() -> ReferenceDoseImport | None:
    """The newest import, or None."""
    return db.session.scalars(
        select(ReferenceDoseImport).order_by(ReferenceDoseImport.id.desc()).limit(1)
    ).first()


def imported_doses() -> ReferenceDoses | None:
    """The table in force, or None without an import (or outside the app: plain tests)."""
    if not has_app_context():
        return None
    columns = (
        ReferenceDoseImport.id,
        ReferenceDoseImport.filename,
        ReferenceDoseImport.imported_at,
    )
    found = db.session.execute(
        select(*columns).order_by(ReferenceDoseImport.id.desc()).limit(1)
    ).first()
    return None if found is None else _read(found.id, found.imported_at, source_label(*found))


@functools.lru_cache(maxsize=2)
def _read(import_id: int, imported_at: datetime, label: str) -> ReferenceDoses:
    """An import's table, read once per process (keyed by its time too: a new database may
    give a new import an old id)."""
    text = db.session.get(ReferenceDoseImport, import_id).csv_text
    return read_reference_doses_csv(text, source=label)
