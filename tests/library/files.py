"""Small real files to upload: PDFs written with pypdf, text long enough for several passages."""

from __future__ import annotations

import io

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


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
