"""Storing, listing and describing library documents."""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy import Select, func, select
from werkzeug.datastructures import FileStorage

from webapp.auth.models import User
from webapp.extensions import db
from webapp.jobs.kinds import RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.library.extract import check_pdf, check_upload, extract, split_passages, storable
from webapp.library.models import EXTRACTING, FAILED, READY, Document, PassageRecord
from webapp.library.sandbox import bounded_pdf_text
from webapp.text import control_character_problem
from webapp.uploads import UploadRefused, read_bytes

PER_PAGE = 25
TITLE_MAX = 200
TARGET = "library_document"  # what an extraction run names as its target


def max_upload_bytes() -> int:
    return current_app.config["FURROW"].max_upload_mb * 1024 * 1024


def read_upload(upload: FileStorage | None) -> tuple[str, bytes]:
    """The upload's name and bytes, reading at most one byte more than the library takes."""
    if upload is None or not upload.filename:
        raise UploadRefused("file_missing", "Choose a file to upload.")
    return upload.filename, read_bytes(upload.stream, max_upload_bytes())


def add_document(filename: str, data: bytes, title: str | None, user: User | None) -> Document:
    """Check and add a document to the session (flushed, not committed). Text, Markdown and
    HTML are read now, with their passages; a PDF is stored as it is, `extracting`, for an
    extraction run (start_extraction) — the web process never parses PDFs. Everything is
    checked before anything is added, so a refused file leaves the session as it was."""
    name, kind = check_upload(filename, data, max_upload_bytes())
    title = (title or "").strip()
    if len(title) > TITLE_MAX:
        raise UploadRefused("title_too_long", f"Use a title of at most {TITLE_MAX} characters.")
    if problem := control_character_problem(title):
        raise UploadRefused("title_malformed", f"Title: {problem}")
    title = title or name[:TITLE_MAX]
    document = Document(title=title, filename=name, kind=kind, size_bytes=len(data), text="")
    if kind == "pdf":
        check_pdf(data)
        document.status, document.pending_file = EXTRACTING, data
    else:
        set_text(document, extract(name, data, max_upload_bytes()).text)
    document.created_by = user
    db.session.add(document)
    db.session.flush()
    return document


def set_text(document: Document, text: str) -> None:
    """The document's text and its passages; it is ready."""
    document.text = text
    document.passages = [
        PassageRecord(source_kind="document", title=document.title, url=None, text=t, position=i)
        for i, t in enumerate(split_passages(text))
    ]
    document.status, document.error, document.pending_file = READY, None, None


def start_extraction(document: Document, user: User | None) -> Run:
    """Queue the run that reads a stored PDF (commits; QueueUnavailable if Redis is away, the
    run then failed and resumable)."""
    return enqueue_run(
        PdfExtraction, user, {"document_id": document.id}, target=(TARGET, document.id)
    )


def extraction_run(document: Document) -> Run | None:
    """The latest run that read (or is reading) the document, if it is a PDF."""
    return db.session.scalar(
        select(Run)
        .where(Run.target_type == TARGET, Run.target_id == document.id)
        .order_by(Run.id.desc())
        .limit(1)
    )


@register_kind
class PdfExtraction(RunKind):
    """One uploaded PDF read in a child process held to PdfLimits (webapp.library.sandbox).
    A PDF that cannot be read or breaks a limit ends `failed` with the reason, and the run with
    it; the file is then dropped."""

    name = "pdf_extraction"
    title = "PDF text extraction"
    result_labels = {"passages": "Passages", "status": "Status"}

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(params["document_id"])]

    def stage_for(self, key: str) -> str:
        return "extracting"

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        document = db.session.get(Document, int(key))
        if document is None:
            return {"error": "The document was deleted before its text was read."}
        if document.status != EXTRACTING:  # a resumed run whose item was done
            return {"status": document.status}
        try:
            text = storable(bounded_pdf_text(document.pending_file))
        except UploadRefused as refused:
            document.status, document.error, document.pending_file = FAILED, str(refused), None
            return {"error": document.error, "code": refused.code}
        set_text(document, text)
        return {"passages": len(document.passages)}

    def failed_items(self, run: Any) -> int:
        failed = [r for r in run.results.values() if isinstance(r, dict) and "error" in r]
        return len(run.item_errors) + len(failed)


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
        "status": document.status,
        "error": document.error,
        "created_by": document.created_by.email if document.created_by else None,
        "created_at": document.created_at.isoformat().replace("+00:00", "Z"),
    }
