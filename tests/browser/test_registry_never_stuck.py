"""A reviewer is never stuck, in a real browser: a field no passage states ("Owner stated:
Fail") is entered from a document and a page typed, on the review page (a wrong page is
refused with the form kept) and on a requirement's page (swapped in place by htmx); on a
desktop and on a phone."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, shoot, sign_in

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "registry-never-stuck"
RUN_ENDS_MS = 180_000
# Site notes that name the owner in passing: no passage of them is a land-tenure passage.
NOTES = b"# Site notes\n\nWalked the north field with Nick Denman; the sward is dense.\n"


def check_status(page: Page, label: str):
    return page.locator("#check-table tbody tr").filter(has_text=label).locator("td").nth(2)


def test_a_field_no_passage_states_is_entered_from_a_document_and_a_page(
    page: Page, admin, run_worker, tmp_path
):
    run_worker()
    notes = tmp_path / "site-notes.md"
    notes.write_bytes(NOTES)
    sign_in(page)
    page.goto("/registry/new")
    page.get_by_label("Name").fill("North field")
    page.get_by_role("button", name="Create the review").click()
    expect(page).to_have_url(re.compile(r"/registry/\d+$"))
    review_url = page.url
    page.get_by_label("Add documents").set_input_files([str(notes)])
    page.get_by_role("button", name="Upload").click()
    page.get_by_role("button", name="Assess").click()
    expect(page.locator("#review-status")).to_have_text("assessed", timeout=RUN_ENDS_MS)
    page.wait_for_load_state("load")
    expect(check_status(page, "Owner stated")).to_have_text("Fail")

    entry = page.locator("#page-entry")
    entry.get_by_text("Enter a value from a document's page").click()
    entry.get_by_label("Field").select_option(label="Owner")
    entry.get_by_label("Value").fill("Nick Denman")
    entry.get_by_label("Document").select_option(label="site-notes.md (1 page)")
    entry.get_by_label("Page").fill("2")
    entry.get_by_role("button", name="Enter the value").click()
    expect(page.locator("#page-by-page-error")).to_have_text("site-notes.md has no page 2.")
    expect(entry.get_by_label("Value")).to_have_value("Nick Denman")
    shoot(page, SHOTS, "review-refused", "#page-entry")

    entry.get_by_label("Page").fill("1")
    entry.get_by_role("button", name="Enter the value").click()
    expect(page).to_have_url(re.compile(re.escape(review_url) + "#checks$"))
    expect(page.locator(".flash-success")).to_contain_text("Owner: Nick Denman entered.")
    expect(check_status(page, "Owner stated")).to_have_text("Pass")
    expect(page.locator("#history-table tbody tr").first).to_contain_text(
        "Nick Denman (site-notes.md, page 1)"
    )

    page.goto(f"{review_url}/requirements/REQ-007")
    entry = page.locator("#page-entry")
    expect(entry).to_have_attribute("open", "")  # no passage to pick the start date from
    entry.get_by_label("Field").select_option(label="Project start date")
    entry.get_by_label("Value").fill("6 February 2023")
    entry.get_by_label("Page").fill("1")
    entry.get_by_role("button", name="Enter the value").click()
    expect(page.locator("#notice")).to_have_text("Project start date: 6 February 2023 entered.")
    expect(page.locator("#field-table")).to_contain_text("6 February 2023")
    shoot(page, SHOTS, "requirement", "#page-entry")
