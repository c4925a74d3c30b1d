"""A reviewer is never stuck on the pages: a field no passage states is entered from a document
and a page typed, refused with a message by what was wrong and nothing lost, audited, undone,
and the checks follow it."""

import pytest

from tests.registry.test_review_pages import assessed, requirement_url
from tests.support.html import by_id, rows
from webapp.extensions import db
from webapp.registry import review_state

pytestmark = pytest.mark.usefixtures("idle_queue")


def without_passages(review, requirement_id="REQ-002"):
    """The requirement as if the run had found no passage for it."""
    record = review_state.requirement(review, requirement_id)
    record.snippets = []
    review_state.refresh(review)
    db.session.commit()


def owner_checks(client, review) -> dict[str, str]:
    checks = rows(by_id(client.get(f"/registry/{review.id}"), "check-table"))
    return {c[0]: c[2] for c in checks if c[1] == "Owner"}


def test_a_field_no_passage_states_is_entered_from_a_document_and_a_page(client_as):
    editor = client_as("editor")
    review = assessed(editor)
    without_passages(review)
    plan = review.documents[0]
    assert owner_checks(editor, review)["Owner stated"] == "Fail"

    page = editor.get(requirement_url(review))
    assert "No passage of the documents speaks of this requirement." in page.get_data(as_text=True)
    entry = by_id(page, "page-entry")
    assert entry.has_attr("open")  # nothing else to pick it from
    assert "enter it from a document's page" in by_id(page, "field-table").get_text()
    documents = [o.get_text() for o in by_id(page, "document-by-page").find_all("option")]
    assert documents == ["Project plan.pdf (4 pages)", "deed.md (1 page)"]
    url = entry.find("form")["action"]

    given = {"at": "by-page", "field": "owner_name", "value": "Nicholas Denman"}
    for document, number, where, says in (
        (plan.id, "", "page", "Give the page of Project plan.pdf the value is on."),
        (plan.id, "1", "page", "Page 1 of Project plan.pdf is a table of contents."),
        (plan.id, "3", "page", "Page 3 of Project plan.pdf is empty."),
        (plan.id, "5", "page", "Project plan.pdf has no page 5."),
        (plan.id, "four", "page", "Project plan.pdf has no page four."),
        ("999999", "4", "document", "Name one of this review's documents."),
    ):
        refused = editor.submit(url, given | {"document": document, "page": number})
        assert refused.status_code == 422, (document, number)
        assert by_id(refused, f"{where}-by-page-error").get_text(strip=True) == says
        assert by_id(refused, "page-entry").has_attr("open")
        assert by_id(refused, "value-by-page")["value"] == "Nicholas Denman"
        assert by_id(refused, "page-by-page")["value"] == number
        assert by_id(refused, "field-by-page").find("option", selected=True)["value"] == (
            "owner_name"
        )
    kept = by_id(refused, "document-by-page").find("option", selected=True)
    assert kept is None  # the document it named is none of the review's
    empty = editor.submit(url, given | {"value": " ", "document": plan.id, "page": "4"})
    assert empty.status_code == 422
    assert by_id(empty, "value-by-page-error").get_text(strip=True) == (
        "Enter the value as the document states it."
    )
    chosen = by_id(empty, "document-by-page").find("option", selected=True)
    assert chosen.get_text() == "Project plan.pdf (4 pages)"
    assert review_state.entered(review) == []

    entered = editor.submit(
        url, given | {"document": plan.id, "page": "4"}, headers={"HX-Request": "true"}
    )
    assert entered.status_code == 200
    assert "Owner: Nicholas Denman entered." in by_id(entered, "notice").get_text()
    assert rows(by_id(entered, "field-table"))[0][:4] == [
        "Owner",
        "Nicholas Denman",
        "Project plan.pdf",
        "4",
    ]
    assert owner_checks(editor, review)["Owner stated"] == "Pass"

    reviewer = client_as("reviewer")
    history = by_id(reviewer.get(f"/registry/{review.id}"), "history-table")
    assert rows(history)[0][2:5] == [
        "Owner (Project plan.pdf)",
        "—",
        "Nicholas Denman (Project plan.pdf, page 4)",
    ]
    action = history.find("form", class_="undo-form")["action"]
    assert reviewer.submit(action).status_code == 302
    assert owner_checks(editor, review)["Owner stated"] == "Fail"


def test_the_page_form_is_offered_only_with_documents_read(client_as):
    editor = client_as("editor")
    review = assessed(editor)
    page = editor.get(requirement_url(review))
    assert not by_id(page, "page-entry").has_attr("open")  # passages come first
    for document in list(review.documents):
        document.pages = None
    db.session.commit()
    unread = editor.get(requirement_url(review)).get_data(as_text=True)
    assert 'id="page-entry"' not in unread


def test_a_field_is_entered_from_the_review_page_by_document_and_page(client_as):
    editor = client_as("editor")
    review = assessed(editor)
    deed = review.documents[1]
    page = editor.get(f"/registry/{review.id}")
    entry = by_id(page, "page-entry")
    assert not entry.has_attr("open")
    fields = [o.get_text() for o in by_id(page, "field-by-page").find_all("option")]
    assert "Owner" in fields and "Project ID" in fields and "owner_name" not in fields
    url = entry.find("form")["action"]
    given = {"at": "by-page", "field": "owner_name", "value": "Nick Denman", "document": deed.id}

    refused = editor.submit(url, given | {"page": "2"})
    assert refused.status_code == 422
    assert by_id(refused, "page-by-page-error").get_text(strip=True) == "deed.md has no page 2."
    assert by_id(refused, "page-entry").has_attr("open")
    assert by_id(refused, "value-by-page")["value"] == "Nick Denman"
    assert by_id(refused, "document-by-page").find("option", selected=True).get_text() == (
        "deed.md (1 page)"
    )
    unknown = editor.submit(url, given | {"field": "colour", "page": "1"})
    assert unknown.status_code == 422 and by_id(unknown, "page-entry").has_attr("open")
    assert review_state.entered(review) == []

    entered = editor.submit(url, given | {"page": "1"})
    assert entered.status_code == 302 and entered.location.endswith("#checks")
    shown = editor.get(entered.location)
    assert "Owner: Nick Denman entered." in shown.get_data(as_text=True)
    assert owner_checks(editor, review)["Owner stated"] == "Pass"
    assert rows(by_id(shown, "history-table"))[0][2:5] == [
        "Owner (deed.md)",
        "—",
        "Nick Denman (deed.md, page 1)",
    ]
    viewer = client_as("viewer")
    assert viewer.submit(url, given | {"page": "1"}).status_code == 403
