"""A PDF is read in a child process held to limits on pages, inflated bytes, time and memory;
whichever it breaks, the caller gets the reason and goes on."""

import subprocess
import sys

import pytest

from tests.library.files import (
    SOIL_PDF_LINES,
    inflating_pdf,
    pages_of_inflating_streams,
    pdf_with_text,
)
from webapp import ROOT
from webapp.library.extract import PdfLimits
from webapp.library.sandbox import bounded_pdf_text
from webapp.uploads import UploadRefused


def refusal(data: bytes, limits: PdfLimits) -> UploadRefused:
    with pytest.raises(UploadRefused) as caught:
        bounded_pdf_text(data, limits)
    return caught.value


def test_a_pdf_within_the_limits_is_read():
    text = bounded_pdf_text(pdf_with_text(SOIL_PDF_LINES, ["Page two."]))
    assert "Take twenty cores per field" in text and text.endswith("Page two.")


def test_a_stream_that_inflates_beyond_the_limit_is_not_read():
    refused = refusal(inflating_pdf(), PdfLimits())
    assert refused.code == "pdf_too_large"
    assert (
        str(refused)
        == "A part of the PDF inflates to more than 4 MB; the library does not read it."
    )


def test_pages_sharing_streams_just_under_the_limit_are_refused_before_any_is_read():
    # 200 pages over ten streams of 3.9 MB each: every stream is within the per-stream limit,
    # and reading them all would take the whole CPU limit. The pages' content is added up
    # before any page is read, so the refusal says why instead of "took longer than 60 s".
    data = pages_of_inflating_streams()
    assert len(data) < 200_000
    refused = refusal(data, PdfLimits())
    assert refused.code == "pdf_too_large"
    assert str(refused) == (
        "The PDF's pages hold more than 8 MB of content to read text from; the library does "
        "not read it. Split it, or keep the pages that matter."
    )
    few = pages_of_inflating_streams(pages=2, streams=2, inflated_bytes=20_000)
    assert bounded_pdf_text(few).startswith("Nitrogen demand is 000 kg per hectare.")


def test_too_many_pages_are_refused():
    refused = refusal(pdf_with_text(["one"], ["two"]), PdfLimits(pages=1))
    assert str(refused) == "The PDF has 2 pages; the library reads at most 1."


def test_the_time_limit_stops_a_slow_read():
    refused = refusal(inflating_pdf(2_000_000), PdfLimits(seconds=1))
    assert refused.code == "pdf_too_slow" and "longer than 1 s" in str(refused)


def test_the_memory_cap_stops_a_read_that_grows_and_the_caller_lives_on():
    limits = PdfLimits(
        inflated_bytes=16 * 1024 * 1024, content_bytes=64 * 1024 * 1024, memory_mb=100
    )
    refused = refusal(inflating_pdf(), limits)
    assert refused.code == "pdf_too_large"
    assert "needed more than 100 MB of memory" in str(refused)
    assert bounded_pdf_text(pdf_with_text(SOIL_PDF_LINES))  # the caller is fine


def test_a_damaged_pdf_says_so():
    assert refusal(b"%PDF-1.7\n1 0 obj << /Type", PdfLimits()).code == "unreadable_pdf"


def test_the_child_starts_without_flask():
    """Each PDF is read by a fresh `python -m webapp.library.sandbox`: it imports pypdf and the
    reader, not Flask (webapp's and the library's blueprints are made when first named) nor
    BeautifulSoup (for HTML pages only)."""
    probe = (
        "import sys, webapp.library.sandbox\n"
        "print(sorted(m for m in ('flask', 'werkzeug', 'jinja2', 'bs4', 'wtforms', 'sqlalchemy')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
