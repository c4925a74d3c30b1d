"""A farm system in a real browser: import an itinera file, see its rotation and grid, set a
value in place (a word refused first); wide and on a phone, with a clean console."""

import re
from json import loads
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import fits_phone, screenshot, sign_in
from webapp.extensions import db
from webapp.systems.catalog import create_farm, import_system
from webapp.systems.demo import DEMO_DOCUMENT

pytestmark = pytest.mark.browser

FILE = Path(__file__).parent.parent / "systems" / "data" / "example-system.json"
PHONE_WIDTH = 390


def test_import_a_file_see_the_rotation_and_edit_a_value(page: Page, admin):
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="Import an itinera file").first.click()
    page.get_by_label("Farm", exact=True).fill("GAEC des Sources")
    page.get_by_label("Region").fill("Normandie")
    page.get_by_label("itinera JSON file").set_input_files(str(FILE))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Imported “ITK Maxime Besnard” into GAEC des Sources")).to_be_visible()
    timeline = page.locator("#rotation-timeline")
    expect(timeline).to_be_visible()
    expect(timeline.locator(".step-bar")).to_have_count(10)
    expect(timeline.locator(".mark")).to_have_count(31)

    grid = page.locator("table.system-grid")
    labour = grid.locator("tr.intervention-row").filter(has_text="Labour").first
    labour.get_by_role("button", name="Edit Treatment frequency index of Labour").click()
    value = labour.get_by_label("Treatment frequency index of Labour", exact=True)
    expect(value).to_be_focused()
    value.fill("beaucoup")
    labour.get_by_role("button", name="Save").click()
    expect(labour.get_by_role("alert")).to_contain_text("is not a number")
    labour.get_by_label("Treatment frequency index of Labour", exact=True).fill("0,5")
    labour.get_by_role("button", name="Save").click()
    saved = labour.locator("td.state-reviewed")
    expect(saved).to_contain_text("0.5")
    expect(saved).to_contain_text("✓")
    page.reload()
    expect(page.locator("#history")).to_contain_text(
        "Labour (Orge + Lupin): Treatment frequency index"
    )
    expect(page.locator("table.yearly-totals")).to_contain_text("Gross margin")
    expect(page.locator("table.step-totals tbody tr")).to_have_count(10)
    expect(page.get_by_role("link", name="Download the grid (CSV)")).to_be_visible()
    screenshot(page, "system-1280")

    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    page.reload()
    expect(page.locator("#rotation-timeline")).to_be_visible()
    fits_phone(page)
    screenshot(page, "system-390")
    page.goto("/systems")
    fits_phone(page)
    screenshot(page, "systems-list-390")


def test_the_demo_system_shows_each_kind_of_value(page: Page, session_app, admin):
    with session_app.app_context():
        # The demo's document, whatever other systems this module's tests made.
        import_system(create_farm("Ferme de démonstration"), "", DEMO_DOCUMENT, None)
        db.session.commit()
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="Colza – blé – orge de printemps (Beauce)").click()
    grid = page.locator("table.system-grid")
    expect(grid.locator("td.state-reviewed").first).to_contain_text("✓")
    expect(grid.locator("td.state-na")).to_contain_text("n/a")
    expect(page.locator("#assumptions")).to_contain_text("Tracteur")
    screenshot(page, "system-demo-1280")


def test_calculate_all_missing_review_and_apply(page: Page, session_app, admin, run_worker):
    with session_app.app_context():
        import_system(create_farm("Ferme du calcul"), "Calcul", loads(FILE.read_text()), None)
        db.session.commit()
    run_worker()
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="Calcul").click()
    grid = page.locator("table.system-grid")
    labour = grid.locator("tr.intervention-row").filter(has_text="Labour").first
    labour.get_by_role("button", name="Edit Fuel of Labour").click()
    labour.get_by_role("button", name="Calculate").click()
    expect(page.locator("#level-counts")).to_be_visible(
        timeout=30_000
    )  # the run may take seconds on a busy machine
    expect(page.locator("table.review")).to_contain_text("Labour › Fuel")

    page.get_by_role("link", name="Back to Calcul").click()
    page.get_by_role("link", name="Calculate all missing").click()
    expect(page.locator("#missing-count")).to_contain_text("empty values")
    page.get_by_role("button", name="Calculate").click()
    expect(page.locator("#level-counts")).to_be_visible(
        timeout=30_000
    )  # the run may take seconds on a busy machine
    review = page.locator("table.data.review")
    expect(review.locator("details.trace").first).to_be_attached()
    row = review.locator("tr.suggestion").filter(has_text="Labour › Treatment frequency index")
    row.first.get_by_role("checkbox").check()
    page.get_by_role("button", name="Apply selected").click()
    expect(
        page.locator(".flash", has_text="Applied values are predictions, not reviewed")
    ).to_be_visible()
    expect(page.get_by_role("button", name="Undo this apply")).to_be_visible()
    screenshot(page, "system-calculation-1280")
    expect(page.get_by_role("navigation", name="Pages")).to_contain_text("Page 1 of ")
    page.locator("#nothing-count").get_by_role("link").click()
    expect(page.locator("#level-filter")).to_contain_text("what was proposed nothing for")
    expect(page.locator("tr.nothing-proposed").first).to_contain_text("needs")
    page.get_by_role("link", name="Show every suggestion").click()
    page.get_by_role("link", name=re.compile(r"^Apply all [0-9,]+ valid…$")).click()
    expect(page.locator("#will-apply")).to_contain_text("in one apply you can undo")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "system-apply-all-390")
    page.get_by_role("button", name="Apply").click()
    expect(
        page.locator(".flash", has_text="Applied values are predictions, not reviewed")
    ).to_be_visible()
    screenshot(page, "system-calculation-390")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.get_by_role("link", name="Back to Calcul").click()
    # Applied values are predictions: none of the calculated ones is marked ✓.
    cell = page.locator("table.system-grid tr.intervention-row").filter(has_text="Labour").first
    expect(cell.locator("td.state-confident, td.state-unreviewed").first).to_be_visible()
    expect(cell.locator("td.state-reviewed")).to_have_count(0)


def test_ift_by_campaign_farm_totals_and_a_dose_table_import(page: Page, session_app, admin):
    from tests.systems.test_totals_campaigns import wheat
    from tests.systems.test_totals_farm import rotation

    with session_app.app_context():
        farm = create_farm("Ferme des Campagnes")
        import_system(
            farm,
            "Blé (campagnes)",
            {"assumptions": "- **Surface**: 30 ha", "steps": [wheat()]},
            None,
        )
        import_system(farm, "Nord", rotation(40, 1.0, 20), None)
        db.session.commit()
    sign_in(page)
    page.goto("/systems")
    totals = page.get_by_role("region", name="Ferme des Campagnes: totals weighted by area")
    expect(totals).to_contain_text("70 ha in all")
    expect(totals.locator("tr").filter(has_text="IFT: Herbicide")).to_contain_text("partial")
    screenshot(page, "systems-farm-totals-1280")
    page.get_by_role("link", name="Blé (campagnes)").click()
    campaigns = page.locator("table.ift-campaigns")
    expect(campaigns.locator("tbody tr")).to_have_count(2)
    expect(campaigns).to_contain_text("2025–2026 campaign")
    expect(page.get_by_text("Traitement tardif (05/09/2026): counted as other")).to_be_visible()
    page.locator("#ift-campaigns").scroll_into_view_if_needed()
    screenshot(page, "system-campaigns-1280")

    page.goto("/systems")
    page.get_by_role("link", name="IFT reference doses").click()
    expect(page.get_by_text("bundled sample of 14 doses")).to_be_visible()
    doses = Path(__file__).parent.parent / "systems" / "data" / "maa-reference-doses.csv"
    page.get_by_label("Reference-dose CSV").set_input_files(str(doses))
    page.get_by_role("button", name="Check the file").click()
    expect(page.get_by_text("reads without a problem: 6 dose(s)")).to_be_visible()
    screenshot(page, "doses-check-1280")
    page.get_by_label("Reference-dose CSV").set_input_files(str(doses))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("Imported 6 reference dose(s)")).to_be_visible()
    expect(page.locator("#doses-in-force")).to_contain_text("maa-reference-doses.csv")

    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    for path, name in [("/systems/doses", "doses-390"), ("/systems", "systems-farm-totals-390")]:
        page.goto(path)
        fits_phone(page, path)
        screenshot(page, name)
    page.get_by_role("link", name="Blé (campagnes)").click()
    expect(page.locator("table.ift-campaigns")).to_be_visible()
    fits_phone(page)
    screenshot(page, "system-campaigns-390")


def test_each_kind_of_value_looks_different_wide_and_on_a_phone(page: Page, session_app, admin):
    values = FILE.parent / "itinera-text-values.json"
    with session_app.app_context():
        import_system(create_farm("Ferme des états"), "États", loads(values.read_text()), None)
        db.session.commit()
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="États").click()
    legend = page.get_by_role("list", name="What the marks mean")
    for mark in ("✓", "★", "?", "!", "n/a", "—"):
        expect(legend.locator(".value-mark", has_text=mark).first).to_be_visible()
    grid = page.locator("table.system-grid")
    herbicide = grid.locator("tr.intervention-row").filter(has_text="Désherbage")
    expect(herbicide.locator("td.state-confident")).to_contain_text("★")
    expect(herbicide.locator("td.state-invalid")).to_contain_text("not a number")
    wheat = grid.locator("tr.step-row").filter(has_text="Blé tendre")
    expect(wheat.locator(".cell-unit")).to_have_text("q/ha")
    expect(grid.locator("thead")).to_contain_text("unit per step")
    wheat.locator(".cell-unit").scroll_into_view_if_needed()  # the grid scrolls to the yields
    screenshot(page, "system-states-1280")
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    page.reload()
    fits_phone(page)
    herbicide.locator("td.state-confident").scroll_into_view_if_needed()
    screenshot(page, "system-states-390")
