"""A project document as pages: a PDF's pages keep their 1-based numbers; a Markdown or text
file is one page unless it holds form feeds. A table-of-contents page is told apart (it names
every section, so it would match every search, and it is never evidence); a page without a
text layer is listed as such. Each page knows the section headings it holds, so a snippet can
say which section it is in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum


class PageKind(StrEnum):
    text = "text"
    contents = "contents"  # a table of contents: never evidence
    no_text = "no_text"  # no text layer (a scan)


CONTENTS_TITLE = re.compile(
    r"^\s*(table\s+of\s+contents|contents|sommaire|table\s+des\s+mati[eè]res|inhalt(sverzeichnis)?)\s*$",
    re.I | re.M,
)
# "3.2 Land tenure ........ 12", "Land tenure 12", "Annex B – Maps   41"
CONTENTS_LINE = re.compile(r"^.{3,}?(?:\s*\.{3,}\s*|\s{2,}|\s+)\d{1,4}\s*$")
CONTENTS_SHARE = 0.5  # of a page's lines, for a page without a contents title
NUMBERED_HEADING = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^.!?]{2,80})$")
MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+(.{1,120}?)\s*#*\s*$")


@dataclass(frozen=True)
class Heading:
    offset: int  # where it starts in the page's text
    title: str


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    text: str
    kind: PageKind
    headings: tuple[Heading, ...] = field(default=())

    def section_at(self, offset: int, before: str | None = None) -> str | None:
        """The heading a position of the page falls under; before: the section the page
        starts in (the last heading of the pages before it)."""
        current = before
        for heading in self.headings:
            if heading.offset > offset:
                break
            current = heading.title
        return current


def is_contents(text: str) -> bool:
    """Whether a page is a table of contents: titled so with lines ending in page numbers, or
    mostly such lines."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return False
    numbered = sum(1 for line in lines if CONTENTS_LINE.match(line.strip()))
    if CONTENTS_TITLE.search(text) and numbered >= 3:
        return True
    return numbered / len(lines) >= CONTENTS_SHARE and numbered >= 5


def headings(text: str) -> tuple[Heading, ...]:
    """The section headings of a page: Markdown headings and numbered ones ("3.2 Land tenure")."""
    found, offset = [], 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if match := MARKDOWN_HEADING.match(stripped):
            found.append(Heading(offset, match.group(1).strip()))
        elif match := NUMBERED_HEADING.match(stripped):
            found.append(Heading(offset, f"{match.group(1)} {match.group(2).strip()}"))
        offset += len(line)
    return tuple(found)


def page_of(number: int, text: str) -> Page:
    if not text.strip():
        return Page(number, "", PageKind.no_text)
    kind = PageKind.contents if is_contents(text) else PageKind.text
    return Page(number, text, kind, headings(text) if kind == PageKind.text else ())


def pages_of(texts: list[str]) -> list[Page]:
    """Pages from their texts, in order (a PDF's pages, or a text file split at form feeds)."""
    return [page_of(number, text) for number, text in enumerate(texts, start=1)]


def text_pages(text: str) -> list[Page]:
    """A Markdown or text document's pages: one, or one per form feed."""
    return pages_of(text.split("\f"))


def sections_before(pages: list[Page]) -> dict[int, str | None]:
    """The section each page starts in: the last heading of the pages before it."""
    current: str | None = None
    starts: dict[int, str | None] = {}
    for page in pages:
        starts[page.number] = current
        if page.headings:
            current = page.headings[-1].title
    return starts
