"""A library document and the passages it is split into; reference passages have no document.

The full-text index over passages is not part of these models: the migration creates it (an
FTS5 table kept in step by triggers on SQLite, a GIN expression index on PostgreSQL).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, deferred, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db

READY, EXTRACTING, FAILED = "ready", "extracting", "failed"


class Document(db.Model):
    __tablename__ = "library_documents"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    filename: Mapped[str] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(16))  # pdf | markdown | text | html
    size_bytes: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    # ready | extracting (a PDF waiting for its extraction run) | failed (error says why)
    status: Mapped[str] = mapped_column(String(16), default=READY, server_default=READY)
    error: Mapped[str | None] = mapped_column(Text)
    # A PDF's bytes until its extraction run has read them; never loaded with the document.
    pending_file: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    created_by: Mapped[User | None] = relationship()
    passages: Mapped[list[PassageRecord]] = relationship(
        order_by="PassageRecord.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
        back_populates="document",
    )


class PassageRecord(db.Model):
    __tablename__ = "library_passages"
    __table_args__ = (
        db.Index("ix_library_passages_document_position", "document_id", "position"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int | None] = mapped_column(
        ForeignKey("library_documents.id", ondelete="CASCADE")
    )
    source_kind: Mapped[str] = mapped_column(String(16), index=True)  # "document" | "reference"
    title: Mapped[str] = mapped_column(String(300))
    url: Mapped[str | None] = mapped_column(String(2000))
    text: Mapped[str] = mapped_column(Text)
    position: Mapped[int] = mapped_column(Integer, default=0)

    document: Mapped[Document | None] = relationship(back_populates="passages")


# The full-text index is made by the migration, not by these models; autogenerate must not
# take it (the FTS5 table with its shadow tables, or the GIN index) for something to drop.
FTS_TABLE = "library_passages_fts"
FTS_INDEX = "ix_library_passages_fts"


def is_search_index(name: str | None, type_: str) -> bool:
    if type_ == "table":
        return name == FTS_TABLE or (name or "").startswith(f"{FTS_TABLE}_")
    return type_ == "index" and name == FTS_INDEX
