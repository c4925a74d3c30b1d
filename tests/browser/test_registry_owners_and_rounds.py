"""Registry reviews in a real browser: a review made with the issuance checklist, and on a
registration review a plan stating two owners — both entered from the plan, compared with
the deed's proprietor, one removed; on a desktop and on a phone."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, shoot, sign_in

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "registry-owners-and-rounds"
RUN_ENDS_MS = 180_000
PLAN = (
    b"# Project plan\n\n## 1.6 Project proponent\n\n"
    b"The project proponent and landowner is Nicholas Denman of Denman Farm, Kent.\n\n"
    b"## 1.7 Ownership\n\nThe land is 100 % owned by the Project Owner, Denman Farms Ltd.\n"
)
DEED = b"# Title deed\n\nPROPRIETOR: NICHOLAS JOHN DENMAN of Denman Farm, Kent. Freehold.\n"


def enter_owner(page: Page, value: str, document: str) -> None:
    entry = page.locator("#page-entry")
    if entry.get_attribute("open") is None:
        entry.get_by_text("Enter a value from a document's page").click()
    entry.get_by_label("Field").select_option(label="Owner")
    entry.get_by_label("Value").fill(value)
    entry.get_by_label("Document").select_option(label=f"{document} (1 page)")
    entry.get_by_label("Page").fill("1")
    entry.get_by_role("button", name="Enter the value").click()
    expect(page.locator("#notice")).to_have_text(f"Owner: {value} entered.")


def test_a_review_picks_its_round_and_keeps_every_owner_a_plan_states(
    page: Page, admin, run_worker, tmp_path
):
    sign_in(page)
    page.goto("/registry/new")
    page.get_by_label("Name").fill("Denman farm 2024 issuance")
    page.get_by_label("Checklist", exact=True).select_option(value="issuance")
    shoot(page, SHOTS, "new-review")
    page.get_by_role("button", name="Create the review").click()
    expect(page).to_have_url(re.compile(r"/registry/\d+$"))
    expect(page.locator("body")).to_contain_text("monitoring round")

    run_worker()
    plan, deed = tmp_path / "Project plan.md", tmp_path / "deed.md"
    plan.write_bytes(PLAN)
    deed.write_bytes(DEED)
    page.goto("/registry/new")
    page.get_by_label("Name").fill("Denman farm")
    page.get_by_role("button", name="Create the review").click()
    page.get_by_label("Add documents").set_input_files([str(plan), str(deed)])
    page.get_by_role("button", name="Upload").click()
    page.get_by_role("button", name="Assess").click()
    expect(page.locator("#review-status")).to_have_text("assessed", timeout=RUN_ENDS_MS)
    review_url = page.url.split("#")[0]

    page.goto(f"{review_url}/requirements/REQ-002")
    enter_owner(page, "Nicholas Denman", "Project plan.md")
    enter_owner(page, "Denman Farms Ltd", "Project plan.md")
    enter_owner(page, "NICHOLAS JOHN DENMAN", "deed.md")
    rows = page.locator("#field-table tbody tr").filter(has_text="Project plan.md")
    expect(rows).to_have_count(2)
    page.goto(f"{review_url}#checks")
    owners = page.locator("#check-table tbody tr").filter(has_text="land-registry copies")
    expect(owners).to_contain_text("“Denman Farms Ltd” (Project plan.md, p. 1) is none of")
    shoot(page, SHOTS, "checks")

    page.goto(f"{review_url}/requirements/REQ-002")
    shoot(page, SHOTS, "requirement")
    row = page.locator("#field-table tbody tr").filter(has_text="Denman Farms Ltd")
    row.get_by_role("button", name="Remove").click()
    expect(page.locator("body")).to_contain_text("Owner: Denman Farms Ltd removed.")
    expect(page.locator("#field-table tbody tr").filter(has_text="Project plan.md")).to_have_count(
        1
    )
