"""`furrow serve` as a person starts it: embedded Redis, migrations, web server and workers."""

import os
import signal
import subprocess
import sys

import psutil
import pytest

from tests.support.app import wait_for
from tests.support.server import embedded_env, start_server
from tests.support.services import free_port
from webapp import ROOT

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
