"""A review's documents: checked uploads kept under the instance by generated names (never the
name a client sent), their pages once read, and their kind. Text, Markdown and CSV are read on
upload; a PDF or an Excel workbook is read by the review's run (discovery), in the library's
sandbox — the web process never parses either, it only checks what kind of file it is."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from pathlib import Path

from flask import current_app

from webapp.auth.models import User
from webapp.extensions import db
from webapp.library.documents import max_upload_bytes
from webapp.library.extract import check_pdf, check_upload, storable
from webapp.library.sandbox import bounded_pages, bounded_pdf_pages
from webapp.registry.dates import date_style
from webapp.registry.discovery import TEXT_PAGES, DocumentType, classify
from webapp.registry.evidence import SourceDocument
from webapp.registry.models import Review, ReviewDocument
from webapp.registry.pages import Page, pages_of
from webapp.registry.sheets import check_xlsx, csv_pages, xlsx_pages
from webapp.uploads import UploadRefused, decode_text

# Submissions carry their figures as spreadsheets too: a CSV is read as one page of cells, an
# Excel workbook as a page per sheet.
EXTENSIONS = {
    "pdf": "pdf",
    "md": "markdown",
    "markdown": "markdown",
    "txt": "text",
    "csv": "csv",
    "xlsx": "xlsx",
}
UNSUPPORTED = "Upload a PDF, Markdown (.md), text (.txt), CSV (.csv) or Excel (.xlsx) file."
SUFFIXES = {"pdf": ".pdf", "markdown": ".md", "text": ".txt", "csv": ".csv", "xlsx": ".xlsx"}
READ_BY_RUN = {"pdf", "xlsx"}  # kinds read in the sandbox by the review's run, not on upload
MOST_DOCUMENTS = 50  # in one review


def files_dir() -> Path:
    return current_app.config["FURROW"].instance_path / "registry"


def file_path(document: ReviewDocument) -> Path:
    return files_dir() / document.stored_name


def add_document(review: Review, filename: str, data: bytes, user: User | None) -> ReviewDocument:
    """Check the file, keep it under the instance and add the document (flushed, not
    committed); UploadRefused says what is wrong, and then nothing is kept."""
    name, kind = check_upload(filename, data, max_upload_bytes(), EXTENSIONS, UNSUPPORTED)
    # Documents are named to people, and by API clients, by their file names: two sharing one
    # could not be told apart, so the second is refused and the uploader renames or replaces.
    same = next((d for d in review.documents if name_key(d.filename) == name_key(name)), None)
    if same is not None:
        raise UploadRefused(
            "duplicate_name",
            f"The review already has a document named {same.filename}: rename the file to keep "
            f"both, or delete {same.filename} first to replace it.",
        )
    if len(review.documents) >= MOST_DOCUMENTS:
        raise UploadRefused(
            "too_many_documents", f"A review holds at most {MOST_DOCUMENTS} documents."
        )
    pages = None
    if kind == "pdf":
        check_pdf(data)
    elif kind == "xlsx":
        check_xlsx(data)
    else:
        text = storable(decode_text(data))
        if not text:
            raise UploadRefused("no_text", "The file contains no text to read.")
        pages = csv_pages(text) if kind == "csv" else text.split("\f")
    document = ReviewDocument(
        review=review,
        filename=name,
        stored_name=secrets.token_hex(16) + SUFFIXES[kind],
        kind=kind,
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        document_type=DocumentType.other.value,
        created_by=user,
    )
    set_pages(document, pages)
    folder = files_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / document.stored_name).write_bytes(data)
    db.session.add(document)
    db.session.flush()
    return document


def name_key(filename: str) -> str:
    """A file name as people read it: "Plan.pdf", the fullwidth "ｐｌａｎ.pdf" and "é" written
    as one character or as e and an accent all look alike, so they are one name (NFKC
    normalisation with case folding, as Unicode defines it for comparing identifiers)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", filename).casefold())


def set_pages(document: ReviewDocument, texts: list[str] | None) -> None:
    """The document's pages (None: not read yet), the kind they show unless a person set it,
    and how they write dates."""
    document.pages = texts
    if not document.type_set_by_person:
        document.document_type = detected_type(document)
    style = date_style("\n".join(texts)) if texts else None
    document.date_style = style.value if style else None


def read_in_sandbox(document: ReviewDocument) -> None:
    """Read a stored PDF's pages, or a workbook's sheets, in the sandbox; a file that breaks a
    limit or cannot be read keeps the reason and no pages."""
    try:
        data = file_path(document).read_bytes()
        if document.kind == "xlsx":
            texts = bounded_pages(data, xlsx_pages, name="workbook", code="xlsx")
        else:
            texts = bounded_pdf_pages(data)
    except UploadRefused as refused:
        document.error = str(refused)
        return
    except FileNotFoundError:
        document.error = "The file is missing from the server; upload it again."
        return
    document.error = None
    set_pages(document, [storable(t) for t in texts])


def detected_type(document: ReviewDocument) -> str:
    """The kind the document's name and first pages show."""
    return classify(document.filename, (document.pages or [])[:TEXT_PAGES]).value


def set_type(document: ReviewDocument, kind: str | None) -> None:
    """A person's correction of the document's kind (None: back to the kind its name and
    pages show); ValueError for an unknown kind."""
    if kind is None:
        document.document_type = detected_type(document)
        document.type_set_by_person = False
        return
    document.document_type = DocumentType(kind).value
    document.type_set_by_person = True


def pages(document: ReviewDocument) -> list[Page]:
    return pages_of(document.pages or [])


def source_documents(review: Review) -> list[SourceDocument]:
    """The review's documents as evidence is looked for in them (those read)."""
    return [
        SourceDocument(d.id, d.filename, DocumentType(d.document_type), pages(d))
        for d in review.documents
        if d.pages is not None
    ]


def remove_files(stored_names: list[str]) -> None:
    """Delete documents' files, after their rows are gone (a file already gone is fine)."""
    for name in stored_names:
        (files_dir() / name).unlink(missing_ok=True)
