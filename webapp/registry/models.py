"""A registry review as stored: the review (its checklist kept whole, so an imported one stays
as it was), its documents (files under the instance, pages once read), its requirements with
the evidence the last run found, and the model's answers kept by cache key.

Verdicts, the overall outcome and the fields reviewers enter are not columns: they are
decisions in the audit trail (webapp.review), read back by webapp.registry.target."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db
from webapp.registry.checklist import Checklist


class ReviewStatus:
    draft = "draft"  # documents being added; never assessed
    assessed = "assessed"  # a run finished: evidence, coverage and checks are there


class Review(db.Model):
    __tablename__ = "registry_reviews"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # The checklist as the review was made with it (Checklist.model_dump(mode="json")).
    checklist: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default=ReviewStatus.draft)
    reviewer_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # The run whose evidence and checks the review shows.
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    reviewer: Mapped[User | None] = relationship(foreign_keys=[reviewer_id])
    created_by: Mapped[User | None] = relationship(foreign_keys=[created_by_id])
    documents: Mapped[list[ReviewDocument]] = relationship(
        order_by="ReviewDocument.id",
        cascade="all, delete-orphan",
        passive_deletes=True,
        back_populates="review",
    )
    requirements: Mapped[list[ReviewRequirement]] = relationship(
        order_by="ReviewRequirement.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
        back_populates="review",
    )

    @property
    def methodology(self) -> Checklist:
        return Checklist.model_validate(self.checklist, strict=False)

    @property
    def checklist_name(self) -> str:
        version = self.checklist.get("version")
        name = self.checklist["methodology_name"]
        return f"{name} v{version}" if version else name


class ReviewDocument(db.Model):
    __tablename__ = "registry_documents"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    review_id: Mapped[int] = mapped_column(
        ForeignKey("registry_reviews.id", ondelete="CASCADE"), index=True
    )
    filename: Mapped[str] = mapped_column(String(255))  # as uploaded, cleaned
    stored_name: Mapped[str] = mapped_column(String(64), unique=True)  # generated
    kind: Mapped[str] = mapped_column(String(16))  # pdf | markdown | text | csv | xlsx
    size_bytes: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    # A DocumentType; classified by name on upload, by content once read, or set by a person.
    document_type: Mapped[str] = mapped_column(String(32))
    type_set_by_person: Mapped[bool] = mapped_column(Boolean, default=False)
    # A DateStyle, when the text shows how it writes dates.
    date_style: Mapped[str | None] = mapped_column(String(16))
    # Each page's text, page 1 first, once read (a PDF's or a workbook's in the run's
    # discovery); None before.
    pages: Mapped[list[str] | None] = mapped_column(JSON)
    # Why the file could not be read (a PDF or workbook over the limits, no text at all).
    error: Mapped[str | None] = mapped_column(Text)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    review: Mapped[Review] = relationship(back_populates="documents")
    created_by: Mapped[User | None] = relationship()


class ReviewRequirement(db.Model):
    """One requirement of a review's checklist: the record its verdict is decided on."""

    __tablename__ = "registry_requirements"
    __table_args__ = (
        db.UniqueConstraint("review_id", "requirement_id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    review_id: Mapped[int] = mapped_column(
        ForeignKey("registry_reviews.id", ondelete="CASCADE"), index=True
    )
    requirement_id: Mapped[str] = mapped_column(String(32))
    position: Mapped[int] = mapped_column(Integer)
    # A Coverage once assessed; None before the first run.
    status: Mapped[str | None] = mapped_column(String(16))
    # The passages the last run found, as the review vocabulary stores evidence
    # (evidence.Passage.to_dict(): Evidence.to_dict() with its confidence); rows stored before
    # are in the snippet shape, which Passage.from_dict reads too.
    snippets: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    # Why the model's passages were not evidence (a page that does not exist, a quote not there).
    problems: Mapped[list[str]] = mapped_column(JSON, default=list)

    review: Mapped[Review] = relationship(back_populates="requirements")


class EvidenceAnswer(db.Model):
    """A model's answer for one requirement and one document, by extraction.cache_key: the
    same document asked the same way is not paid for twice."""

    __tablename__ = "registry_evidence_answers"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    answer: Mapped[dict[str, Any]] = mapped_column(JSON)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
