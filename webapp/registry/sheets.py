"""A spreadsheet a submission carries (a CSV export of its figures), read as text a reviewer can
cite: one page, each filled cell with its reference ("B3: 146"), so a passage says where its
figure stands."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from webapp.uploads import UploadRefused, sniff_delimiter

MOST_CELLS = 200_000  # a submission's table of figures, with room to spare


def column_letters(index: int) -> str:
    """A column's letters as spreadsheets write them: 0 is A, 25 Z, 26 AA."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def sheet_text(rows: Iterable[Sequence[str]]) -> str:
    """A sheet as lines of its filled cells, each with its reference: "A3: Buffer Pool | B3:
    146"; empty rows and cells left out, the references keeping their places."""
    lines = []
    cells = 0
    for number, row in enumerate(rows, start=1):
        filled = [
            f"{column_letters(column)}{number}: {value.strip()}"
            for column, value in enumerate(row)
            if value.strip()
        ]
        cells += len(row)
        if cells > MOST_CELLS:
            raise UploadRefused(
                "too_many_cells",
                f"The spreadsheet has more than {MOST_CELLS:,} cells; keep the sheets that matter.",
            )
        if filled:
            lines.append(" | ".join(filled))
    return "\n".join(lines)


def csv_pages(text: str) -> list[str]:
    """A CSV file's one page (its delimiter found as the table import finds it)."""
    try:
        return [sheet_text(csv.reader(io.StringIO(text), delimiter=sniff_delimiter(text)))]
    except csv.Error as exc:
        raise UploadRefused("unreadable_csv", f"The CSV file cannot be read: {exc}.") from None
