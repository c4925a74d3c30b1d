"""What a hostile page query or PDF costs now: the figures behind the registry's and the
library's bounds.

- A registry page of 1 MB marked for a 1,000-word passage (the page view's highlight): a page
  of "a a a …" and a passage of 999 "a" and a "b" is the worst case of a pattern of the words
  joined by \\s+, which backtracked over every place the first words repeat.
- The library's highlight of 1 MB for 1,000 words (it takes a query's first 32).
- A 166 KB PDF of 200 pages sharing ten streams of 3.9 MB of text operators each (each under
  the per-stream limit), read in the sandbox as a worker reads it; and a 25-page project plan.

Run from the repository root: `.venv/bin/python bench/registry_limits.py`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.library.files import pages_of_inflating_streams  # noqa: E402
from tests.registry.documents import long_document  # noqa: E402
from webapp.library.sandbox import bounded_pdf_pages  # noqa: E402
from webapp.library.search import highlight as library_highlight  # noqa: E402
from webapp.registry.page_data import highlight  # noqa: E402
from webapp.uploads import UploadRefused  # noqa: E402

MB = 1_000_000
PROSE = (
    "The project restores grassland soils and the landowner signed the lease agreement "
    "for the crediting period in 2023. "
)


def timed(what: str, work) -> None:
    start = time.perf_counter()
    said = work()
    print(f"{what}: {time.perf_counter() - start:.3f} s{f' ({said})' if said else ''}")


def marked(text: str, passage: str):
    def work() -> str:
        found = highlight(text, passage)
        return f"{found.marks} marked{', more' if found.more else ''}{', cut' if found.cut else ''}"

    return work


def read(data: bytes):
    def work() -> str:
        try:
            return f"{len(bounded_pdf_pages(data))} pages read"
        except UploadRefused as refused:
            return f"refused, {refused.code}: {refused}"

    return work


def main() -> None:
    prose_page = PROSE * (MB // len(PROSE))
    prose_passage = " ".join([*(PROSE * 20).split()[:999], "missing"])
    timed("registry page 1 MB of prose, 1,000-word passage", marked(prose_page, prose_passage))
    timed(
        "registry page 1 MB of 'a a a', 1,000-word passage",
        marked("a " * (MB // 2), "a " * 999 + "b"),
    )
    timed("registry page 1 MB of 'a a a', 'a a b'", marked("a " * (MB // 2) + "b", "a a b"))
    terms = ["a" * n + "b" for n in range(1, 1001)]
    timed(
        "library highlight 1 MB of 'a a a', 1,000 words",
        lambda: len(library_highlight("a " * (MB // 2), terms)) and None,
    )
    hostile = pages_of_inflating_streams()
    timed(f"sandbox, {len(hostile) // 1000} KB PDF of 200 pages x 3.9 MB", read(hostile))
    lines = PROSE.split(". ") * 10
    plan = long_document("Project plan", lines, 25)
    timed(f"sandbox, {len(plan) // 1000} KB project plan of 25 pages", read(plan))


if __name__ == "__main__":
    main()
