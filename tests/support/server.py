"""A real `furrow serve` process (gunicorn, RQ workers, Redis) on a free local port."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

from tests.support.services import free_port
from webapp import ROOT


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    instance_path: Path

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def ready(self, workers: int) -> bool:
        """Serving, and its workers made their app (one could else recreate a removed instance)."""
        log = self.log()
        return "furrow: serving on" in log and log.count("*** Listening on") >= workers

    def get(self, path: str, timeout: float = 5) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout) as response:  # noqa: S310
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def start_server(
    env: dict[str, str], instance_path: Path, workers: int = 1, args: tuple[str, ...] = ()
) -> Server:
    """Start `furrow serve` (with `args`) and wait until /healthz answers 200 and the workers,
    started once the web answers, listen to the queue."""
    port = free_port()
    env = {**env, "FURROW_INSTANCE_PATH": str(instance_path), "FURROW_WORKERS": str(workers)}
    instance_path.mkdir(parents=True, exist_ok=True)
    log_path = instance_path / "serve.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "webapp", "serve", "--port", str(port), *args],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = Server(process, f"http://127.0.0.1:{port}", log_path, instance_path)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"furrow serve exited early:\n{server.log()}")
        try:
            if server.get("/healthz", timeout=1)[0] == 200 and server.ready(workers):
                return server
        except OSError:
            pass
        time.sleep(0.1)
    server.stop(signal.SIGKILL)
    raise AssertionError(f"furrow serve did not answer within 60 s:\n{server.log()}")


def embedded_env() -> dict[str, str]:
    """This environment without the database and Redis settings: Furrow's own defaults."""
    env = dict(os.environ)
    for name in ("DATABASE_URL", "REDIS_URL", "FURROW_QUEUE", "SECRET_KEY"):
        env.pop(name, None)
    return env


@contextlib.contextmanager
def served_app(workers: int = 1) -> Iterator:
    """For a benchmark: a `furrow serve` with its workers on a fresh instance, and an app of
    this process on the same instance, its collector settled as the web's; everything stops on
    exit. SQLite + embedded Redis, or, when DATABASE_URL names PostgreSQL, a new database next
    to it (dropped after) and the machine's Redis (REDIS_URL, else 127.0.0.1:6379) under a
    queue of its own."""
    database = os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="furrow-bench-"))
        instance = Path(tmp) / "instance"
        env = embedded_env()
        if database.startswith("postgresql"):
            from tests.support.services import fresh_postgres_database

            env |= {
                "DATABASE_URL": stack.enter_context(fresh_postgres_database(database)),
                "REDIS_URL": redis_url,
                "FURROW_QUEUE": f"furrow-bench-{os.getpid()}",
            }
        server = start_server(env, instance, workers=workers)
        os.environ.update(env, FURROW_INSTANCE_PATH=str(instance))
        from webapp import create_app
        from webapp.extensions import db
        from webapp.heap import settle

        app = create_app()
        settle()  # this process does the web's part (pages, applies): its collector as the web's
        try:
            yield app
            with app.app_context():
                db.engine.dispose()
        finally:
            server.stop(signal.SIGINT)
