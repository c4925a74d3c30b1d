import dataclasses
import io

from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from tests.library.files import (
    SOIL_PDF_LINES,
    inflating_pdf,
    long_markdown,
    pdf_with_text,
    read_by_the_worker,
)
from tests.support.app import HTMX
from tests.support.html import by_id
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.library.models import Document, PassageRecord

UPLOAD = "/library/upload"


def upload(client, filename: str, data: bytes, title: str = ""):
    return client.submit(
        UPLOAD, {"file": (io.BytesIO(data), filename), "title": title}, page=UPLOAD
    )


def counts() -> tuple[int, int]:
    return (
        db.session.scalar(select(func.count()).select_from(Document)),
        db.session.scalar(select(func.count()).select_from(PassageRecord)),
    )


def test_an_editor_uploads_a_pdf_and_reads_its_text(client_as, worker):
    editor = client_as("editor")
    assert editor.get(UPLOAD).status_code == 200
    response = upload(editor, "soil guide.pdf", pdf_with_text(SOIL_PDF_LINES), "Soil <guide>")
    assert response.status_code == 302
    document = read_by_the_worker(db.session.scalars(select(Document)).one().id)
    assert document.status == "ready" and document.pending_file is None
    assert (document.title, document.filename, document.kind) == (
        "Soil <guide>",
        "soil guide.pdf",
        "pdf",
    )
    assert document.created_by_id == editor.user.id
    assert document.size_bytes > 0
    page = editor.get(response.headers["Location"]).get_data(as_text=True)
    assert "Soil &lt;guide&gt;" in page and "Soil <guide>" not in page
    assert "Take twenty cores per field at 0-30 cm depth in a zigzag.<br>" in page
    assert "its text is being read" in page


def test_the_title_defaults_to_the_file_name_and_text_is_escaped(client_as):
    editor = client_as("editor")
    body = "<script>alert(1)</script>\n\nSecond paragraph & more."
    response = upload(editor, "../home/me/notes.txt", body.encode())
    assert response.status_code == 302
    document = db.session.scalars(select(Document)).one()
    assert (document.title, document.filename, document.kind) == ("notes.txt", "notes.txt", "text")
    page = editor.get(f"/library/documents/{document.id}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    assert "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>" in page
    assert "<p>Second paragraph &amp; more.</p>" in page
    assert f"<dd>{len(body.encode())} bytes</dd>" in page


def test_a_broken_pdf_ends_with_the_reason_on_its_page_and_no_passages(client_as, worker):
    editor = client_as("editor")
    upload(editor, "ok.md", long_markdown(8).encode())
    before = counts()
    whole = pdf_with_text(SOIL_PDF_LINES)
    response = upload(editor, "broken.pdf", whole[: len(whole) // 2], "Keep this title")
    assert response.status_code == 302
    document = read_by_the_worker(
        db.session.scalars(select(Document).filter_by(kind="pdf")).one().id
    )
    page = editor.get(response.headers["Location"]).get_data(as_text=True)
    assert "The text could not be extracted: The PDF is damaged or cannot be read" in page
    assert document.pending_file is None  # nothing to read again
    assert counts() == (before[0] + 1, before[1])
    listing = editor.get("/library").get_data(as_text=True)
    assert "not readable" in listing


def test_wrong_types_and_too_large_files_are_refused(app, client_as, monkeypatch):
    editor = client_as("editor")
    cases = [
        ("slides.pptx", b"PK\x03\x04", "Upload a PDF, Markdown (.md), text (.txt) or HTML"),
        ("fake.pdf", b"hello", "is not a PDF"),
        ("latin.txt", "Möhre".encode("latin-1"), "not UTF-8"),
    ]
    for filename, data, message in cases:
        response = upload(editor, filename, data)
        assert response.status_code == 422, filename
        assert message in response.get_data(as_text=True)
    settings = dataclasses.replace(app.config["FURROW"], max_upload_mb=1)
    monkeypatch.setitem(app.config, "FURROW", settings)
    # Encoded in memory: the test client would spool a body this large to a file it never closes.
    boundary, body = encode_multipart(
        {
            "csrf_token": editor.csrf_token(UPLOAD),
            "file": FileStorage(io.BytesIO(b"word " * 210_000), "big.txt"),
        }
    )
    response = editor.post(
        UPLOAD, data=body, content_type=f"multipart/form-data; boundary={boundary}"
    )
    assert response.status_code == 422
    assert "larger than the 1 MB the library takes" in response.get_data(as_text=True)
    missing = editor.submit(UPLOAD, {"title": "no file"}, page=UPLOAD)
    assert missing.status_code == 422
    assert "Choose a file to upload." in missing.get_data(as_text=True)
    assert counts() == (0, 0)


def test_viewers_read_and_search_but_do_not_upload_or_delete(client_as):
    editor = client_as("editor")
    upload(editor, "thrips.md", b"Onion thrips in dry summers.")
    document_id = db.session.scalars(select(Document.id)).one()
    viewer = client_as("viewer")
    assert viewer.get("/library").status_code == 200
    assert "thrips" in viewer.get("/library?q=thrips").get_data(as_text=True)
    assert viewer.get(f"/library/documents/{document_id}").status_code == 200
    assert viewer.get(UPLOAD).status_code == 403
    assert upload(viewer, "x.txt", b"x").status_code == 403
    assert viewer.submit(f"/library/documents/{document_id}/delete").status_code == 403
    assert editor.submit(f"/library/documents/{document_id}/delete").status_code == 403
    assert "Upload document" not in viewer.get("/library").get_data(as_text=True)
    assert viewer.get("/library/documents/999999").status_code == 404


def test_a_post_without_its_csrf_token_is_refused(client_as):
    editor = client_as("editor")
    response = editor.post(
        UPLOAD, data={"file": (io.BytesIO(b"text"), "a.txt")}, content_type="multipart/form-data"
    )
    assert response.status_code == 400
    assert counts() == (0, 0)


def test_a_reviewer_deletes_a_document_with_its_passages(client_as):
    upload(client_as("editor"), "cover.md", long_markdown(12).encode())
    document_id = db.session.scalars(select(Document.id)).one()
    reviewer = client_as("reviewer")
    page = reviewer.get(f"/library/documents/{document_id}").get_data(as_text=True)
    assert f'action="/library/documents/{document_id}/delete"' in page
    response = reviewer.submit(f"/library/documents/{document_id}/delete")
    assert response.status_code == 302
    assert counts() == (0, 0)
    assert "Nothing in the library matches" in reviewer.get("/library?q=phacelia").get_data(
        as_text=True
    )


def test_search_results_show_kind_escaped_snippets_and_safe_links(client_as):
    editor = client_as("editor")
    upload(editor, "notes.md", b"Tomato <em>nitrogen</em> & <script>alert(1)</script> trial.")
    document_id = db.session.scalars(select(Document.id)).one()
    page = editor.get("/library?q=tomato+nitrogen").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page and "<em>" not in page
    assert "&lt;em&gt;<strong>nitrogen</strong>&lt;/em&gt; &amp; &lt;script&gt;" in page
    assert f'href="/library/documents/{document_id}"' in page
    assert 'rel="noopener noreferrer nofollow">Tomato: FAO Land &amp; Water' in page
    assert '<span class="badge">reference</span>' in page
    assert '<span class="badge">document</span>' in page
    assert "Results for “tomato nitrogen”" in page


def test_htmx_search_renders_the_results_alone_and_hostile_queries_answer(htmx_client_as):
    viewer = htmx_client_as("viewer")
    response = viewer.get("/library?q=wheat")
    fragment = response.get_data(as_text=True)
    assert response.status_code == 200
    assert fragment.lstrip().startswith('<section id="search-results"')
    assert "<html" not in fragment and "<strong>wheat</strong>" in fragment.lower()
    for query in ['"', "NEAR(", "a* OR (", "AND OR", "🍅", "<b>x</b>"]:
        response = viewer.get("/library", query_string={"q": query})
        assert response.status_code == 200, query
        assert "<b>x</b>" not in response.get_data(as_text=True)


def test_the_document_list_is_paged_and_in_the_navigation(client_as):
    editor = client_as("editor")
    for n in range(27):
        upload(editor, f"note-{n:02}.txt", f"Note {n}".encode())
    first = editor.get("/library").get_data(as_text=True)
    assert "27 document(s)." in first and "Page 1 of 2" in first
    assert 'href="/library" aria-current="page">Library</a>' in first
    second = editor.get("/library?page=2").get_data(as_text=True)
    assert "note-00.txt" in second and "note-26.txt" not in second


def test_the_inflating_pdf_is_stored_at_once_and_read_by_a_bounded_worker_run(
    client_as, worker, monkeypatch
):
    """Issue 11 §6: a 31 KB PDF whose stream inflates to 10 MB of text operators took 6.7 s
    in the web worker and grew it to 592 MB. Now the upload only stores it; the web process
    never parses a PDF, and the worker's run ends the document with the reason."""

    def no_parsing_here(*args, **kwargs):
        raise AssertionError("the web process parsed a PDF")

    monkeypatch.setattr("pypdf.PdfReader", no_parsing_here)  # imported by the reading
    editor = client_as("editor")
    data = inflating_pdf()
    assert len(data) < 64 * 1024
    response = upload(editor, "drill.pdf", data)
    assert response.status_code == 302
    document = db.session.scalars(select(Document)).one()
    status = editor.get(response.headers["Location"], headers=HTMX).get_data(as_text=True)
    assert status.lstrip().startswith('<section id="document-body"')
    document = read_by_the_worker(document.id)
    assert document.status == "failed" and document.text == ""
    assert document.error == (
        "A part of the PDF inflates to more than 4 MB; the library does not read it."
    )
    ended = editor.get(response.headers["Location"], headers=HTMX).get_data(as_text=True)
    assert "hx-trigger" not in ended and "inflates to more than 4 MB" in ended
    run = db.session.scalars(select(Run).filter_by(kind="pdf_extraction")).one()
    assert run.status == "failed"


def test_while_the_text_is_read_the_page_polls_the_run(client_as, idle_queue):
    editor = client_as("editor")
    response = upload(editor, "guide.pdf", pdf_with_text(SOIL_PDF_LINES))
    section = by_id(editor.get(response.headers["Location"]), "document-body")
    assert section["hx-trigger"] == "every 1s"
    assert "Extracting the text…" in section.get_text()
    assert section.select_one("progress") is not None
