"""Reading a catalog CSV (the export's format) into checked rows, before anything is stored."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

from webapp.cultures.catalog import blocking, entry_findings
from webapp.cultures.domain import CultureInvalid, clean_culture
from webapp.cultures.fields import CULTURE_FIELDS, SPECS
from webapp.review.fields import Kind
from webapp.review.vocabulary import Issue

MAX_ROWS = 10_000
IGNORED_COLUMNS = frozenset({"id", "updated_at"})


@dataclass
class ImportRow:
    line: int
    values: dict[str, Any]
    errors: dict[str, str] = field(default_factory=dict)
    findings: list[Issue] = field(default_factory=list)  # what the plausibility rules say


@dataclass
class ImportPreview:
    rows: list[ImportRow] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)  # the culture fields the file has
    unknown_columns: list[str] = field(default_factory=list)
    problem: str | None = None

    @property
    def error_rows(self) -> list[ImportRow]:
        return [row for row in self.rows if row.errors]

    @property
    def can_import(self) -> bool:
        return self.problem is None and bool(self.rows) and not self.error_rows

    @property
    def implausible_rows(self) -> list[ImportRow]:
        """Rows with values the rules call impossible: imported only when confirmed."""
        return [row for row in self.rows if blocking(row.findings)]


def _cell(column: str, raw: str) -> Any:
    raw = raw.strip()
    if raw == "":
        return None
    spec = SPECS[column]
    if spec.is_list:
        if raw.startswith("["):
            return json.loads(raw)
        if spec.kind is Kind.choices:
            return [part.strip() for part in raw.replace(",", ";").split(";") if part.strip()]
        raise ValueError("give a JSON list")
    return raw


def _values(line: int, record: dict[str, str], columns: list[str]) -> ImportRow:
    row = ImportRow(line, {})
    raw_values: dict[str, Any] = {}
    for column in columns:
        try:
            value = _cell(column, record.get(column) or "")
        except (ValueError, json.JSONDecodeError) as exc:
            row.errors[column] = f"Cannot read “{record.get(column)}”: {exc}."
            continue
        if value is not None:
            raw_values[column] = value
    raw_values.setdefault("name", "")
    try:
        row.findings = entry_findings(raw_values)
        row.values = clean_culture(raw_values)
    except CultureInvalid as exc:
        row.errors.update(exc.errors)
        row.values = raw_values
    return row


def preview_csv(text: str) -> ImportPreview:
    """Every row checked with the catalog's own rules; nothing is stored here."""
    preview = ImportPreview()
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip() for name in reader.fieldnames or []]
    if "name" not in header:
        preview.problem = "The first line must name the columns, including “name”."
        return preview
    reader.fieldnames = header
    columns = preview.columns = [name for name in header if name in CULTURE_FIELDS]
    preview.unknown_columns = [
        n for n in header if n not in CULTURE_FIELDS and n not in IGNORED_COLUMNS and n
    ]
    try:
        for record in reader:
            if len(preview.rows) >= MAX_ROWS:
                preview.problem = f"At most {MAX_ROWS:,} rows can be imported at once."
                break
            if not any(
                (value or "").strip() for value in record.values() if isinstance(value, str)
            ):
                continue
            preview.rows.append(_values(reader.line_num, record, columns))
    except csv.Error as exc:
        preview.problem = f"The CSV cannot be read at line {reader.line_num}: {exc}."
    if not preview.rows and preview.problem is None:
        preview.problem = "The file has no rows."
    return preview
