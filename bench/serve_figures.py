"""Figures for `furrow serve` on this machine: warm start-up, enqueue-to-start latency, memory,
and how long a run whose worker is SIGKILLed takes to be marked lost (then resumed).

Run from the repository root: `.venv/bin/python bench/serve_figures.py`. It starts its own
`furrow serve` on a free port with a fresh instance folder (SQLite + embedded Redis) and the
default timings, and prints one line per figure.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.server import embedded_env, start_server  # noqa: E402

STARTS = 3
RUNS = 20


def furrow(env, *args) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "webapp", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def api(server, method, path, token):
    request = urllib.request.Request(  # noqa: S310 - a local http URL
        server.url + path, method=method, headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
        return json.loads(response.read())


def iso(value: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def rss_mb(processes) -> float:
    return sum(p.memory_info().rss for p in processes) / 1024 / 1024


def warm_start_seconds(env, base: Path) -> list[float]:
    times = []
    for n in range(STARTS):
        began = time.monotonic()
        server = start_server(env, base / f"start-{n}", workers=2)
        while server.get("/setup")[0] != 200:
            time.sleep(0.05)
        times.append(time.monotonic() - began)
        server.stop(signal.SIGINT)
    return times


def main() -> None:
    env = embedded_env()
    with tempfile.TemporaryDirectory(prefix="furrow-bench-") as tmp:
        base = Path(tmp)
        starts = warm_start_seconds(env, base)
        print(
            f"warm furrow serve start-up (to first page, {STARTS} starts): "
            f"median {statistics.median(starts):.2f} s, max {max(starts):.2f} s"
        )

        instance = base / "main"
        server = start_server(env, instance, workers=2)
        try:
            run_env = {**env, "FURROW_INSTANCE_PATH": str(instance)}
            furrow(
                run_env,
                "users",
                "create",
                "bench@example.org",
                "--role",
                "admin",
                "--password",
                "bench password",
            )
            token = furrow(run_env, "users", "token", "bench@example.org").strip().splitlines()[-1]

            latencies = []
            for _ in range(RUNS):
                run_id = api(server, "POST", "/api/v1/maintenance/integrity-check", token)["run_id"]
                while (run := api(server, "GET", f"/api/v1/runs/{run_id}", token))["status"] in (
                    "queued",
                    "running",
                ):
                    time.sleep(0.02)
                assert run["status"] == "succeeded", run
                queued = iso(run["created_at"])
                latencies.append(iso(run["started_at"]) - queued)
            latencies.sort()
            print(
                f"enqueue to job start ({RUNS} integrity checks, 2 workers idle): "
                f"median {statistics.median(latencies) * 1000:.0f} ms, "
                f"p95 {latencies[int(0.95 * (RUNS - 1))] * 1000:.0f} ms"
            )

            print_memory(server)
            measure_worker_lost(server, run_env)
        finally:
            server.stop(signal.SIGINT)


def print_memory(server) -> None:
    """Idle RSS of each process of the tree, and of all: summed RSS counts a page shared by
    processes (a fork's) once in each, PSS shares it out among them."""
    supervisor = psutil.Process(server.process.pid)
    # Its own children only: a work horse still ending its job is no part of the idle tree.
    children = supervisor.children()
    web = [p for p in children if "gunicorn" in " ".join(p.cmdline())]
    web += [p for master in web for p in master.children()]
    workers = [p for p in children if p.cmdline()[1:4] == ["-m", "webapp", "worker"]]
    redis = [p for p in children if "redis-server" in p.name()]
    everything = [supervisor, *web, *workers, *redis]
    pss = sum(p.memory_full_info().pss for p in everything) / 1024 / 1024
    print(
        f"RSS: supervisor {rss_mb([supervisor]):.0f} MB, "
        f"web ({len(web)} gunicorn processes) {rss_mb(web):.0f} MB, "
        f"RQ workers (idle) {', '.join(f'{rss_mb([w]):.0f}' for w in workers)} MB, "
        f"Redis {rss_mb(redis):.0f} MB; "
        f"all {len(everything)} processes {rss_mb(everything):.0f} MB (PSS {pss:.0f} MB)"
    )


def measure_worker_lost(server, run_env) -> None:
    """SIGKILL the worker of a live run; time until the run reads failed (worker_lost)."""
    os.environ.update(run_env)
    import tests.support.kinds as kinds
    from webapp import create_app
    from webapp.extensions import db
    from webapp.jobs.models import Run
    from webapp.jobs.queue import enqueue_run, resume_run

    app = create_app()
    with app.app_context(), tempfile.TemporaryDirectory() as gates:
        run = enqueue_run(kinds.GatedItems, None, {"count": 2, "gate_dir": gates})
        while True:
            db.session.expire_all()
            run = db.session.get(Run, run.id)
            db.session.commit()
            if run.status == "running":
                break
            time.sleep(0.05)
        os.kill(int(run.worker_name.rsplit("-", 1)[1]), signal.SIGKILL)
        killed = time.monotonic()
        while run.status == "running":
            time.sleep(0.25)
            db.session.expire_all()
            run = db.session.get(Run, run.id)
            db.session.commit()
        lost_after = time.monotonic() - killed
        print(f"SIGKILLed worker to run marked {run.status} ({run.error_code}): {lost_after:.1f} s")
        resume_run(run)
        kinds.open_gates(Path(gates), "item-0", "item-1")
        resumed = time.monotonic()
        while run.status != "succeeded":
            time.sleep(0.1)
            db.session.expire_all()
            run = db.session.get(Run, run.id)
            db.session.commit()
        print(f"resume to succeeded (restarted worker took it): {time.monotonic() - resumed:.1f} s")
        db.engine.dispose()


if __name__ == "__main__":
    main()
