"""Browser tests: Playwright drives Debian's chromium against a real `furrow serve`."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.support.app import PASSWORD, empty_all_tables, start_worker, stop_process
from tests.support.server import Server, start_server
from webapp import ROOT

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
ADMIN_EMAIL = "admin@example.org"
DELIBERATE_STATUS = re.compile(
    r"Failed to load resource: the server responded with a status of 4(?:0[0-39]|2\d)"
)
# Headless chromium as root, with nothing reaching outside this machine.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            "Debian's chromium is missing: `make test` installs it (apt-get install chromium)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def browser_queue(services) -> str:
    """A queue of the browser tests' own, so the session's worker does not take their runs."""
    return f"{services.queue_name}-browser"


@pytest.fixture(scope="session")
def browser_server(services, tmp_path_factory) -> Iterator[Server]:
    """furrow serve with no workers of its own, started once for every browser test (its start
    was most of a short module's time): each test starts a worker when it wants runs to go."""
    instance = tmp_path_factory.mktemp("browser-instance")
    # It lives while other tests run on the same database: its periodic sweep must not mark
    # the runs they make lost on purpose before they look.
    env = services.env(FURROW_QUEUE=browser_queue(services), FURROW_SWEEP_SECONDS="86400")
    server = start_server(env, instance, workers=0)
    yield server
    server.stop(signal.SIGINT)


@pytest.fixture(scope="module")
def live_server(browser_server, session_app) -> Iterator[Server]:
    """The browser tests' server; each module starts on an empty database."""
    yield browser_server
    with session_app.app_context():
        empty_all_tables()


@pytest.fixture
def page(browser, live_server) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    # The console stays clean (CSP included): any error there fails the test — but for the
    # status line chromium logs when a form answers 4xx on purpose (422 re-render, 403).
    errors: list[str] = []

    def on_console(message) -> None:
        if message.type == "error" and not DELIBERATE_STATUS.match(message.text):
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], errors


@pytest.fixture
def run_worker(services, live_server):
    """Start a real RQ worker when the test calls it; stopped after the test. It keeps the
    server's instance folder, so it reads the files the server stored (a review's documents)."""
    started = []

    def start():
        instance = str(live_server.instance_path)
        queue = browser_queue(services)
        started.append(start_worker(services, FURROW_QUEUE=queue, FURROW_INSTANCE_PATH=instance))

    yield start
    for process in started:
        stop_process(process)


# The elements past a phone's width, to say what made a page scroll sideways.
WIDEST = """Array.from(document.querySelectorAll('body *'))
  .filter(e => e.getBoundingClientRect().right > 392)
  .filter(e => !Array.from(document.querySelectorAll('body *')).some(a => a !== e
    && a.contains(e) && ['auto', 'scroll'].includes(getComputedStyle(a).overflowX)))
  .slice(0, 8)
  .map(e => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`)
"""


def fits_phone(page: Page, name: str = "") -> None:
    """The page, once its stylesheets have loaded, never scrolls sideways at a phone's width."""
    page.wait_for_load_state("load")
    wide = page.evaluate("document.documentElement.scrollWidth") > 391
    assert not wide, (name or page.url, page.evaluate(WIDEST))


def shoot(page: Page, folder: Path, name: str, parts: str | None = None) -> None:
    """Screenshots of the page at 1280 and 390 px (and of each element parts selects, by its
    id), into folder; at 390 px the page never scrolls sideways (wide tables scroll in their
    frame)."""
    folder.mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
        for part in page.locator(parts).all() if parts else []:
            part_id = part.get_attribute("id")
            part.screenshot(path=str(folder / f"{name}-{width}-{part_id}.png"))
        if width == 390:
            fits_phone(page, name)
    page.set_viewport_size({"width": 1280, "height": 900})


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def admin(session_app, live_server) -> str:
    """The administrator the browser tests sign in as; created once."""
    from webapp.auth.accounts import create_user
    from webapp.auth.models import User
    from webapp.auth.roles import Role
    from webapp.extensions import db

    with session_app.app_context():
        if User.by_email(ADMIN_EMAIL) is None:
            create_user(ADMIN_EMAIL, PASSWORD, Role.admin)
            db.session.commit()
    return ADMIN_EMAIL


def sign_in(page: Page, email: str = ADMIN_EMAIL, password: str = PASSWORD) -> None:
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")
