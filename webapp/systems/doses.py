"""The imported IFT reference-dose table. It lives in the database, not in an instance file:
calculations run in RQ workers that may sit on other machines than the web server, and every
one of them must read the same table. The newest import is the table in force; its CSV text,
and that of the product list naming its AMM numbers when one came with it, are kept as they
came (read again by read_reference_doses_csv, once per import and process)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from datetime import datetime
from typing import BinaryIO

from flask import has_app_context
from sqlalchemy import ForeignKey, Integer, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db
from webapp.problems import Invalid
from webapp.systems.calculators.ift import (
    DoseCoverage,
    ReferenceDoses,
    dose_coverage,
    read_imported_from,
    read_product_names_csv,
    read_reference_doses_csv,
    reference_doses,
)
from webapp.systems.models import System
from webapp.uploads import (
    CSV_TOO_LARGE,
    UploadRefused,
    check_size,
    decode_text,
    read_bytes,
)

DOSES_MAX_BYTES = 20 * 1024 * 1024  # the ministry's full table per crop and target is large
NEITHER = "The file is neither UTF-8 nor Windows-1252 text. Save it as CSV (UTF-8)."


class ReferenceDoseImport(db.Model):
    __tablename__ = "reference_dose_imports"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    filename: Mapped[str] = mapped_column(String(255))
    rows: Mapped[int] = mapped_column(Integer)
    csv_text: Mapped[str] = mapped_column(Text)
    # The ministry's dose table gives AMM numbers only; its product list names them.
    names_filename: Mapped[str | None] = mapped_column(String(255), nullable=True)
    names_csv: Mapped[str | None] = mapped_column(Text, nullable=True)
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


def import_doses(
    text: str,
    filename: str,
    user: User | None,
    names: tuple[str, str] | None = None,
) -> tuple[ReferenceDoseImport, ReferenceDoses]:
    """Store a reference-dose CSV as the table in force, with names, a product list's (text,
    filename) naming its AMM numbers, once both read without a problem (Invalid naming every
    bad line otherwise, and nothing stored); with the table it reads as. The caller commits."""
    name = (filename.strip() or "reference doses")[:255]
    names_text, names_file = names or (None, None)
    table = read_table(text, name, names_text)
    if not len(table):
        raise Invalid("The CSV has no dose rows.", code="csv_empty")
    stored = ReferenceDoseImport(
        filename=name,
        rows=len(table),
        csv_text=text,
        names_filename=(names_file.strip() or "product names")[:255] if names else None,
        names_csv=names_text,
        imported_by=user,
    )
    db.session.add(stored)
    db.session.flush()
    return stored, table


def read_dose_file(source: bytes | BinaryIO) -> str:
    """A dose table's text: UTF-8, as the ministry's IFT API writes it, else Windows-1252, as a
    spreadsheet saves a French CSV; UploadRefused for a file too large, binary or in neither."""
    data = read_bytes(source, DOSES_MAX_BYTES)
    check_size(data, DOSES_MAX_BYTES, CSV_TOO_LARGE)
    try:
        return decode_text(data, advice="Save it as CSV (UTF-8).")
    except UploadRefused as refused:
        if refused.code != "not_utf8":
            raise
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise UploadRefused("not_utf8", NEITHER) from None


def read_table(text: str, filename: str, names_text: str | None, label: str = "") -> ReferenceDoses:
    """The table a dose CSV (and the product list naming its AMM numbers) reads as, its doses
    citing label, else the file's name."""
    names = read_product_names_csv(names_text) if names_text is not None else None
    source = label or f"imported table “{filename}”"
    return read_reference_doses_csv(text, source=source, names=names)


def imported_summary(stored: ReferenceDoseImport, table: ReferenceDoses) -> str:
    """What an import stored, for the person who made it."""
    named = f", named by “{stored.names_filename}”" if stored.names_filename else ""
    skipped = (
        f"; {table.without_dose} row(s) the ministry gives no dose were skipped"
        if table.without_dose
        else ""
    )
    return f"{stored.rows} reference dose(s) from “{stored.filename}”{named}{skipped}"


def current_import() -> ReferenceDoseImport | None:
    """The newest import, or None."""
    return db.session.scalars(
        select(ReferenceDoseImport).order_by(ReferenceDoseImport.id.desc()).limit(1)
    ).first()


def table_label() -> str:
    """The table the IFT calculator reads, as people are told it."""
    found = current_import()
    if found is None:
        return f"the bundled sample of {len(reference_doses())} doses (no table imported)"
    return f"the {found.label}, {found.rows} dose(s)"


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
    stored = db.session.get(ReferenceDoseImport, import_id)
    return read_table(stored.csv_text, stored.filename, stored.names_csv, label)


def systems_dose_coverage(ids: Iterable[int] = ()) -> list[tuple[System, DoseCoverage]]:
    """Each system's treatments the table in force gives a reference dose (those of ids, else
    every system); LookupError naming the first id without a system."""
    wanted = list(dict.fromkeys(ids))
    query = select(System).order_by(System.id)
    found = db.session.scalars(query.where(System.id.in_(wanted)) if wanted else query).all()
    if missing := [i for i in wanted if i not in {s.id for s in found}]:
        raise LookupError(f"no system #{missing[0]}")
    table = reference_doses()
    return [(system, dose_coverage([system.document or {}], table)) for system in found]


read_imported_from(imported_doses)
