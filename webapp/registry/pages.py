"""A project document as pages: a PDF's pages keep their 1-based numbers; a Markdown or text
file is one page unless it holds form feeds. A table-of-contents page is told apart (it names
every section, so it would match every search, and it is never evidence); a page without a
text layer is listed as such. Each page knows the section headings it holds, so a snippet can
say which section it is in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import pairwise


class PageKind(StrEnum):
    text = "text"
    contents = "contents"  # a table of contents: never evidence
    no_text = "no_text"  # no text layer (a scan)


CONTENTS_TITLE = re.compile(
    r"^\s*(table\s+of\s+contents|contents|sommaire|table\s+des\s+mati[eè]res|inhalt(sverzeichnis)?)\s*$",
    re.I | re.M,
)
# A line ending in a page number: "3.2 Land tenure ........ 12", "Annex B – Maps   41".
# Its title must hold a letter, checked apart: within the pattern, that check backtracked over
# every long line of prose (10 ms a page).
CONTENTS_ENTRY = re.compile(r"^(?P<title>.+?)(?P<leader>\s*(?:\.{3,}|…+)\s*|\s+)(?P<page>\d{1,4})$")
LETTER = re.compile(r"[^\W\d_]")
# What only a table of contents writes before a page number: a numbered section title.
SECTION_TITLE = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|(?:annex|appendix|chapter|part|section)\s+\w{1,4}\b)"
    r"\s*[-–:]?\s*[^\W\d_]",
    re.I,
)
CONTENTS_SHARE = 0.5  # of a page's lines, for a page without a contents title
IN_ORDER_SHARE = 0.8  # of an entry's page numbers following on (a header's year does not)
NUMBERED_HEADING = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^.!?]{2,80})$")
# A footnote: a plain number, then its text; one alone at a page's foot is a footnote when
# it cites (a year, an address, "et al.", "see") or runs long.
FOOTNOTE = re.compile(r"^\d{1,3}\s+\S")
CITATION = re.compile(r"\b(?:19|20)\d{2}\b|https?://|www\.|\bet al\b|\bsee\b|\bibid\b", re.I)
FOOTNOTE_WORDS = 12
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


@dataclass(frozen=True)
class ContentsEntry:
    title: str
    page: int
    dotted: bool  # a dot leader between the title and the page number

    @property
    def signed(self) -> bool:
        """A dot leader or a numbered section title: what result tables do not write."""
        return self.dotted or SECTION_TITLE.match(self.title) is not None


def contents_entries(text: str) -> list[ContentsEntry]:
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        # Only a line ending in a digit can be an entry; trying the pattern on a long line of
        # prose backtracks over the whole line.
        match = CONTENTS_ENTRY.match(stripped) if stripped[-1:].isdigit() else None
        if match and LETTER.search(match["title"]):
            dotted = "." in match["leader"] or "…" in match["leader"]
            found.append(ContentsEntry(match["title"].strip(), int(match["page"]), dotted))
    return found


def _in_order(numbers: list[int]) -> bool:
    """Page numbers that go up (nearly all of them: a line or two may be something else)."""
    steps = list(pairwise(numbers))
    following = sum(1 for a, b in steps if a <= b)
    return bool(steps) and numbers[-1] > numbers[0] and following >= IN_ORDER_SHARE * len(steps)


def is_contents(text: str, page_count: int | None = None) -> bool:
    """Whether a page is a table of contents: titled so ("Contents", "Sommaire") with three
    entries or more whose page numbers go up; or, without a title, mostly entries with dot
    leaders or numbered section titles whose page numbers go up and are pages of the document
    (page_count, when known). A table of results or of sampling points ends its lines in
    numbers too, but has no title, no leaders, no section numbers or no order."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return False
    entries = contents_entries(text)
    if CONTENTS_TITLE.search(text):
        # Titled: its numbers may be printed page numbers, beyond a part's page count.
        signed = [e for e in entries if e.signed]
        listed = signed if len(signed) >= 3 else entries
        return len(listed) >= 3 and _in_order([e.page for e in listed])
    signed = [e for e in entries if e.signed and (page_count is None or 1 <= e.page <= page_count)]
    return (
        len(signed) >= 5
        and len(signed) >= CONTENTS_SHARE * len(lines)
        and _in_order([e.page for e in signed])
    )


def _footnotes(lines: list[str]) -> int:
    """How many of a page's last lines are footnotes: lines numbered with a plain number
    ("1 IPCC (2006) Guidelines…", "2 See Annex B") after the page's text, which a heading
    pattern would take for sections. A lone last line stays a heading when it reads like one
    (short, no year, no address)."""
    count = 0
    for line in reversed([line.strip() for line in lines if line.strip()]):
        if not FOOTNOTE.match(line):
            break
        count += 1
    if count == 1:
        last = next(line.strip() for line in reversed(lines) if line.strip())
        cited = CITATION.search(last) or len(last.split()) > FOOTNOTE_WORDS
        return 1 if cited else 0
    return count


def headings(text: str) -> tuple[Heading, ...]:
    """The section headings of a page: Markdown headings and numbered ones ("3.2 Land tenure"),
    not the footnotes at its foot."""
    lines = text.splitlines(keepends=True)
    written = sum(1 for line in lines if line.strip())
    last = written - _footnotes(lines)  # the lines after it are footnotes
    found, offset, seen = [], 0, 0
    for line in lines:
        stripped = line.strip()
        seen += bool(stripped)
        if seen > last > 0:
            break
        if match := MARKDOWN_HEADING.match(stripped):
            found.append(Heading(offset, match.group(1).strip()))
        elif match := NUMBERED_HEADING.match(stripped):
            found.append(Heading(offset, f"{match.group(1)} {match.group(2).strip()}"))
        offset += len(line)
    return tuple(found)


def page_of(number: int, text: str, page_count: int | None = None) -> Page:
    if not text.strip():
        return Page(number, "", PageKind.no_text)
    kind = PageKind.contents if is_contents(text, page_count) else PageKind.text
    return Page(number, text, kind, headings(text) if kind == PageKind.text else ())


def pages_of(texts: list[str]) -> list[Page]:
    """Pages from their texts, in order (a PDF's pages, or a text file split at form feeds)."""
    return [page_of(number, text, len(texts)) for number, text in enumerate(texts, start=1)]


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
