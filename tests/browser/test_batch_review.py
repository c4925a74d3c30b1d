"""Review a batch enrichment run in a real browser: with the keyboard through the queue and a
culture's page, a value changed since the run shown before anyone applies, and the queue and a
culture's suggestions as cards on a phone."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot, sign_in
from tests.support.cultures import finished_enrichment, issue, suggestion
from webapp.cultures.catalog import edit_culture
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.review.service import store_findings, store_suggestions
from webapp.review.vocabulary import Issue, Severity

pytestmark = pytest.mark.browser
FOCUSED = re.compile(r"\bfocused\b")


def press(page: Page, *keys: str) -> None:
    """Keys as a person types them once the page is ready: review.js (deferred) listens only
    after the page has loaded, and a text shown before that does not mean it has."""
    page.wait_for_load_state()
    for key in keys:
        page.keyboard.press(key)


@pytest.fixture
def batch(session_app, admin) -> tuple[int, dict[str, int]]:
    """A finished run over five cultures: some values clean, a warning, an invalid yield, a
    crop the library does not know."""
    with session_app.app_context():
        cultures = [
            Culture(name="Carrot", variety="Nantaise", reference_crop="carrot"),
            Culture(name="Lettuce", variety="Maikönig", reference_crop="lettuce"),
            Culture(name="Onion", reference_crop="onion", harvest_method="per_sqm"),
            Culture(name="Tomato", variety="Harzfeuer", reference_crop="tomato"),
            Culture(name="Dragonfruit"),
        ]
        db.session.add_all(cultures)
        db.session.commit()
        carrot, lettuce, onion, tomato, dragonfruit = (c.id for c in cultures)
        run = finished_enrichment([c.id for c in cultures])
        counts_from = issue("warning", "growth_duration_days", "Counts from sowing; check it.")
        too_much = issue("error", "expected_yield", "40 kg per plant is more than any tomato.")
        store_suggestions(
            [
                suggestion(run, carrot, "growth_duration_days", 75, issues=[counts_from]),
                suggestion(run, carrot, "row_spacing_cm", 25.0),
                suggestion(run, carrot, "sowing_depth_cm", 1.5),
                suggestion(run, lettuce, "growth_duration_days", 50),
                suggestion(run, lettuce, "row_spacing_cm", 30.0),
                suggestion(run, onion, "sowing_depth_cm", 2.0),
                suggestion(run, onion, "row_spacing_cm", 25.0),
                suggestion(run, onion, "expected_yield", 4.0),
                suggestion(run, tomato, "harvest_method", "per_plant"),
                suggestion(run, tomato, "expected_yield", 40.0, issues=[too_much]),
            ]
        )
        unknown = "The reference library has no data for “Dragonfruit”; nothing is suggested."
        store_findings(
            run.id,
            "culture",
            [dragonfruit],
            [Issue("reference_crop_unknown", Severity.info, None, unknown)],
        )
        db.session.commit()
        return run.id, {c.name: c.id for c in cultures}


def test_review_a_batch_with_the_keyboard(page: Page, batch):
    run_id, ids = batch
    sign_in(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"/cultures/runs/{run_id}/review")
    rows = page.locator("#review-queue tbody tr.review-item")
    expect(rows).to_have_count(5)
    expect(page.locator("#level-counts")).to_contain_text("1 with errors")
    page.keyboard.press("j")
    expect(rows.nth(0)).to_have_class(FOCUSED)
    page.keyboard.press("j")
    expect(rows.nth(1)).to_have_class(FOCUSED)
    page.keyboard.press("k")
    expect(rows.nth(0)).to_have_class(FOCUSED)
    page.keyboard.press("x")
    expect(rows.nth(0).locator("input.pick")).to_be_checked()
    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(rows.nth(1).locator("input.pick")).to_be_checked()
    expect(rows.nth(2).locator("input.pick")).not_to_be_checked()

    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#keys-help")).to_be_hidden()
    page.get_by_role("button", name="Keys ?").click()
    page.locator("#keys-help").get_by_role("button", name="Close").click()
    expect(page.locator("#keys-help")).to_be_hidden()
    page.mouse.move(0, 0)  # no row under the pointer in the picture
    screenshot(page, "review-queue-1280")

    press(page, "a")
    expect(page.get_by_role("heading", name="Apply all valid suggestions?")).to_be_visible()
    expect(page.locator("#apply-count")).to_contain_text("5 field(s) across 2 culture(s)")
    screenshot(page, "review-apply-confirm-1280")
    press(page, "Enter")  # the apply button has the focus
    expect(page.get_by_text("Applied 5 field(s) across 2 culture(s).")).to_be_visible()
    expect(page.locator('[data-key="u"]')).to_have_text("Undo this apply")
    expect(page.locator(f"#culture-{ids['Carrot']} td[data-label='Left to decide']")).to_have_text(
        "0"
    )

    # One culture's page of the same run: j, x, a applies the first field; u undoes it.
    page.locator(f"#culture-{ids['Onion']} td[data-label=Culture] a").click()
    expect(page).to_have_url(re.compile(rf"/cultures/{ids['Onion']}\?run={run_id}#enrichment$"))
    expect(page.locator("nav.review-nav a[rel=prev]")).to_contain_text("Lettuce")
    expect(page.locator("nav.review-nav a[rel=next]")).to_contain_text("Tomato")
    press(page, "j", "x")
    expect(page.get_by_role("checkbox", name="Apply Sowing depth")).to_be_checked()
    screenshot(page, "review-culture-1280")
    press(page, "a")
    expect(page.get_by_text("Applied Sowing depth of Onion.")).to_be_visible()
    expect(page.locator("dt:text-is('Sowing depth') + dd")).to_have_text("2 cm")
    expect(page).to_have_url(re.compile(rf"\?run={run_id}&undo=[0-9a-f]+(#enrichment)?$"))
    press(page, "u")
    expect(page.get_by_text(re.compile(r"^Undone — Onion: Sowing depth"))).to_be_visible()
    expect(page.locator("dt:text-is('Sowing depth') + dd")).to_have_text("—")
    expect(page).to_have_url(re.compile(rf"/cultures/{ids['Onion']}\?run={run_id}$"))


def test_a_value_changed_since_the_run_is_shown_before_anyone_applies(
    page: Page, batch, session_app
):
    run_id, ids = batch
    with session_app.app_context():
        edit_culture(db.session.get(Culture, ids["Onion"]), {"row_spacing_cm": 35.0}, None)
        db.session.commit()
    sign_in(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"/cultures/{ids['Onion']}?run={run_id}")
    row = page.locator("#suggestion-row_spacing_cm")
    expect(row).to_contain_text("changed since the run")
    expect(row).to_contain_text("was — when researched, now 35")
    reconfirm = row.get_by_label("Re-confirm")
    expect(reconfirm).to_be_visible()
    screenshot(page, "review-culture-stale-1280")
    page.get_by_role("checkbox", name="Apply Row spacing").check()
    page.get_by_role("button", name="Apply selected").click()
    # Without the re-confirm the server refuses it and says why, on the same page.
    expect(
        page.get_by_text(re.compile(r"Not applied — Row spacing of Onion: The field changed"))
    ).to_be_visible()
    expect(page.locator("dt:text-is('Row spacing') + dd")).to_have_text("35 cm")
    page.locator("#suggestion-row_spacing_cm").get_by_label("Re-confirm").check()
    page.get_by_role("checkbox", name="Apply Row spacing").check()
    page.get_by_role("button", name="Apply selected").click()
    expect(page.get_by_text("Applied Row spacing of Onion.")).to_be_visible()
    expect(page.locator("dt:text-is('Row spacing') + dd")).to_have_text("25 cm")


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone: {width} px"


def test_the_queue_and_a_cultures_suggestions_are_cards_on_a_phone(page: Page, batch):
    run_id, ids = batch
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page)
    page.goto(f"/cultures/runs/{run_id}/review")
    expect(page.locator("#review-queue thead")).to_be_hidden()
    label = page.evaluate(
        "getComputedStyle(document.querySelector('#review-queue td[data-label=Why]'), "
        "'::before').content"
    )
    assert label == '"Why"'
    no_sideways_scroll(page)
    screenshot(page, "review-queue-390")

    menu = page.get_by_role("button", name="☰ Menu")
    expect(menu).to_be_visible()
    expect(page.locator("#main-nav")).to_be_hidden()
    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(page.locator("#main-nav").get_by_role("link", name="Cultures")).to_be_visible()

    page.goto(f"/cultures/{ids['Tomato']}?run={run_id}")
    yield_card = page.locator("#suggestion-expected_yield")
    expect(yield_card).to_be_visible()
    expect(page.locator("#suggestions thead")).to_be_hidden()
    expect(yield_card.locator("td[data-label=Checks]")).to_contain_text("error")
    no_sideways_scroll(page)
    screenshot(page, "review-culture-390")
