"""A person's first minutes with Furrow, in a real browser."""

import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ADMIN_EMAIL, screenshot, sign_in
from tests.support.app import PASSWORD

pytestmark = pytest.mark.browser


def test_first_administrator_then_sign_out_and_in(page: Page):
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/setup$"))
    expect(page.get_by_role("heading", name="Create the first administrator")).to_be_visible()
    page.get_by_label("Name").fill("Ada Admin")
    page.get_by_label("Email").fill(ADMIN_EMAIL)
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("Repeat password").fill("short")
    page.get_by_role("button", name="Create administrator").click()
    expect(page.get_by_text("Use at least 12 characters.")).to_be_visible()
    screenshot(page, "setup-error")

    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Repeat password").fill(PASSWORD)
    page.get_by_role("button", name="Create administrator").click()
    expect(page.get_by_text("You are its first administrator")).to_be_visible()
    nav = page.get_by_role("navigation", name="Workspaces")
    expect(nav.get_by_role("link", name="Research tables")).to_be_visible()
    screenshot(page, "home")

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.goto("/setup")
    expect(page).to_have_url(re.compile(r"/login$"))
    sign_in(page)
    expect(page.get_by_role("link", name="Ada Admin")).to_be_visible()


def run_page_requests(page: Page, run_url: str) -> list[float]:
    """Collect the times of every poll of the run's status from now on."""
    seen: list[float] = []
    page.on("request", lambda r: r.url.endswith(run_url) and seen.append(time.monotonic()))
    return seen


def test_maintenance_run_progress_reaches_100_and_polling_stops(page: Page, run_worker):
    sign_in(page)
    page.get_by_role("button", name="Run integrity check").click()
    expect(page.get_by_role("heading", name=re.compile(r"Run #\d+"))).to_be_visible()
    run_path = page.url.removeprefix(page.url.split("/runs/")[0])
    polls = run_page_requests(page, run_path)
    status = page.locator("#run-status")
    expect(status).to_have_attribute("data-status", "queued")
    expect(page.locator("#run-status [hx-trigger], #run-status[hx-trigger]")).to_have_count(1)

    # Polling goes on while the run waits for a worker.
    wait_until = time.monotonic() + 10
    while len(polls) < 2 and time.monotonic() < wait_until:
        page.wait_for_timeout(200)
    assert len(polls) >= 2

    run_worker()
    expect(status).to_have_attribute("data-status", "succeeded", timeout=30_000)
    expect(page.locator("#run-status progress")).to_have_attribute("value", "100")
    expect(page.get_by_text(re.compile(r"(\d+) / \1 items — 100 %"))).to_be_visible()
    expect(page.locator("#results")).to_contain_text("users")
    # The verdict comes first, before the run's details.
    expect(page.locator("#run-status > :first-child")).to_have_id("verdict")
    expect(page.locator("#verdict")).to_contain_text("OK: no problems found")
    screenshot(page, "run-succeeded")

    # The finished fragment carries no trigger, so the browser stops asking.
    settled = len(polls)
    page.wait_for_timeout(3_000)
    assert len(polls) == settled
    expect(page.locator("#run-status[hx-trigger]")).to_have_count(0)


def test_cancel_a_queued_run_then_resume_it(page: Page, run_worker):
    sign_in(page)
    page.get_by_role("button", name="Run integrity check").click()
    status = page.locator("#run-status")
    expect(status).to_have_attribute("data-status", "queued")
    page.get_by_role("button", name="Cancel").click()
    expect(status).to_have_attribute("data-status", "cancelled")
    expect(page.get_by_text("Cancelled before it started.").first).to_be_visible()
    screenshot(page, "run-cancelled")

    run_path = page.url.removeprefix(page.url.split("/runs/")[0])
    polls = run_page_requests(page, run_path)
    page.wait_for_timeout(2_500)
    assert polls == []

    page.get_by_role("button", name=re.compile(r"Resume \(\d+ unfinished\)")).click()
    expect(status).to_have_attribute("data-status", "queued")
    run_worker()
    expect(status).to_have_attribute("data-status", "succeeded", timeout=30_000)
    expect(page.locator("dt:text-is('Attempt') + dd")).to_have_text("2")


def test_the_layout_works_on_a_phone(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 375, "height": 740})
    page = context.new_page()
    sign_in(page)
    page.goto("/runs")
    expect(page.get_by_role("heading", name="Runs")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375 + 1, "the page scrolls sideways on a phone"
    screenshot(page, "runs-phone")
    context.close()
