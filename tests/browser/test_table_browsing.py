"""Browsing a research table in a real browser: sort by a header, filter, facets, and editing
one cell at a time without the table moving."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS, shoot, sign_in
from webapp.extensions import db
from webapp.tables import catalog

pytestmark = pytest.mark.browser

COLUMNS = [
    {"name": "Variety", "type": "text"},
    {"name": "Yield", "type": "number", "unit": "t/ha"},
    {"name": "Soil", "type": "select", "options": ["sand", "loam"]},
    {"name": "Notes", "type": "text"},
]
NOTE = "Sown late after a wet spring; lodging on the headlands, otherwise even stands"
ROWS = [
    {"Variety": "Bussard", "Yield": 9, "Soil": "loam", "Notes": NOTE},
    {"Variety": "Aron", "Yield": 10.5, "Soil": "sand", "Notes": NOTE},
    {"Variety": "Capo", "Yield": 100, "Soil": "loam", "Notes": NOTE},
]


@pytest.fixture
def trial(session_app, admin, request) -> int:
    with session_app.app_context():
        table = catalog.create_table(request.node.name[:100], COLUMNS, None)
        catalog.add_rows(table, ROWS, None)
        db.session.commit()
        return table.id


def varieties(page: Page) -> list[str]:
    return page.locator("#table-rows tbody tr td:nth-child(3)").all_inner_texts()


def test_sort_filter_and_facets(page: Page, trial):
    sign_in(page)
    page.goto(f"/tables/{trial}")
    header = page.locator("#table-rows thead th", has_text="Yield")
    header.get_by_role("link").click()
    expect(header).to_have_attribute("aria-sort", "ascending")
    assert varieties(page) == ["Bussard", "Aron", "Capo"]
    header.get_by_role("link").click()
    expect(header).to_have_attribute("aria-sort", "descending")
    assert "dir=desc" in page.url
    assert varieties(page) == ["Capo", "Aron", "Bussard"]

    page.get_by_label("Filter rows where").select_option(label="Yield")
    page.get_by_label("is", exact=True).select_option(label=">")
    page.get_by_label("Value").fill("9.5")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#filter-status")).to_have_text("2 row(s) where Yield > “9.5”.")
    assert varieties(page) == ["Capo", "Aron"]  # the sort stays

    page.get_by_role("link", name="Clear the filter").click()
    page.locator(".facets").get_by_role("link", name="loam").click()
    expect(page.locator("#filter-status")).to_have_text("2 row(s) where Soil = “loam”.")
    assert varieties(page) == ["Capo", "Bussard"]

    # A number column's facet counts round ranges; a range filters to its rows.
    page.get_by_role("link", name="Clear the filter").click()
    facets = page.locator(".facets")
    expect(facets).to_contain_text("100 to under 125")
    shoot(page, ARTIFACTS / "table-facets", "table-facets")
    facets.get_by_role("link", name="0 to under 25").click()
    expect(page.locator("#filter-status")).to_contain_text(
        "2 row(s) where Yield from 0 to under 25"
    )
    assert varieties(page) == ["Aron", "Bussard"]


def test_one_cell_editor_at_a_time_escape_cancels_and_the_table_keeps_its_shape(page: Page, trial):
    sign_in(page)
    page.goto(f"/tables/{trial}")
    first = page.get_by_role("button", name="Edit Variety of row", exact=False).first
    cell = page.locator("#table-rows td.cell").first
    cell_id = cell.get_attribute("id")
    notes = page.locator("#table-rows tbody tr").first.locator("td.cell").last
    width, notes_width = cell.bounding_box()["width"], notes.bounding_box()["width"]

    first.click()
    editing = page.locator(f"#{cell_id}.editing")
    expect(editing.locator("input")).to_be_focused()
    assert abs(editing.bounding_box()["width"] - width) < 2
    assert abs(notes.bounding_box()["width"] - notes_width) < 2

    second = page.locator("#table-rows tbody tr").nth(1).locator("td.cell").nth(1)
    second_id = second.get_attribute("id")
    second.get_by_role("button").click()
    expect(page.locator(f"#{second_id}.editing input")).to_be_focused()
    expect(page.locator(f"#{cell_id}.editing")).to_have_count(0)
    expect(page.locator("td.cell.editing")).to_have_count(1)

    page.keyboard.press("Escape")
    expect(page.locator("td.cell.editing")).to_have_count(0)
    expect(page.locator(f"#{second_id}")).to_have_text("10.5")


def test_filter_chips(page: Page, trial):
    sign_in(page)
    page.goto(f"/tables/{trial}")
    page.get_by_label("Filter rows where").select_option(label="Yield")
    page.get_by_label("is", exact=True).select_option(label=">")
    page.get_by_label("Value").fill("9.5")
    page.get_by_role("button", name="Filter").click()
    # a facet adds its filter to the one typed
    page.locator(".facets").get_by_role("link", name="loam").click()
    status = page.locator("#filter-status")
    expect(status).to_have_text("1 row(s) where Yield > “9.5” and Soil = “loam”.")
    assert varieties(page) == ["Capo"]
    chips = page.locator("#filter-chips")
    expect(chips.get_by_role("link")).to_have_count(2)
    shoot(page, ARTIFACTS / "table-filters", "table-filters")
    chips.get_by_role("link", name="Remove the filter Yield > “9.5”").click()
    expect(status).to_have_text("2 row(s) where Soil = “loam”.")
    assert varieties(page) == ["Bussard", "Capo"]


def test_header_arrows_keep_clear_of_their_labels(page: Page, session_app, admin):
    with session_app.app_context():
        table = catalog.create_table(
            "FAO yields",
            [
                {"name": "Item", "type": "text"},
                {"name": "Yield (hg/ha)", "type": "number", "unit": "hg/ha"},
                {"name": "Harvested area of the crop", "type": "number", "unit": "ha"},
            ],
            None,
        )
        catalog.add_rows(table, [{"Item": "Maize", "Yield (hg/ha)": 52000}], None)
        db.session.commit()
        table_id = table.id
    sign_in(page)
    page.goto(f"/tables/{table_id}")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for header in page.locator("#table-rows thead a.sort").all():
            label = header.locator(".sort-label")
            arrow = header.locator(".sort-arrow").bounding_box()
            box = label.bounding_box()
            # the label's text fits its box (none runs out under the arrow or the next header)
            fits = label.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
            assert fits and box["x"] + box["width"] <= arrow["x"], header.inner_text()
    expect(page.locator("#table-rows thead")).not_to_contain_text("hg/ha) (hg/ha")
    shoot(page, ARTIFACTS / "table-headers", "table-headers")
