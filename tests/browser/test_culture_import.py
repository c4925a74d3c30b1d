"""The culture import page in a real browser: its column names and templates, and a preview
whose count agrees with the levels its rows show, at a desktop's and a phone's width."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, shoot, sign_in
from tests.cultures.test_import_page import MIXED
from webapp.cultures.fields import CULTURE_FIELDS
from webapp.cultures.headers import headers

pytestmark = pytest.mark.browser


def test_the_import_page_lists_columns_offers_templates_and_counts_levels(page: Page, admin):
    sign_in(page)
    page.goto("/cultures/import")
    expect(page.locator("#import-header-names tbody tr")).to_have_count(len(CULTURE_FIELDS))
    with page.expect_download() as download:
        page.get_by_role("link", name="Deutsch").click()
    assert download.value.suggested_filename == "furrow-cultures-template-de.csv"
    text = download.value.path().read_text(encoding="utf-8")
    assert text.splitlines() == [",".join(headers("de"))]
    shoot(page, ARTIFACTS / "culture-import", "page")

    page.get_by_label("CSV or OpenFarmPlanner file").set_input_files(
        files=[{"name": "cultures.csv", "mimeType": "text/csv", "buffer": MIXED.encode()}]
    )
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#level-counts")).to_contain_text("2 with errors")
    expect(page.locator("#import-rows tr[data-level=error] .issue-error")).to_have_count(2)
    colours = page.locator("#import-rows .issue-error").evaluate_all(
        "items => items.map(i => getComputedStyle(i).color)"
    )
    assert len(set(colours)) == 1, colours  # the unreadable value and the implausible one alike
    shoot(page, ARTIFACTS / "culture-import", "preview", parts="#level-counts, #import-rows")
