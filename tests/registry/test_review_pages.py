"""The registry review pages as people use them: roles, creating a review with the bundled or an
imported checklist, uploads, the kind of a document, assessing, filters, entering a field from
a passage, verdicts, the outcome, undo, a page of a document, and deletion."""

import dataclasses
import io
import json

import pytest
import redis
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from tests.registry.test_review_records import DEED, PLAN
from tests.support.html import by_id, rows, soup
from tests.support.tables import run_here
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.jobs.queue import JobQueue
from webapp.registry import documents as docs
from webapp.registry import review_state
from webapp.registry.checklist import bundled
from webapp.registry.models import Review
from webapp.registry.runs import ReviewAssessment
from webapp.review.models import Change

pytestmark = pytest.mark.usefixtures("idle_queue")

SMALL_CHECKLIST = {
    "methodology_id": "test",
    "methodology_name": "Test methodology",
    "version": "0.1",
    "requirements": [
        {
            "requirement_id": "T-1",
            "category": "Land Tenure",
            "requirement_text": "Show who owns the land.",
            "accepted_evidence": "deed, lease, ownership",
            "validation_type": "structured_field",
            "structured_fields": ["owner_name"],
        }
    ],
}


def create(client, name="Denman farm", checklist: bytes | None = None):
    data = {"name": name}
    if checklist is not None:
        data["checklist"] = (io.BytesIO(checklist), "checklist.json")
    return client.submit(
        "/registry/new", data, page="/registry/new", content_type="multipart/form-data"
    )


def upload(client, review_id, *files):
    data = {"files": [(io.BytesIO(body), name) for name, body in files]}
    return client.submit(
        f"/registry/{review_id}/documents",
        data,
        page=f"/registry/{review_id}",
        content_type="multipart/form-data",
    )


def newest_review() -> Review:
    return db.session.scalars(db.select(Review).order_by(Review.id.desc())).first()


def assessed(client, *files: tuple[str, bytes]):
    """A new review with its files (the plan and the deed unless given), uploaded and assessed
    from its page, the run worked here."""
    assert create(client).status_code == 302
    review = newest_review()
    files = files or (("Project plan.pdf", PLAN), ("deed.md", DEED))
    assert upload(client, review.id, *files).status_code == 302
    response = client.submit(f"/registry/{review.id}/assess", page=f"/registry/{review.id}")
    assert response.status_code == 302
    db.session.refresh(review)
    run = run_here(db.session.get(Run, review.run_id), ReviewAssessment())
    assert run.status == "succeeded", run.item_errors
    db.session.refresh(review)
    return review


def requirement_url(review, requirement_id="REQ-002"):
    return f"/registry/{review.id}/requirements/{requirement_id}"


def test_viewers_are_refused_everywhere(client_as, make_user):
    editor = make_user("editor")
    from webapp.registry.review_state import create_review

    review = create_review("Hidden", None, editor)
    db.session.commit()
    viewer = client_as("viewer")
    for url in ("/registry", "/registry/new", f"/registry/{review.id}", requirement_url(review)):
        assert viewer.get(url).status_code == 403, url
    assert viewer.submit(f"/registry/{review.id}/assess").status_code == 403
    assert viewer.submit(f"/registry/{review.id}/delete").status_code == 403


def test_create_with_the_bundled_checklist_lists_and_opens_the_review(client_as):
    client = client_as("editor")
    assert create(client).headers["Location"].startswith("/registry/")
    review = newest_review()
    assert review.checklist_name == f"{bundled().methodology_name} v{bundled().version}"
    page = client.get(f"/registry/{review.id}")
    assert page.status_code == 200
    table = rows(by_id(page, "requirement-table"))
    assert len(table) == 23
    assert "Not assessed yet" in table[0][4]
    links = [a["href"] for a in soup(page).select(".page-header .actions a")]
    assert [f"/api/v1/reviews/{review.id}/report.{x}" for x in ("html", "md", "json")] == links[:3]
    listing = client.get("/registry")
    assert (
        by_id(listing, "reviews").find("a", string="Denman farm")["href"]
        == f"/registry/{review.id}"
    )


def test_create_with_an_imported_checklist_and_a_bad_one(client_as):
    client = client_as("editor")
    assert create(client, "Imported", json.dumps(SMALL_CHECKLIST).encode()).status_code == 302
    review = newest_review()
    assert review.checklist_name == "Test methodology v0.1" and len(review.requirements) == 1
    bad = dict(SMALL_CHECKLIST, requirements=[dict(SMALL_CHECKLIST["requirements"][0])])
    bad["requirements"][0]["validation_type"] = "guess"
    response = create(client, "Bad", json.dumps(bad).encode())
    assert response.status_code == 422
    assert "requirements[0].validation_type" in soup(response).find(class_="error").get_text()
    assert by_id(response, "name")["value"] == "Bad"
    assert create(client, "", None).status_code == 422
    assert db.session.scalar(db.select(db.func.count(Review.id))) == 1


def test_uploads_are_checked_and_refusals_keep_nothing(client_as, app, monkeypatch):
    client = client_as("editor")
    create(client)
    review = newest_review()
    kept = set(docs.files_dir().glob("*"))  # other tests' files may be there
    response = upload(client, review.id, ("notes.exe", b"MZ\x90\x00binary"))
    assert response.status_code == 422
    assert "notes.exe" in soup(response).find(id="upload-form").get_text()
    settings = dataclasses.replace(app.config["FURROW"], max_upload_mb=1)
    monkeypatch.setitem(app.config, "FURROW", settings)
    # Encoded in memory: the test client would spool a body this large to a file it never closes.
    boundary, body = encode_multipart(
        {
            "csrf_token": client.csrf_token(f"/registry/{review.id}"),
            "files": FileStorage(io.BytesIO(b"word " * 210_000), "big.txt"),
        }
    )
    response = client.post(
        f"/registry/{review.id}/documents",
        data=body,
        content_type=f"multipart/form-data; boundary={boundary}",
    )
    assert response.status_code == 422
    assert "big.txt" in by_id(response, "upload-form").get_text()
    db.session.refresh(review)
    assert review.documents == []
    assert set(docs.files_dir().glob("*")) == kept
    assert upload(client, review.id, ("deed.md", DEED), ("plan.pdf", PLAN)).status_code == 302
    db.session.refresh(review)
    assert [d.filename for d in review.documents] == ["deed.md", "plan.pdf"]
    table = rows(by_id(client.get(f"/registry/{review.id}"), "document-table"))
    assert table[0][1] == "Markdown" and table[1][1] == "PDF"
    assert "read when assessed" in table[1][3]
    # Two files of one name in one upload, or a name already there: the second is refused.
    response = upload(client, review.id, ("map.md", b"Map one."), ("map.md", b"Map two."))
    assert response.status_code == 422
    refused = " ".join(by_id(response, "upload-form").get_text().split())
    assert "map.md: The review already has a document named map.md" in refused
    db.session.refresh(review)
    assert [d.filename for d in review.documents] == ["deed.md", "plan.pdf", "map.md"]


def test_a_document_kind_is_corrected_by_a_person(client_as):
    client = client_as("editor")
    create(client)
    review = newest_review()
    upload(client, review.id, ("notes.md", b"# Notes\n\nSome words about soils.\n"))
    document = newest_review().documents[0]
    url = f"/registry/{review.id}/documents/{document.id}/type"
    assert "detected" in by_id(client.get(f"/registry/{review.id}"), f"document-{document.id}").text
    assert client.submit(url, {"document_type": "map_gis"}).status_code == 302
    db.session.refresh(document)
    assert document.document_type == "map_gis" and document.type_set_by_person
    row = by_id(client.get(f"/registry/{review.id}"), f"document-{document.id}")
    assert "set by you" in row.get_text()
    assert row.find("option", selected=True).get_text() == "Map / GIS"
    client.submit(url, {"document_type": "nonsense"})
    db.session.refresh(document)
    assert document.document_type == "map_gis"


def test_assess_shows_progress_refuses_a_second_run_and_says_when_the_queue_is_away(client_as, app):
    client = client_as("editor")
    create(client)
    review = newest_review()
    response = client.submit(f"/registry/{review.id}/assess")
    assert response.status_code == 422
    assert "Add the project's documents" in by_id(response, "assess-error").get_text()
    upload(client, review.id, ("deed.md", DEED))
    assert client.submit(f"/registry/{review.id}/assess").status_code == 302
    page = client.get(f"/registry/{review.id}")
    progress = by_id(page, "assess-progress")
    assert progress["hx-get"] == f"/registry/{review.id}/progress"
    assert "Run #" in progress.get_text()
    assert by_id(page, "review-status").get_text() == "being assessed"
    second = client.submit(f"/registry/{review.id}/assess")
    assert second.status_code == 422
    assert "being assessed" in by_id(second, "assess-error").get_text()
    assert client.get(f"/registry/{review.id}/progress").status_code == 200

    db.session.refresh(review)
    from webapp.jobs.models import Run

    run_here(db.session.get(Run, review.run_id), ReviewAssessment())
    ended = client.get(f"/registry/{review.id}/progress", headers={"HX-Request": "true"})
    assert ended.status_code == 204 and ended.headers["HX-Refresh"] == "true"

    saved = app.extensions["furrow.jobs"]
    dead = redis.Redis(unix_socket_path="/nonexistent/redis.sock", socket_connect_timeout=1)
    app.extensions["furrow.jobs"] = JobQueue(dead, saved.queue.__class__("x", connection=dead))
    try:
        response = client.submit(f"/registry/{review.id}/assess")
    finally:
        app.extensions["furrow.jobs"] = saved
    assert response.status_code == 422
    assert "The job queue is not reachable" in by_id(response, "assess-error").get_text()


def test_filters_count_and_show_requirements(client_as):
    client = client_as("editor")
    review = assessed(client)
    page = client.get(f"/registry/{review.id}")
    links = {
        a.get_text(" ", strip=True).rsplit(" ", 1)[0]: a
        for a in soup(page).select(".registry-filters a")
    }
    assert set(links) == {"All", "Missing", "Needs reviewer input", "Partial", "Covered",
                          "Failed checks", "Undecided"}  # fmt: skip
    count = {k: int(a.strong.get_text()) for k, a in links.items()}
    assert count["All"] == 23 and count["Undecided"] == 23
    statuses = [r.status for r in review.requirements]
    assert count["Needs reviewer input"] == statuses.count("needs_input") > 0
    assert count["Missing"] == statuses.count("missing")
    shown = client.get(links["Needs reviewer input"]["href"])
    table = rows(by_id(shown, "requirement-table"))
    assert len(table) == count["Needs reviewer input"]
    assert all(r[4].startswith("Needs reviewer input") for r in table)
    assert "REQ-002" in [r[0] for r in table]
    assert by_id(shown, "requirement-table").find("tr", class_="review-item")
    assert client.get(f"/registry/{review.id}?show=nonsense").status_code == 200
    # The plan states no start date a reviewer entered: its presence check fails.
    failed = rows(by_id(client.get(links["Failed checks"]["href"]), "requirement-table"))
    assert count["Failed checks"] == len(failed) > 0
    assert "REQ-007" in [r[0] for r in failed] and all("check" in r[4] for r in failed)


def test_a_field_is_entered_from_a_passage_and_refusals_say_why(client_as):
    client = client_as("editor")
    review = assessed(client)
    plan = review.documents[0]
    page = client.get(requirement_url(review))
    assert page.status_code == 200
    snippet = by_id(page, "snippet-1")
    # The core's evidence: the document links to its page with the passage marked; where on
    # it, the confidence, and what it says, shown.
    source = snippet.select_one(".evidence")
    assert source.a["href"].startswith(f"/registry/{review.id}/documents/")
    assert "?q=" in source.a["href"] and source.a.get_text() in {
        d.filename for d in review.documents
    }
    assert source.select_one(".locator").get_text().startswith("(page ")
    assert "· confidence" in source.get_text()
    assert snippet.details.has_attr("open") and snippet.details.p.get_text().strip()
    form = snippet.find("form")
    wanted = [f.value for f in bundled().requirement("REQ-002").structured_fields]
    assert [o["value"] for o in form.find_all("option")] == wanted and "project_id" not in wanted
    url = form["action"]
    refused = client.submit(
        url,
        {
            "field": "owner_name",
            "value": "Nicholas Denman",
            "document": plan.id,
            "page": 1,
            "at": "1",
        },
    )
    assert refused.status_code == 422
    assert "table of contents" in by_id(refused, "value-1-error").get_text()
    missing = client.submit(
        url,
        {
            "field": "owner_name",
            "value": "Nicholas Denman",
            "document": plan.id,
            "page": 9,
            "at": "1",
        },
    )
    assert missing.status_code == 422 and "has no page 9" in missing.get_data(as_text=True)
    # Ids and page numbers that are no numbers ("²" is a digit to str.isdigit, and int()
    # refuses it; thirty digits overflow the database): the form says so, nothing is entered.
    for document, page_number, says in (
        ("²", 4, "Name one of this review's documents."),
        ("1" * 30, 4, "Name one of this review's documents."),
        (plan.id, "²", "Project plan.pdf has no page ²."),
        (plan.id, "9" * 30, f"Project plan.pdf has no page {'9' * 30}."),
        (plan.id, "0", "Project plan.pdf has no page 0."),
    ):
        given = {"field": "owner_name", "value": "Nicholas Denman", "at": "1"}
        odd = client.submit(url, given | {"document": document, "page": page_number})
        assert odd.status_code == 422, (document, page_number)
        assert by_id(odd, "value-1-error").get_text(strip=True) == says
        assert by_id(odd, "value-1")["value"] == "Nicholas Denman"
    other = client.submit(
        url, {"field": "project_id", "value": "C01-1", "document": plan.id, "page": 4, "at": "1"}
    )
    assert other.status_code == 422
    entered = client.submit(
        url,
        {"field": "owner_name", "value": "Nicholas Denman", "document": plan.id, "page": 4},
        headers={"HX-Request": "true"},
    )
    assert entered.status_code == 200
    body = soup(entered)
    assert body.find(id="requirement-body") and "Owner: Nicholas Denman entered." in body.get_text()
    fields = rows(by_id(entered, "field-table"))
    assert fields[0][:3] == ["Owner", "Nicholas Denman", "Project plan.pdf"]
    db.session.refresh(review)
    review_page = client.get(f"/registry/{review.id}")
    checks = rows(by_id(review_page, "check-table"))
    assert any(r[1] == "Owner" and r[2] in ("Pass", "Warning", "Fail") for r in checks)


def test_a_fields_value_from_each_document_is_shown_and_replaces_the_models(client_as):
    client = client_as("editor")
    review = assessed(client)
    plan, deed = review.documents
    url = f"{requirement_url(review)}/fields"
    for document, page, value in ((plan, 4, "Nicholas Denman"), (deed, 1, "Nick Denman")):
        given = {"field": "owner_name", "value": value, "document": document.id, "page": page}
        assert client.submit(url, given).status_code == 302
    # The model read the plan's owner as "The Project"; the reviewer's value replaces it.
    record = next(r for r in review.requirements if r.requirement_id == "REQ-002")
    record.snippets = [
        {
            "document_id": plan.id, "document": plan.filename, "page": 4, "section": None,
            "text": "The Project owns the farm.", "confidence": 0.9,
            "structured_fields": {"owner_name": "The Project"},
        }
    ]  # fmt: skip
    review_state.refresh(review)
    db.session.commit()
    page = client.get(requirement_url(review))
    fields = [r[:3] for r in rows(by_id(page, "field-table")) if r[0] == "Owner"]
    assert fields == [
        ["Owner", "Nicholas Denman", "Project plan.pdf"],
        ["Owner", "Nick Denman", "deed.md"],
    ]
    carried = by_id(page, "snippet-1").find(class_="registry-superseded").get_text(" ", strip=True)
    # Stored in the snippet shape (before passages were stored as evidence): shown the same.
    shown = by_id(page, "snippet-1").select_one(".evidence")
    assert shown.a["href"].startswith(f"/registry/{review.id}/documents/{plan.id}/pages/4?q=")
    assert shown.get_text(" ", strip=True) == "Project plan.pdf (page 4) · confidence 90 %"
    assert "Owner: The Project" in carried and "superseded by “Nicholas Denman”" in carried
    checks = rows(by_id(page, "requirement-checks"))
    assert ["Owner valid", "Owner", "Fail"] not in [c[:3] for c in checks]
    assert ["Owner agrees across documents", "Owner", "Warning"] in [c[:3] for c in checks]


def test_a_requirement_whose_field_fails_its_check_says_which_and_is_partial(client_as):
    client = client_as("editor")
    review = assessed(client)
    plan = review.documents[0]
    url = f"{requirement_url(review, 'REQ-007')}/fields"
    for field in ("project_id", "project_start_date"):
        given = {"field": field, "value": "2023", "document": plan.id, "page": 2}
        assert client.submit(url, given).status_code == 302
    page = client.get(requirement_url(review, "REQ-007"))
    assert by_id(page, "requirement-status").find(class_="badge").get_text() == "Partial"
    failed = [li.get_text(" ", strip=True) for li in by_id(page, "failed-checks").find_all("li")]
    assert any(f.startswith("Project ID valid failed") and "is a year" in f for f in failed)
    assert any(f.startswith("Project start date valid failed") for f in failed)


def test_the_documents_table_says_how_a_document_writes_dates_and_a_person_sets_it(client_as):
    client = client_as("editor")
    review = assessed(client)
    plan, deed = review.documents
    show = f"/registry/{review.id}"
    given = {"field": "project_start_date", "value": "06/02/2023", "document": deed.id, "page": 1}
    assert client.submit(f"{requirement_url(review, 'REQ-007')}/fields", given).status_code == 302
    table = by_id(client.get(show), "document-table")
    assert "its text shows day first" in table.find(id=f"document-{plan.id}").get_text()
    assert "its text gives no sign" in table.find(id=f"document-{deed.id}").get_text()
    url = f"/registry/{review.id}/documents/{deed.id}/date-style"
    set_style = client.submit(url, {"date_style": "day-first"}, page=show)
    assert set_style.status_code == 302
    page = client.get(show)
    row = by_id(page, f"document-{deed.id}")
    assert "set by you" in row.get_text()
    assert (
        row.find("select", {"name": "date_style"}).find("option", selected=True)["value"]
        == "day-first"
    )
    start = [r for r in rows(by_id(page, "check-table")) if r[0] == "Project start date valid"]
    assert [r[2] for r in start] == ["Pass"]
    assert client.submit(url, {"date_style": "sideways"}, page=show).status_code == 302
    assert "set by you" in by_id(client.get(show), f"document-{deed.id}").get_text()


def test_verdicts_are_the_reviewers_and_outcome_and_undo_work(client_as):
    editor = client_as("editor")
    review = assessed(editor)
    url = f"{requirement_url(review)}/verdict"
    assert editor.submit(url, {"verdict": "approved"}).status_code == 403
    assert "verdict-form" not in editor.get(requirement_url(review)).get_data(as_text=True)
    assert (
        editor.submit(f"/registry/{review.id}/outcome", {"outcome": "approved"}).status_code == 403
    )

    reviewer = client_as("reviewer")
    bad = reviewer.submit(url, {"verdict": "maybe"})
    assert bad.status_code == 422
    done = reviewer.submit(url, {"verdict": "approved", "comment": "Deed & plan agree."})
    assert done.status_code == 302
    swapped = reviewer.submit(
        f"{requirement_url(review, 'REQ-001')}/verdict",
        {"verdict": "not_applicable"},
        headers={"HX-Request": "true"},
    )
    assert swapped.status_code == 200 and "<html" not in swapped.get_data(as_text=True)
    assert "Not applicable" in by_id(swapped, "verdict-now").get_text()
    page = reviewer.get(requirement_url(review))
    assert "Approved" in by_id(page, "verdict-now").get_text()
    assert "Deed & plan agree." in by_id(page, "verdict-now").get_text()
    outcome = reviewer.submit(
        f"/registry/{review.id}/outcome", {"outcome": "needs_changes", "comment": "Spellings."}
    )
    assert outcome.status_code == 302
    review_page = reviewer.get(f"/registry/{review.id}")
    assert "Needs changes" in by_id(review_page, "outcome-now").get_text()
    # The core's history: when, who, what, before, after, how, comment, undo.
    history = rows(by_id(review_page, "history-table"))
    assert history[0][2:7] == ["Overall outcome", "—", "Needs changes", "decide", "Spellings."]
    assert history[1][2:5] == ["REQ-001: verdict", "—", "Not applicable"]
    assert history[2][2:7] == ["REQ-002: verdict", "—", "Approved", "decide", "Deed & plan agree."]
    table = {r[0]: r for r in rows(by_id(review_page, "requirement-table"))}
    assert table["REQ-002"][5] == "Approved"

    undo_form = by_id(review_page, "history-table").find_all("form")[2]
    assert undo_form["action"].startswith("/review/undo/")
    assert editor.submit(undo_form["action"]).status_code == 403
    assert reviewer.submit(undo_form["action"]).status_code == 302
    table = {
        r[0]: r for r in rows(by_id(reviewer.get(f"/registry/{review.id}"), "requirement-table"))
    }
    assert table["REQ-002"][5] == "undecided"
    again = reviewer.submit("/review/undo/0000")
    assert again.status_code == 302
    assert (
        db.session.scalar(db.select(db.func.count(Change.id)).where(Change.source == "undo")) == 1
    )


def test_a_page_shows_its_text_with_the_passage_marked_and_escaped(client_as):
    client = client_as("editor")
    create(client)
    review = newest_review()
    text = b"Owner statement\n\nThe owner is <script>alert(1)</script> Nick Denman.\n"
    upload(client, review.id, ("owner.md", text))
    document = newest_review().documents[0]
    page = client.get(
        f"/registry/{review.id}/documents/{document.id}/pages/1",
        query_string={"q": "<script>alert(1)</script> Nick"},
    )
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    marked = by_id(page, "page-text").find("mark")
    assert marked.get_text() == "<script>alert(1)</script> Nick"
    assert client.get(f"/registry/{review.id}/documents/{document.id}/pages/2").status_code == 404


def test_a_page_says_when_the_passage_is_cut_or_not_there(client_as):
    client = client_as("editor")
    create(client)
    review = newest_review()
    upload(client, review.id, ("owner.md", b"The owner is\nNick   Denman.\n"))
    document = newest_review().documents[0]
    url = f"/registry/{review.id}/documents/{document.id}/pages/1"
    found = client.get(url, query_string={"q": "THE OWNER IS NICK DENMAN"})
    assert by_id(found, "page-text").find("mark").get_text() == "The owner is\nNick   Denman"
    assert by_id(found, "page-marks").get_text(strip=True) == "The passage is marked."
    absent = client.get(url, query_string={"q": "another owner"})
    assert by_id(absent, "page-text").find("mark") is None
    assert by_id(absent, "page-marks").get_text(strip=True) == "The passage is not on this page."
    long = client.get(url, query_string={"q": "the owner is " * 400})
    assert long.status_code == 200
    assert by_id(long, "page-marks").get_text(strip=True) == (
        "The passage is longer than the 400 words or 2,000 characters a page looks for: only "
        "its start is looked for. The passage is not on this page."
    )
    assert soup(client.get(url)).find(id="page-marks") is None


def test_a_contents_page_says_it_is_never_evidence(client_as):
    client = client_as("editor")
    review = assessed(client)
    plan = review.documents[0]
    contents = client.get(f"/registry/{review.id}/documents/{plan.id}/pages/1")
    assert "never used as evidence" in by_id(contents, "page-kind").get_text()
    blank = client.get(f"/registry/{review.id}/documents/{plan.id}/pages/3")
    assert "No text layer" in by_id(blank, "page-kind").get_text()
    assert by_id(blank, "page-text")
    row = by_id(client.get(f"/registry/{review.id}"), f"document-{plan.id}")
    assert "1 table of contents" in row.get_text() and "1 without text" in row.get_text()


def test_deleting_a_review_asks_first_and_removes_its_files(client_as):
    editor = client_as("editor")
    create(editor)
    review = newest_review()
    upload(editor, review.id, ("deed.md", DEED))
    path = docs.file_path(newest_review().documents[0])
    assert path.exists()
    assert editor.get(f"/registry/{review.id}/delete").status_code == 403
    reviewer = client_as("reviewer")
    confirm = reviewer.get(f"/registry/{review.id}/delete")
    assert "Delete the review" in confirm.get_data(as_text=True)
    review_id = review.id
    assert reviewer.submit(f"/registry/{review_id}/delete").status_code == 302
    assert db.session.get(Review, review_id) is None
    assert not path.exists()


def test_deleting_a_document_removes_its_file(client_as):
    client = client_as("editor")
    create(client)
    review = newest_review()
    upload(client, review.id, ("deed.md", DEED))
    document = newest_review().documents[0]
    path = docs.file_path(document)
    url = f"/registry/{review.id}/documents/{document.id}/delete"
    assert "Delete the document" in client.get(url).get_data(as_text=True)
    assert client.submit(url).status_code == 302
    db.session.refresh(review)
    assert review.documents == [] and not path.exists()


def test_a_passage_that_states_a_field_fills_its_form_for_the_reviewer_to_confirm(client_as):
    client = client_as("editor")
    review = assessed(client)
    record = next(r for r in review.requirements if r.requirement_id == "REQ-002")
    stated = {**record.snippets[0], "fields": {"tenure_type": "lease"}}
    record.snippets = [stated, {**record.snippets[0], "fields": {}}]
    db.session.commit()
    page = client.get(requirement_url(review))
    first, second = by_id(page, "snippet-1").find("form"), by_id(page, "snippet-2").find("form")
    assert first.find("option", selected=True)["value"] == "tenure_type"
    assert first.find("input", attrs={"name": "value"})["value"] == "lease"
    assert second.find("option", selected=True) is None
    assert second.find("input", attrs={"name": "value"})["value"] == ""
    assert (
        int(first.find("input", attrs={"name": "document"})["value"])
        == (stated["locator"]["document_id"])
    )
