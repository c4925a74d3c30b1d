"""The app, clients per role, and helpers to act like a person using the site."""

from __future__ import annotations

import functools
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask, has_app_context
from flask.cli import ScriptInfo
from flask.testing import FlaskClient
from flask_migrate import upgrade
from rq import Queue
from sqlalchemy import delete, select
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from tests.support.services import Services
from webapp import ROOT, create_app
from webapp.auth.accounts import create_user
from webapp.auth.models import User
from webapp.auth.roles import Role
from webapp.cli import main
from webapp.config import load_settings
from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.models import LIVE_STATUSES, Run
from webapp.jobs.queue import JobQueue

PASSWORD = "correct horse battery"
CSRF_RE = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|"X-CSRFToken": "([^"]+)"')


class Client(FlaskClient):
    """A test client that can find its CSRF token the way a browser form would."""

    def open(self, *args, **kwargs):
        # Each request gets its own app context (own g, own database session), as in production,
        # even while the test holds one open; the test then sees what the request committed.
        with self.application.app_context():
            response = super().open(*args, **kwargs)
        db.session.expire_all()
        return response

    def csrf_token(self, page: str = "/login") -> str:
        html = self.get(page, follow_redirects=True).get_data(as_text=True)
        match = CSRF_RE.search(html)
        assert match, f"no CSRF token on {page}"
        return match.group(1) or match.group(2)

    def submit(self, url: str, data: dict | None = None, page: str | None = None, **kwargs):
        """POST a form with a valid CSRF token, as the page at `page` (default: url) would."""
        form = {"csrf_token": self.csrf_token(page or "/account"), **(data or {})}
        return self.post(url, data=form, **kwargs)

    def post_multipart(self, url: str, values: dict, headers: dict | None = None):
        """A multipart POST built in memory: a large one the test client would spool to a
        temporary file it never closes."""
        files = {k: FileStorage(*v) if isinstance(v, tuple) else v for k, v in values.items()}
        boundary, body = encode_multipart(files)
        content_type = f"multipart/form-data; boundary={boundary}"
        return self.post(url, data=body, content_type=content_type, headers=headers or {})

    def login(self, email: str, password: str = PASSWORD):
        return self.post(
            "/login",
            data={"csrf_token": self.csrf_token("/login"), "email": email, "password": password},
        )


@pytest.fixture(scope="session", autouse=True)
def passwords_hashed_once() -> Iterator[None]:
    """scrypt takes some 0.13 s a hash by design, and the suite makes users and signs them in
    thousands of times with a few passwords (a quarter of its time on 2 CPUs). Each password
    is hashed once and each (hash, password) checked once, by werkzeug itself: the same
    answers, from the same strong hash."""
    from webapp.auth import models

    patch = pytest.MonkeyPatch()
    patch.setattr(models, "generate_password_hash", functools.cache(models.generate_password_hash))
    patch.setattr(models, "check_password_hash", functools.cache(models.check_password_hash))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def session_app(services: Services) -> Iterator[Flask]:
    app = create_app(load_settings(services.env()))
    app.config["TESTING"] = True
    app.test_client_class = Client
    with app.app_context():
        upgrade(directory=str(ROOT / "migrations"))
    yield app
    with app.app_context():
        db.engine.dispose()


def release_live_runs() -> None:
    """Let a failed test's unfinished runs end, so they do not hold the worker for later tests."""
    from tests.support.kinds import GatedItems, open_gates

    db.session.rollback()
    live = db.session.scalars(select(Run).where(Run.status.in_(LIVE_STATUSES))).all()
    for run in live:
        if run.kind == GatedItems.name and "gate_dir" in run.params:
            open_gates(Path(run.params["gate_dir"]), *run.items)
        run.cancel_requested_at = utcnow()
    db.session.commit()


def empty_all_tables() -> None:
    db.session.rollback()
    for table in reversed(db.metadata.sorted_tables):
        db.session.execute(delete(table))
    db.session.commit()


@pytest.fixture
def app(session_app: Flask) -> Iterator[Flask]:
    with session_app.app_context():
        yield session_app
        release_live_runs()
        session_app.extensions["furrow.jobs"].queue.empty()  # no job outlives its rows
        empty_all_tables()
        db.session.remove()


@pytest.fixture
def client(app: Flask) -> Client:
    return app.test_client()


@pytest.fixture
def make_user(app: Flask) -> Callable[..., User]:
    def make(role: Role | str = Role.viewer, email: str | None = None, **kwargs) -> User:
        role = role if isinstance(role, Role) else Role.parse(role)
        email = email or f"{role.name}-{secrets.token_hex(3)}@example.org"
        user = create_user(email, kwargs.pop("password", PASSWORD), role, **kwargs)
        db.session.commit()
        return user

    return make


@pytest.fixture
def client_as(app: Flask, make_user) -> Callable[[Role | str], Client]:
    """A new client signed in as a new user with the given role."""

    def sign_in(role: Role | str) -> Client:
        user = make_user(role)
        client = app.test_client()
        response = client.login(user.email)
        assert response.status_code == 302, response.get_data(as_text=True)
        client.user = user
        return client

    return sign_in


@pytest.fixture
def admin_client(client_as) -> Client:
    return client_as(Role.admin)


HTMX = {"HX-Request": "true"}


@pytest.fixture
def htmx_client_as(client_as) -> Callable[[Role | str], Client]:
    """A signed-in client whose every request says it comes from htmx."""

    def sign_in(role: Role | str) -> Client:
        client = client_as(role)
        client.environ_base["HTTP_HX_REQUEST"] = "true"
        return client

    return sign_in


def wait_for(condition: Callable[[], object], timeout: float = 20, every: float = 0.05):
    """Poll until condition() is truthy; return its value or fail with the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(every)


@dataclass(frozen=True)
class Ran:
    """What a `furrow` command did: its exit code and what it wrote to stdout and to stderr."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(args: Sequence[str], obj: ScriptInfo | None = None, **env: str | None) -> Ran:
    """Run the `furrow` group in this process, as `furrow ARGS` would: env is the environment it
    sees (None unsets a name), obj the app it loads (by default it makes its own, as a process
    does). An exception the command lets out fails the test with its own traceback."""
    # FlaskGroup sets FLASK_RUN_FROM_CLI and may load a .env file into os.environ: neither may
    # outlive the command here.
    env = {"FLASK_RUN_FROM_CLI": None, "FLASK_SKIP_DOTENV": "1", **env}
    extra = {} if obj is None else {"obj": obj}  # obj=None would find the app by searching
    result = CliRunner().invoke(main, list(args), env=env, prog_name="furrow", **extra)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


def furrow(app: Flask, *args: str, **env: str | None) -> Ran:
    """Run a `furrow` command on this app (its database and Redis), in this process and in an
    app context of its own, as a process would be: what it left uncommitted is not seen."""
    with app.app_context():
        ran = run_cli(args, ScriptInfo(create_app=lambda: app), **env)
    if has_app_context():
        db.session.expire_all()
    return ran


def start_worker(services: Services, **env: str) -> subprocess.Popen[bytes]:
    """A `furrow worker` process; its output goes to worker-N.log in the instance folder."""
    logs = sorted(services.instance_path.glob("worker-*.log"))
    with open(services.instance_path / f"worker-{len(logs) + 1}.log", "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "webapp", "worker"],
            cwd=ROOT,
            env=services.env(**env),
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def stop_process(process: subprocess.Popen[bytes], timeout: float = 10) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def idle_queue(app: Flask) -> Iterator[JobQueue]:
    """Send this test's runs to a queue no worker listens on, so they stay queued."""
    saved = app.extensions["furrow.jobs"]
    idle = JobQueue(saved.redis, Queue(f"{saved.queue.name}-idle", connection=saved.redis))
    app.extensions["furrow.jobs"] = idle
    yield idle
    idle.queue.empty()
    app.extensions["furrow.jobs"] = saved


class WorkerHolder:
    """The session's worker process, started again if a test killed it."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.process = start_worker(services)

    def ensure(self) -> subprocess.Popen[bytes]:
        if self.process.poll() is not None:
            self.process = start_worker(self.services)
        return self.process


@pytest.fixture(scope="session")
def worker_holder(services: Services, session_app: Flask) -> Iterator[WorkerHolder]:
    holder = WorkerHolder(services)
    yield holder
    stop_process(holder.process)


@pytest.fixture
def worker(worker_holder: WorkerHolder) -> subprocess.Popen[bytes]:
    """A real RQ worker process on the session's database and Redis."""
    return worker_holder.ensure()
