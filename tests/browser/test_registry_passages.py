"""A registry requirement's passages and a review's history of decisions in a real browser, as
the review core shows evidence and changes: each passage links to its page, says where on it
and how sure, and what it says; one stored before passages were evidence looks the same; the
history has its reviewer's words and undo; on a desktop and on a phone."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, shoot, sign_in
from webapp.auth.models import User
from webapp.extensions import db
from webapp.registry import documents as docs
from webapp.registry import review_state
from webapp.registry.evidence import Passage
from webapp.registry.models import ReviewStatus

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "registry-passages"
PLAN = (
    "# Project plan\n\n## 2.1 Land tenure\n\n"
    "The farm is owned by Nicholas Denman, who holds it freehold: 101.2 ha in Kent.\n\n"
    "## 2.2 Management\n\nThe land is managed by Denman Farms Ltd under a grazing plan.\n"
)
OWNED = "The farm is owned by Nicholas Denman, who holds it freehold: 101.2 ha in Kent."
MANAGED = "The land is managed by Denman Farms Ltd under a grazing plan."


@pytest.fixture
def review_id(session_app, admin) -> int:
    with session_app.app_context():
        user = User.by_email(admin)
        review = review_state.create_review("Denman farm", None, user)
        plan = docs.add_document(review, "Project plan.md", PLAN.encode(), user)
        plan.pages = [PLAN]
        review.status = ReviewStatus.assessed
        record = review_state.requirement(review, "REQ-002")
        record.status = "needs_input"
        stated = {"owner_name": "Nicholas Denman", "tenure_type": "freehold"}
        owned = Passage.at(plan.id, plan.filename, 1, "2.1 Land tenure", OWNED, 0.6, stated)
        # One kept in the snippet shape it was stored in before passages were evidence.
        managed = {
            "document_id": plan.id, "document": plan.filename, "page": 1,
            "section": "2.2 Management", "text": MANAGED, "confidence": 0.4,
            "structured_fields": None,
        }  # fmt: skip
        record.snippets = [owned.to_dict(), managed]
        review_state.decide_requirement(review, "REQ-002", "approved", "The plan names him.", user)
        review_state.set_outcome(
            review, "needs_changes", "Spellings differ across documents.", user
        )
        db.session.commit()
        return review.id


def test_passages_are_shown_as_evidence_and_decisions_in_the_core_history(
    page: Page, review_id: int
):
    sign_in(page)
    page.goto(f"/registry/{review_id}/requirements/REQ-002")
    passages = page.locator("#snippets .registry-snippet")
    expect(passages).to_have_count(2)
    first, second = passages.nth(0), passages.nth(1)
    expect(first.locator(".evidence")).to_have_text(
        "Project plan.md (page 1, section 2.1 Land tenure) · confidence 60 %"
    )
    expect(first.get_by_text(OWNED)).to_be_visible()  # what it says, not folded away
    expect(first).to_contain_text("Fields it carries: Owner: Nicholas Denman")
    expect(second.locator(".evidence")).to_have_text(
        "Project plan.md (page 1, section 2.2 Management) · confidence 40 %"
    )
    expect(second.get_by_text(MANAGED)).to_be_visible()
    shoot(page, SHOTS, "requirement", "#snippets")

    first.get_by_role("link", name="Project plan.md").click()
    expect(page).to_have_url(re.compile(rf"/registry/{review_id}/documents/\d+/pages/1\?q="))
    expect(page.locator("#page-text mark")).to_have_text(OWNED)

    page.goto(f"/registry/{review_id}")
    history = page.locator("#history-table")
    heads = history.locator("thead th")
    expect(heads).to_have_text(["When", "Who", "What", "Before", "After", "How", "Comment", "Undo"])
    rows = history.locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Overall outcome")
    expect(rows.nth(0)).to_contain_text("Spellings differ across documents.")
    expect(rows.nth(1)).to_contain_text("REQ-002: verdict")
    expect(rows.nth(1).get_by_role("button", name="Undo")).to_be_visible()
    shoot(page, SHOTS, "review", "#history")

    rows.nth(1).get_by_role("button", name="Undo").click()
    expect(page).to_have_url(re.compile(rf"/registry/{review_id}#history$"))
    expect(page.locator("#history-table tbody tr").first).to_contain_text("undo")
    shoot(page, SHOTS, "undone", "#history")
