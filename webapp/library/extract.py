"""What an uploaded file says: its kind, its text, and that text cut into passages."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from webapp.uploads import UploadRefused, check_size, decode_text, size_text

if TYPE_CHECKING:
    from pypdf import PageObject

# File name extension -> document kind.
EXTENSIONS = {
    "pdf": "pdf",
    "md": "markdown",
    "markdown": "markdown",
    "txt": "text",
    "html": "html",
    "htm": "html",
}
PASSAGE_MAX = 1500
# What makes pypdf parse a content stream for text (it skips any other): the text-showing
# operators and Do, which runs a form XObject; and a form run by name ("/Fm1 Do", where the
# name may hold #xx escapes).
_TEXT_OPERATORS = (b"Tj", b"TJ", b"'", b'"', b"Do")
_FORM_RUN = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do(?![^\s/\[\]()<>{}%])")
_NAME_ESCAPE = re.compile(r"#([0-9A-Fa-f]{2})")
# Paragraphs first, then lines, sentences and words: a passage breaks at the largest boundary
# that keeps it within PASSAGE_MAX characters.
_BOUNDARIES = (
    (re.compile(r"\n\s*\n"), "\n\n"),
    (re.compile(r"\n"), "\n"),
    (re.compile(r"(?<=[.!?。！？])\s+"), " "),
    (re.compile(r"\s+"), " "),
)
_HTML_BLOCKS = (
    *("address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt"),
    *("figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header"),
    *("hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul"),
)


@dataclass(frozen=True)
class PdfLimits:
    """What reading one PDF may take. A small file can hold a stream that inflates to
    megabytes of text operators, which pypdf then takes minutes and hundreds of MB to read;
    extraction runs in a child process of a worker (webapp.library.sandbox), held to these."""

    pages: int = 2000
    inflated_bytes: int = 4 * 1024 * 1024  # what any one stream may inflate to
    # What all pages' content that can show text may inflate to together: pypdf reads text
    # operators at about 4 to 8 s a MB, so more than this could not be read within `seconds`
    # anyway, and pages sharing streams just under the per-stream limit would hold a worker
    # for all of it. Counted before any page is read, so such a file is refused at once.
    content_bytes: int = 8 * 1024 * 1024
    seconds: int = 60
    memory_mb: int = 512  # the child's address space

    def configuration(self) -> dict[str, int]:
        """pypdf's own limits, set to ours."""
        inflated = self.inflated_bytes
        return {
            "zlib_maximum_output_length": inflated,
            "lzw_maximum_output_length": inflated,
            "run_length_maximum_output_length": inflated,
            "brotli_maximum_output_length": inflated,
            "jbig2_maximum_output_length": inflated,
            "array_based_stream_maximum_output_length": inflated,
            "stream_decoding_work_maximum_length": 4 * inflated,
        }


PDF_LIMITS = PdfLimits()


@dataclass(frozen=True)
class Extracted:
    filename: str
    kind: str
    text: str


def clean_filename(filename: str) -> str:
    """The file's own name, without any folders a browser or client sent along."""
    return PurePosixPath(filename.replace("\\", "/")).name.strip()[:255]


UNSUPPORTED = "Upload a PDF, Markdown (.md), text (.txt) or HTML (.html, .htm) file."


def kind_of(
    filename: str, extensions: Mapping[str, str] = EXTENSIONS, unsupported: str = UNSUPPORTED
) -> str:
    """The kind a file's extension names, among those taken (the library's by default)."""
    extension = filename.rpartition(".")[2].lower() if "." in filename else ""
    if extension not in extensions:
        raise UploadRefused("unsupported_type", unsupported)
    return extensions[extension]


def extract(filename: str, data: bytes, max_bytes: int) -> Extracted:
    """Check the file and read its text; UploadRefused says what is wrong with it."""
    name, kind = check_upload(filename, data, max_bytes)
    if kind == "pdf":
        text = pdf_text(data)
    elif kind == "html":
        text = html_text(decode_text(data))
    else:
        text = decode_text(data)
    text = storable(text)
    if not text:
        raise UploadRefused("no_text", "The file contains no text to store.")
    return Extracted(name, kind, text)


def check_upload(
    filename: str,
    data: bytes,
    max_bytes: int,
    extensions: Mapping[str, str] = EXTENSIONS,
    unsupported: str = UNSUPPORTED,
) -> tuple[str, str]:
    """The file's clean name and kind, after what can be checked without reading it."""
    name = clean_filename(filename)
    kind = kind_of(name, extensions, unsupported)
    check_size(data, max_bytes, "The file is larger than the {limit} the library takes.")
    if not data:
        raise UploadRefused("empty_file", "The file is empty.")
    return name, kind


def storable(text: str) -> str:
    """Text as the library keeps it: one kind of line break, no NUL (PostgreSQL text cannot
    hold it, and it carries nothing worth searching), no surrounding space."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").strip()


def check_pdf(data: bytes) -> None:
    """What can be told of a PDF without parsing it."""
    if not data.startswith(b"%PDF"):
        raise UploadRefused("not_a_pdf", "The file is named .pdf but is not a PDF.")


def pdf_text(data: bytes, limits: PdfLimits = PDF_LIMITS) -> str:
    """The PDF's text, page by page; never in the web process (see PdfLimits)."""
    return text_of_pages(pdf_pages(data, limits))


def pdf_pages(data: bytes, limits: PdfLimits = PDF_LIMITS) -> list[str]:
    """Each page's text, in page order ("" for a page without a text layer)."""
    # pypdf is 16 MB of modules: imported by the process that reads a PDF, not by every one.
    from pypdf import PdfReader, apply_configuration
    from pypdf.errors import LimitReachedError

    check_pdf(data)
    try:
        with apply_configuration(**limits.configuration()):
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise UploadRefused("unreadable_pdf", "The PDF is password-protected.")
            if len(reader.pages) > limits.pages:
                raise UploadRefused(
                    "pdf_too_large",
                    f"The PDF has {len(reader.pages):,} pages; the library reads at most "
                    f"{limits.pages:,}.",
                )
            check_content(reader.pages, limits)
            pages = [page.extract_text() or "" for page in reader.pages]
    except (UploadRefused, MemoryError):
        raise
    except LimitReachedError:
        raise UploadRefused(
            "pdf_too_large",
            f"A part of the PDF inflates to more than {size_text(limits.inflated_bytes)}; "
            "the library does not read it.",
        ) from None
    except Exception as exc:  # a damaged file can fail anywhere inside pypdf
        raise UploadRefused(
            "unreadable_pdf", f"The PDF is damaged or cannot be read ({exc})."
        ) from None
    # Broken font maps can yield lone surrogates, which cannot be stored as UTF-8.
    return [page.encode("utf-8", "replace").decode("utf-8") for page in pages]


def check_content(pages: Sequence[PageObject], limits: PdfLimits) -> None:
    """Refuse a PDF whose pages' content that can show text adds up to more than
    limits.content_bytes, counting what text extraction would parse: each page's content
    streams, and each form they run, every time it is run. Stops counting once over."""
    total = 0
    costs: dict[int, int] = {}
    for page in pages:
        contents = page.get_contents()
        if contents is not None:
            resources = page.get_inherited("/Resources")
            total += _content_cost(contents.get_data(), resources, costs)
        if total > limits.content_bytes:
            raise UploadRefused(
                "pdf_too_large",
                f"The PDF's pages hold more than {size_text(limits.content_bytes)} of content "
                "to read text from; the library does not read it. Split it, or keep the pages "
                "that matter.",
            )


def _content_cost(data: bytes, resources: Any, costs: dict[int, int]) -> int:
    """The bytes text extraction parses for one content stream, as pypdf goes: none without
    resources (no font, no text) or without an operator that can show text, else its own and
    each form it runs, per run. costs: each form's, once worked out (a form that runs itself
    adds nothing: pypdf skips the cycle)."""
    from pypdf.generic import StreamObject

    resources = resources.get_object() if resources is not None else None
    if not resources or not any(operator in data for operator in _TEXT_OPERATORS):
        return 0
    cost = len(data)
    xobjects = resources.get("/XObject")
    forms = xobjects.get_object() if xobjects is not None else {}
    for raw in _FORM_RUN.findall(data):
        name = "/" + _NAME_ESCAPE.sub(lambda m: chr(int(m[1], 16)), raw.decode("latin-1"))
        form = forms.get(name)
        form = form.get_object() if form is not None else None
        if not isinstance(form, StreamObject) or form.get("/Subtype") != "/Form":
            continue
        if id(form) not in costs:
            costs[id(form)] = 0
            costs[id(form)] = _content_cost(form.get_data(), form.get("/Resources"), costs)
        cost += costs[id(form)]
    return cost


def text_of_pages(pages: list[str]) -> str:
    """A document's text from its pages' (a page is a paragraph boundary); UploadRefused when
    no page has any."""
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise UploadRefused(
            "no_text", "The PDF has no text to extract (a scanned image needs OCR first)."
        )
    return text


def html_text(html: str) -> str:
    """The page's visible text, one paragraph per block element; scripts and styles dropped."""
    from bs4 import BeautifulSoup  # not with the module: the PDF sandbox's child imports it

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(["script", "style"]):
        tag.decompose()
    for tag in soup.find_all(_HTML_BLOCKS):
        tag.insert_after("\n\n")
    paragraphs = (" ".join(part.split()) for part in _BOUNDARIES[0][0].split(soup.get_text()))
    return "\n\n".join(p for p in paragraphs if p)


def split_passages(text: str) -> list[str]:
    """The text in passages of at most PASSAGE_MAX characters, cut on paragraph boundaries
    where the paragraphs allow it; short paragraphs are joined up to that size."""
    return _fit(text.strip(), 0)


def _fit(block: str, level: int) -> list[str]:
    if not block:
        return []
    if len(block) <= PASSAGE_MAX:
        return [block]
    if level == len(_BOUNDARIES):
        return [block[i : i + PASSAGE_MAX] for i in range(0, len(block), PASSAGE_MAX)]
    pattern, joiner = _BOUNDARIES[level]
    passages: list[str] = []
    current = ""
    for part in pattern.split(block):
        for piece in _fit(part.strip(), level + 1):
            if current and len(current) + len(joiner) + len(piece) > PASSAGE_MAX:
                passages.append(current)
                current = piece
            else:
                current = f"{current}{joiner}{piece}" if current else piece
    if current:
        passages.append(current)
    return passages
