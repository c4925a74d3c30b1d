"""Every page a signed-in administrator can reach by following links, with runs and their
reviews in place: none logs a console error (CSP included), and none scrolls sideways on a
phone."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import WIDEST, sign_in
from tests.support.tables import make_table
from webapp.cultures.demo import load_demo_cultures
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.systems.demo import load_demo_system

pytestmark = pytest.mark.browser

# Downloads and the API answer files, not pages.
NOT_PAGES = (".csv", ".json", "/api/v1")
MOST_PAGES = 150
# What sticks out past a phone's width, to say so when a page does.


@pytest.fixture
def reviewed(session_app, admin) -> dict[str, int]:
    with session_app.app_context():
        load_demo_cultures()
        load_demo_system()
        table = make_table(
            "Trial plots",
            [("Plot", "text"), ("Area m2", "number"), ("Yield kg", "number"), ("Per m2", "number")],
            [
                {"Plot": "North", "Area m2": 12, "Yield kg": 60},
                {"Plot": "South", "Area m2": 8, "Yield kg": 36},
            ],
        )
        culture = db.session.scalars(db.select(Culture).order_by(Culture.id)).first()
        return {"table": table.id, "culture": culture.id}


def crawl(page: Page) -> list[str]:
    """Visit every kind of same-site page reachable from the home page (one address per path
    shape: /cultures/7/edit stands for every culture's edit page), returning the paths seen."""
    seen = {"/"}
    queue = ["/"]
    visited = []
    while queue and len(visited) < MOST_PAGES:
        path = queue.pop(0)
        page.goto(path)
        visited.append(path)
        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
        for href in hrefs:
            parts = urlsplit(urljoin(page.url, href))
            if parts.netloc != urlsplit(page.url).netloc or parts.path.endswith(NOT_PAGES):
                continue
            shape = re.sub(r"\d+", "N", parts.path)
            if parts.path.startswith(NOT_PAGES[-1]) or shape in seen:
                continue
            seen.add(shape)
            queue.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return visited


def test_no_page_logs_a_console_error_or_scrolls_sideways_on_a_phone(
    page: Page, browser, live_server, reviewed, run_worker
):
    sign_in(page)
    run_worker()
    page.goto(f"/cultures/{reviewed['culture']}")
    page.get_by_role("button", name="Enrich").click()
    expect(page.locator("#suggestions")).to_be_visible(timeout=30_000)
    page.goto(f"/tables/{reviewed['table']}")
    page.get_by_label("Column to fill").select_option("Per m2")
    page.get_by_label("Strategy").select_option(label="Computation")
    page.get_by_label("Formula").fill("{Yield kg} / {Area m2}")
    page.get_by_role("button", name="Enrich ticked rows").click()
    expect(page.locator("#proposal")).to_be_visible(timeout=30_000)

    visited = crawl(page)
    assert len(visited) > 15 and any("/runs/" in p for p in visited), visited

    phone = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844})
    small = phone.new_page()
    errors: list[str] = []
    small.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    small.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(small)
    wide = []
    for path in visited:
        small.goto(path)
        if small.evaluate("document.documentElement.scrollWidth") > 391:
            wide.append((path, small.evaluate(WIDEST)))
    phone.close()
    assert errors == [] and wide == [], (errors, wide)
