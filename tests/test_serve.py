"""`furrow serve` as a person starts it: embedded Redis, migrations, web server and workers."""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys

import psutil
import pytest
from sqlalchemy import func, select

from tests.support.app import wait_for
from tests.support.kinds import GatedItems, open_gates
from tests.support.server import embedded_env, start_server
from tests.support.services import free_port
from webapp import ROOT, create_app
from webapp.config import load_settings
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.queue import enqueue_run, resume_run
from webapp.serve import LONGEST_REQUEST_LINE

pytestmark = pytest.mark.worker


def command(process: psutil.Process) -> list[str]:
    """The process's command line, or [] once it has exited (zombies included)."""
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def names(processes):
    return sorted(" ".join(command(p)[:4]) for p in processes if command(p))


@pytest.fixture
def server(tmp_path):
    server = start_server(embedded_env(), tmp_path / "instance", workers=2)
    yield server
    server.stop(signal.SIGKILL)


def worker_pids(server):
    """The supervisor's own worker children (an RQ worker may fork short-lived helpers)."""
    children = psutil.Process(server.process.pid).children()
    return {p.pid for p in children if command(p)[1:4] == ["-m", "webapp", "worker"]}


def test_a_fresh_instance_serves_the_first_administrator_page(server):
    status, body = server.get("/setup")
    assert status == 200 and b"Create the first administrator" in body
    assert (server.instance_path / "furrow.db").exists()
    assert (server.instance_path / "redis.sock").exists()
    assert len(worker_pids(server)) == 2
    assert any("redis-server" in " ".join(command(p)) for p in server.descendants())
    assert "demo" not in server.log()  # only `furrow serve --demo` (`make run`) adds it


def demo_cultures(server) -> int:
    with app_on(server):
        return db.session.scalar(select(func.count()).select_from(Culture))


def test_serve_with_demo_loads_the_demo_data_into_an_empty_database_once(tmp_path):
    instance = tmp_path / "instance"
    first = start_server(embedded_env(), instance, workers=0, args=("--demo",))
    assert first.stop(signal.SIGINT) == 0
    assert "furrow: added the demo farm system" in first.log()
    added = demo_cultures(first)
    assert f"furrow: added {added} demo cultures" in first.log() and added > 0

    again = start_server(embedded_env(), instance, workers=0, args=("--demo",))
    assert again.stop(signal.SIGINT) == 0
    assert "furrow: the catalog is not empty; no demo data" in again.log()
    assert "furrow: there are farm systems; no demo system" in again.log()
    assert demo_cultures(again) == added


def test_an_address_past_the_request_line_limit_is_414_from_the_web_server(server):
    """Documented in docs/api.md: gunicorn answers it, in plain text, before Furrow sees it."""
    fits = "x" * (LONGEST_REQUEST_LINE - len("GET /healthz?q= HTTP/1.1") - 8)
    assert server.get(f"/healthz?q={fits}")[0] == 200
    status, _body = server.get("/healthz?q=" + "x" * LONGEST_REQUEST_LINE)
    assert status == 414


def test_a_crashed_worker_is_restarted(server):
    before = worker_pids(server)
    victim = min(before)
    os.kill(victim, signal.SIGKILL)

    def replaced():
        now = worker_pids(server)  # one snapshot: the victim may still be dying
        return now if len(now) == 2 and victim not in now else None

    assert len(wait_for(replaced) - before) == 1
    assert "exited (code -9); restarting." in server.log()


def test_ctrl_c_stops_everything_it_started(server):
    children = server.descendants()
    assert len(children) >= 4  # gunicorn master + its worker, 2 RQ workers, redis-server
    assert server.stop(signal.SIGINT) == 0
    _gone, alive = psutil.wait_procs(children, timeout=10)
    assert alive == []
    assert not (server.instance_path / "redis.sock").exists()


def test_sigkill_of_the_supervisor_takes_its_children_along(server):
    children = server.descendants()
    server.process.kill()
    server.process.wait()
    _gone, alive = psutil.wait_procs(children, timeout=15)
    assert names(alive) == []


def test_a_second_serve_on_the_same_instance_is_refused_with_one_line(server):
    env = {**embedded_env(), "FURROW_INSTANCE_PATH": str(server.instance_path)}
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "serve", "--port", str(free_port())],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .startswith("furrow: a Redis server already answers on")
    )
    assert server.get("/healthz")[0] == 200


@contextlib.contextmanager
def app_on(server):
    """This test's own app on the server's database and embedded Redis, to start and read runs."""
    env = {**embedded_env(), "FURROW_INSTANCE_PATH": str(server.instance_path)}
    app = create_app(load_settings(env))
    with app.app_context():
        yield app
        db.session.remove()
        db.engine.dispose()


def reload(run_id: int) -> Run:
    db.session.expire_all()
    run = db.session.get(Run, run_id)
    db.session.commit()
    return run


def gated(gate_dir, count=1, **params) -> Run:
    return enqueue_run(GatedItems, None, {"count": count, "gate_dir": str(gate_dir), **params})


def kill_redis(server) -> int:
    (redis_server,) = [p for p in server.descendants() if "redis-server" in " ".join(command(p))]
    redis_server.kill()
    return redis_server.pid


def test_a_killed_redis_is_restarted_and_the_next_run_succeeds(tmp_path):
    server = start_server(embedded_env(), tmp_path / "instance", workers=1)
    try:
        killed = kill_redis(server)
        line = wait_for(
            lambda: re.search(r"the embedded Redis exited \(code -9\); restarted .*", server.log())
        )
        assert "queue_lost (resumable)" in line.group(0)
        assert not psutil.pid_exists(killed)  # reaped, not left <defunct>
        wait_for(lambda: server.get("/healthz")[0] == 200)

        with app_on(server):
            open_gates(tmp_path, "item-0")
            run = gated(tmp_path)
            # The worker reconnected by itself and takes the new job.
            wait_for(lambda: reload(run.id).status == RunStatus.succeeded, timeout=60)
        assert server.stop(signal.SIGINT) == 0
        assert "Traceback" not in server.log()
    finally:
        server.stop(signal.SIGKILL)


def test_a_run_queued_when_redis_died_is_queue_lost_and_resumes_to_success(tmp_path):
    server = start_server(embedded_env(), tmp_path / "instance", workers=1)
    try:
        with app_on(server):
            (tmp_path / "busy").mkdir()
            (tmp_path / "waiting").mkdir()
            busy = gated(tmp_path / "busy", wait_seconds=120)  # holds the only worker
            wait_for(lambda: reload(busy.id).status == RunStatus.running)
            waiting = gated(tmp_path / "waiting", count=2)

            kill_redis(server)
            # Marked by the sweep right after the restart, or (if that sweep was skipped, say
            # on a busy database) by the next periodic one.
            lost = wait_for(
                lambda: reload(waiting.id).status == RunStatus.failed and reload(waiting.id),
                timeout=60,
            )
            assert lost.error_code == "queue_lost" and lost.can_resume
            assert lost.error_message.startswith("Its job was lost from the job queue")
            # Said by serve's sweep, or logged by the worker's periodic one when it came first:
            # the worker's line may reach the log a moment after its status is stored.
            said = rf"run #{waiting.id} lost its queued job; marked failed \(queue_lost"
            said += rf"|run {waiting.id} (chunk \d+ )?marked queue_lost"
            assert wait_for(lambda: re.search(said, server.log()), timeout=10)

            # The run that was running when Redis died carries on to its end.
            open_gates(tmp_path / "busy", "item-0")
            wait_for(lambda: reload(busy.id).status == RunStatus.succeeded, timeout=60)

            resume_run(lost)
            open_gates(tmp_path / "waiting", "item-0", "item-1")
            resumed = wait_for(
                lambda: reload(waiting.id).status == RunStatus.succeeded and reload(waiting.id),
                timeout=60,
            )
            assert resumed.done == 2 and resumed.attempt == 2
    finally:
        server.stop(signal.SIGKILL)


def test_serve_stops_with_one_clear_line_when_redis_cannot_come_back(tmp_path):
    instance = tmp_path / "instance"
    env = {
        **embedded_env(),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'furrow.db'}",
        "SECRET_KEY": "x" * 32,
    }
    server = start_server(env, instance, workers=1)
    try:
        with open(server.log_path, errors="replace") as log:
            # Without its folder the embedded Redis has nowhere to put its socket and log.
            shutil.rmtree(instance)
            kill_redis(server)
            assert server.process.wait(60) == 1
            output = log.read()
        assert re.search(
            r"furrow: the embedded Redis exited \(code -9\) and could not be restarted "
            r"\(.+\); stopping\.",
            output,
        )
        assert "Traceback" not in output
    finally:
        server.stop(signal.SIGKILL)
