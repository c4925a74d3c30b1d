"""The login throttle holds under parallel attempts against a real `furrow serve` (gunicorn's
threads, the session's database): no more passwords are checked than the limit allows."""

from __future__ import annotations

import signal
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.app import CSRF_RE
from tests.support.server import start_server
from webapp.auth.models import LoginAttempt
from webapp.auth.throttle import PER_ACCOUNT, PER_ADDRESS
from webapp.extensions import db

PARALLEL = 40


@pytest.fixture(scope="module")
def server(services, session_app, tmp_path_factory):
    server = start_server(services.env(), tmp_path_factory.mktemp("throttle"), workers=0)
    yield server
    server.stop(signal.SIGINT)


class Browser:
    """One cookie and CSRF token, shared by every parallel attempt as a script would."""

    def __init__(self, url: str) -> None:
        self.url = url
        with urllib.request.urlopen(url + "/login", timeout=10) as response:  # noqa: S310
            self.cookie = response.headers["Set-Cookie"].split(";", 1)[0]
            match = CSRF_RE.search(response.read().decode())
        self.token = match.group(1) or match.group(2)

    def login(self, email: str, password: str) -> int:
        body = urllib.parse.urlencode(
            {"csrf_token": self.token, "email": email, "password": password}
        ).encode()
        request = urllib.request.Request(  # noqa: S310
            self.url + "/login", data=body, headers={"Cookie": self.cookie}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code


def in_parallel(browser: Browser, emails: list[str]) -> Counter:
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        return Counter(pool.map(lambda email: browser.login(email, "wrong wrong wrong"), emails))


def failures_stored() -> int:
    db.session.expire_all()
    return db.session.query(LoginAttempt).filter_by(succeeded=False).count()


def test_forty_parallel_wrong_passwords_for_one_account_check_only_five(app, server, make_user):
    user = make_user()
    statuses = in_parallel(Browser(server.url), [user.email] * PARALLEL)
    assert statuses == {422: PER_ACCOUNT.failures, 429: PARALLEL - PER_ACCOUNT.failures}
    assert failures_stored() == PER_ACCOUNT.failures


def test_parallel_attempts_from_one_address_stop_at_its_limit(app, server, make_user):
    make_user()  # with no account at all, /login leads to the first administrator's setup
    emails = [f"guess-{n}@example.org" for n in range(PARALLEL)]
    statuses = in_parallel(Browser(server.url), emails)
    assert statuses == {422: PER_ADDRESS.failures, 429: PARALLEL - PER_ADDRESS.failures}
    assert failures_stored() == PER_ADDRESS.failures
