"""A grid cell's drawer in a real browser: opened from the grid, it shows the conversation and
the steps, approves the value, sets one, and closes with Escape or Close, focus back on the
cell; beside the grid at 1280 px, a full-width sheet at 390 px, with a clean console."""

import copy

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, fits_phone, screenshot, sign_in
from tests.systems.test_drawer import CONVERSATION
from tests.systems.test_system_api import itinera
from webapp.extensions import db
from webapp.systems.catalog import create_farm, import_system

pytestmark = pytest.mark.browser

PHONE_WIDTH = 390


def in_view(page: Page, name: str) -> None:
    """What the screen shows (the drawer stays in view over a long page)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def drawer_system(session_app) -> None:
    document = copy.deepcopy(itinera())
    document["steps"][0]["interventions"][0]["values"] = [
        {"key": "ift", "value": 0.83, "reviewed": False, "conversation": CONVERSATION}
    ]
    with session_app.app_context():
        import_system(create_farm("Ferme du tiroir"), "Tiroir", document, None)
        db.session.commit()


def test_open_a_cell_approve_it_and_close_the_drawer(page: Page, session_app, admin):
    drawer_system(session_app)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="Tiroir").click()
    labour = page.locator("table.system-grid tr.intervention-row").filter(has_text="Labour").first
    opener = labour.get_by_role("link", name="Details of Treatment frequency index of Labour")
    opener.click()

    drawer = page.get_by_role("dialog", name="Labour › Treatment frequency index (IFT)")
    expect(drawer).to_be_visible()
    expect(drawer.locator("#drawer-title")).to_be_focused()
    expect(drawer).to_contain_text("not reviewed")
    expect(drawer.locator("ol.thread")).to_contain_text("<script>alert('x')</script>")
    expect(drawer.locator("ol.thread")).to_contain_text("IFT = 5 / 6 = 0.83")
    expect(drawer.locator("table.drawer-assumptions")).to_contain_text("Culture")
    in_view(page, "system-drawer-1280")
    drawer.locator("ol.thread").scroll_into_view_if_needed()
    in_view(page, "system-drawer-thread-1280")

    drawer.get_by_role("button", name="Approve").click()
    expect(drawer.get_by_role("status")).to_contain_text("is marked reviewed")
    expect(drawer.locator("#drawer-state")).to_have_text("reviewed by a person")
    expect(labour.locator("td.state-reviewed").first).to_contain_text("0.83")
    in_view(page, "system-drawer-approved-1280")
    page.keyboard.press("Escape")
    expect(drawer).to_be_hidden()
    expect(opener).to_be_focused()

    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    page.reload()
    fuel = labour.get_by_role("link", name="Details of Fuel of Labour")
    fuel.click()
    drawer = page.get_by_role("dialog", name="Labour › Fuel (L/ha)")
    expect(drawer).to_be_visible()
    box = drawer.bounding_box()
    assert box and box["x"] <= 1 and box["width"] >= PHONE_WIDTH - 1
    fits_phone(page)
    expect(drawer).to_contain_text("a calculator can work this value out")
    in_view(page, "system-drawer-390")
    drawer.get_by_label("Set the value (L/ha)").fill("18")
    drawer.get_by_role("button", name="Save").click()
    expect(drawer.locator("#drawer-state")).to_have_text("reviewed by a person")
    expect(drawer).to_contain_text("entered by")
    expect(labour.locator("td.state-reviewed")).to_have_count(2)
    expect(drawer).not_to_contain_text("approved by")
    in_view(page, "system-drawer-saved-390")
    drawer.locator("table.drawer-assumptions").scroll_into_view_if_needed()
    in_view(page, "system-drawer-assumptions-390")
    drawer.get_by_role("link", name="Close").click()
    expect(drawer).to_be_hidden()
    expect(fuel).to_be_focused()

    # Without JavaScript the same address is a page of its own.
    page.goto(fuel.get_attribute("href"))
    expect(page.get_by_role("heading", level=1, name="Labour › Fuel (L/ha)")).to_be_visible()
    fits_phone(page)
    screenshot(page, "system-drawer-page-390")
    page.get_by_role("link", name="Back to the grid").click()
    expect(page.locator("table.system-grid")).to_be_visible()


def test_the_grid_and_the_drawer_show_three_significant_figures(page: Page, session_app, admin):
    document = copy.deepcopy(itinera())
    document["steps"][0]["interventions"][0]["values"] = [
        {"key": "gnr", "value": 5.942857143, "reviewed": True},
        {"key": "ift", "value": 0.3333333333, "reviewed": True},
    ]
    with session_app.app_context():
        import_system(create_farm("Ferme des chiffres"), "Chiffres", document, None)
        db.session.commit()
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="Chiffres").click()
    labour = page.locator("table.system-grid tr.intervention-row").filter(has_text="Labour").first
    fuel = labour.get_by_role("link", name="Details of Fuel of Labour")
    expect(labour).to_contain_text("5.94")
    expect(labour).to_contain_text("0.333")
    expect(labour).not_to_contain_text("5.9428")
    fuel.scroll_into_view_if_needed()
    in_view(page, "system-figures-1280")
    fuel.click()
    drawer = page.get_by_role("dialog", name="Labour › Fuel (L/ha)")
    expect(drawer.locator(".drawer-value")).to_contain_text("5.94 L/ha")
    expect(drawer.locator("#drawer-value-input")).to_have_value("5.942857143")
    in_view(page, "system-figures-drawer-1280")
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    page.goto(page.url.split("#")[0])
    fits_phone(page)
    expect(labour).to_contain_text("5.94")
    # The grid scrolls in its frame: the fuel cell in the middle, clear of the sticky names.
    fuel.evaluate(
        """a => {
            const cell = a.closest("td"), row = cell.closest("tr");
            let frame = cell.parentElement;
            while (frame.scrollWidth <= frame.clientWidth) frame = frame.parentElement;
            frame.scrollLeft = cell.offsetLeft - row.querySelector("th").offsetWidth;
            row.scrollIntoView({block: "center"});
        }"""
    )
    in_view(page, "system-figures-390")
