"""Storing, listing and describing library documents."""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy import Select, func, select
from werkzeug.datastructures import FileStorage

from webapp.auth.models import User
from webapp.extensions import db
from webapp.library.extract import extract, split_passages
from webapp.library.models import Document, PassageRecord
from webapp.text import control_character_problem
from webapp.uploads import UploadRefused, read_bytes

PER_PAGE = 25
TITLE_MAX = 200


def max_upload_bytes() -> int:
    return current_app.config["FURROW"].max_upload_mb * 1024 * 1024


def read_upload(upload: FileStorage | None) -> tuple[str, bytes]:
    """The upload's name and bytes, reading at most one byte more than the library takes."""
    if upload is None or not upload.filename:
        raise UploadRefused("file_missing", "Choose a file to upload.")
    return upload.filename, read_bytes(upload.stream, max_upload_bytes())


def add_document(filename: str, data: bytes, title: str | None, user: User | None) -> Document:
    """Extract, split and add a document with its passages to the session (flushed, not
    committed). Everything is checked before anything is added, so a refused file leaves the
    session as it was; the caller commits, or rolls back on any error."""
    extracted = extract(filename, data, max_upload_bytes())
    title = (title or "").strip()
    if len(title) > TITLE_MAX:
        raise UploadRefused("title_too_long", f"Use a title of at most {TITLE_MAX} characters.")
    if problem := control_character_problem(title):
        raise UploadRefused("title_malformed", f"Title: {problem}")
    title = title or extracted.filename[:TITLE_MAX]
    document = Document(
        title=title,
        filename=extracted.filename,
        kind=extracted.kind,
        size_bytes=len(data),
        text=extracted.text,
        created_by=user,
    )
    document.passages = [
        PassageRecord(source_kind="document", title=title, url=None, text=text, position=i)
        for i, text in enumerate(split_passages(extracted.text))
    ]
    db.session.add(document)
    db.session.flush()
    return document


def documents_query() -> Select:
    return select(Document).order_by(Document.created_at.desc(), Document.id.desc())


def passage_counts(documents: list[Document]) -> dict[int, int]:
    ids = [d.id for d in documents]
    if not ids:
        return {}
    rows = db.session.execute(
        select(PassageRecord.document_id, func.count())
        .where(PassageRecord.document_id.in_(ids))
        .group_by(PassageRecord.document_id)
    )
    return {document_id: count for document_id, count in rows}


def to_dict(document: Document, passages: int) -> dict[str, Any]:
    """The API shape of a document, without its text."""
    return {
        "id": document.id,
        "title": document.title,
        "filename": document.filename,
        "kind": document.kind,
        "size_bytes": document.size_bytes,
        "passages": passages,
        "created_by": document.created_by.email if document.created_by else None,
        "created_at": document.created_at.isoformat().replace("+00:00", "Z"),
    }
