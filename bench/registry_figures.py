"""Registry reviews, offline, as a user runs them: four project documents of 25 pages each
(100 pages, a contents page each, made here as real PDFs), a review created and the documents
added (`add_document`: checked, stored under the instance), the review's run worked by the real
RQ worker of `furrow serve` (discovery reads each PDF page by page in the library's sandbox,
then mapping, evidence for the 23 requirements, cross-validation, report; timed from enqueue
to its end, the work horse's start included), then the assessment read back as the report
reads it (`reviews.assessment`).

Prints each part's time and the total (target < 20 s), this process's peak memory and each
process's of the server (the worker, its work horse, the sandbox's PDF readers), sampled
while the run works (target < 500 MB in all). SQLite + embedded Redis; with DATABASE_URL
naming PostgreSQL, a database of its own next to it (created and dropped) and the machine's
Redis (REDIS_URL).

Run from the repository root: `.venv/bin/python bench/registry_figures.py`, or
`DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test
REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/registry_figures.py`.
"""

from __future__ import annotations

import resource
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table_figures import wait_until_done  # noqa: E402
from tests.registry.documents import long_document  # noqa: E402
from tests.support.server import served_app  # noqa: E402

PAGES_EACH = 25
NAMES = ("Project plan.pdf", "Baseline report.pdf", "Monitoring report 2024.pdf", "Deed.pdf")
BODY = [
    "The project restores grassland soils; soil sampling protocols and monitoring schedules",
    "follow the methodology. Remote sensing details and monitoring responsibility assignments",
    "are listed for each field. The landowner approval is attached as a legal attestation of",
    "long-term control for the crediting period, under a lease agreement signed 06/02/2023.",
    "Leakage is estimated from the annual report of crop yields; the buffer pool allocation",
    "is 20% of each issuance. Stakeholders were consulted before implementation, and the",
    "environmental impact reports describe the process and findings of the assessment.",
]
TARGET_SECONDS = 20
TARGET_MB = 500


class PeakMemory:
    """The peak resident memory (VmHWM) of each process under this one, by role, sampled every
    few milliseconds while it runs: short-lived ones (the work horse, a sandbox) included."""

    def __init__(self, every: float = 0.02) -> None:
        self.every = every
        self.peaks: dict[int, tuple[str, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            for process in psutil.Process().children(recursive=True):
                try:
                    peak = _high_water_mark(process.pid)
                    role = self.peaks.get(process.pid, (None, 0))[0] or role_of(process)
                except (psutil.Error, OSError):
                    continue
                known = self.peaks.get(process.pid, (role, 0))[1]
                self.peaks[process.pid] = (role, max(known, peak))

    def by_role(self) -> dict[str, int]:
        """Each role's largest peak (the sandboxes read one PDF at a time)."""
        roles: dict[str, int] = {}
        for role, peak in self.peaks.values():
            roles[role] = max(roles.get(role, 0), peak)
        return roles


def role_of(process: psutil.Process) -> str:
    command = " ".join(process.cmdline())
    if "webapp.library.sandbox" in command:
        return "PDF reader (sandbox)"
    if "webapp worker" in command:
        parent = " ".join(process.parent().cmdline())
        return "work horse (forked)" if "webapp worker" in parent else "RQ worker"
    if "gunicorn" in command:
        return "web server (not in the run)"
    return "supervisor (not in the run)"


def _high_water_mark(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def mb(size: int) -> str:
    return f"{size / 1024 / 1024:.0f} MB"


def main() -> None:
    began = time.perf_counter()
    files = {name: long_document(name.removesuffix(".pdf"), BODY * 5, PAGES_EACH) for name in NAMES}
    made = time.perf_counter() - began
    with served_app(workers=1) as app:
        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role
        from webapp.extensions import db
        from webapp.registry import documents as docs
        from webapp.registry.reviews import assessment, create_review
        from webapp.registry.run import start_review_run

        with app.app_context(), PeakMemory() as memory:
            user = create_user("bench@example.org", "bench password", Role.editor)
            db.session.commit()
            began = time.perf_counter()
            review = create_review("Bench farm", None, user)
            for name, data in files.items():
                docs.add_document(review, name, data, user)
            db.session.commit()
            added = time.perf_counter() - began

            began = time.perf_counter()
            run = start_review_run(review, user)
            status = wait_until_done(run.id)
            worked = time.perf_counter() - began
            assert status == "succeeded", (status, run.item_errors)

            began = time.perf_counter()
            db.session.expire_all()
            result = assessment(review)
            read = time.perf_counter() - began
            pages = sum(len(d.pages or []) for d in review.documents)
            snippets = sum(len(r.snippets) for r in result.requirements)
            database = db.engine.dialect.name
    total = added + worked + read
    mine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"database: {database}; PDFs made in {made:.2f} s ({sum(map(len, files.values()))} B)")
    print(f"{len(files)} documents, {pages} pages, {len(result.requirements)} requirements:")
    print(f"  create the review and add the documents  {added:6.2f} s")
    print(f"  the run, by the RQ worker (enqueue → end) {worked:6.2f} s")
    print(f"  the assessment read back                 {read:6.2f} s ({snippets} snippets, "
          f"{len(result.checks)} checks)")  # fmt: skip
    print(
        f"  total                                    {total:6.2f} s (target < {TARGET_SECONDS} s)"
    )
    roles = memory.by_role()
    print("peak memory (VmHWM):")
    for role, peak in sorted({"this process (upload, read back)": mine, **roles}.items()):
        print(f"  {role:40} {mb(peak)}")
    involved = mine + sum(peak for role, peak in roles.items() if "not in the run" not in role)
    print(
        f"  the processes of the pipeline added up: {mb(involved)} (target < {TARGET_MB} MB; "
        "an upper bound: the work horse shares the worker's pages)"
    )


if __name__ == "__main__":
    main()
