"""Apply, then approve, in a real browser: a calculated value applied from its run is a
prediction (its confidence said, no ✓); approved in its drawer, it is reviewed (✓). The
approval page lists the high-confidence values before approving them all. At 1280 and 390 px,
with a clean console."""

from json import loads

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, shoot, sign_in
from tests.browser.test_systems import FILE
from webapp.extensions import db
from webapp.systems.catalog import create_farm, import_system

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "systems-approve"


def test_apply_writes_a_prediction_and_approve_marks_it_reviewed(
    page: Page, session_app, admin, run_worker
):
    with session_app.app_context():
        import_system(create_farm("Ferme des états"), "États", loads(FILE.read_text()), None)
        db.session.commit()
    run_worker()
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="États").click()
    labour = page.locator("table.system-grid tr.intervention-row").filter(has_text="Labour").first
    labour.get_by_role("button", name="Edit Fuel of Labour").click()
    labour.get_by_role("button", name="Calculate").click()
    # The run may take seconds on a busy machine.
    expect(page.locator("#level-counts")).to_be_visible(timeout=30_000)
    row = page.locator("table.review tr.suggestion").filter(has_text="Labour › Fuel").first
    row.get_by_role("checkbox").check()
    page.get_by_role("button", name="Apply selected").click()
    expect(
        page.locator(".flash", has_text="Applied values are predictions, not reviewed")
    ).to_be_visible()
    expect(page.get_by_role("link", name="Approve values…")).to_be_visible()

    page.get_by_role("link", name="Back to États").click()
    fuel = labour.locator("td.value-cell").filter(
        has=page.get_by_role("link", name="Details of Fuel of Labour")
    )
    expect(fuel).not_to_have_class("state-reviewed")
    expect(fuel).not_to_contain_text("✓")
    expect(fuel).to_contain_text("confidence · not reviewed")  # said to screen readers
    expect(page.locator("#waiting-review")).to_contain_text("not reviewed yet")
    expect(page.locator("table.yearly-totals")).to_contain_text("not reviewed")
    shoot(page, SHOTS, "system-prediction", "#grid")

    labour.get_by_role("link", name="Details of Fuel of Labour").click()
    drawer = page.get_by_role("dialog", name="Labour › Fuel (L/ha)")
    expect(drawer.locator("#drawer-state")).to_contain_text("confidence · not reviewed")
    expect(drawer.locator("ol.thread")).to_contain_text("L/ha")  # how it was made
    drawer.get_by_role("button", name="Approve").click()
    expect(drawer.get_by_role("status")).to_contain_text("is marked reviewed")
    expect(drawer.locator("#drawer-state")).to_have_text("reviewed by a person")
    expect(fuel).to_contain_text("✓")
    page.keyboard.press("Escape")
    page.reload()
    approved = labour.locator("td.state-reviewed").filter(
        has=page.get_by_role("link", name="Details of Fuel of Labour")
    )
    expect(approved).to_contain_text("✓")
    shoot(page, SHOTS, "system-approved", "#grid")


def test_the_approval_page_lists_then_approves_every_high_confidence_value(
    page: Page, session_app, admin
):
    document = loads(FILE.read_text())
    work = document["steps"][0]["interventions"][0]
    work["values"] = [
        {"key": "ift", "value": 0.8, "reviewed": False, "confidence": "high"},
        {"key": "gnr", "value": 21, "reviewed": False, "confidence": "medium"},
    ]
    with session_app.app_context():
        import_system(create_farm("Ferme des approbations"), "Approbations", document, None)
        db.session.commit()
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="Approbations").click()
    page.get_by_role("link", name="Approve all high-confidence…").click()
    expect(page.locator("#approve-count")).to_contain_text("1 value with high confidence")
    expect(page.locator("table.approve-list")).to_contain_text("Treatment frequency index")
    expect(page.locator("table.approve-list")).not_to_contain_text("Fuel")
    shoot(page, SHOTS, "approve-confident")
    page.get_by_role("button", name="Approve 1 value").click()
    expect(page.get_by_text("Approved 1 value(s)")).to_be_visible()
    labour = page.locator("table.system-grid tr.intervention-row").filter(has_text="Labour").first
    expect(labour.locator("td.state-reviewed")).to_have_count(1)
    expect(page.locator("#waiting-review")).to_contain_text("1 value not reviewed yet")
