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

`bench/registry_figures.py submission [--offline-only]`: the generated submission of
tests/registry/submission.py (16 PDFs, 159 pages: two plan versions, the outdated one's file
name saying "land tenure", a public copy of the plan, 12 official copies of land-registry
titles held by joint proprietors, a monitoring report with its buffer and credits) reviewed the
same way, then the blank registry template. Prints the documents and the kind each was found
to be, each requirement's status against the truth written into the documents (offline: the
offline truth, which a run without a person's entries can reach, and the careful reviewer's),
the agreement, the Covered-but-wrong count (reported Covered, truly not: target 0), the blank
template's Covered count (target 0), times and memory. Then, unless --offline-only, the same
with the openai provider pointed at a loopback model that answers as a careful reader: for
each requirement and document, exactly the passages written there with the values they state.
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


def reviewed(app, user, name: str, files: dict[str, bytes]):
    """A review of the files, created, its documents added, its run worked by the server's RQ
    worker and its assessment read back: (review, assessment, seconds of each part)."""
    from webapp.extensions import db
    from webapp.registry import documents as docs
    from webapp.registry.review_state import assessment, create_review
    from webapp.registry.runs import start_review_run

    began = time.perf_counter()
    review = create_review(name, None, user)
    for filename, data in files.items():
        docs.add_document(review, filename, data, user)
    db.session.commit()
    added = time.perf_counter() - began

    began = time.perf_counter()
    run = start_review_run(review, user)
    status = wait_until_done(run.id)
    worked = time.perf_counter() - began
    assert status == "succeeded", (status, db.session.get(type(run), run.id).item_errors)

    began = time.perf_counter()
    db.session.expire_all()
    result = assessment(review)
    read = time.perf_counter() - began
    return review, result, (added, worked, read)


def print_memory(memory: PeakMemory) -> None:
    mine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    roles = memory.by_role()
    print("peak memory (VmHWM):")
    for role, peak in sorted({"this process (upload, read back)": mine, **roles}.items()):
        print(f"  {role:40} {mb(peak)}")
    involved = mine + sum(peak for role, peak in roles.items() if "not in the run" not in role)
    print(
        f"  the processes of the pipeline added up: {mb(involved)} (target < {TARGET_MB} MB; "
        "an upper bound: the work horse shares the worker's pages)"
    )


def main() -> None:
    began = time.perf_counter()
    files = {name: long_document(name.removesuffix(".pdf"), BODY * 5, PAGES_EACH) for name in NAMES}
    made = time.perf_counter() - began
    with served_app(workers=1) as app:
        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role
        from webapp.extensions import db

        with app.app_context(), PeakMemory() as memory:
            user = create_user("bench@example.org", "bench password", Role.editor)
            db.session.commit()
            review, result, (added, worked, read) = reviewed(app, user, "Bench farm", files)
            pages = sum(len(d.pages or []) for d in review.documents)
            snippets = sum(len(r.snippets) for r in result.requirements)
            database = db.engine.dialect.name
    total = added + worked + read
    print(f"database: {database}; PDFs made in {made:.2f} s ({sum(map(len, files.values()))} B)")
    print(f"{len(files)} documents, {pages} pages, {len(result.requirements)} requirements:")
    print(f"  create the review and add the documents  {added:6.2f} s")
    print(f"  the run, by the RQ worker (enqueue → end) {worked:6.2f} s")
    print(f"  the assessment read back                 {read:6.2f} s ({snippets} snippets, "
          f"{len(result.checks)} checks)")  # fmt: skip
    print(
        f"  total                                    {total:6.2f} s (target < {TARGET_SECONDS} s)"
    )
    print_memory(memory)


# The generated submission against what is written in it.

MARK = {True: "", False: "differs"}


class CarefulReader:
    """The loopback model's answers: for each requirement and document it is asked about, the
    passages truly written there for that requirement (on the pages of the part asked), with
    the values they state as written; nothing where nothing answers it."""

    def __init__(self, server) -> None:
        from tests.registry import submission as made

        self.server = server
        self.written: dict[tuple[str, str], list] = {}
        for e in made.evidence():
            self.written.setdefault((e.requirement_id, e.document), []).append(e)
        server.replies = self  # the server asks popleft() right after it records the request

    def __bool__(self) -> bool:
        return True

    def popleft(self) -> tuple[int, dict]:
        import json
        import re

        from tests.support.openai_server import responses_body
        from webapp.registry.checklist import bundled

        _path, body = self.server.requests[-1]
        prompt = body["input"]
        requirement_id = prompt.split(" ", 2)[1]
        document = prompt.split("\nDocument: ", 1)[1].split("\n", 1)[0]
        shown = {int(n) for n in re.findall(r"^\[page (\d+)\]$", prompt, re.M)}
        asked = [f.value for f in bundled().requirement(requirement_id).asked]
        snippets = []
        for e in self.written.get((requirement_id, document), []):
            if e.page in shown:
                said = {"page": e.page, "section": None, "text": e.text, "confidence": e.confidence}
                if asked:
                    said["structured_fields"] = {f: e.fields.get(f) for f in asked}
                snippets.append(said)
        return 200, responses_body(json.dumps({"snippets": snippets}), searches=0)


def compared(result, truth: dict[str, str]) -> tuple[list[tuple], int, list[str]]:
    """Each requirement's (id, type, truth, status, agrees), how many agree, and the ones
    reported Covered whose true status is not."""
    rows, wrong = [], []
    for r in result.requirements:
        rid, status = r.requirement.requirement_id, r.coverage.value
        rows.append((rid, r.requirement.validation_type.value, truth[rid], status))
        if status == "covered" and truth[rid] != "covered":
            wrong.append(rid)
    agree = sum(1 for *_rest, want, got in rows if want == got)
    return rows, agree, wrong


def print_comparison(title: str, result, truths: dict[str, dict[str, str]]) -> list[str]:
    """The table of each requirement's status against the truths, agreement and the
    Covered-but-wrong count (against the first truth named, the one this run can reach)."""
    first = next(iter(truths))
    rows, _agree, wrong = compared(result, truths[first])
    names = list(truths)
    print(title)
    header = f"  {'requirement':11} {'type':17} " + " ".join(f"{n:13}" for n in names)
    print(header + f" {'reported':13} vs {first}")
    for rid, kind, _want, got in rows:
        wants = " ".join(f"{truths[n][rid]:13}" for n in names)
        mark = "COVERED-BUT-WRONG" if rid in wrong else MARK[truths[first][rid] == got]
        print(f"  {rid:11} {kind:17} {wants} {got:13} {mark}")
    for name in names:
        _rows, agreeing, wrong_here = compared(result, truths[name])
        share = 100 * agreeing / len(rows)
        print(f"  agreement with the {name} truth: {agreeing}/{len(rows)} = {share:.0f} %; "
              f"Covered-but-wrong: {len(wrong_here)} (target 0)"
              + (f" {', '.join(wrong_here)}" if wrong_here else ""))  # fmt: skip
    return wrong


def submission(args: list[str]) -> None:
    """The generated submission (tests/registry/submission.py) reviewed through the real
    worker, offline and, unless --offline-only, with the loopback careful-reader model; each
    time the blank template too."""
    from tests.registry import submission as made

    began = time.perf_counter()
    files = made.documents()
    template = {made.BLANK_TEMPLATE: made.blank_template()}
    built = time.perf_counter() - began
    pages = made.pages()
    print(
        f"generated submission: {len(files)} PDFs, {sum(pages.values())} pages, "
        f"{sum(map(len, files.values()))} B, made in {built:.2f} s"
    )
    modes = ["offline"] if "--offline-only" in args else ["offline", "careful reader"]
    for mode in modes:
        submission_run(mode, files, template, pages)


def submission_run(mode: str, files, template, pages) -> None:
    import os

    from tests.registry import submission as made
    from tests.support.openai_server import ScriptedOpenAI

    saved = dict(os.environ)
    server = None
    if mode == "careful reader":
        server = ScriptedOpenAI()
        CarefulReader(server)
        server.thread.start()
        os.environ.update(
            FURROW_PROVIDER="openai", OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-bench"
        )
        truths = {"careful": made.truth()}
        blank_truths = {"blank": made.blank_truth()}
    else:
        os.environ["FURROW_PROVIDER"] = "offline"
        truths = {"offline": made.offline_truth(), "careful": made.truth()}
        blank_truths = {"blank": made.blank_truth()}
    try:
        with served_app(workers=1) as app:
            from webapp.auth.accounts import create_user
            from webapp.auth.roles import Role
            from webapp.extensions import db

            with app.app_context(), PeakMemory() as memory:
                user = create_user("bench@example.org", "bench password", Role.editor)
                db.session.commit()
                review, result, times = reviewed(app, user, "Holloway Farm", files)
                kinds = {d.filename: d.document_type for d in review.documents}
                read = {d.filename: len(d.pages or []) for d in review.documents}
                blank, blank_result, blank_times = reviewed(app, user, "Template", template)
                blank_pages = sum(len(d.pages or []) for d in blank.documents)
                database = db.engine.dialect.name
    finally:
        os.environ.clear()
        os.environ.update(saved)
        if server is not None:
            server.server.shutdown()
            server.server.server_close()
    print()
    print(f"== {mode} ({database}) ==")
    if server is not None:
        print(f"  the model was asked {len(server.requests)} times")
    print(f"  {'document':52} {'pages':>5}  kind found")
    for name in files:
        print(f"  {name:52} {read[name]:5}  {kinds[name]}")
    print(f"  {len(files)} documents, {sum(read.values())} pages")
    print_comparison(f"{len(result.requirements)} requirements:", result, truths)
    covered = [
        r.requirement.requirement_id for r in blank_result.requirements
        if r.coverage.value == "covered"
    ]  # fmt: skip
    print_comparison(
        f"blank template (1 document, {blank_pages} pages): Covered "
        f"{len(covered)} (target 0)" + (f": {', '.join(covered)}" if covered else ""),
        blank_result,
        blank_truths,
    )
    added, worked, read_back = times
    print("times (the submission):")
    print(f"  create the review and add the documents  {added:6.2f} s")
    print(f"  the run, by the RQ worker (enqueue → end) {worked:6.2f} s")
    print(f"  the assessment read back                 {read_back:6.2f} s")
    print(f"  total                                    {sum(times):6.2f} s")
    print(f"  (the blank template: {sum(blank_times):.2f} s)")
    print_memory(memory)


if __name__ == "__main__":
    if sys.argv[1:2] == ["submission"]:
        submission(sys.argv[2:])
    else:
        main()
