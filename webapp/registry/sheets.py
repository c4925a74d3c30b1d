"""Spreadsheets a submission carries, read as text a reviewer can cite: a CSV export is one
page, an Excel workbook (.xlsx) one page per sheet under the sheet's name as a heading; each
filled cell stands with its reference ("B3: 146"), so a passage says where its figure stands.

A workbook is a ZIP of XML parts. The web process only tells that an upload is one (check_xlsx:
its ZIP directory, never its parts), and refuses one whose parts unpack to more than
MOST_UNPACKED_BYTES; the review's run reads it (xlsx_pages) in the library's sandbox, as it
reads PDFs."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import struct
import zipfile
from collections.abc import Iterable, Sequence
from typing import Any

from webapp.uploads import UploadRefused, size_text, sniff_delimiter

MOST_CELLS = 200_000  # a submission's tables of figures (all sheets), with room to spare
# What a workbook's parts may unpack to, all together: 200,000 cells take 8 MB as numbers,
# 12 MB as distinct texts. The costliest workbook within it (1.5 million short shared strings,
# which are read before any sheet) takes the sandbox about 20 s and 280 MB of its 512.
MOST_UNPACKED_BYTES = 32 * 1024 * 1024
# A ZIP's directory lists its parts; Python reads all of it on opening. A workbook's lists a
# few dozen (a sheet, its relations and drawings are three or four each).
MOST_DIRECTORY_BYTES = 1024 * 1024
NOT_XLSX = (
    "The file is named .xlsx but is not an Excel workbook. Save it from the spreadsheet as "
    "an Excel workbook (.xlsx) or as CSV, and upload it again."
)
_END_OF_DIRECTORY = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_END_RECORD = struct.Struct("<4s4H2LH")  # signature, disks, entries, size, offset, comment
_LARGEST_COMMENT = 0xFFFF


def column_letters(index: int) -> str:
    """A column's letters as spreadsheets write them: 0 is A, 25 Z, 26 AA."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def cell_text(value: Any) -> str:
    """A cell's value as the sheet's page writes it: text as it is, numbers as a spreadsheet
    shows them (15 significant digits: 0.1 + 0.2 is 0.3), dates as ISO dates, a date with a
    time of day as "2023-02-06 14:30"; an empty cell as ""."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value:.15g}"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="minutes" if not value.second else "seconds")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value).strip()


def sheet_pages(sheets: Iterable[tuple[str | None, Iterable[Sequence[Any]]]]) -> list[str]:
    """A page per sheet (its name, or None for a CSV file's one sheet, and its rows): the
    name as a heading ("# Figures"), then a line of filled cells per row, each with its
    reference: "A3: Buffer Pool | B3: 146"; empty rows and cells left out, the references
    keeping their places. More than MOST_CELLS cells in all (a row counts one at least) are
    refused."""
    pages = []
    cells = 0
    for name, rows in sheets:
        lines = [f"# {name}"] if name is not None else []
        for number, row in enumerate(rows, start=1):
            cells += max(len(row), 1)
            if cells > MOST_CELLS:
                raise UploadRefused(
                    "too_many_cells",
                    f"The spreadsheet has more than {MOST_CELLS:,} cells; keep the sheets that "
                    "matter.",
                )
            texts = ((column, cell_text(value)) for column, value in enumerate(row))
            filled = [f"{column_letters(column)}{number}: {text}" for column, text in texts if text]
            if filled:
                lines.append(" | ".join(filled))
        pages.append("\n".join(lines))
    return pages


def csv_pages(text: str) -> list[str]:
    """A CSV file's one page (its delimiter found as the table import finds it)."""
    try:
        return sheet_pages([(None, csv.reader(io.StringIO(text), delimiter=sniff_delimiter(text)))])
    except csv.Error as exc:
        raise UploadRefused("unreadable_csv", f"The CSV file cannot be read: {exc}.") from None


def check_xlsx(data: bytes) -> None:
    """What can be told of a workbook without reading its parts (so in the web process): a
    ZIP, of a directory Python can list at little cost, holding xl/workbook.xml, whose parts
    unpack to at most MOST_UNPACKED_BYTES. The sizes are those the directory states: Python
    unpacks no part beyond its stated size."""
    _check_directory_size(data)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, struct.error):
        raise UploadRefused("not_xlsx", NOT_XLSX) from None
    if not any(part.filename == "xl/workbook.xml" for part in parts):
        raise UploadRefused("not_xlsx", NOT_XLSX)
    if sum(part.file_size for part in parts) > MOST_UNPACKED_BYTES:
        raise UploadRefused(
            "xlsx_too_large",
            f"The workbook unpacks to more than {size_text(MOST_UNPACKED_BYTES)}; keep the "
            "sheets that matter, or save them as CSV.",
        )


def _check_directory_size(data: bytes) -> None:
    """Refuse a ZIP whose directory Python would spend much to list: any end record it could
    take (in the last bytes, where a comment may follow it) stating a directory over
    MOST_DIRECTORY_BYTES, or pointing to a ZIP64 one (no workbook of this size needs it)."""
    tail = max(0, len(data) - _END_RECORD.size - _LARGEST_COMMENT)
    for found in re.finditer(re.escape(_END_OF_DIRECTORY), data[tail:]):
        at = tail + found.start()
        if at + _END_RECORD.size > len(data):
            continue
        directory_bytes = _END_RECORD.unpack_from(data, at)[5]
        zip64 = at >= 20 and data[at - 20 : at - 16] == _ZIP64_LOCATOR
        if directory_bytes > MOST_DIRECTORY_BYTES or zip64:
            raise UploadRefused(
                "xlsx_too_large",
                "The workbook lists more parts than a workbook of figures holds; keep the "
                "sheets that matter, or save them as CSV.",
            )


def xlsx_pages(data: bytes, _limits: object = None) -> list[str]:
    """A workbook's pages, a sheet each in the workbook's order (a chart sheet is skipped):
    cells' values, a formula's as the spreadsheet last worked it out (a formula never worked
    out, as a file some programs write, reads as empty). Never in the web process: the run
    reads it in the library's sandbox, whose limits (_limits) hold the child process."""
    check_xlsx(data)
    from openpyxl import load_workbook  # only the sandbox's child process reads workbooks

    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # a damaged workbook can fail anywhere inside openpyxl
        raise UploadRefused("unreadable_xlsx", f"The workbook cannot be read ({exc}).") from None
    try:
        sheets = []
        for sheet in workbook.worksheets:
            # Read cells as they stand; a sheet's stated size can be wrong, and every row
            # would be padded to it.
            sheet.reset_dimensions()
            sheets.append((sheet.title, sheet.iter_rows(values_only=True)))
        return sheet_pages(sheets)
    except (UploadRefused, MemoryError):
        raise
    except Exception as exc:
        raise UploadRefused("unreadable_xlsx", f"The workbook cannot be read ({exc}).") from None
    finally:
        workbook.close()
