"""Enrich a culture and review its suggestions in a real browser."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot, sign_in
from tests.support.cultures import add_crowded_tomato

pytestmark = pytest.mark.browser


@pytest.fixture
def crowded_tomato(session_app, admin) -> int:
    """A tomato at 10 × 10 cm: its per-plant yield will be implausible."""
    with session_app.app_context():
        culture = add_crowded_tomato()
        return culture.id


def test_errors_are_shown_invalid_fields_cannot_be_picked_valid_ones_apply_and_undo(
    page: Page, crowded_tomato, run_worker
):
    sign_in(page)
    page.goto(f"/cultures/{crowded_tomato}")
    page.get_by_role("button", name="Enrich").click()
    expect(page.locator("#enrichment progress")).to_be_visible()
    run_worker()
    table = page.locator("#suggestions")
    expect(table).to_be_visible(timeout=30_000)

    expect(page.locator("#suggestion-errors")).to_contain_text("Expected yield")
    invalid = page.get_by_role("checkbox", name="Apply Expected yield")
    expect(invalid).to_be_disabled()
    expect(page.locator("#suggestion-expected_yield")).to_contain_text(
        "yield_crosscheck_impossible"
    )
    valid = page.get_by_role("checkbox", name="Apply Growth duration")
    expect(valid).to_be_enabled()
    page.locator("#suggestion-growth_duration_days details summary").first.click()
    expect(page.locator("#suggestion-growth_duration_days details p")).to_contain_text("135")
    screenshot(page, "culture-suggestions")

    valid.check()
    page.get_by_role("button", name="Apply selected").click()
    expect(page.get_by_text("Applied 1 field(s): growth_duration_days.")).to_be_visible()
    expect(page.locator("dt:text-is('Growth duration') + dd")).to_have_text("158 days")
    expect(page.locator("dt:text-is('Expected yield') + dd")).to_have_text("—")
    expect(page.locator("#history")).to_contain_text("apply")

    page.get_by_role("button", name="Undo this apply").click()
    expect(page.get_by_text("Undone: growth_duration_days restored.")).to_be_visible()
    expect(page.locator("dt:text-is('Growth duration') + dd")).to_have_text("—")
    screenshot(page, "culture-undone")
