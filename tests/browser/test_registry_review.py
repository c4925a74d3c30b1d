"""A registry review in a real browser, from upload to the overall outcome: create it, upload two
PDFs, assess them with a real worker, enter the owner from a passage, give a verdict and set the
outcome, then read the printable report; on a desktop and on a phone."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import shoot, sign_in
from tests.library.files import pdf_with_text
from tests.registry.test_review_records import PLAN

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots-registry")
# A run reads two PDFs in the sandbox with a real worker: slow when other tests share the CPUs.
RUN_ENDS_MS = 180_000
DEED = pdf_with_text(
    ["Title deed", "The land is owned by Nick Denman since 1998.",
     "Land tenure: freehold ownership deed for the farm, area 101.2 ha."],
)  # fmt: skip


def test_a_review_from_upload_to_report(page: Page, admin, run_worker, tmp_path):
    run_worker()
    plan, deed = tmp_path / "Project plan.pdf", tmp_path / "Title deed.pdf"
    plan.write_bytes(PLAN)
    deed.write_bytes(DEED)
    sign_in(page)
    page.goto("/registry")
    page.get_by_role("link", name="New review").click()
    page.get_by_label("Name").fill("Denman farm")
    page.get_by_role("button", name="Create the review").click()
    expect(page).to_have_url(re.compile(r"/registry/\d+$"))
    expect(page.locator("h1")).to_have_text("Denman farm")
    review_url = page.url

    page.get_by_label("Add documents").set_input_files([str(plan), str(deed)])
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#document-table tbody tr")).to_have_count(2)

    page.get_by_role("button", name="Assess").click()
    # The page polls the run's progress and reloads once the run ends; the status is
    # "being assessed" until then, so waiting for "assessed" waits for the reloaded page.
    expect(page.locator("#review-status")).to_have_text("assessed", timeout=RUN_ENDS_MS)
    expect(page.locator("#assess-progress")).to_have_count(0)
    expect(page.locator("#document-table")).to_contain_text("1 table of contents")
    page.wait_for_load_state("load")
    shoot(page, SHOTS, "review", "main section[id]")

    page.locator("#requirement-table").get_by_role("link", name="REQ-002").click()
    expect(page).to_have_url(re.compile(r"/registry/\d+/requirements/REQ-002$"))
    passage = page.locator(".registry-snippet").filter(has_text="Nicholas Denman").first
    passage.get_by_text("Use this passage").click()
    passage.get_by_label("Field").select_option(label="Owner")
    passage.get_by_label("Value").fill("Nicholas Denman")
    passage.get_by_role("button", name="Enter the value").click()
    expect(page.locator("#notice")).to_have_text("Owner: Nicholas Denman entered.")
    expect(page.locator("#field-table")).to_contain_text("Nicholas Denman")

    page.get_by_label("Verdict").select_option(label="Approved")
    page.locator("#verdict-form").get_by_label("Comment").fill("The plan names the owner.")
    page.get_by_role("button", name="Save the verdict").click()
    expect(page.locator("#verdict-now")).to_contain_text("Approved")
    shoot(page, SHOTS, "requirement", "main section[id]")

    # The passage's source (the core's evidence) links to its page with the passage marked.
    passage = page.locator(".registry-snippet").filter(has_text="Nicholas Denman").first
    expect(passage.locator(".locator")).to_contain_text("page 4")
    passage.get_by_role("link", name="Project plan.pdf").click()
    expect(page).to_have_url(re.compile(r"/registry/\d+/documents/\d+/pages/4(\?.*)?$"))
    expect(page.locator("#page-text mark")).to_contain_text("Nicholas Denman")
    shoot(page, SHOTS, "page", "main section[id]")

    page.get_by_role("link", name="Denman farm").click()
    expect(page).to_have_url(re.compile(re.escape(review_url) + r"#documents$"))
    page.get_by_text("Set the overall outcome").click()
    page.get_by_label("Overall outcome").select_option(label="Needs changes")
    page.locator("#outcome-form").get_by_label("Comment").fill("Owner spellings differ.")
    page.get_by_role("button", name="Save the outcome").click()
    expect(page.locator("#outcome-now")).to_contain_text("Needs changes")
    expect(page.locator("#history-table tbody tr")).to_have_count(3)
    shoot(page, SHOTS, "outcome", "main section[id]")

    # The printable report: every requirement with its status, verdict and evidence. The review
    # page names the review, the outcome and the owner too: wait for the report itself.
    page.get_by_role("link", name="Report (printable)").click()
    expect(page).to_have_url(re.compile(r"/api/v1/reviews/\d+/report\.html$"))
    expect(page.locator("h1")).to_have_text("Registry review: Denman farm")
    expect(page.locator("#summary")).to_contain_text("Needs changes")
    requirement = page.locator("#requirement-REQ-002")
    expect(requirement).to_contain_text("The plan names the owner.")
    entered = requirement.locator("table").filter(has_text="Entered by")
    expect(entered.locator("tbody tr")).to_have_count(1)
    expect(entered).to_contain_text("Nicholas Denman")
    expect(entered.get_by_role("link", name="p. 4")).to_be_visible()
    shoot(page, SHOTS, "report", "main section[id]")
