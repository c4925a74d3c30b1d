"""Reviewing a table run's proposal in a real browser: with the keyboard (j, x, a, u), apply
all valid through its confirm page, and as cards on a phone."""

import re

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select, update

from tests.browser.conftest import screenshot, sign_in
from tests.browser.test_research_tables import enrich
from tests.support.tables import make_table
from webapp.extensions import db
from webapp.review.models import Suggestion
from webapp.tables.models import DataTable, TableRow
from webapp.tables.sort_keys import write_keys

pytestmark = pytest.mark.browser

PLOTS = 60
COLUMNS = [
    ("Plot", "text"),
    ("Area", "number"),
    ("Yield", "number"),
    ("Per ha", "number", [], "t/ha"),
]


@pytest.fixture
def plots(session_app, admin) -> int:
    rows = [
        {"Plot": f"Plot {n:03d}", "Area": n % 7 + 1, "Yield": n % 30 + 5}
        for n in range(1, PLOTS + 1)
    ]
    rows[6]["Area"] = 0  # a division by zero: the row fails
    with session_app.app_context():
        return make_table("Plots", COLUMNS, rows).id


def finished_review(page: Page, table_id: int, run_worker) -> str:
    """Fill Per ha by computation over every plot; the review's address once it ended."""
    sign_in(page)
    page.goto(f"/tables/{table_id}")
    run_worker()
    enrich(page, "Per ha", "Computation", Formula="round({Yield} / {Area}, 2)")
    expect(page.locator("#proposal")).to_be_visible(timeout=30_000)
    return page.url


def keys_ready(page: Page) -> None:
    """The review's script has run: it shows the Keys button it answers to."""
    expect(page.locator("[data-open-keys]")).to_be_visible()


def checked_and_changed(session_app, table_id: int) -> None:
    """Plot 003 invalid, Plot 004 warned about, and Plot 005's cell changed since the run."""
    with session_app.app_context():
        table = db.session.get(DataTable, table_id)
        plot, per_ha = table.column_named("Plot").key, table.column_named("Per ha").key
        query = select(TableRow).where(TableRow.table_id == table_id)
        rows = {r.cells[plot]: r for r in db.session.scalars(query)}
        for name, level, message in [
            ("Plot 003", "error", "More than any plot here has yielded."),
            ("Plot 004", "warning", "Well above the usual yield."),
        ]:
            issue = {
                "code": "yield_checked",
                "severity": level,
                "field": per_ha,
                "message": message,
            }
            db.session.execute(
                update(Suggestion)
                .where(Suggestion.target_id == rows[name].id)
                .values(
                    issues=[issue],
                    level=level,
                    status="blocked" if level == "error" else "pending",
                )
            )
        rows["Plot 005"].cells = {**rows["Plot 005"].cells, per_ha: 4.2}
        db.session.commit()


def test_review_with_the_keyboard_apply_and_undo(page: Page, plots, run_worker, session_app):
    review = finished_review(page, plots, run_worker)
    checked_and_changed(session_app, plots)
    page.goto(review)
    expect(page.locator("#level-counts")).to_contain_text("1 with errors")
    # Fifty rows a page; the changed one comes first.
    expect(page.locator("#proposal tbody tr.review-item")).to_have_count(50)
    expect(page.locator("#proposal tbody tr").first).to_have_class(re.compile(r"\bchanged\b"))
    expect(page.locator(".changed")).to_contain_text("changed since the run")
    page.set_viewport_size({"width": 1280, "height": 900})
    screenshot(page, "table-review")

    second = page.locator("#proposal tbody tr").nth(1)
    keys_ready(page)
    page.keyboard.press("j")
    page.keyboard.press("j")
    expect(second).to_have_class("suggestion review-item focused")
    page.keyboard.press("x")
    expect(second.locator("input.pick")).to_be_checked()
    page.evaluate("window.samePage = true")  # gone if the page reloads
    page.keyboard.press("a")
    expect(page.get_by_text("Applied Per ha of Plot 001.")).to_be_visible()
    keys_ready(page)
    expect(page.locator("#proposal tbody tr").nth(1).locator("td[data-label=Status]")).to_have_text(
        "applied"
    )
    # The rows were swapped in, not the page reloaded; the address says the apply to undo.
    assert page.evaluate("window.samePage") is True
    expect(page).to_have_url(re.compile(r"[?&]undo=[0-9a-f]+"))
    invalid = page.locator("#proposal tbody tr").filter(has_text="Plot 003")
    expect(invalid.locator("input.pick")).to_be_disabled()
    page.keyboard.press("u")
    expect(page.get_by_text(re.compile(r"^Undone — .+: Per ha\.( History)?$"))).to_be_visible()
    keys_ready(page)
    expect(page.locator("#proposal tbody tr").nth(1).locator("td[data-label=Status]")).to_have_text(
        "pending"
    )

    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_be_visible()
    page.get_by_role("button", name="Close").click()
    expect(page.locator("#keys-help")).to_be_hidden()
    expect(page.locator("#undo-form")).to_have_count(0)  # closing the keys applied nothing


def test_apply_all_valid_through_its_confirm_page(page: Page, plots, run_worker, session_app):
    review = finished_review(page, plots, run_worker)
    checked_and_changed(session_app, plots)
    page.goto(review)
    page.get_by_role("link", name="Apply all 58 valid…").click()
    counts = page.locator("#apply-all-counts")
    expect(counts.locator("#will-apply")).to_contain_text("57 row(s)")
    expect(counts.locator("#skip-invalid")).to_contain_text("1")
    expect(counts.locator("#skip-stale")).to_contain_text("1")
    screenshot(page, "table-review-apply-all")
    page.get_by_role("button", name="Apply 57 row(s)").click()
    expect(page.get_by_text("Applied 57 row(s).")).to_be_visible()
    expect(page.locator(".flash-info")).to_contain_text(
        "1 changed since the run (re-confirm them on its row)"
    )
    expect(page.get_by_role("link", name="Apply all", exact=False)).to_have_count(0)
    page.goto(f"/tables/{plots}")
    expect(page.locator("#table-rows")).to_contain_text("3.75")


def test_on_a_phone_the_review_reads_as_cards(page: Page, plots, run_worker, session_app):
    review = finished_review(page, plots, run_worker)
    checked_and_changed(session_app, plots)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(review)
    expect(page.locator("#proposal thead")).to_be_hidden()
    first = page.locator("#proposal tbody tr").first
    assert first.evaluate("row => getComputedStyle(row).display") == "block"
    label = first.locator("td[data-label=Trace]")
    assert label.evaluate("td => getComputedStyle(td, '::before').content") == '"Trace"'
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "table-review-phone")


def test_the_actions_stay_in_view_above_a_long_page_of_rows(
    page: Page, plots, run_worker, session_app
):
    review = finished_review(page, plots, run_worker)
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for address, action in (
            (review, "Apply selected"),
            (f"/tables/{plots}", "Delete selected rows"),
        ):
            page.goto(address)
            button = page.get_by_role("button", name=action)
            # Above the rows, and still there once the page is scrolled to its last row.
            rows = page.locator("#proposal, #table-rows").first
            assert button.bounding_box()["y"] < rows.bounding_box()["y"]
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            expect(button).to_be_in_viewport()
        # The view as a person has it, scrolled down the rows (a full-page shot hides it).
        page.mouse.wheel(0, -600)
        page.screenshot(path=str(screenshot(page, f"actions-bar-{width}")))


def test_a_rejection_with_the_keyboard_is_undone_with_it(page: Page, plots, run_worker):
    review = finished_review(page, plots, run_worker)
    page.goto(review)
    keys_ready(page)
    first = page.locator("#proposal tbody tr").first
    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(first.locator("input.pick")).to_be_checked()
    page.keyboard.press("r")
    expect(page.get_by_text(re.compile(r"^Rejected 1 row\(s\): Plot "))).to_be_visible()
    expect(first.locator("td[data-label=Status]")).to_have_text("rejected")
    expect(page.get_by_role("button", name="Undo this rejection")).to_be_visible()
    screenshot(page, "table-review-rejected")
    keys_ready(page)
    page.keyboard.press("u")
    expect(page.get_by_text(re.compile(r"^Undone — Plot \d+: Per ha\.$"))).to_be_visible()
    expect(page.locator("#proposal tbody tr").first.locator("td[data-label=Status]")).to_have_text(
        "pending"
    )


def test_the_table_page_reads_as_people_read_it(page: Page, plots, run_worker, session_app):
    sign_in(page)
    page.goto(f"/tables/{plots}")
    # The column to fill is the first with no value yet, not the second.
    expect(page.locator("#enrich-column")).to_have_value("Per ha")
    with session_app.app_context():
        table = db.session.get(DataTable, plots)
        per_ha = table.column_named("Per ha")
        first = db.session.scalars(
            select(TableRow).where(TableRow.table_id == plots).order_by(TableRow.position)
        ).first()
        cells = {**first.cells, per_ha.key: 5.942857143}
        first.cells = cells
        write_keys({first.id: cells}, [per_ha.key])
        db.session.commit()
        row_id, column_id = first.id, per_ha.id
    page.reload()
    cell = page.locator(f"#cell-{row_id}-{column_id}")
    expect(cell).to_have_text("5.94")
    expect(cell).to_have_attribute("title", "5.942857143")
    screenshot(page, "table-long-number")
    page.goto(f"/tables/{plots}/rows/{row_id}/history")
    expect(page.locator("main")).not_to_contain_text("@example.org")
