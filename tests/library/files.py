"""Small real files to upload: PDFs written with pypdf (and one written by hand to inflate),
text long enough for several passages; and waiting for the worker to read an uploaded PDF."""

from __future__ import annotations

import io
import zlib

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from tests.support.app import wait_for
from tests.support.pdfs import pdf_of
from webapp.extensions import db
from webapp.library.documents import extraction_run
from webapp.library.models import Document


def pdf_with_text(*pages: list[str]) -> bytes:
    """A PDF whose pages show the given lines in Helvetica, as a PDF producer would write it."""
    writer = PdfWriter()
    for lines in pages:
        page = writer.add_blank_page(612, 792)
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        operators = ["BT /F1 11 Tf 72 720 Td 14 TL"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            operators.append(f"({escaped}) Tj T*")
        operators.append("ET")
        content = DecodedStreamObject()
        content.set_data("\n".join(operators).encode("latin-1"))
        page.replace_contents(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def blank_pdf() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


SOIL_PDF_LINES = [
    "Soil sampling guide for vegetable growers.",
    "Take twenty cores per field at 0-30 cm depth in a zigzag.",
    "Mix the cores and send 500 g to the laboratory.",
]


def long_markdown(paragraphs: int = 12) -> str:
    """Markdown of several ~300-character paragraphs, each naming its number."""
    body = (
        "Cover crops protect the soil over winter, feed its life and hold nitrogen that would "
        "otherwise leach. Sow them right after harvest; phacelia, vetch and rye mix well. "
        "Terminate them in spring before they set seed, and leave the residue on the surface."
    )
    return "# Cover crops\n\n" + "\n\n".join(
        f"Paragraph {n}. {body}" for n in range(1, paragraphs + 1)
    )


def inflating_pdf(inflated_bytes: int = 10_000_000) -> bytes:
    """The issue's drill: a one-page PDF of a few dozen KB whose Flate content stream inflates
    to inflated_bytes of text operators."""
    line = b"BT /F1 12 Tf 72 720 Td (Nitrogen demand is 180 kg per hectare.) Tj ET\n"
    packed = zlib.compress(line * (inflated_bytes // len(line)), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return pdf_of(objects)


def pages_of_inflating_streams(
    pages: int = 200, streams: int = 10, inflated_bytes: int = 3_900_000
) -> bytes:
    """The red team's drill: a PDF of a few dozen KB whose pages share a few Flate content
    streams, each inflating to inflated_bytes of text operators (just under the per-stream
    limit), so that every page is slow to read and the document holds hundreds of MB."""
    line = b"BT /F1 12 Tf 72 720 Td (Nitrogen demand is 180 kg per hectare.) Tj ET\n"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (4 + streams + n) for n in range(pages)), pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for n in range(streams):
        # Each stream its own text, so that no two compress to the same bytes.
        body = line.replace(b"180", b"%03d" % n) * (inflated_bytes // len(line))
        packed = zlib.compress(body, 9)
        objects.append(
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed)
        )
    objects += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
        b" /Resources << /Font << /F1 3 0 R >> >> >>" % (4 + n % streams)
        for n in range(pages)
    ]
    return pdf_of(objects)


def pdf_running_a_form(runs: int, form_lines: int, *, form_runs_itself: bool = False) -> bytes:
    """A one-page PDF whose content runs one form XObject (named with a #xx escape, as a PDF
    may write a name) `runs` times; the form shows form_lines lines of text, and runs itself
    too when asked."""
    line = b"BT /F1 12 Tf 72 720 Td (Buffer pool share: 20 percent.) Tj ET\n"
    form = line * form_lines + (b"/Fm1 Do\n" if form_runs_itself else b"")
    content = b"q /F#6d1 Do Q\n" * runs
    resources = b"<< /Font << /F1 3 0 R >> /XObject << /Fm1 5 0 R >> >>"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [6 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources %s /Length %d >>"
        b"\nstream\n%s\nendstream" % (resources, len(form), form),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources %s >>" % resources,
    ]
    return pdf_of(objects)


def pdf_of_figures(pages: int, inflated_bytes: int) -> bytes:
    """A PDF of pages drawn with paths only, each inflated_bytes of them: no text to read."""
    packed = zlib.compress(b"72 72 m 540 720 l S\n" * (inflated_bytes // 20), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (4 + n) for n in range(pages)), pages),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed),
    ]
    objects += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R"
        b" /Resources << /ProcSet [/PDF] >> >>"
    ] * pages
    return pdf_of(objects)


def read_by_the_worker(document_id: int) -> Document:
    """The document once the worker's extraction run has read it (or given up) and ended."""

    def settled() -> Document | None:
        db.session.rollback()  # see what the worker committed
        document = db.session.get(Document, document_id)
        run = extraction_run(document)
        ended = run is not None and not run.is_live
        return document if document.status != "extracting" and ended else None

    return wait_for(settled, timeout=60)
