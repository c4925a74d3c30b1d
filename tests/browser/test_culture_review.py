"""Enrich a culture and review its suggestions in a real browser."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot, sign_in
from tests.support.cultures import add_crowded_tomato
from webapp.cultures.models import Culture
from webapp.extensions import db

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
    # The sentence is shown; the code is only the tooltip.
    row = page.locator("#suggestion-expected_yield")
    expect(row.locator('[title="yield_crosscheck_impossible"]')).to_be_visible()
    expect(row).not_to_contain_text("yield_crosscheck_impossible")
    valid = page.get_by_role("checkbox", name="Apply Growth duration")
    expect(valid).to_be_enabled()
    page.locator("#suggestion-growth_duration_days details summary").first.click()
    expect(page.locator("#suggestion-growth_duration_days details p")).to_contain_text(
        "50 to 65 days from transplanting"
    )
    screenshot(page, "culture-suggestions")

    valid.check()
    page.get_by_role("button", name="Apply selected").click()
    expect(page.get_by_text(re.compile(r"^Applied Growth duration of .+\.$"))).to_be_visible()
    expect(page.locator("dt:text-is('Growth duration') + dd")).to_have_text("65 days")
    expect(page.locator("dt:text-is('Expected yield') + dd")).to_have_text("—")
    expect(page.locator("#history")).to_contain_text("apply")

    page.get_by_role("button", name="Undo this apply").click()
    expect(
        page.get_by_text(re.compile(r"^Undone — .+: Growth duration, Sources\. History$"))
    ).to_be_visible()
    expect(page.locator("dt:text-is('Growth duration') + dd")).to_have_text("—")
    expect(page.get_by_role("heading", name="Sources", exact=True)).to_have_count(1)
    expect(page.locator("text=No sources yet.")).to_be_visible()
    screenshot(page, "culture-undone")


@pytest.fixture
def radish(session_app, admin) -> int:
    with session_app.app_context():
        culture = Culture(name="Radieschen", reference_crop="radish", harvest_method="per_sqm")
        db.session.add(culture)
        db.session.commit()
        return culture.id


def test_a_derived_figure_says_its_source_does_not_state_it(page: Page, radish, run_worker):
    sign_in(page)
    page.goto(f"/cultures/{radish}")
    page.get_by_role("button", name="Enrich").click()
    run_worker()
    expect(page.locator("#suggestions")).to_be_visible(timeout=30_000)
    # The library's radish yield is a judgement no source states: marked, warned, and only
    # a person's confirmation can make it a value.
    yield_row = page.locator("#suggestion-expected_yield")
    expect(yield_row.locator(".badge.derived")).to_be_visible()
    expect(yield_row.locator('.issue-warning[data-code="evidence_derived"]')).to_contain_text(
        "The cited source does not state this figure"
    )
    expect(
        yield_row.locator('.issue-warning[data-code="yield_needs_manual_confirmation"]')
    ).to_be_visible()
    # Days to first harvest are stated (from sowing): no such warning there.
    growth = page.locator("#suggestion-growth_duration_days")
    expect(growth).to_contain_text("25")
    expect(growth.locator(".badge.derived")).to_have_count(0)
    screenshot(page, "culture-suggestions-derived")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "culture-suggestions-derived-phone")


def test_an_implausible_value_needs_save_anyway_on_the_form(page: Page, admin):
    sign_in(page)
    page.goto("/cultures/new")
    page.get_by_label("Name").fill("Rote Bete")
    page.get_by_label("Harvest method (the yield's context)").select_option("per_sqm")
    page.get_by_label("Expected yield").fill("28")
    page.get_by_role("button", name="Save").click()
    findings = page.locator("#entry-findings")
    expect(findings).to_contain_text("at most 15 kg/m²")
    expect(page.get_by_label("Expected yield")).to_have_value("28")
    screenshot(page, "culture-form-findings")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "culture-form-findings-phone")
    page.get_by_label("Save anyway: I checked the values flagged as implausible").check()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Rote Bete")).to_be_visible()
    expect(page.locator(".flash-error")).to_contain_text("Expected yield:")


@pytest.fixture
def carrot(session_app, admin) -> int:
    with session_app.app_context():
        culture = Culture(name="Carrot", distance_within_row_cm=5, row_spacing_cm=30)
        db.session.add(culture)
        db.session.commit()
        return culture.id


def test_ticking_a_yield_ticks_its_harvest_method_and_both_are_applied(
    page: Page, carrot, run_worker
):
    sign_in(page)
    page.goto(f"/cultures/{carrot}")
    page.get_by_role("button", name="Enrich").click()
    run_worker()
    expect(page.locator("#suggestions")).to_be_visible(timeout=30_000)
    yield_box = page.get_by_role("checkbox", name="Apply Expected yield")
    method_box = page.get_by_role("checkbox", name="Apply Harvest method")
    yield_box.check()
    expect(method_box).to_be_checked()
    method_box.uncheck()
    expect(yield_box).not_to_be_checked()
    yield_box.check()
    screenshot(page, "culture-yield-with-method")
    page.get_by_role("button", name="Apply selected").click()
    expect(page.get_by_text("Applied 2 field(s)")).to_be_visible()
    expect(page.locator("dt:text-is('Expected yield') + dd")).to_contain_text("kg/m²")
