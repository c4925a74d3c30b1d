"""Bringing data in, in a real browser: an OpenFarmPlanner export previewed and imported, then
imported again as unchanged; a CSV too large for the page imported by a run, its pandas index
column left out, the table's page saying so while the rows come in."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot, sign_in

pytestmark = pytest.mark.browser

OPENFARMPLANNER = (
    Path(__file__).parent.parent / "cultures" / "data" / "openfarmplanner-kohlrabi.json"
)
ROWS = 12_000  # over the 10,000 rows a page import takes


def plots_csv() -> bytes:
    lines = [",Plot,Yield t/ha,Soil"]
    lines += [f"{n},P{n:05d},{n % 90 / 10 + 1},{'Loam' if n % 2 else 'Sand'}" for n in range(ROWS)]
    return ("\n".join(lines) + "\n").encode()


def upload(page: Page, label: str, name: str, mime: str, body: bytes) -> None:
    page.get_by_label(label).set_input_files(
        files=[{"name": name, "mimeType": mime, "buffer": body}]
    )
    page.get_by_role("button", name="Preview").click()


def test_an_openfarmplanner_export_is_imported_once_then_read_as_unchanged(page: Page, admin):
    sign_in(page)
    body = OPENFARMPLANNER.read_bytes()
    page.goto("/cultures/import")
    upload(page, "CSV or OpenFarmPlanner file", "cultures.json", "application/json", body)
    expect(page.locator("#import-preview")).to_contain_text("Read as OpenFarmPlanner JSON.")
    expect(page.locator("#import-summary")).to_contain_text("Create 2, update 0, unchanged 0")
    screenshot(page, "cultures-import-openfarmplanner-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "cultures-import-openfarmplanner-390")
    page.set_viewport_size({"width": 1200, "height": 900})
    page.get_by_role("button", name="Import 2 culture(s)").click()
    expect(page.get_by_text("Imported")).to_be_visible()

    page.goto("/cultures/import")
    upload(page, "CSV or OpenFarmPlanner file", "cultures.json", "application/json", body)
    expect(page.locator("#import-summary")).to_contain_text("Create 0, update 0, unchanged 2")


def test_a_large_csv_is_imported_by_a_run_without_its_index_column(page: Page, admin, run_worker):
    sign_in(page)
    page.goto("/tables/import")
    upload(page, "CSV file", "plots.csv", "text/csv", plots_csv())
    expect(page.locator("#import-preview")).to_contain_text(f"{ROWS:,} row(s)")
    page.get_by_label("Leave out “column 1”").check()
    screenshot(page, "table-import-large-1280")
    page.get_by_role("button", name=f"Create the table with {ROWS:,} row(s)").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    run_page = page.url
    page.get_by_role("link", name="Open the table “plots”").click()
    expect(page.locator("#import-notice")).to_contain_text("The rows are being imported: 0 of 6")
    screenshot(page, "table-import-running-1280")
    run_worker()
    page.goto(run_page)
    expect(page.locator("#verdict")).to_have_text(f"Imported {ROWS:,} row(s).", timeout=60_000)
    screenshot(page, "table-import-done-1280")
    page.get_by_role("link", name="Open the table “plots”").click()
    expect(page.locator("#import-notice")).to_have_count(0)
    expect(page.locator("main")).to_contain_text(f"{ROWS:,} row(s) · 3 column(s)")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "table-import-done-390")
