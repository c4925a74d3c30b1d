"""The API's docs page in a real browser: readable at desktop and phone widths, console clean."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot, sign_in

pytestmark = pytest.mark.browser


def test_the_api_docs_page_lists_every_call(page: Page, admin):
    sign_in(page)
    page.goto("/api/docs")
    expect(page.get_by_role("heading", name="The JSON API")).to_be_visible()
    apply = page.locator("#review_api\\.apply")
    expect(apply).to_contain_text("POST /api/v1/runs/{run_id}/apply")
    expect(apply).to_contain_text("reviewer")
    apply.get_by_text("Body").click()
    expect(apply.get_by_role("cell", name="all_valid")).to_be_visible()
    screenshot(page, "api-docs-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    screenshot(page, "api-docs-390")
