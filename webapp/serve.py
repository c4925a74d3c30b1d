"""`furrow serve`: embedded Redis, migrations (and the demo data), gunicorn and RQ workers,
supervised as one."""

from __future__ import annotations

import http.client
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from flask_migrate import upgrade

from webapp import create_core_app
from webapp.config import ConfigError, Settings
from webapp.jobs.embedded_redis import EmbeddedRedis
from webapp.jobs.processes import die_with_parent
from webapp.jobs.sweeper import SweepSkipped, sweep

log = logging.getLogger("furrow.serve")
LONGEST_REQUEST_LINE = 8190

# A worker that dies sooner than this after starting is restarted only after a pause.
QUICK_DEATH_SECONDS = 5.0
RESTART_PAUSE_SECONDS = 5.0
WARM_STOP_SECONDS = 10.0
COLD_STOP_SECONDS = 5.0
# The embedded Redis gets this many starts in a row to come back; one that stayed up for
# REDIS_STABLE_SECONDS since its last start has the full count again.
REDIS_TRIES = 3
REDIS_RETRY_PAUSE_SECONDS = 1.0
REDIS_STABLE_SECONDS = 60.0
# The workers start once the web answers, or after this long: on a small machine they would take
# the CPU the web needs to make its first page.
WEB_FIRST_SECONDS = 30.0
# Where the web is asked when it listens on every address.
LOOPBACK = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}  # noqa: S104


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restart_at: float | None = None
    restarts: int = field(default=0)

    def start(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            self.command,
            env=env,
            stdin=subprocess.DEVNULL,
            # Its own session: a Ctrl-C reaches only the supervisor, which stops children in order.
            start_new_session=True,
            # Dies with its parent even on SIGKILL, so nothing is left running.
            preexec_fn=die_with_parent,
        )
        self.started_at = time.monotonic()
        self.restart_at = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive:
            self.process.send_signal(sig)


def _wait_all(children: list[Child], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while any(c.alive for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)


class Supervisor:
    def __init__(
        self, settings: Settings, host: str, port: int, workers: int, *, demo: bool = False
    ) -> None:
        # Migrating, the demo data and sweeping need no pages: the web and the workers make the
        # whole app.
        self.app = create_core_app(settings)
        self.settings = settings
        self.demo = demo
        self.host, self.port = host, port
        self.stopping = False
        self.embedded: EmbeddedRedis | None = None
        self.redis_tries = 0
        python = sys.executable
        self.web = Child(
            "web",
            [
                python,
                "-m",
                "gunicorn",
                "--bind",
                f"{host}:{port}",
                "--worker-class",
                "gthread",
                "--workers",
                "1",
                "--threads",
                "8",
                "--timeout",
                "60",
                "--graceful-timeout",
                "5",
                # An address (path and query string) longer than this is answered 414 by
                # gunicorn itself, in plain text, before Furrow sees it: its largest setting.
                "--limit-request-line",
                str(LONGEST_REQUEST_LINE),
                "--access-logfile",
                "-",
                "--error-logfile",
                "-",
                # The supervisor manages gunicorn; its shared control socket in $HOME is not needed.
                "--no-control-socket",
                "webapp.wsgi:app",
            ],
        )
        self.workers = [
            Child(f"worker-{n + 1}", [python, "-m", "webapp", "worker"]) for n in range(workers)
        ]

    def child_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["FURROW_INSTANCE_PATH"] = str(self.settings.instance_path)
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def _on_signal(self, signum, _frame) -> None:
        self.stopping = True

    def run(self) -> int:
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)
        try:
            return self._run()
        finally:
            self.shutdown()

    def _run(self) -> int:
        if self.settings.redis_url is None:
            self.embedded = EmbeddedRedis(self.settings.embedded_redis_socket)
            self.embedded.start()
            print(f"furrow: embedded Redis on {self.embedded.socket_path}", flush=True)
        with self.app.app_context():
            upgrade()
        self._sweep()
        env = self.child_env()
        self.web.start(env)
        if self.demo:
            # Meanwhile the web makes its app, which takes longer (seconds, not tenths).
            self._load_demo()
        web_first = threading.Thread(target=self._wait_for_web, daemon=True)
        web_first.start()
        workers_started = False
        next_sweep = time.monotonic() + self.settings.sweep_seconds
        while not self.stopping:
            time.sleep(0.25)
            if not self.web.alive and not self.stopping:
                code = self.web.process.returncode if self.web.process else -1
                print(f"furrow: the web server exited (code {code}); stopping.", flush=True)
                return 1
            if self.embedded is not None and not self._keep_redis():
                return 1
            if workers_started:
                self._restart_dead_workers(env)
            elif not web_first.is_alive():  # no thread runs while the workers are forked
                self._start_workers(env)
                workers_started = True
            if time.monotonic() >= next_sweep:
                self._sweep()
                next_sweep = time.monotonic() + self.settings.sweep_seconds
        return 0

    def _wait_for_web(self) -> None:
        """Return once the web answers its health check, or after WEB_FIRST_SECONDS."""
        host = LOOPBACK.get(self.host, self.host)
        deadline = time.monotonic() + WEB_FIRST_SECONDS
        while not self.stopping and (left := deadline - time.monotonic()) > 0:
            # One request waits in gunicorn's queue until its worker has made the app.
            connection = http.client.HTTPConnection(host, self.port, timeout=left)
            try:
                connection.request("GET", "/healthz")
                connection.getresponse()
                return
            except (OSError, http.client.HTTPException):
                time.sleep(0.1)  # not listening yet
            finally:
                connection.close()

    def _start_workers(self, env: dict[str, str]) -> None:
        for child in self.workers:
            child.start(env)
        print(
            f"furrow: serving on http://{self.host}:{self.port} with {len(self.workers)} "
            "worker(s). Press Ctrl-C to stop.",
            flush=True,
        )

    def _load_demo(self) -> None:
        from webapp.workspaces import load_demo_data

        with self.app.app_context():
            lines = load_demo_data()
        for line in lines:
            print(f"furrow: {line}", flush=True)

    def _restart_dead_workers(self, env: dict[str, str]) -> None:
        now = time.monotonic()
        for child in self.workers:
            if child.alive or self.stopping:
                continue
            if child.restart_at is None:
                lived = now - child.started_at
                code = child.process.returncode if child.process else None
                pause = RESTART_PAUSE_SECONDS if lived < QUICK_DEATH_SECONDS else 0.0
                print(f"furrow: {child.name} exited (code {code}); restarting.", flush=True)
                child.restart_at = now + pause
            if now >= child.restart_at:
                child.restarts += 1
                child.start(env)

    def _keep_redis(self) -> bool:
        """Restart the embedded Redis if it died (reaping it); False when it cannot come back.

        Its jobs died with it: the sweep right after the restart marks the runs that were
        queued as queue_lost, and workers reconnect by themselves (RQ retries its connection).
        """
        code = self.embedded.exit_code()
        if code is None:
            return True
        died_at = time.monotonic()
        if died_at - self.embedded.started_at > REDIS_STABLE_SECONDS:
            self.redis_tries = 0
        reason = (
            f"it was restarted {REDIS_TRIES} times in a row and died within "
            f"{REDIS_STABLE_SECONDS:.0f} s each time"
        )
        while self.redis_tries < REDIS_TRIES and not self.stopping:
            self.redis_tries += 1
            try:
                self.embedded.start()
            except ConfigError as exc:
                reason = str(exc)
                time.sleep(REDIS_RETRY_PAUSE_SECONDS)
                continue
            print(
                f"furrow: the embedded Redis exited (code {code}); restarted it in "
                f"{time.monotonic() - died_at:.2f} s. Its queued jobs are gone: their runs are "
                "marked queue_lost (resumable).",
                flush=True,
            )
            self._sweep()
            return True
        if self.stopping:
            return True
        print(
            f"furrow: the embedded Redis exited (code {code}) and could not be restarted "
            f"({reason}); stopping.",
            flush=True,
        )
        return False

    def _sweep(self) -> None:
        with self.app.app_context():
            try:
                report = sweep()
            except SweepSkipped as exc:
                log.warning("sweep skipped, %s", exc)
                return
        for run_id in report.lost:
            print(f"furrow: run #{run_id} lost its worker; marked failed (resumable).", flush=True)
        for run_id in report.queue_lost:
            print(
                f"furrow: run #{run_id} lost its queued job; marked failed "
                "(queue_lost, resumable).",
                flush=True,
            )

    def shutdown(self) -> None:
        """Web and workers first (workers finish or abandon their item), then Redis."""
        children = [self.web, *self.workers]
        for child in children:
            child.signal(signal.SIGTERM)
        _wait_all(children, WARM_STOP_SECONDS)
        # A second SIGTERM makes an RQ worker stop its current job at once.
        for child in children:
            child.signal(signal.SIGTERM)
        _wait_all(children, COLD_STOP_SECONDS)
        for child in children:
            child.signal(signal.SIGKILL)
        _wait_all(children, 2)
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None
