import io

from sqlalchemy import func, select

from tests.library.files import SOIL_PDF_LINES, long_markdown, pdf_with_text, read_by_the_worker
from webapp.auth.models import ApiToken
from webapp.extensions import db
from webapp.library.models import Document, PassageRecord

DOCUMENTS = "/api/v1/library/documents"
PASSAGE_FIELDS = {"id", "document_id", "title", "url", "text", "snippet", "score", "source_kind"}


def bearer(client_as, role: str) -> dict[str, str]:
    user = client_as(role).user
    _, secret = ApiToken.issue(user, "tests")
    db.session.commit()
    return {"Authorization": f"Bearer {secret}"}


def post_file(client, headers, filename: str, data: bytes, title: str | None = None):
    form = {"file": (io.BytesIO(data), filename)}
    if title is not None:
        form["title"] = title
    return client.post(DOCUMENTS, data=form, headers=headers, content_type="multipart/form-data")


def test_an_editor_uploads_with_a_token_and_lists_documents(client, client_as, worker):
    headers = bearer(client_as, "editor")
    response = post_file(client, headers, "guide.pdf", pdf_with_text(SOIL_PDF_LINES), "Guide")
    assert response.status_code == 201
    body = response.get_json()
    assert body["title"] == "Guide" and body["kind"] == "pdf" and body["passages"] == 0
    assert body["status"] == "extracting"  # a worker reads the PDF
    assert body["created_by"].startswith("editor-") and body["created_at"].endswith("Z")
    read_by_the_worker(body["id"])
    cover = post_file(client, headers, "cover.md", long_markdown(12).encode()).get_json()
    assert cover["status"] == "ready" and cover["passages"] > 1  # text is read at once
    listing = client.get(f"{DOCUMENTS}?per_page=1", headers=headers).get_json()
    assert listing["total"] == 2 and listing["pages"] == 2
    assert [d["title"] for d in listing["documents"]] == ["cover.md"]
    assert listing["documents"][0]["passages"] > 1
    assert "text" not in listing["documents"][0]
    guide = client.get(f"{DOCUMENTS}?page=2&per_page=1", headers=headers).get_json()
    assert guide["documents"][0]["passages"] == 1 and guide["documents"][0]["status"] == "ready"


def test_refused_uploads_are_422_with_a_code_and_store_nothing(client, client_as):
    headers = bearer(client_as, "editor")
    whole = pdf_with_text(SOIL_PDF_LINES)
    cases = [
        (("fake.pdf", whole[20:300]), "not_a_pdf"),
        (("image.png", b"\x89PNG"), "unsupported_type"),
        (("latin.txt", "Möhre".encode("latin-1")), "not_utf8"),
        (("blank.pdf", b""), "empty_file"),
        (("long.txt", b"text", "t" * 201), "title_too_long"),
    ]
    for args, code in cases:
        response = post_file(client, headers, *args)
        assert response.status_code == 422, args[0]
        error = response.get_json()["error"]
        assert error["code"] == code and "Nothing was stored." in error["message"]
    missing = client.post(DOCUMENTS, data={}, headers=headers, content_type="multipart/form-data")
    assert missing.status_code == 422 and missing.get_json()["error"]["code"] == "file_missing"
    assert db.session.scalar(select(func.count()).select_from(Document)) == 0
    assert db.session.scalar(select(func.count()).select_from(PassageRecord)) == 0


def test_viewers_search_and_list_but_do_not_upload(client, client_as):
    headers = bearer(client_as, "viewer")
    assert client.get(DOCUMENTS, headers=headers).status_code == 200
    response = post_file(client, headers, "a.txt", b"text")
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == "forbidden"
    assert client.get("/api/v1/library/search?q=x").status_code == 401


def test_a_session_post_needs_the_csrf_header(client_as):
    editor = client_as("editor")
    response = editor.post(
        DOCUMENTS, data={"file": (io.BytesIO(b"x"), "a.txt")}, content_type="multipart/form-data"
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "csrf_failed"
    ok = editor.post(
        DOCUMENTS,
        data={"file": (io.BytesIO(b"x"), "a.txt")},
        content_type="multipart/form-data",
        headers={"X-CSRFToken": editor.csrf_token()},
    )
    assert ok.status_code == 201


def test_search_returns_passages_with_every_field(client, client_as):
    headers = bearer(client_as, "viewer")
    post_file(client, bearer(client_as, "editor"), "tomato.txt", b"Tomato nitrogen trial notes.")
    response = client.get("/api/v1/library/search?q=tomato+nitrogen+trial&limit=3", headers=headers)
    results = response.get_json()["results"]
    assert response.status_code == 200 and len(results) == 3
    assert all(set(r) == PASSAGE_FIELDS for r in results)
    assert results[0]["source_kind"] == "document" and results[0]["url"] is None
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    tomato = client.get("/api/v1/library/search?q=tomato", headers=headers).get_json()
    reference = next(r for r in tomato["results"] if r["source_kind"] == "reference")
    assert reference["document_id"] is None and reference["url"].startswith("https://")


def test_search_answers_hostile_queries_and_checks_the_limit(client, client_as):
    headers = bearer(client_as, "viewer")
    for query in ['"', "NEAR(a b)", "*", "(a OR", "AND OR", "🍅", "", "x'--"]:
        response = client.get("/api/v1/library/search", query_string={"q": query}, headers=headers)
        assert response.status_code == 200, query
        assert isinstance(response.get_json()["results"], list)
    assert client.get("/api/v1/library/search?q=", headers=headers).get_json() == {"results": []}
    for limit in ["0", "51", "-1", "ten", "1.5"]:
        response = client.get(f"/api/v1/library/search?q=tomato&limit={limit}", headers=headers)
        assert response.status_code == 422, limit
        assert response.get_json()["error"]["code"] == "invalid_limit"


def test_a_pdf_that_cannot_be_read_is_stored_and_ends_with_the_reason(client, client_as, worker):
    headers = bearer(client_as, "editor")
    broken = pdf_with_text(SOIL_PDF_LINES)[:300]
    response = post_file(client, headers, "broken.pdf", broken)
    assert response.status_code == 201
    document = read_by_the_worker(response.get_json()["id"])
    assert document.status == "failed" and document.passages == []
    assert document.error.startswith("The PDF is damaged or cannot be read")
    listing = client.get(DOCUMENTS, headers=headers).get_json()["documents"]
    assert listing[0]["status"] == "failed" and listing[0]["error"] == document.error
