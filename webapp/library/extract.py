"""What an uploaded file says: its kind, its text, and that text cut into passages."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from bs4 import BeautifulSoup
from pypdf import PdfReader

from webapp.uploads import UploadRefused, check_size, decode_text

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
class Extracted:
    filename: str
    kind: str
    text: str


def clean_filename(filename: str) -> str:
    """The file's own name, without any folders a browser or client sent along."""
    return PurePosixPath(filename.replace("\\", "/")).name.strip()[:255]


def kind_of(filename: str) -> str:
    extension = filename.rpartition(".")[2].lower() if "." in filename else ""
    if extension not in EXTENSIONS:
        raise UploadRefused(
            "unsupported_type",
            "Upload a PDF, Markdown (.md), text (.txt) or HTML (.html, .htm) file.",
        )
    return EXTENSIONS[extension]


def extract(filename: str, data: bytes, max_bytes: int) -> Extracted:
    """Check the file and read its text; UploadRefused says what is wrong with it."""
    name = clean_filename(filename)
    kind = kind_of(name)
    check_size(data, max_bytes, "The file is larger than the {limit} the library takes.")
    if not data:
        raise UploadRefused("empty_file", "The file is empty.")
    if kind == "pdf":
        text = pdf_text(data)
    elif kind == "html":
        text = html_text(decode_text(data))
    else:
        text = decode_text(data)
    # PostgreSQL text cannot hold NUL characters, and they carry nothing worth searching.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").strip()
    if not text:
        raise UploadRefused("no_text", "The file contains no text to store.")
    return Extracted(name, kind, text)


def pdf_text(data: bytes) -> str:
    if not data.startswith(b"%PDF"):
        raise UploadRefused("not_a_pdf", "The file is named .pdf but is not a PDF.")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UploadRefused("unreadable_pdf", "The PDF is password-protected.")
        pages = [page.extract_text() or "" for page in reader.pages]
    except UploadRefused:
        raise
    except Exception as exc:  # a damaged file can fail anywhere inside pypdf
        raise UploadRefused(
            "unreadable_pdf", f"The PDF is damaged or cannot be read ({exc})."
        ) from None
    # A page is a paragraph boundary. Broken font maps can yield lone surrogates, which cannot
    # be stored as UTF-8.
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    text = text.encode("utf-8", "replace").decode("utf-8")
    if not text:
        raise UploadRefused(
            "no_text", "The PDF has no text to extract (a scanned image needs OCR first)."
        )
    return text


def html_text(html: str) -> str:
    """The page's visible text, one paragraph per block element; scripts and styles dropped."""
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
