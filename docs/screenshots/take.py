"""Take the README's screenshots: one page of each workspace at 1280 px, from the demo data.

Run from the repository's root with the project's Python:

    .venv/bin/python docs/screenshots/take.py

It starts `furrow serve` (one worker, embedded Redis, SQLite) on a free port in a temporary
instance, loads the demo data as `make run` does, adds what the demo has none of (a research
table, a fertilizer plan, a registry review) through the API, lets the runs finish, then signs
in with Debian's chromium and saves each page's first screen as a PNG beside this file.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EMAIL = "admin@example.org"
PASSWORD = "screenshot-demo-Passw0rd!"  # noqa: S105 (a throwaway instance's account)
WIDTH, HEIGHT = 1280, 800
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


def furrow(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "webapp", *args],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Api:
    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"

    def __call__(self, method: str, path: str, **kwargs) -> dict:
        answer = self.session.request(method, self.url + path, timeout=60, **kwargs)
        if answer.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {answer.status_code} {answer.text[:500]}")
        return answer.json() if answer.content else {}

    def wait(self, run_id: int, timeout: float = 300) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run = self("GET", f"/api/v1/runs/{run_id}")
            if run["status"] not in ("queued", "running"):
                return run
            time.sleep(1)
        raise RuntimeError(f"run {run_id} did not end in {timeout} s")


# Where a shot starts, for pages whose first screen is not what the tour shows: a heading.
START_AT = {
    "review-culture": "Enrichment",
    "systems": "Rotation",
    "registry": "Requirements",
}


def make_data(api: Api) -> dict[str, str]:
    """The pages to shoot, by file name, once their runs have ended."""
    pages = {}

    cultures = api("GET", "/api/v1/cultures?per_page=20")["cultures"]
    batch = api("POST", "/api/v1/cultures/enrich-batch", json={
        "ids": [c["id"] for c in cultures], "mode": "complete",
    })  # fmt: skip
    api.wait(batch["run_id"])
    pages["cultures"] = f"/cultures/runs/{batch['run_id']}/review"
    pages["review-culture"] = f"/cultures/{cultures[0]['id']}?run={batch['run_id']}"

    profile = json.loads((ROOT / "tests/fertilizer/agrr/tomato_profile.json").read_text())
    profile["crop"]["name"] = "Tomato"  # the screenshot's browser may have no Japanese font
    plan = api("POST", "/api/v1/fertilizer/recommend", json={
        "crop_profile": profile, "region": "Florida", "target_yield": 8, "soil_texture": "sand",
    })  # fmt: skip
    pages["fertilizer"] = f"/fertilizer/plans/{plan['plan_id']}"

    rows = (ROOT / "tests/tables/data/fao_yield_sample.csv").read_text().splitlines()[1:]
    table = api("POST", "/api/v1/tables", json={"name": "FAO yields", "columns": [
        {"name": "Area", "type": "text"}, {"name": "Item", "type": "text"},
        {"name": "Year", "type": "number"}, {"name": "Yield hg/ha", "type": "number"},
        {"name": "Yield", "type": "number", "unit": "t/ha"},
    ]})  # fmt: skip
    records = [
        {"Area": r[0], "Item": r[1], "Year": int(r[2]), "Yield hg/ha": float(r[3])}
        for r in csv.reader(rows)
    ]
    api("POST", f"/api/v1/tables/{table['id']}/rows", json={"rows": records})
    filled = api("POST", f"/api/v1/tables/{table['id']}/enrich", json={
        "target_column": "Yield", "strategy": "computation",
        "params": {"formula": "{Yield hg/ha} / 10000"},
    })  # fmt: skip
    api.wait(filled["run_id"])
    pages["tables"] = f"/tables/{table['id']}/runs/{filled['run_id']}"

    systems = api("GET", "/api/v1/systems")["systems"]
    calculated = api("POST", f"/api/v1/systems/{systems[0]['id']}/calculate-missing")
    api.wait(calculated["run_id"])
    api("POST", f"/api/v1/runs/{calculated['run_id']}/apply", json={"all_valid": True})
    pages["systems"] = f"/systems/{systems[0]['id']}"

    review = api("POST", "/api/v1/reviews", json={"name": "Botany Farm registration"})
    botany = ROOT / "tests/registry/data/botany"
    for name in ("plan", "baseline", "monitoring"):
        parts = sorted(botany.glob(f"{name}-*.md"))
        text = "\n\n".join(part.read_text() for part in parts)
        api("POST", f"/api/v1/reviews/{review['id']}/documents",
            files={"file": (f"{name}.md", text.encode(), "text/markdown")})  # fmt: skip
    assessed = api("POST", f"/api/v1/reviews/{review['id']}/run")
    api.wait(assessed["run_id"])
    pages["registry"] = f"/registry/{review['id']}"
    return pages


def shoot(page: Page, path: str, name: str) -> Path:
    page.goto(path)
    page.wait_for_load_state("networkidle")
    target = HERE / f"{name}.png"
    top = 0.0
    if name in START_AT:
        heading = page.get_by_role("heading", name=START_AT[name], exact=True)
        top = max(0.0, heading.bounding_box()["y"] - 24)
    # One screen only, from the top or the heading: small files.
    clip = {"x": 0, "y": top, "width": WIDTH, "height": HEIGHT}
    page.screenshot(path=str(target), full_page=True, clip=clip)
    return target


def main() -> int:
    instance = Path(tempfile.mkdtemp(prefix="furrow-screens-"))
    port = free_port()
    env = {
        **os.environ, "FURROW_INSTANCE_PATH": str(instance), "FURROW_WORKERS": "1",
        "FURROW_PROVIDER": "offline", "FURROW_PASSWORD": PASSWORD,
    }  # fmt: skip
    for name in ("DATABASE_URL", "REDIS_URL"):
        env.pop(name, None)
    furrow(env, "db", "upgrade")
    furrow(env, "demo")
    furrow(env, "users", "create", EMAIL, "--role", "admin", "--name", "Ada Admin")
    token = furrow(env, "users", "token", EMAIL).strip().splitlines()[-1]
    log = open(instance / "serve.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(
        [sys.executable, "-m", "webapp", "serve", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if requests.get(url + "/healthz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.5)
        pages = make_data(Api(url, token))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(base_url=url, viewport={"width": WIDTH, "height": HEIGHT})
            page = context.new_page()
            page.goto("/login")
            page.get_by_label("Email").fill(EMAIL)
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_load_state("networkidle")
            for name, path in pages.items():
                target = shoot(page, path, name)
                print(f"{target.relative_to(ROOT)}  {path}  {target.stat().st_size // 1024} KB")
            browser.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
        log.close()
        shutil.rmtree(instance, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
