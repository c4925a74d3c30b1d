"""Refining a value in a real browser: from the grid's cell editor, a message the offline web
app reads for assumptions and a worker with the openai provider answers (the loopback server);
the answer is reviewed on the run's page and applied, wide and on a phone."""

import re
from json import loads
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, browser_queue, fits_phone, screenshot, sign_in
from tests.support.app import start_worker, stop_process
from tests.support.openai_server import responses_body, responses_function_call
from tests.systems.test_ai_answers import GOOD
from webapp.extensions import db
from webapp.systems.catalog import create_farm, import_system

pytestmark = pytest.mark.browser

FILE = Path(__file__).parent.parent / "systems" / "data" / "example-system.json"
PHONE_WIDTH = 390
FUEL = GOOD | {
    "message": "Avec une charrue 4 corps : 18 L/ha.",
    "value": 18,
    "unit": "L/ha",
    "calculation_steps": ["21 L/ha × 4/5 corps ≈ 18 L/ha"],
    "sources": [
        {
            "title": "Chambre d'agriculture, consommation de carburant",
            "url": "https://example.org/carburant",
            "claim": "Labour : 18 à 22 L/ha",
        }
    ],
    "new_assumptions": "- **Puissance**: 110 ch",
    "new_assumptions_level": "intervention",
}


@pytest.fixture
def openai_worker(services, openai_server):
    """A worker whose provider is openai, pointed at the loopback server."""
    process = start_worker(
        services,
        FURROW_QUEUE=browser_queue(services),
        FURROW_PROVIDER="openai",
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=openai_server.base_url,
    )
    yield openai_server
    stop_process(process)


def test_refine_a_value_from_the_grid_and_apply_the_answer(
    page: Page, session_app, admin, openai_worker
):
    # Fuel has a calculator: the model must call it before it answers.
    openai_worker.reply(responses_function_call("calculate", {"key": "gnr"}))
    openai_worker.reply(responses_body(FUEL, searches=0))
    with session_app.app_context():
        import_system(create_farm("Ferme de l'affinage"), "Affinage", loads(FILE.read_text()), None)
        db.session.commit()
    sign_in(page)
    page.goto("/systems")
    page.get_by_role("link", name="Affinage").click()
    labour = page.locator("table.system-grid tr.intervention-row").filter(has_text="Labour").first
    labour.get_by_role("button", name="Edit Fuel of Labour").click()
    labour.get_by_text("Refine…").click()
    message = labour.get_by_label("What to change about Fuel")
    message.fill("la charrue n'a que 4 corps")
    labour.get_by_role("button", name="Refine", exact=True).click()
    # Offline, the web app reads only assumptions from a message: it says what to write.
    expect(labour.get_by_role("alert")).to_contain_text("- **Corps**: 4")
    labour.screenshot(path=str(ARTIFACTS / "system-refine-cell-1280.png"))
    labour.get_by_label("What to change about Fuel").fill("Corps: 4")
    labour.get_by_role("button", name="Refine", exact=True).click()

    expect(page.get_by_role("heading", name="Refine")).to_be_visible()
    review = page.locator("table.data.review")
    # The value's row, then the row of the assumptions its answer adds.
    fuel = review.locator("tr.suggestion").first
    expect(fuel).to_contain_text("Labour › Fuel", timeout=30_000)
    expect(fuel).to_contain_text("18")
    expect(fuel).to_contain_text("Chambre d'agriculture")
    added = review.locator("tr.suggestion").filter(has_text="new assumptions of the intervention")
    expect(added).to_contain_text("Puissance")
    screenshot(page, "system-refine-1280")
    # The value and the assumptions its answer adds, applied together.
    page.get_by_role("link", name=re.compile(r"^Apply all [0-9,]+ valid…$")).click()
    page.get_by_role("button", name="Apply 2 value(s)").click()
    expect(page.get_by_text("Applied 2 value(s)")).to_be_visible()
    sent = openai_worker.requests[0][1]["input"]
    assert "The user now writes: Corps: 4" in sent and "- **Corps**: 4" in sent

    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    page.reload()
    fits_phone(page)
    screenshot(page, "system-refine-390")
    page.get_by_role("link", name="Back to Affinage").click()
    cell = page.locator("table.system-grid tr.intervention-row").filter(has_text="Labour").first
    # Applied, the model's answer is a prediction (not ✓) until a person approves it.
    fuel_cell = cell.locator("td.value-cell").filter(
        has=page.get_by_role("link", name="Details of Fuel of Labour")
    )
    expect(fuel_cell).to_contain_text("18")
    expect(fuel_cell).to_contain_text("confidence · not reviewed")

    # The value's drawer shows the conversation and refines it again.
    openai_worker.reply(responses_function_call("calculate", {"key": "gnr"}))
    openai_worker.reply(responses_body(FUEL | {"value": 17, "message": "Avec 120 ch : 17 L/ha."}))
    page.set_viewport_size({"width": 1280, "height": 900})
    cell.get_by_role("link", name="Details of Fuel of Labour").click()
    drawer = page.get_by_role("dialog", name="Labour › Fuel (L/ha)")
    thread = drawer.locator("ol.thread")
    expect(thread).to_contain_text("Corps: 4")
    expect(thread).to_contain_text("Avec une charrue 4 corps : 18 L/ha.")
    drawer.get_by_label("Refine: what to change about this value").fill("Puissance: 120 ch")
    drawer.locator(".drawer-refine").scroll_into_view_if_needed()
    drawer.screenshot(path=str(ARTIFACTS / "system-refine-drawer-1280.png"))
    drawer.get_by_role("button", name="Refine", exact=True).click()
    again = page.locator("table.data.review tr.suggestion").first
    expect(again).to_contain_text("17", timeout=30_000)
