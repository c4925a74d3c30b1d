"""Reading an uploaded file, for the whole app: bounded by a size limit, and as text only when it
is UTF-8 (a byte-order mark from spreadsheets is fine). A file too large, binary or in another
encoding is refused with a message a person can act on, never a traceback."""

from __future__ import annotations

import re
from typing import BinaryIO

from webapp.problems import Invalid

NOT_UTF8 = "The file is not UTF-8 text."
CSV_MAX_BYTES = 5 * 1024 * 1024  # a CSV import, of the catalog or a table
CSV_TOO_LARGE = "The file is larger than {limit}; split it into parts."
DELIMITERS = {",": "commas", ";": "semicolons", "\t": "tabs"}
QUOTED = re.compile(r'"[^"]*"')


class UploadRefused(Invalid):
    """A file that is not taken; code says which problem (file_too_large, binary_file,
    not_utf8, or the caller's own), the message says it for people."""

    def __init__(self, code: str, message: str, loc: str = "file") -> None:
        super().__init__(message, code=code, loc=loc)


def size_text(max_bytes: int) -> str:
    """A limit as people say it: "512 KB", "5 MB"."""
    if max_bytes < 2**20:
        return f"{max_bytes / 2**10:g} KB"
    return f"{max_bytes / 2**20:g} MB"


def read_bytes(source: bytes | BinaryIO, max_bytes: int) -> bytes:
    """The upload's bytes, reading at most one more than max_bytes: enough to tell that a
    file is too large without holding all of it."""
    return source if isinstance(source, bytes) else source.read(max_bytes + 1)


def check_size(data: bytes, max_bytes: int, too_large: str) -> None:
    """too_large names the limit as {limit}: "The file is larger than {limit}; split it."."""
    if len(data) > max_bytes:
        raise UploadRefused("file_too_large", too_large.format(limit=size_text(max_bytes)))


def decode_text(data: bytes, advice: str = "Save it as UTF-8 and upload it again.") -> str:
    """UTF-8 text, without a byte-order mark; UploadRefused for anything else. NUL bytes mean a
    binary file (or UTF-16 text, which decodes as UTF-8 with a NUL after every letter)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        binary = b"\x00" in data
        code = "binary_file" if binary else "not_utf8"
        raise UploadRefused(code, _refusal(binary, advice)) from None
    if "\x00" in text:
        raise UploadRefused("binary_file", _refusal(True, advice))
    return text


def _refusal(binary: bool, advice: str) -> str:
    kind = " It looks like a binary file (or UTF-16 text)." if binary else ""
    return f"{NOT_UTF8}{kind} {advice}".rstrip()


def read_text(
    source: bytes | BinaryIO,
    max_bytes: int,
    *,
    too_large: str = "The file is larger than {limit}.",
    advice: str = "Save it as UTF-8 and upload it again.",
) -> str:
    """An uploaded text file's text: at most max_bytes, UTF-8; UploadRefused otherwise."""
    data = read_bytes(source, max_bytes)
    check_size(data, max_bytes, too_large)
    return decode_text(data, advice)


def read_csv(source: bytes | BinaryIO, max_bytes: int = CSV_MAX_BYTES) -> str:
    """An uploaded CSV file's text (a catalog or a table import)."""
    return read_text(source, max_bytes, too_large=CSV_TOO_LARGE, advice="Save it as CSV (UTF-8).")


def check_csv_text(text: str, max_bytes: int = CSV_MAX_BYTES) -> None:
    """The CSV text a preview's confirm form sends back, held to the upload's limit again: a
    form field carries whatever a client puts in it."""
    check_size(text.encode("utf-8", "surrogatepass"), max_bytes, CSV_TOO_LARGE)


def sniff_delimiter(text: str) -> str:
    """A CSV's delimiter: comma, semicolon or tab, whichever its header line has most of,
    outside quotes.

    The header decides because csv.Sniffer takes the decimal commas of a semicolon file
    ("1,5;2,3") for the delimiter.
    """
    header = next((line for line in text.splitlines() if line.strip()), "")
    unquoted = QUOTED.sub("", header)
    counts = {d: unquoted.count(d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","
