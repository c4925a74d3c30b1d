"""Editing a farm system in a real browser: an assumption written and a proposal added, an
intervention added and a step deleted; wide and on a phone, with a clean console."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import fits_phone, screenshot, sign_in
from webapp.extensions import db
from webapp.systems.catalog import create_farm, import_system
from webapp.systems.demo import DEMO_DOCUMENT

pytestmark = pytest.mark.browser

PHONE_WIDTH = 390
NAME = "Rotation à éditer"


@pytest.fixture
def system_url(session_app, admin) -> str:
    with session_app.app_context():
        made, _saved = import_system(create_farm("Ferme des essais"), NAME, DEMO_DOCUMENT, None)
        db.session.commit()
        return f"/systems/{made.id}"


def test_edit_an_assumption_add_an_intervention_and_delete_a_step(page: Page, system_url):
    sign_in(page)
    page.goto(system_url)

    # The system's own assumptions, edited in place.
    system = page.locator("#assumptions")
    system.get_by_text("Edit the assumptions").click()
    system.get_by_label("Assumptions of the system").fill("- **Sol**: limon argileux")
    system.get_by_role("button", name="Save the assumptions").click()
    expect(page.get_by_text("Saved the assumptions of the system.")).to_be_visible()
    expect(page.locator("#assumptions .assumptions-text")).to_contain_text("Sol: limon argileux")

    # A proposal of the description, added to the intervention's assumptions, then corrected.
    weeding = page.locator(".system-intervention").filter(has_text="Désherbage d'interculture")
    share = weeding.locator(".proposal").filter(has_text="Surface traitée")
    share.get_by_role("button", name="Add to assumptions").click()
    expect(page.get_by_text("Added “Surface traitée: 30 %”")).to_be_visible()
    weeding = page.locator(".system-intervention").filter(has_text="Désherbage d'interculture")
    expect(weeding.locator(".assumptions-text")).to_contain_text("Surface traitée: 30 %")
    expect(weeding).to_contain_text("— in the assumptions")
    weeding.get_by_text("Edit the assumptions").click()
    text = weeding.get_by_role("textbox")
    text.fill(text.input_value().replace("30 %", "25 %"))
    weeding.get_by_role("button", name="Save the assumptions").click()
    weeding = page.locator(".system-intervention").filter(has_text="Désherbage d'interculture")
    expect(weeding).to_contain_text("the assumptions say “25 %”, which is used")

    # An intervention added to a step (a wrong day first).
    wheat = page.locator(".system-step").filter(has_text="Blé tendre d'hiver").first
    wheat.get_by_role("link", name="Add an intervention").click()
    page.get_by_label("Name").fill("Binage")
    page.get_by_label("Description").fill("Bineuse 6 rangs")
    page.get_by_label("Day").fill("demain")
    page.get_by_label("Lane").select_option(label="Main crop")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("whole number of days")).to_be_visible()
    expect(page.get_by_label("Name")).to_have_value("Binage")
    page.get_by_label("Day").fill("150")
    page.get_by_role("button", name="Save").click()
    expect(
        page.get_by_text("Added the intervention “Binage” to “Blé tendre d'hiver”.")
    ).to_be_visible()
    expect(page.locator(".system-intervention").filter(has_text="Binage")).to_contain_text(
        "day 150"
    )
    expect(page.locator("table.system-grid")).to_contain_text("Binage")
    screenshot(page, "system-editing-1280")

    # A step deleted, after a page that says what goes with it.
    steps = page.locator(".system-step")
    before = steps.count()
    barley = page.locator(".system-step").filter(has_text="Orge de printemps")
    barley.locator(".level-head").first.get_by_role("link", name="Delete").click()
    expect(page.get_by_text("Delete the step “Orge de printemps” with its")).to_be_visible()
    screenshot(page, "system-editing-confirm-1280")
    page.get_by_role("button", name="Delete the step").click()
    expect(page.get_by_text("Deleted the step “Orge de printemps”.")).to_be_visible()
    expect(page.locator(".system-step")).to_have_count(before - 1)

    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    page.reload()
    fits_phone(page)
    screenshot(page, "system-editing-390")
    wheat.locator(".level-head").first.get_by_role("link", name="Edit").click()
    expect(page.get_by_label("Start")).to_have_value("2026-10-20")
    fits_phone(page)
    screenshot(page, "system-editing-step-390")
