"""Reading a catalog file (the CSV export's format, or OpenFarmPlanner's JSON) into checked rows,
matched against the catalog, before anything is stored; then storing them."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from webapp.auth.models import User
from webapp.cultures.catalog import (
    AUDIT_TARGET,
    blocking,
    create_culture,
    entry_findings,
    update_culture,
)
from webapp.cultures.domain import CultureInvalid, clean_culture
from webapp.cultures.fields import CULTURE_FIELDS, LABELS, SPECS
from webapp.cultures.headers import field_of
from webapp.cultures.models import Culture
from webapp.cultures.openfarmplanner import ExportUnreadable, read_export
from webapp.extensions import db
from webapp.review.audit import change_rows, new_group, write_changes
from webapp.review.fields import Kind
from webapp.review.vocabulary import Issue, Severity, count_levels, worst_level
from webapp.uploads import sniff_delimiter

MAX_ROWS = 10_000
IGNORED_COLUMNS = frozenset({"id", "updated_at"})
IMPORT_SOURCE = "import"  # the audit trail's source of the changes an import makes


@dataclass
class ImportRow:
    line: int
    values: dict[str, Any]
    errors: dict[str, str] = field(default_factory=dict)
    findings: list[Issue] = field(default_factory=list)  # what the plausibility rules say
    notes: list[str] = field(default_factory=list)  # what reading it did (inherited values…)
    action: str = "create"  # create, update or unchanged
    culture_id: int | None = None  # the culture an update or unchanged row matches
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # {field: (old, new)}

    @property
    def issues(self) -> list[Issue]:
        """Everything said about the row, each at its level: a value that cannot be read or
        used is an error like any other, beside the plausibility rules' findings."""
        unusable = [Issue("", Severity.error, f or None, m) for f, m in self.errors.items()]
        return unusable + self.findings

    @property
    def level(self) -> str | None:
        """The worst level of the row's issues, None for a row without any."""
        return worst_level(i.to_dict() for i in self.issues)


@dataclass
class ImportPreview:
    rows: list[ImportRow] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)  # the culture fields the file has
    unknown_columns: list[str] = field(default_factory=list)
    problem: str | None = None
    kind: str = "CSV"  # the file's format, as people call it

    @property
    def error_rows(self) -> list[ImportRow]:
        return [row for row in self.rows if row.errors]

    @property
    def level_counts(self) -> dict[str, int]:
        """How many rows have each worst level: the counts the rows' own issues give."""
        return count_levels(row.level for row in self.rows)

    @property
    def can_import(self) -> bool:
        return self.problem is None and bool(self.rows) and not self.error_rows

    @property
    def implausible_rows(self) -> list[ImportRow]:
        """Rows with values the rules call impossible: imported only when confirmed."""
        return [row for row in self.rows if row.action != "unchanged" and blocking(row.findings)]

    def of(self, action: str) -> list[ImportRow]:
        return [row for row in self.rows if row.action == action and not row.errors]

    @property
    def summary(self) -> str:
        """“create 2, update 1, unchanged 17”."""
        return ", ".join(f"{action} {len(self.of(action))}" for action in ACTIONS)

    def to_dict(self, labels: dict[str, str]) -> dict[str, Any]:
        """The preview as the API answers it."""
        return {
            "format": self.kind,
            "summary": self.summary,
            **{action: len(self.of(action)) for action in ACTIONS},
            "columns": self.columns,
            "unknown_columns": self.unknown_columns,
            "rows": [
                {
                    "line": row.line,
                    "name": row.values.get("name", ""),
                    "variety": row.values.get("variety", ""),
                    "action": row.action,
                    "culture_id": row.culture_id,
                    "changes": [
                        {"field": f, "label": labels.get(f, f), "old": old, "new": new}
                        for f, (old, new) in row.changes.items()
                    ],
                    "notes": row.notes,
                    "errors": [{"field": f, "message": m} for f, m in row.errors.items()],
                    "issues": [i.to_dict() for i in row.findings],
                }
                for row in self.rows
            ],
        }


ACTIONS = ("create", "update", "unchanged")


def match_key(name: Any, variety: Any) -> tuple[str, str]:
    """How a row finds its culture: name and variety, case and spacing aside."""
    return (
        " ".join(str(name or "").split()).casefold(),
        " ".join(str(variety or "").split()).casefold(),
    )


def check_row(
    line: int, raw_values: dict[str, Any], errors: dict[str, str] | None = None
) -> ImportRow:
    """A row's values read by the catalog's rules: every problem of the row, the cells that
    could not be read (errors) as well as the fields' and the cross-field ones."""
    row = ImportRow(line, {}, dict(errors or {}))
    raw_values.setdefault("name", "")
    try:
        row.findings = entry_findings(raw_values)
        row.values = clean_culture(raw_values)
    except CultureInvalid as exc:
        for loc, message in exc.errors.items():
            before = row.errors.get(loc)
            row.errors[loc] = f"{before} {message}" if before else message
        row.values = raw_values
    return row


def match_catalog(preview: ImportPreview) -> ImportPreview:
    """Each good row as a create, an update (with the fields that change) or unchanged, by the
    culture of its name and variety; a second row for the same culture is an error."""
    cultures = {match_key(c.name, c.variety): c for c in db.session.scalars(select(Culture))}
    first_line: dict[tuple[str, str], int] = {}
    for row in preview.rows:
        key = match_key(row.values.get("name"), row.values.get("variety"))
        if key in first_line and not row.errors:
            row.errors["name"] = f"Line {first_line[key]} has the same name and variety."
        first_line.setdefault(key, row.line)
        culture = cultures.get(key)
        if culture is None or row.errors:
            continue
        row.culture_id = culture.id
        # The catalog's spelling of the name stays: the row only matched it.
        row.values.update(name=culture.name, variety=culture.variety)
        before = {f: getattr(culture, f) for f in CULTURE_FIELDS}
        try:
            clean = clean_culture(row.values, before)
            row.findings = entry_findings(row.values, culture)
        except CultureInvalid as exc:
            row.errors.update(exc.errors)
            continue
        row.changes = {f: (before[f], new) for f, new in clean.items() if before[f] != new}
        row.action = "update" if row.changes else "unchanged"
    return preview


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


def _csv_row(line: int, record: dict[str, str], columns: list[str]) -> ImportRow:
    errors: dict[str, str] = {}
    raw_values: dict[str, Any] = {}
    for column in columns:
        try:
            value = _cell(column, record.get(column) or "")
        except (ValueError, json.JSONDecodeError) as exc:
            errors[column] = f"Cannot read “{record.get(column)}”: {exc}."
            continue
        if value is not None:
            raw_values[column] = value
    return check_row(line, raw_values, errors)


def preview_csv(text: str) -> ImportPreview:
    """Every row checked with the catalog's own rules; nothing is stored here. Commas,
    semicolons or tabs, as the header has them; columns named in English, German or French."""
    preview = ImportPreview()
    reader = csv.DictReader(io.StringIO(text), delimiter=sniff_delimiter(text))
    header = [field_of(name) or name.strip() for name in reader.fieldnames or []]
    if "name" not in header:
        preview.problem = "The first line must name the columns, including “name”."
        return preview
    twice = sorted({n for n in header if n in CULTURE_FIELDS and header.count(n) > 1})
    if twice:
        preview.problem = f"More than one column gives {', '.join(LABELS[n] for n in twice)}."
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
            preview.rows.append(_csv_row(reader.line_num, record, columns))
    except csv.Error as exc:
        preview.problem = f"The CSV cannot be read at line {reader.line_num}: {exc}."
    if not preview.rows and preview.problem is None:
        preview.problem = "The file has no rows."
    return preview


def preview_file(text: str) -> ImportPreview:
    """A catalog file of either format, matched against the catalog: JSON is OpenFarmPlanner's
    export (a CSV never starts with a bracket)."""
    if text.lstrip()[:1] in ("[", "{"):
        return match_catalog(preview_openfarmplanner(text))
    return match_catalog(preview_csv(text))


def preview_openfarmplanner(text: str) -> ImportPreview:
    """OpenFarmPlanner's culture export, read into Furrow's fields and checked row by row."""
    preview = ImportPreview(kind="OpenFarmPlanner JSON")
    try:
        cultures = read_export(text)
    except ExportUnreadable as exc:
        preview.problem = str(exc)
        return preview
    if len(cultures) > MAX_ROWS:
        preview.problem = f"At most {MAX_ROWS:,} cultures can be imported at once."
        return preview
    for culture in cultures:
        row = check_row(culture.number, culture.values)
        row.notes = culture.notes
        preview.rows.append(row)
    preview.columns = [f for f in CULTURE_FIELDS if any(f in c.values for c in cultures)]
    preview.unknown_columns = sorted({key for c in cultures for key in c.ignored})
    if not preview.rows:
        preview.problem = "The file has no cultures."
    return preview


def import_rows(preview: ImportPreview, user: User | None) -> dict[str, int]:
    """Store a preview that can be imported: new cultures created, matched ones updated with
    every change in the audit trail (one group per culture, undoable from its page)."""
    for row in preview.of("create"):
        create_culture(row.values)
    changes = []
    for row in preview.of("update"):
        culture = db.session.get(Culture, row.culture_id)
        changed = update_culture(culture, row.values)
        changes += change_rows(AUDIT_TARGET, culture.id, changed, user, IMPORT_SOURCE, new_group())
    write_changes(changes)
    return {action: len(preview.of(action)) for action in ACTIONS}
