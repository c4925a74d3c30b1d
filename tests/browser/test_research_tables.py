"""A research table in a real browser: import a CSV, fill a column by computation and by
lookup, review, apply, undo."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, screenshot, shoot, sign_in
from webapp.extensions import db
from webapp.library.documents import add_document

pytestmark = pytest.mark.browser

CSV = b"Farm,Area ha,Yield t\nGreenacre Farm,12,60\nMillbrook Farm,8,36\nStonyfield,5,\n"


@pytest.fixture
def farm_history(session_app, admin) -> None:
    with session_app.app_context():
        add_document(
            "greenacre.md",
            b"# Greenacre Farm\n\nGreenacre Farm was founded in 1952 by the Hill family.",
            "Greenacre Farm history",
            None,
        )
        db.session.commit()


def enrich(page: Page, column: str, strategy: str, **fields) -> None:
    page.get_by_label("Column to fill").select_option(column)
    page.get_by_label("Strategy").select_option(label=strategy)
    for label, value in fields.items():
        page.get_by_label(label).fill(value)
    page.get_by_role("button", name="Enrich ticked rows").click()


def test_import_enrich_review_apply_and_undo(page: Page, farm_history, run_worker):
    sign_in(page)
    page.goto("/tables/import")
    page.get_by_label("CSV file").set_input_files(
        files=[{"name": "farms.csv", "mimeType": "text/csv", "buffer": CSV}]
    )
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#import-columns")).to_contain_text("Area ha")
    page.get_by_role("button", name="Create the table with 3 row(s)").click()
    expect(page.locator("#table-rows")).to_contain_text("Greenacre Farm")
    table_url = page.url
    page.goto(table_url.split("?")[0] + "/columns")
    adding = page.locator("#add-column")
    for name in ("Yield per ha", "Founded"):
        adding.get_by_label("Column name").fill(name)
        adding.get_by_label("Type").select_option("number")
        adding.get_by_role("button", name="Add the column").click()
        expect(page.get_by_text(f"Added the column “{name}”.")).to_be_visible()
    page.goto(table_url)
    run_worker()

    enrich(page, "Yield per ha", "Computation", Formula="round({Yield t} / {Area ha}, 2)")
    expect(page.locator("#proposal")).to_be_visible(timeout=30_000)
    expect(page.locator("#reasoning")).to_contain_text("found 2 of 3 rows")
    expect(page.locator("#nothing-count")).to_contain_text("1 row(s) with nothing proposed")
    screenshot(page, "table-computation-review")
    page.get_by_role("checkbox", name="Apply Greenacre Farm").check()
    page.get_by_role("checkbox", name="Apply Millbrook Farm").check()
    page.get_by_role("button", name="Apply selected").click()
    expect(page.get_by_text("Applied 2 row(s): Greenacre Farm and Millbrook Farm.")).to_be_visible()
    page.get_by_role("link", name="Back to farms").click()
    rows = page.locator("#table-rows")
    expect(rows).to_contain_text("4.5")
    page.go_back()
    page.get_by_role("button", name="Undo this apply").click()
    expect(page.get_by_text("Undone")).to_be_visible()
    page.goto(table_url)
    expect(page.locator("#table-rows")).not_to_contain_text("4.5")

    enrich(page, "Founded", "Quick Lookup", Question="When was {Farm} founded?")
    expect(page.locator("#proposal")).to_be_visible(timeout=30_000)
    greenacre = page.locator("#proposal tr").filter(
        has=page.get_by_role("cell", name="Greenacre Farm", exact=True)
    )
    expect(greenacre).to_contain_text("medium")
    expect(greenacre.locator("input.proposed")).to_have_value("1952")
    greenacre.locator("summary", has_text="step(s)").click()
    expect(greenacre.locator(".trace")).to_contain_text("Greenacre Farm history")
    screenshot(page, "table-lookup-review")
    # the rows the lookup found nothing for: a count and a filter of their own
    review_url = page.url
    page.locator("#nothing-statuses").get_by_role("link", name="not found 2").click()
    expect(page.locator("#level-filter")).to_contain_text("not found: 2")
    expect(page.locator("#proposal tbody tr")).to_have_count(2)
    expect(page.locator("#proposal")).to_contain_text("Millbrook Farm")
    shoot(page, ARTIFACTS / "table-lookup-not-found", "table-lookup-not-found")
    page.goto(review_url)
    page.get_by_role("checkbox", name="Apply Greenacre Farm").check()
    page.get_by_role("button", name="Apply selected").click()
    expect(page.get_by_text("Applied Founded of Greenacre Farm.")).to_be_visible()
    page.goto(table_url)
    expect(page.locator("#table-rows")).to_contain_text("1952")
    screenshot(page, "table-after-apply")
