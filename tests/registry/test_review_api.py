"""The registry reviews API: each call's answer and refusals (roles and tokens, 404, 409 while a
run is live, 422 naming each problem), evidence and validation after an assessment, and the
report as a printable page, Markdown and JSON."""

import io
import json

import pytest
from sqlalchemy import func, select

from tests.jobs.test_run_pages import unreachable_queue
from tests.registry.test_review_records import PLAN
from tests.support.tables import run_here
from webapp.auth.models import ApiToken
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.registry import documents as docs
from webapp.registry import page_data
from webapp.registry.checklist import bundled
from webapp.registry.models import Review, ReviewDocument
from webapp.registry.runs import ReviewAssessment
from webapp.registry.target import REVIEW as REVIEW_KIND
from webapp.review.models import Change

pytestmark = pytest.mark.usefixtures("idle_queue")

REVIEWS = "/api/v1/reviews"
DEED = b"# Title deed\n\nThe land is owned by Nick <b>Denman</b> since 1998 | *ha*.\n"


@pytest.fixture
def bearer(make_user):
    def token(role: str) -> dict[str, str]:
        _token, secret = ApiToken.issue(make_user(role), "tests")
        db.session.commit()
        return {"Authorization": f"Bearer {secret}"}

    return token


@pytest.fixture
def editor(bearer):
    return bearer("editor")


@pytest.fixture
def reviewer(bearer):
    return bearer("reviewer")


def upload(client, headers, review_id: int, filename: str, data: bytes):
    return client.post(
        f"{REVIEWS}/{review_id}/documents",
        data={"file": (io.BytesIO(data), filename)},
        headers=headers,
        content_type="multipart/form-data",
    )


def new_review(client, headers, name="Denman farm") -> dict:
    answer = client.post(REVIEWS, json={"name": name}, headers=headers)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.get_json()


def assessed(client, headers) -> dict:
    """A review with a PDF plan and a Markdown deed, assessed in this process."""
    review = new_review(client, headers)
    plan = upload(client, headers, review["id"], "Project plan.pdf", PLAN).get_json()
    deed = upload(client, headers, review["id"], "deed.md", DEED).get_json()
    started = client.post(f"{REVIEWS}/{review['id']}/run", headers=headers)
    assert started.status_code == 202
    run = run_here(db.session.get(Run, started.get_json()["run_id"]), ReviewAssessment())
    assert run.status == "succeeded", run.item_errors
    return {"id": review["id"], "plan": plan, "deed": deed, "run_id": run.id}


def test_an_editor_creates_lists_and_reads_a_review_and_a_reviewer_deletes_it(
    client, editor, reviewer
):
    made = new_review(client, editor)
    assert made["checklist"].endswith("v1.2.2") and made["status"] == "draft"
    assert made["reviewer"].startswith("editor-") and made["run_id"] is None
    new_review(client, editor, "Second")
    listing = client.get(f"{REVIEWS}?per_page=1", headers=editor).get_json()
    assert listing["total"] == 2 and listing["pages"] == 2
    assert [r["name"] for r in listing["reviews"]] == ["Second"]
    document = upload(client, editor, made["id"], "deed.md", DEED).get_json()
    assert document["filename"] == "deed.md" and document["kind"] == "markdown"
    assert document["pages"] == 1 and document["document_type"] == "land_tenure"
    plan = upload(client, editor, made["id"], "plan.pdf", PLAN).get_json()
    assert plan["pages"] is None and plan["error"] is None  # read by the run
    shown = client.get(f"{REVIEWS}/{made['id']}", headers=editor).get_json()
    assert [d["filename"] for d in shown["documents"]] == ["deed.md", "plan.pdf"]
    stored = db.session.get(ReviewDocument, document["id"])
    path = docs.file_path(stored)
    assert path.exists()
    assert client.delete(f"{REVIEWS}/{made['id']}", headers=editor).status_code == 403
    assert client.delete(f"{REVIEWS}/{made['id']}", headers=reviewer).status_code == 204
    assert not path.exists() and db.session.get(Review, made["id"]) is None
    gone = client.get(f"{REVIEWS}/{made['id']}", headers=editor)
    assert gone.status_code == 404 and gone.get_json()["error"]["code"] == "not_found"


def test_viewers_are_refused_and_a_session_post_needs_csrf(client, client_as, bearer):
    viewer = bearer("viewer")
    for method, url in [("GET", REVIEWS), ("POST", REVIEWS), ("GET", f"{REVIEWS}/1/evidence")]:
        answer = client.open(url, method=method, json={"name": "x"}, headers=viewer)
        assert answer.status_code == 403 and answer.get_json()["error"]["code"] == "forbidden"
    assert client.get(REVIEWS).status_code == 401
    session = client_as("editor")
    assert session.post(REVIEWS, json={"name": "x"}).status_code == 400
    headers = {"X-CSRFToken": session.csrf_token()}
    assert session.post(REVIEWS, json={"name": "x"}, headers=headers).status_code == 201


def test_a_checklist_is_imported_or_refused_with_every_problem_by_path(client, editor):
    checklist = bundled().model_dump(mode="json")
    checklist["requirements"] = checklist["requirements"][:2]
    made = client.post(REVIEWS, json={"name": "Two", "checklist": checklist}, headers=editor)
    assert made.status_code == 201
    evidence = client.get(f"{REVIEWS}/{made.get_json()['id']}/evidence", headers=editor)
    assert len(evidence.get_json()["requirements"]) == 2
    checklist["requirements"][1]["validation_type"] = "guess"
    del checklist["requirements"][0]["category"]
    refused = client.post(REVIEWS, json={"name": "Bad", "checklist": checklist}, headers=editor)
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "checklist_invalid"
    locs = {e["loc"] for e in error["details"]["errors"]}
    assert locs == {
        "checklist.requirements[0].category",
        "checklist.requirements[1].validation_type",
    }
    for body in ({"name": ""}, {"name": "x", "other": 1}, {"name": 5}):
        answer = client.post(REVIEWS, json=body, headers=editor)
        assert answer.status_code == 422, body
    not_json = client.post(
        REVIEWS, data="{", headers={**editor, "Content-Type": "application/json"}
    )
    assert not_json.status_code == 400 and not_json.get_json()["error"]["code"] == "bad_request"
    assert db.session.query(Review).count() == 1


def test_refused_uploads_are_422_with_their_code_and_keep_nothing(client, editor):
    review = new_review(client, editor)
    cases = [
        ("image.png", b"\x89PNG", "unsupported_type"),
        ("empty.txt", b"", "empty_file"),
        ("latin.txt", "Möhre".encode("latin-1"), "not_utf8"),
        ("fake.pdf", PLAN[20:300], "not_a_pdf"),
    ]
    for filename, data, code in cases:
        answer = upload(client, editor, review["id"], filename, data)
        assert answer.status_code == 422, filename
        error = answer.get_json()["error"]
        assert error["code"] == code and "Nothing was stored." in error["message"]
    missing = client.post(
        f"{REVIEWS}/{review['id']}/documents",
        data={},
        headers=editor,
        content_type="multipart/form-data",
    )
    assert missing.status_code == 422 and missing.get_json()["error"]["code"] == "file_missing"
    assert db.session.query(ReviewDocument).count() == 0
    assert upload(client, editor, 999999, "a.txt", b"text").status_code == 404


def test_a_second_document_of_the_same_name_is_refused_naming_the_first(client, editor):
    review = new_review(client, editor)
    first = upload(client, editor, review["id"], "deed.md", DEED)
    assert first.status_code == 201
    # Names that look alike are one name: case, fullwidth letters, ligatures ("ﬁ").
    for name in ("deed.md", "Deed.MD", "ｄｅｅｄ.md", "ＤＥＥＤ.md"):
        again = upload(client, editor, review["id"], name, b"Another deed.")
        assert again.status_code == 422, name
        error = again.get_json()["error"]
        assert error["code"] == "duplicate_name"
        assert error["message"] == (
            "The review already has a document named deed.md: rename the file to keep both, "
            "or delete deed.md first to replace it. Nothing was stored."
        )
    renamed = upload(client, editor, review["id"], "deed (2).md", b"Another deed.")
    assert renamed.status_code == 201
    # "é" as one character (NFC) and as e with a combining accent (NFD) is one name, "e"
    # another; the ligature "ﬁ" is "fi".
    assert upload(client, editor, review["id"], "café.md", DEED).status_code == 201
    accented = upload(client, editor, review["id"], "cafe\u0301.md", b"Another deed.")
    assert accented.status_code == 422
    assert accented.get_json()["error"]["message"].startswith(
        "The review already has a document named café.md:"
    )
    assert upload(client, editor, review["id"], "cafe.md", DEED).status_code == 201
    assert upload(client, editor, review["id"], "field.md", DEED).status_code == 201
    ligature = upload(client, editor, review["id"], "\ufb01eld.md", b"Another deed.")
    assert ligature.get_json()["error"]["code"] == "duplicate_name"
    shown = client.get(f"{REVIEWS}/{review['id']}", headers=editor).get_json()
    assert [d["filename"] for d in shown["documents"]] == [
        "deed.md", "deed (2).md", "café.md", "cafe.md", "field.md"
    ]  # fmt: skip


def test_a_reviewer_corrects_a_documents_kind(client, editor):
    review = new_review(client, editor)
    deed = upload(client, editor, review["id"], "deed.md", DEED).get_json()
    url = f"{REVIEWS}/{review['id']}/documents/{deed['id']}"
    answer = client.patch(url, json={"document_type": "project_plan"}, headers=editor)
    assert answer.status_code == 200
    assert answer.get_json()["document_type"] == "project_plan"
    assert answer.get_json()["type_set_by_person"] is True
    refused = client.patch(url, json={"document_type": "novel"}, headers=editor)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["details"]["errors"][0]["loc"] == "document_type"
    other = new_review(client, editor, "Other")
    elsewhere = f"{REVIEWS}/{other['id']}/documents/{deed['id']}"
    assert (
        client.patch(elsewhere, json={"document_type": "other"}, headers=editor).status_code == 404
    )


def test_a_person_says_how_a_document_writes_dates(client, editor):
    review = assessed(client, editor)
    deed = review["deed"]
    url = f"{REVIEWS}/{review['id']}/documents/{deed['id']}"
    assert deed["date_style"] is None and deed["date_style_set_by_person"] is False
    start = {"value": "06/02/2023", "document": "deed.md", "page": 1}
    assert (
        client.put(
            f"{REVIEWS}/{review['id']}/fields", json={"project_start_date": start}, headers=editor
        ).status_code
        == 200
    )

    def start_status():
        checks = client.get(f"{REVIEWS}/{review['id']}/validation", headers=editor).get_json()
        return [c["status"] for c in checks["checks"] if c["check"] == "project_start_date_valid"]

    assert start_status() == ["warning"]
    answer = client.patch(url, json={"date_style": "day-first"}, headers=editor)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert (answer.get_json()["date_style"], answer.get_json()["date_style_set_by_person"]) == (
        "day-first",
        True,
    )
    assert start_status() == ["pass"]
    shown = client.get(f"{REVIEWS}/{review['id']}", headers=editor).get_json()
    assert [d["date_style_set_by_person"] for d in shown["documents"]] == [False, True]
    assert client.patch(url, json={"date_style": "sideways"}, headers=editor).status_code == 422
    assert client.patch(url, json={}, headers=editor).status_code == 422
    back = client.patch(url, json={"date_style": None}, headers=editor).get_json()
    assert (back["date_style"], back["date_style_set_by_person"]) == (None, False)
    assert start_status() == ["warning"]


def test_a_run_is_refused_without_documents_and_while_one_is_live(client, editor, reviewer):
    review = new_review(client, editor)
    empty = client.post(f"{REVIEWS}/{review['id']}/run", headers=editor)
    assert empty.status_code == 422 and empty.get_json()["error"]["code"] == "no_documents"
    upload(client, editor, review["id"], "deed.md", DEED)
    started = client.post(f"{REVIEWS}/{review['id']}/run", headers=editor)
    assert started.status_code == 202
    run_id = started.get_json()["run_id"]
    busy = client.post(f"{REVIEWS}/{review['id']}/run", headers=editor)
    assert busy.status_code == 409
    error = busy.get_json()["error"]
    assert error["code"] == "run_in_progress" and error["details"]["run_id"] == run_id
    shown = client.get(f"{REVIEWS}/{review['id']}", headers=editor).get_json()
    assert shown["run_id"] == run_id and shown["run_status"] == "queued"
    # Nor is the review deleted under its run.
    kept = client.delete(f"{REVIEWS}/{review['id']}", headers=reviewer)
    assert kept.status_code == 409 and kept.get_json()["error"]["code"] == "run_in_progress"


def test_a_run_without_a_queue_is_503_and_the_review_can_run_later(app, client, editor):
    review = new_review(client, editor)
    upload(client, editor, review["id"], "deed.md", DEED)
    saved = unreachable_queue(app)
    try:
        down = client.post(f"{REVIEWS}/{review['id']}/run", headers=editor)
    finally:
        app.extensions["furrow.jobs"] = saved
    assert down.status_code == 503 and down.get_json()["error"]["code"] == "queue_unavailable"
    assert client.post(f"{REVIEWS}/{review['id']}/run", headers=editor).status_code == 202


def test_evidence_and_validation_after_an_assessment(client, editor):
    review = assessed(client, editor)
    evidence = client.get(f"{REVIEWS}/{review['id']}/evidence", headers=editor).get_json()
    by_id = {r["requirement_id"]: r for r in evidence["requirements"]}
    assert len(by_id) == 23
    tenure = by_id["REQ-002"]
    assert tenure["validation_type"] == "cross_document" and tenure["status"] == "needs_input"
    assert tenure["snippets"] and tenure["fields"] == []
    snippet = tenure["snippets"][0]
    assert {"document", "page", "section", "text", "confidence", "structured_fields"} <= set(
        snippet
    )
    assert all(
        s["page"] != 1
        for r in by_id.values()
        for s in r["snippets"]
        if s["document"].endswith("pdf")
    )  # the contents page is never evidence
    shown = client.get(f"{REVIEWS}/{review['id']}", headers=editor).get_json()
    plan = next(d for d in shown["documents"] if d["kind"] == "pdf")
    assert (plan["pages"], plan["contents_pages"], plan["no_text_pages"]) == (4, 1, 1)
    assert shown["status"] == "assessed" and shown["run_status"] == "succeeded"

    fields = f"{REVIEWS}/{review['id']}/fields"
    entered = client.put(
        fields,
        json={
            "owner_name": {"value": "Nicholas Denman", "document": "Project plan.pdf", "page": 4},
            "project_start_date": {
                "value": "06/02/2023",
                "document": review["plan"]["id"],
                "page": 2,
            },
        },
        headers=editor,
    )
    assert entered.status_code == 200, entered.get_data(as_text=True)
    owner = entered.get_json()["fields"]["owner_name"]
    assert owner["document"] == "Project plan.pdf" and owner["page"] == 4
    assert owner["by"].startswith("editor-")
    evidence = client.get(f"{REVIEWS}/{review['id']}/evidence", headers=editor).get_json()
    tenure = next(r for r in evidence["requirements"] if r["requirement_id"] == "REQ-002")
    assert [f["field"] for f in tenure["fields"]] == ["owner_name"]
    assert tenure["status"] in ("partial", "covered")

    checks = client.get(f"{REVIEWS}/{review['id']}/validation", headers=editor).get_json()["checks"]
    assert checks and all(
        set(c) == {"check", "field", "status", "values", "message"} for c in checks
    )
    assert {c["status"] for c in checks} <= {"pass", "warning", "fail"}
    assert any(c["field"] == "owner_name" for c in checks)

    cleared = client.put(fields, json={"owner_name": None}, headers=editor)
    assert cleared.status_code == 200 and "owner_name" not in cleared.get_json()["fields"]


def owner_from(*entries: tuple[str, str | int, int]) -> dict:
    """The owner's value from several documents at once: (value, document, page) each."""
    return {"owner_name": [{"value": v, "document": d, "page": p} for v, d, p in entries]}


def test_a_field_is_entered_from_several_documents_at_once_and_compared(client, editor):
    review = assessed(client, editor)
    fields = f"{REVIEWS}/{review['id']}/fields"
    both = owner_from(("Nicholas Denman", "Project plan.pdf", 4), ("Nick Denman", "deed.md", 1))
    entered = client.put(fields, json=both, headers=editor)
    assert entered.status_code == 200, entered.get_data(as_text=True)
    owner = entered.get_json()["fields"]["owner_name"]
    assert [(e["value"], e["document"], e["page"]) for e in owner["entries"]] == [
        ("Nicholas Denman", "Project plan.pdf", 4),
        ("Nick Denman", "deed.md", 1),
    ]
    assert owner["value"] in ("Nicholas Denman", "Nick Denman")  # the newest, as before
    checks = client.get(f"{REVIEWS}/{review['id']}/validation", headers=editor).get_json()["checks"]
    consistent = next(c for c in checks if c["check"] == "owner_name_consistent")
    assert consistent["status"] == "warning"
    assert consistent["values"] == {"Project plan.pdf": "Nicholas Denman", "deed.md": "Nick Denman"}
    evidence = client.get(f"{REVIEWS}/{review['id']}/evidence", headers=editor).get_json()
    tenure = next(r for r in evidence["requirements"] if r["requirement_id"] == "REQ-002")
    assert len(tenure["fields"][0]["entries"]) == 2

    same = owner_from(
        ("Nicholas Denman", "Project plan.pdf", 4), ("N. Denman", review["plan"]["id"], 4)
    )
    twice = client.put(fields, json=same, headers=editor)
    assert twice.status_code == 422
    errors = twice.get_json()["error"]["details"]["errors"]
    assert [e["loc"] for e in errors] == ["fields.owner_name.1.document"]
    assert "given twice" in errors[0]["message"]


def test_entered_fields_are_refused_with_each_problem_named(client, editor):
    review = assessed(client, editor)
    fields = f"{REVIEWS}/{review['id']}/fields"
    refused = client.put(
        fields,
        json={
            "owner_name": {"value": "N. Denman", "document": "Project plan.pdf", "page": 1},
            "area_hectares": {"value": "", "document": "nowhere.pdf", "page": 2},
            "colour": {"value": "red", "document": "deed.md", "page": 1},
        },
        headers=editor,
    )
    assert refused.status_code == 422
    locs = {e["loc"] for e in refused.get_json()["error"]["details"]["errors"]}
    assert locs == {"fields.colour"}
    refused = client.put(
        fields,
        json={
            "owner_name": {"value": "N. Denman", "document": "Project plan.pdf", "page": 1},
            "area_hectares": {"value": "", "document": "nowhere.pdf", "page": 2},
        },
        headers=editor,
    )
    locs = {e["loc"] for e in refused.get_json()["error"]["details"]["errors"]}
    assert locs == {
        "fields.owner_name.page",
        "fields.area_hectares.value",
        "fields.area_hectares.document",
    }
    assert client.put(fields, json={}, headers=editor).status_code == 422
    assert client.put(fields, json=[1], headers=editor).status_code == 422
    assert client.get(f"{REVIEWS}/{review['id']}/evidence", headers=editor).status_code == 200


def test_verdicts_and_the_outcome_need_a_reviewer(client, editor, reviewer):
    review = assessed(client, editor)
    verdicts = f"{REVIEWS}/{review['id']}/verdicts"
    body = {"requirement_id": "REQ-002", "verdict": "approved", "comment": "Deed and plan agree."}
    refused = client.post(verdicts, json=body, headers=editor)
    assert refused.status_code == 403
    given = client.post(verdicts, json=body, headers=reviewer)
    assert given.status_code == 201
    verdict = given.get_json()
    assert verdict["verdict"] == "approved" and verdict["comment"] == "Deed and plan agree."
    assert verdict["requirement_id"] == "REQ-002" and verdict["by"].startswith("reviewer-")
    for bad, loc in [
        ({**body, "verdict": "maybe"}, "verdict"),
        ({**body, "requirement_id": "REQ-999"}, "requirement_id"),
        ({**body, "comment": "x" * 5001}, "comment"),
    ]:
        answer = client.post(verdicts, json=bad, headers=reviewer)
        assert answer.status_code == 422, bad
        assert answer.get_json()["error"]["details"]["errors"][0]["loc"] == loc
    outcome = f"{REVIEWS}/{review['id']}/outcome"
    decided = {"outcome": "needs_changes", "comment": "Owner spellings differ."}
    assert client.post(outcome, json=decided, headers=editor).status_code == 403
    answer = client.post(outcome, json=decided, headers=reviewer)
    assert answer.status_code == 201 and answer.get_json()["outcome"] == "needs_changes"
    shown = client.get(f"{REVIEWS}/{review['id']}", headers=editor).get_json()
    assert shown["outcome"]["outcome"] == "needs_changes"
    assert client.post(f"{REVIEWS}/999999/verdicts", json=body, headers=reviewer).status_code == 404


def test_the_report_in_three_formats(client, editor, reviewer, bearer):
    review = assessed(client, editor)
    viewer = bearer("viewer")
    client.post(
        f"{REVIEWS}/{review['id']}/verdicts",
        json={"requirement_id": "REQ-002", "verdict": "needs_changes",
              "comment": "<script>alert(1)</script> | # not a heading"},
        headers=reviewer,
    )  # fmt: skip
    base = f"{REVIEWS}/{review['id']}"
    hostile = {"value": "Nick <b>Denman</b> | *ha*", "document": "deed.md", "page": 1}
    assert (
        client.put(f"{base}/fields", json={"owner_name": hostile}, headers=editor).status_code
        == 200
    )

    page = client.get(f"{base}/report.html", headers=editor)
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Nick <b>Denman</b>" not in html and "&lt;b&gt;Denman&lt;/b&gt;" in html
    assert 'class="main-nav"' not in html and "registry-report.css" in html
    plan_id = review["plan"]["id"]
    assert f'href="/registry/{review["id"]}/documents/{plan_id}/pages/4"' in html
    assert "Needs reviewer input" in html and "Needs changes" in html

    markdown = client.get(f"{base}/report.md", headers=editor)
    assert markdown.status_code == 200 and markdown.mimetype == "text/markdown"
    disposition = markdown.headers["Content-Disposition"]
    assert disposition == 'attachment; filename="Denman_farm-report.md"'
    text = markdown.get_data(as_text=True)
    assert text.startswith("# Registry review: Denman farm\n")
    assert "\\# not a heading" in text and "\\<script\\>" in text
    # The download's page links are absolute: the file is read away from the site.
    deed_page = f"http://localhost/registry/{review['id']}/documents/{review['deed']['id']}/pages/1"
    owner = "| Owner | Nick \\<b\\>Denman\\</b\\> \\| \\*ha\\* | deed.md "
    assert f"{owner}| [p. 1]({deed_page}) |" in text
    assert f"[p. 4](http://localhost/registry/{review['id']}/documents/{plan_id}/pages/4)" in text

    download = client.get(f"{base}/report.json", headers=editor)
    assert download.status_code == 200 and download.mimetype == "application/json"
    assert download.headers["Content-Disposition"].endswith('"Denman_farm-report.json"')
    data = json.loads(download.get_data(as_text=True))
    evidence = client.get(f"{base}/evidence", headers=editor).get_json()
    validation = client.get(f"{base}/validation", headers=editor).get_json()
    assert data["evidence"] == evidence and data["validation"] == validation
    assert data["verdicts"][0]["verdict"] == "needs_changes"
    assert data["summary"]["requirements"] == 23
    assert data["run"]["id"] == review["run_id"] and data["run"]["status"] == "succeeded"
    for fmt in ("html", "md", "json"):
        assert client.get(f"{REVIEWS}/999999/report.{fmt}", headers=editor).status_code == 404
        assert client.get(f"{base}/report.{fmt}", headers=viewer).status_code == 403


def newest_group(review_id: int, field: str) -> str:
    """The group of the newest decision of one of a review's fields, as an undo takes it."""
    return db.session.scalar(
        select(Change.group_id)
        .where(Change.target_type == REVIEW_KIND, Change.target_id == review_id)
        .where(Change.field.startswith(field))
        .order_by(Change.id.desc())
    )


def test_an_undo_through_the_api_brings_the_checks_up_to_date(client, editor, reviewer):
    review = assessed(client, editor)
    fields = f"{REVIEWS}/{review['id']}/fields"
    generic = owner_from(("the landowner(s)", "deed.md", 1))
    assert client.put(fields, json=generic, headers=editor).status_code == 200

    def owner_checks():
        checks = client.get(f"{REVIEWS}/{review['id']}/validation", headers=editor).get_json()
        return {c["check"]: c["status"] for c in checks["checks"] if c["field"] == "owner_name"}

    assert owner_checks()["owner_name_valid"] == "fail"
    undone = client.post(
        f"/api/v1/undo/{newest_group(review['id'], 'owner_name')}", headers=reviewer
    )
    assert undone.status_code == 200, undone.get_data(as_text=True)
    assert "owner_name_valid" not in owner_checks()
    assert owner_checks()["owner_name_present"] == "fail"  # nothing entered any more

    start = {"value": "06/02/2023", "document": "deed.md", "page": 1}
    client.put(fields, json={"project_start_date": start}, headers=editor)
    url = f"{REVIEWS}/{review['id']}/documents/{review['deed']['id']}"
    client.patch(url, json={"date_style": "day-first"}, headers=editor)

    def start_status():
        checks = client.get(f"{REVIEWS}/{review['id']}/validation", headers=editor).get_json()
        return [c["status"] for c in checks["checks"] if c["check"] == "project_start_date_valid"]

    assert start_status() == ["pass"]
    group = newest_group(review["id"], "date_style")
    assert client.post(f"/api/v1/undo/{group}", headers=reviewer).status_code == 200
    assert start_status() == ["warning"]


def test_a_value_from_a_deleted_document_is_reported_as_such_without_a_link(
    client, editor, client_as
):
    review = assessed(client, editor)
    base = f"{REVIEWS}/{review['id']}"
    both = owner_from(("Nicholas Denman", "Project plan.pdf", 4), ("Peter Smith", "deed.md", 1))
    assert client.put(f"{base}/fields", json=both, headers=editor).status_code == 200
    deed = review["deed"]["id"]
    deleted = f"/registry/{review['id']}/documents/{deed}/delete"
    assert client_as("editor").submit(deleted).status_code == 302
    deed_page = f"/registry/{review['id']}/documents/{deed}/pages/1"

    checks = client.get(f"{base}/validation", headers=editor).get_json()["checks"]
    owner = {c["check"]: c["values"] for c in checks if c["field"] == "owner_name"}
    assert "owner_name_consistent" not in owner  # one document left: nothing to compare
    assert owner["owner_name_valid"] == {"Project plan.pdf, p. 4": "Nicholas Denman"}

    data = client.get(f"{base}/report.json", headers=editor).get_json()
    rows = [(f["value"], f["document"], f["url"]) for f in data["fields"]]
    plan_page = f"/registry/{review['id']}/documents/{review['plan']['id']}/pages/4"
    assert rows == [
        ("Nicholas Denman", "Project plan.pdf", plan_page),
        ("Peter Smith", "a deleted document", None),
    ]
    text = client.get(f"{base}/report.md", headers=editor).get_data(as_text=True)
    assert "| Owner | Peter Smith | a deleted document | 1 |" in text
    assert deed_page not in text
    html = client.get(f"{base}/report.html", headers=editor).get_data(as_text=True)
    assert "<td>a deleted document</td>" in html and deed_page not in html


def test_document_corrections_record_only_what_changes_and_null_goes_back_to_the_text(
    client, editor
):
    review = assessed(client, editor)
    deed = review["deed"]
    url = f"{REVIEWS}/{review['id']}/documents/{deed['id']}"

    def decisions() -> int:
        return db.session.scalar(
            select(func.count(Change.id)).where(
                Change.target_type == REVIEW_KIND, Change.target_id == review["id"]
            )
        )

    before = decisions()
    assert client.patch(url, json={"date_style": None}, headers=editor).status_code == 200
    assert decisions() == before  # never set: nothing to decide
    client.patch(url, json={"date_style": "month-first"}, headers=editor)
    client.patch(url, json={"date_style": "month-first"}, headers=editor)
    assert decisions() == before + 1

    def newest_history():
        entry = page_data.history(db.session.get(Review, review["id"]))[0]
        return entry.what, entry.value

    assert newest_history() == ("Date style (deed.md)", "Month first (06/02 is June 2)")
    client.patch(url, json={"date_style": None}, headers=editor)
    assert newest_history() == ("Date style (deed.md)", "As its text shows")

    corrected = client.patch(url, json={"document_type": "project_plan"}, headers=editor)
    assert corrected.get_json()["document_type"] == "project_plan"
    back = client.patch(url, json={"document_type": None}, headers=editor).get_json()
    assert (back["document_type"], back["type_set_by_person"]) == (deed["document_type"], False)
    assert deed["document_type"] != "project_plan"
