"""CSV files people open in spreadsheets, written by one rule for every export.

A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return before one) as
a formula: `=HYPERLINK(...)` or `+cmd|' /C calc'!A0` typed into a culture's name would run on
the machine of whoever opens the export. Such text is written behind a `'` (OWASP's advice for
CSV injection), which spreadsheets show but do not run. Numbers are written as they are, so
a negative number stays `-3`; JSON exports keep every value exactly.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """value as a CSV cell no spreadsheet runs: an int or float as it is, anything else as
    text, behind a `'` when it starts like a formula."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Iterable[Any], rows: Iterable[Iterable[Any]]) -> str:
    """A CSV document of a header and rows, every cell through csv_cell."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([csv_cell(value) for value in header])
    writer.writerows([csv_cell(value) for value in row] for row in rows)
    return out.getvalue()
