"""How long a command and a sandbox take to start (issue 28's start-up targets).

- `furrow --help`, a new process each time, as a person types it: wall time, p50 and least of
  RUNS runs. Target: < 1 s.
- A one-page PDF read in the library's sandbox, end to end as a worker's job reads it
  (webapp.library.sandbox.bounded_pdf_text: the child process's start, its imports, its limits,
  pypdf reading the page): p50 and least of RUNS reads. Target: < 0.3 s.

Where Python writes no bytecode (PYTHONDONTWRITEBYTECODE), run `make run` or `make test` once
first: they compile the project's modules, as a real install has them.
Run from the repository root: `.venv/bin/python bench/start_figures.py`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.library.files import SOIL_PDF_LINES, pdf_with_text  # noqa: E402
from webapp.library.sandbox import bounded_pdf_text  # noqa: E402

RUNS = 11
FURROW = Path(sys.executable).parent / "furrow"


def timed(work, runs: int = RUNS) -> list[float]:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return times


def show(what: str, times: list[float], target: float) -> None:
    p50 = statistics.median(times)
    verdict = "met" if p50 < target else "not met"
    print(f"{what}: p50 {p50:.3f} s, least {min(times):.3f} s (target < {target} s: {verdict})")


def main() -> None:
    def help_page() -> None:
        subprocess.run([str(FURROW), "--help"], check=True, capture_output=True, cwd=ROOT)

    pdf = pdf_with_text(SOIL_PDF_LINES)
    assert "soil" in bounded_pdf_text(pdf).lower()  # it reads the page, and is not timed cold
    show("furrow --help", timed(help_page), 1.0)
    show("a one-page PDF read in the sandbox", timed(lambda: bounded_pdf_text(pdf)), 0.3)


if __name__ == "__main__":
    main()
