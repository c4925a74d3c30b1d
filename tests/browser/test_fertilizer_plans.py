"""Ask for a fertilizer plan in a real browser, read it, save it to a culture."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, screenshot, shoot, sign_in
from tests.fertilizer.profiles import TOMATO_FILE
from webapp.cultures.catalog import create_culture
from webapp.extensions import db

pytestmark = pytest.mark.browser


@pytest.fixture
def tomato_culture(session_app, admin) -> int:
    with session_app.app_context():
        culture = create_culture({"name": "Tomate", "variety": "Harzfeuer"})
        db.session.commit()
        return culture.id


def test_upload_a_profile_watch_the_run_read_the_plan_and_save_it(
    page: Page, tomato_culture, run_worker
):
    sign_in(page)
    page.get_by_role("link", name="Fertilizer plans").first.click()
    expect(page.get_by_role("heading", name="Fertilizer plans")).to_be_visible()

    # A broken file is refused with the reason, and what was typed stays.
    page.get_by_label("Crop profile file").set_input_files(
        files=[{"name": "broken.json", "mimeType": "application/json", "buffer": b"{oops"}]
    )
    page.get_by_label("Region").fill("Kantō")
    page.get_by_role("button", name="Recommend").click()
    expect(page.get_by_text("This is not JSON")).to_be_visible()
    expect(page.get_by_label("Region")).to_have_value("Kantō")
    expect(page.get_by_label("…or paste the crop profile")).to_have_value("{oops")
    screenshot(page, "fertilizer-form-error")

    page.get_by_label("Crop profile file").set_input_files(str(TOMATO_FILE))
    page.get_by_label("Soil K (test result)").select_option("1")
    page.get_by_role("button", name="Recommend").click()
    expect(page.locator("#plan-run progress")).to_be_visible()
    run_worker()
    expect(page.get_by_role("heading", name="Fertilizer plan #")).to_be_visible(timeout=30_000)

    totals = page.locator("#plan-totals")
    expect(totals).to_contain_text("P2O5")
    # UF/IFAS "Low" K: 125 lb K2O/acre = 140 kg/ha = 14.01 g/m², a dose; P has no soil test.
    expect(totals.locator("tr", has_text="K2O")).to_contain_text("14.01")
    expect(totals.locator("tr", has_text="K2O")).to_contain_text("dose: soil K “low”")
    expect(totals.locator("tr", has_text="P2O5")).to_contain_text("upper bound")
    expect(page.locator("#plan-method")).to_have_text("published extension range")
    expect(page.locator("#plan-applications")).to_contain_text("生育期, day ~40")
    chart = page.locator("#season-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("rect.bar-N")).to_have_count(5)  # basal, three topdressings, legend
    expect(chart).to_contain_text("育苗期")
    expect(page.locator("#plan-sources a").first).to_have_attribute(
        "href", "https://bmp.ifas.ufl.edu/crop-recommendations/tomatoes"
    )
    expect(page.locator("#plan-notes")).to_contain_text("RB209 index 1 read as “low”")
    expect(page.locator("#plan-issues")).to_contain_text("without saying elemental or oxide")
    shoot(page, ARTIFACTS / "fertilizer", "fertilizer-plan")

    page.get_by_label("Culture").select_option(str(tomato_culture))
    page.get_by_role("button", name="Save plan to culture").click()
    expect(page.get_by_text("Saved to Tomate ‘Harzfeuer’")).to_be_visible()
    page.locator("#saved-to a").click()
    expect(page.locator("#plan-history")).to_contain_text("current")
    expect(page.locator("#history")).to_contain_text("Fertilizer plan")
    screenshot(page, "culture-plan-history")


def test_a_german_plan_subtracts_nmin_and_says_what_each_total_is(page: Page, admin, run_worker):
    sign_in(page)
    page.goto("/fertilizer")
    shoot(page, ARTIFACTS / "fertilizer", "fertilizer-form")
    page.get_by_label("…or paste the crop profile").fill(
        '{"crop": {"crop_id": "winter_wheat", "name": "Winterweizen"}}'
    )
    page.get_by_label("Region").fill("Bayern")
    page.get_by_label("Target yield").fill("0.9")
    page.get_by_label("Soil mineral N (Nmin)").fill("45")
    page.get_by_label("Soil P (test result)").select_option("C")
    page.get_by_label("Soil texture").select_option("sand")
    page.get_by_role("button", name="Recommend").click()
    run_worker()
    expect(page.get_by_role("heading", name="Fertilizer plan #")).to_be_visible(timeout=30_000)
    totals = page.locator("#plan-totals")
    # 230 at 80 dt/ha, +10 for 90 dt/ha (Tabelle 3), − Nmin 45 = 195 kg N/ha.
    expect(totals.locator("tr").nth(1)).to_contain_text("195")
    expect(totals.locator("tr").nth(1)).to_contain_text("dose: DüV demand − Nmin")
    expect(totals.locator("tr", has_text="P2O5")).to_contain_text("maintenance = removal")
    expect(page.locator("#plan-method")).to_contain_text("DüV 2017 (as amended 2020), Anlage 4")
    expect(page.locator("#plan-notes")).to_contain_text("Nmin (0–90 cm) 45 kg N/ha")
    shoot(page, ARTIFACTS / "fertilizer", "fertilizer-plan-germany")
