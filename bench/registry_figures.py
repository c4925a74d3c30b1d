"""Registry reviews, offline: four project documents of 25 pages each (100 pages, a contents
page each, made here as real PDFs) read page by page through the library's sandbox, classified,
and assessed against the bundled checklist (evidence, coverage, cross-validation). Prints the
time of each part and the process's peak memory (target: < 20 s and < 500 MB for the whole
pipeline; the run, storage and report are not built yet and are not in these figures).

Run from the repository root: `.venv/bin/python bench/registry_figures.py`.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.library.files import pdf_with_text  # noqa: E402
from webapp.library.sandbox import bounded_pdf_pages  # noqa: E402
from webapp.registry.assessment import assess  # noqa: E402
from webapp.registry.checklist import bundled  # noqa: E402
from webapp.registry.dates import date_style  # noqa: E402
from webapp.registry.discovery import classify  # noqa: E402
from webapp.registry.evidence import SourceDocument  # noqa: E402
from webapp.registry.pages import pages_of  # noqa: E402

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


def document(name: str) -> bytes:
    contents = ["Table of Contents"] + [f"{n} Section {n} ........ {n + 1}" for n in range(1, 30)]
    pages = [contents[:45]]
    for number in range(2, PAGES_EACH + 1):
        pages.append([f"{number} Section {number}", *BODY * 5])
    return pdf_with_text(*pages)


def main() -> None:
    files = {name: document(name) for name in NAMES}
    began = time.perf_counter()
    documents, styles = [], {}
    for key, (name, data) in enumerate(files.items(), start=1):
        texts = bounded_pdf_pages(data)
        pages = pages_of(texts)
        documents.append(SourceDocument(key, name, classify(name, texts[:3]), pages))
        styles[key] = date_style("\n".join(texts))
    read = time.perf_counter() - began
    began = time.perf_counter()
    assessment = assess(bundled(), documents, styles)
    assessed = time.perf_counter() - began
    pages = sum(len(d.pages) for d in documents)
    snippets = sum(len(r.snippets) for r in assessment.requirements)
    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    print(
        f"{len(documents)} documents, {pages} pages: read page by page {read:.2f} s, "
        f"assessed against 23 requirements {assessed:.2f} s ({snippets} snippets, "
        f"{len(assessment.checks)} checks); together {read + assessed:.2f} s (target < 20 s); "
        f"peak memory {peak / 1024:.0f} MB (target < 500 MB)"
    )


if __name__ == "__main__":
    main()
