"""Research tables: creating tables and columns, rows and audited cells, CSV import and export.

Plain functions over the models; the caller commits, or rolls back when TableInvalid is raised.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from sqlalchemy import delete, func, insert, select

from webapp.auth.models import User
from webapp.database import utcnow
from webapp.exports import csv_text
from webapp.extensions import db
from webapp.pagination import Page
from webapp.problems import Invalid
from webapp.problems import Problem as CoreProblem
from webapp.review.audit import change_rows, new_group, record_changes, write_changes
from webapp.tables.browsing import EVERY_ROW, RowView
from webapp.tables.cells import COLUMN_TYPES, CellInvalid, display, infer_type
from webapp.tables.coerce import typed_value
from webapp.tables.models import ROW_TARGET, DataTable, TableCellKey, TableColumn, TableRow
from webapp.tables.rules import above_crop_cap
from webapp.tables.sort_keys import add_keys, write_keys
from webapp.text import control_character_problem
from webapp.uploads import DELIMITERS, sniff_delimiter

NAME_LIMIT = 120
UNIT_LIMIT = 32
OPTION_LIMIT = 120
MAX_COLUMNS = 100
MAX_ROWS = 10_000
PER_PAGE = 50
# Enough to correct a file by; the rest are counted in one closing line.
MAX_LISTED_PROBLEMS = 100
ROWS_REFUSED = "Some values do not fit their columns; no row was added."
STEPS = {"left": -1, "up": -1, "right": 1, "down": 1}


@dataclass(frozen=True)
class Problem(CoreProblem):
    """One reason something cannot be stored, where the table API has always said it is.

    field: what is wrong ("name", "type", "options", "unit", "columns", "rows", "file");
    index: the column definition's place in the list given (0-based);
    row: the row's place in the rows given (0-based); column: the column's name.
    Its loc is the path they make: "name", "columns.2.type", "rows.3.Yield", "rows.3".
    """

    field: str | None = None
    index: int | None = None
    row: int | None = None
    column: str | None = None

    def __post_init__(self) -> None:
        if self.row is not None:
            parts = ["rows", self.row, self.column]
        elif self.index is not None:
            parts = ["columns", self.index, None if self.field == "columns" else self.field]
        else:
            parts = [self.field]
        loc = ".".join(str(p) for p in parts if p is not None)
        code = f"{'value' if self.column else 'row'}_invalid" if self.row is not None else None
        object.__setattr__(self, "loc", self.loc or loc)
        object.__setattr__(self, "code", self.code or code or f"{self.field}_invalid")

    def to_dict(self) -> dict[str, Any]:
        legacy = {k: getattr(self, k) for k in ("field", "index", "row", "column")}
        return {**super().to_dict(), **{k: v for k, v in legacy.items() if v is not None}}


class TableInvalid(Invalid):
    code = "table_invalid"


class RowsInvalid(TableInvalid):
    """Rows that do not fit the table's columns."""

    code = "rows_invalid"


def column_to_fill(table: DataTable) -> TableColumn | None:
    """The column a fill most likely wants: the first with no value in any row (a seek in the
    keys' index each), else the second (the first names the rows)."""
    columns = table.columns
    for column in columns[1:]:
        held = select(TableCellKey.row_id).where(TableCellKey.column_id == column.id).limit(1)
        if db.session.scalar(held) is None:
            return column
    return columns[1] if len(columns) > 1 else (columns[0] if columns else None)


def _touch(table: DataTable) -> None:
    table.updated_at = utcnow()


# Tables and columns


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _name_problem(name: str, what: str) -> str | None:
    if not name:
        return f"Give the {what} a name."
    if len(name) > NAME_LIMIT:
        return f"A {what} name is limited to {NAME_LIMIT} characters."
    return control_character_problem(name)


def _table_name(raw: Any, problems: list[Problem]) -> str:
    name = _text(raw)
    message = _name_problem(name, "table")
    if message is None:
        # Compared in Python: SQLite's lower() only folds ASCII letters.
        taken = db.session.scalars(select(DataTable.name))
        if any(other.casefold() == name.casefold() for other in taken):
            message = f"There is already a table named “{name}”."
    if message:
        problems.append(Problem(message, field="name"))
    return name


def _options(raw: Any) -> list[str]:
    """Distinct options in the order given (case-insensitively distinct, as parse_cell matches)."""
    if not isinstance(raw, list | tuple):
        return []
    options: list[str] = []
    for item in raw:
        option = str(item).strip() if item is not None else ""
        if option and option.casefold() not in {o.casefold() for o in options}:
            options.append(option)
    return options


def _column(
    definition: Any, index: int | None, taken: set[str], problems: list[Problem]
) -> TableColumn:
    """A new column from {"name", "type", "unit"?, "options"?}; problems are added, not raised."""
    if not isinstance(definition, Mapping):
        message = "Give each column as an object with a name and a type."
        problems.append(Problem(message, field="columns", index=index))
        return TableColumn()
    name = _text(definition.get("name"))
    column_type = _text(definition.get("type")) or "text"
    unit = _text(definition.get("unit")) or None
    options = _options(definition.get("options"))

    def problem(field_name: str, message: str) -> None:
        problems.append(Problem(message, field=field_name, index=index, column=name or None))

    message = _name_problem(name, "column")
    if message is None and name.casefold() in taken:
        message = f"There is already a column named “{name}”."
    if message:
        problem("name", message)
    taken.add(name.casefold())
    if column_type not in COLUMN_TYPES:
        problem("type", f"Choose a type: {', '.join(COLUMN_TYPES)}.")
    if column_type == "select":
        if not options:
            problem("options", "A select column needs at least one option.")
        elif any(len(o) > OPTION_LIMIT for o in options):
            problem("options", f"An option is limited to {OPTION_LIMIT} characters.")
        elif found := next(filter(None, map(control_character_problem, options)), None):
            problem("options", f"Option: {found}")
    else:
        # The import preview keeps inferred options in the box when a person picks another type.
        options = []
    if unit is not None:
        if column_type != "number":
            problem("unit", "Only number columns have a unit.")
        elif len(unit) > UNIT_LIMIT:
            problem("unit", f"A unit is limited to {UNIT_LIMIT} characters.")
    return TableColumn(name=name, type=column_type, unit=unit, options=options)


def _new_table(name: Any, definitions: Any, user: User | None) -> DataTable:
    """A checked table with its columns, not yet in the session."""
    problems: list[Problem] = []
    clean_name = _table_name(name, problems)
    columns: list[TableColumn] = []
    if not isinstance(definitions, list) or not definitions:
        problems.append(Problem("Give the table at least one column.", field="columns"))
    elif len(definitions) > MAX_COLUMNS:
        problems.append(Problem(f"A table has at most {MAX_COLUMNS} columns.", field="columns"))
    else:
        taken: set[str] = set()
        columns = [_column(d, i, taken, problems) for i, d in enumerate(definitions)]
    if problems:
        raise TableInvalid(problems, summary="The table cannot be created as given.")
    for position, column in enumerate(columns):
        column.position = position
    return DataTable(name=clean_name, created_by=user, columns=columns)


def create_table(name: str, columns: list[dict[str, Any]], user: User | None) -> DataTable:
    """A new table with columns [{"name", "type", "unit"?, "options"?}]; TableInvalid lists
    every problem at once."""
    table = _new_table(name, columns, user)
    db.session.add(table)
    db.session.flush()
    return table


def delete_table(table: DataTable) -> None:
    db.session.delete(table)


def add_column(
    table: DataTable,
    name: str,
    column_type: str = "text",
    unit: str | None = None,
    options: Sequence[str] = (),
) -> TableColumn:
    problems: list[Problem] = []
    if len(table.columns) >= MAX_COLUMNS:
        raise TableInvalid(
            [Problem(f"A table has at most {MAX_COLUMNS} columns.", field="columns")]
        )
    taken = {c.name.casefold() for c in table.columns}
    definition = {"name": name, "type": column_type, "unit": unit, "options": list(options)}
    column = _column(definition, None, taken, problems)
    if problems:
        raise TableInvalid(problems)
    column.position = max((c.position for c in table.columns), default=-1) + 1
    table.columns.append(column)
    _touch(table)
    db.session.flush()
    return column


def rename_column(column: TableColumn, name: str) -> None:
    clean = _text(name)
    message = _name_problem(clean, "column")
    others = {c.name.casefold() for c in column.table.columns if c is not column}
    if message is None and clean.casefold() in others:
        message = f"There is already a column named “{clean}”."
    if message:
        raise TableInvalid([Problem(message, field="name", column=column.name)])
    column.name = clean
    _touch(column.table)


def _renumber(table: DataTable, columns: list[TableColumn]) -> None:
    for position, column in enumerate(columns):
        column.position = position
    table.columns = columns  # keeps the loaded list in the new order


def move_column(column: TableColumn, to: int | str) -> None:
    """Move a column one step ("left"/"up", "right"/"down") or to an index (0-based, clamped)."""
    table = column.table
    columns = list(table.columns)
    index = columns.index(column)
    if isinstance(to, str) and to in STEPS:
        target = index + STEPS[to]
    elif isinstance(to, int) and not isinstance(to, bool):
        target = to
    else:
        message = "Move a column left, right or to a position."
        raise TableInvalid([Problem(message, field="position")])
    columns.insert(max(0, min(len(columns) - 1, target)), columns.pop(index))
    _renumber(table, columns)
    _touch(table)


def delete_column(column: TableColumn) -> None:
    """Remove the column and its value from every row (the audit trail keeps old changes)."""
    table = column.table
    key = column.key
    rows = db.session.scalars(select(TableRow).where(TableRow.table_id == table.id))
    for row in rows:
        if key in (row.cells or {}):
            # A new dict: SQLAlchemy does not see changes made inside a JSON value.
            row.cells = {k: v for k, v in row.cells.items() if k != key}
    db.session.execute(delete(TableCellKey).where(TableCellKey.column_id == column.id))
    _renumber(table, [c for c in table.columns if c is not column])
    _touch(table)
    db.session.flush()


# Rows and cells


def _parse_rows(columns: Sequence[TableColumn], rows: Any) -> list[dict[int, Any]]:
    """Each row as {column index: stored value}; every value is checked before any is kept."""
    if not isinstance(rows, list) or not rows:
        raise RowsInvalid([Problem("Give at least one row.", field="rows")])
    if len(rows) > MAX_ROWS:
        raise RowsInvalid([Problem(f"At most {MAX_ROWS:,} rows at once.", field="rows")])
    by_name = {c.name.casefold(): (i, c) for i, c in enumerate(columns)}
    problems: list[Problem] = []
    parsed: list[dict[int, Any]] = []
    for number, row in enumerate(rows):
        if not isinstance(row, Mapping):
            problems.append(Problem("Give the row as an object of column name: value.", row=number))
            continue
        values: dict[int, Any] = {}
        for name, raw in row.items():
            index, column = by_name.get(str(name).strip().casefold(), (None, None))
            try:
                if column is None:
                    raise CellInvalid(f"There is no column named “{name}”.")
                if isinstance(raw, list | dict):
                    raise CellInvalid("Give one value, not a list or an object.")
                value, _note = typed_value(column.type, raw, column.options, column.unit)
            except CellInvalid as exc:
                problems.append(Problem(str(exc), row=number, column=str(name)))
                continue
            if value is not None:
                values[index] = value
        parsed.append(values)
    if problems:
        listed = problems[:MAX_LISTED_PROBLEMS]
        if len(problems) > len(listed):
            more = len(problems) - len(listed)
            listed.append(Problem(f"… and {more} more value(s) that do not fit.", field="rows"))
        raise RowsInvalid(listed, summary=ROWS_REFUSED)
    return parsed


def _insert_rows(
    table: DataTable, parsed: list[dict[int, Any]], user: User | None, source: str | None
) -> list[int]:
    """Insert in one statement (an import may bring 10,000 rows); with a source, the new values
    are audited as changes from empty."""
    columns = list(table.columns)
    start = db.session.scalar(
        select(func.coalesce(func.max(TableRow.position), -1)).where(TableRow.table_id == table.id)
    )
    cells = [{columns[i].key: value for i, value in values.items()} for values in parsed]
    ids = list(
        db.session.scalars(
            insert(TableRow).returning(TableRow.id, sort_by_parameter_order=True),
            [
                {"table_id": table.id, "position": start + 1 + n, "cells": row_cells}
                for n, row_cells in enumerate(cells)
            ],
        )
    )
    if source is not None:
        # Each row its own group (undone alone), all of them in one insert.
        write_changes(
            [
                row
                for row_id, row_cells in zip(ids, cells, strict=True)
                for row in change_rows(
                    ROW_TARGET,
                    row_id,
                    {key: (None, value) for key, value in row_cells.items()},
                    user,
                    source,
                    new_group(),
                )
            ]
        )
    add_keys(
        (row_id, start + 1 + n, row_cells)
        for n, (row_id, row_cells) in enumerate(zip(ids, cells, strict=True))
    )
    _touch(table)
    return ids


def add_rows(
    table: DataTable, rows: list[dict[str, Any]], user: User | None, source: str = "manual"
) -> list[int]:
    """Rows of {column name: raw value}, all or none; returns the new rows' ids in order."""
    parsed = _parse_rows(table.columns, rows)
    return _insert_rows(table, parsed, user, source)


def delete_rows(table: DataTable, row_ids: Sequence[int]) -> int:
    rows = db.session.scalars(
        select(TableRow).where(TableRow.table_id == table.id, TableRow.id.in_(row_ids))
    ).all()
    for row in rows:
        db.session.delete(row)
    if rows:
        _touch(table)
    return len(rows)


@dataclass(frozen=True)
class CellSaved:
    changed: bool
    note: str | None = None  # what reading the input did, e.g. a unit converted
    warning: str | None = None  # stored, but worth a second look (above the crop's cap)


def set_cell(row: TableRow, column: TableColumn, raw: Any, user: User | None) -> CellSaved:
    """Read and store one cell as typed (a number may carry a unit the column converts); a real
    change is audited. CellInvalid says why the input cannot be stored."""
    new, note = typed_value(column.type, raw, column.options, column.unit)
    warning = None
    if column.type == "number" and new is not None:
        named = {c.name: (row.cells or {}).get(c.key) for c in column.table.columns}
        warning = above_crop_cap(new, column.unit, named)
    old = row.value(column)
    if old == new and type(old) is type(new):
        return CellSaved(False, note, warning)
    cells = {k: v for k, v in (row.cells or {}).items() if k != column.key}
    if new is not None:
        cells[column.key] = new
    row.cells = cells
    write_keys({row.id: cells})
    record_changes(ROW_TARGET, row.id, {column.key: (old, new)}, user, "manual")
    _touch(column.table)
    return CellSaved(True, note, warning)


def rows_page(
    table: DataTable, page: int, per_page: int = PER_PAGE, view: RowView = EVERY_ROW
) -> Page:
    """The page's row ids first (from the cells' keys, see RowView.page), then those rows."""
    ids = view.page(table, page, per_page)
    rows: dict[int, TableRow] = {}
    if ids.items:
        found = db.session.scalars(select(TableRow).where(TableRow.id.in_(ids.items)))
        rows = {row.id: row for row in found}
    return Page([rows[i] for i in ids.items if i in rows], ids.number, ids.per_page, ids.total)


def row_counts(table_ids: Sequence[int]) -> dict[int, int]:
    if not table_ids:
        return {}
    query = (
        select(TableRow.table_id, func.count())
        .where(TableRow.table_id.in_(table_ids))
        .group_by(TableRow.table_id)
    )
    counts = {table_id: count for table_id, count in db.session.execute(query)}
    return {table_id: counts.get(table_id, 0) for table_id in table_ids}


def tables_query():
    return select(DataTable).order_by(func.lower(DataTable.name), DataTable.id)


def to_dict(table: DataTable, row_count: int) -> dict[str, Any]:
    """The API's shape of a table."""
    return {
        "id": table.id,
        "name": table.name,
        "columns": [c.to_dict() for c in table.columns],
        "row_count": row_count,
        "created_at": table.created_at.isoformat().replace("+00:00", "Z"),
        "updated_at": table.updated_at.isoformat().replace("+00:00", "Z"),
    }


# Export


def _all_cells(table: DataTable, view: RowView) -> list[dict[str, Any]]:
    query = view.query(table).with_only_columns(TableRow.cells)
    return [cells or {} for cells in db.session.scalars(query)]


def export_csv(table: DataTable, view: RowView = EVERY_ROW) -> str:
    """A header of column names and one line per row, values as the edit box shows them (a
    number column's numbers as numbers, so only text is guarded against formulas)."""
    columns = table.columns
    return csv_text(
        [c.name for c in columns],
        (
            [_export_cell(cells.get(c.key), c.type) for c in columns]
            for cells in _all_cells(table, view)
        ),
    )


def _export_cell(value: Any, column_type: str) -> Any:
    return value if column_type == "number" and value is not None else display(value)


def export_json(table: DataTable, view: RowView = EVERY_ROW) -> dict[str, Any]:
    return {
        "id": table.id,
        "name": table.name,
        "columns": [c.to_dict() for c in table.columns],
        "rows": [
            {c.name: cells.get(c.key) for c in table.columns} for cells in _all_cells(table, view)
        ],
    }


# CSV import: preview with inferred types, then create the table with the types confirmed


@dataclass(frozen=True)
class CsvColumn:
    name: str
    type: str
    options: list[str]


# An unnamed first column (a spreadsheet's or pandas' row index) is offered under this name.
UNNAMED_FIRST = "column 1"
# Lines with more values than the header that are listed before the rest are counted.
MAX_WIDTH_PROBLEMS = 20


@dataclass
class CsvPreview:
    """rows: every row of a small file, or the head of a large one (total counts them all);
    batches: where each batch of batch_rows rows starts, (byte offset, line before it)."""

    columns: list[CsvColumn] = field(default_factory=list)
    rows: list[dict[str, str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # each row's line in the file
    delimiter: str = ","
    problems: list[str] = field(default_factory=list)
    total: int = 0
    unnamed_first: bool = False
    batches: list[tuple[int, int]] = field(default_factory=list)

    @property
    def can_import(self) -> bool:
        return not self.problems and self.total > 0

    @property
    def delimiter_name(self) -> str:
        return DELIMITERS[self.delimiter]

    @property
    def partial(self) -> bool:
        """Only the file's head is held (a large file): types are guessed from it."""
        return self.total > len(self.rows)

    def samples(self, name: str, count: int = 3) -> list[str]:
        """A column's first distinct values, shown beside its guessed type."""
        seen: list[str] = []
        for row in self.rows:
            value = row.get(name, "").strip()
            if value and value not in seen:
                seen.append(value)
                if len(seen) == count:
                    break
        return seen


class LineSource:
    """A binary file's lines as text for csv.reader, knowing the byte offset where the next
    unread line starts (csv.reader never reads ahead of the record it returns)."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.offset = handle.tell()

    def __iter__(self) -> LineSource:
        return self

    def __next__(self) -> str:
        raw = self.handle.readline()
        if not raw:
            raise StopIteration
        self.offset += len(raw)
        return raw.decode("utf-8")


def _header_names(header: list[str], preview: CsvPreview) -> list[str]:
    names = [name.strip() for name in header]
    if names and not names[0] and any(names[1:]):
        names[0] = UNNAMED_FIRST
        preview.unnamed_first = True
    seen: set[str] = set()
    for number, name in enumerate(names, start=1):
        if not name:
            preview.problems.append(f"Column {number} has no name in the first line.")
        elif len(name) > NAME_LIMIT:
            preview.problems.append(
                f"Column {number}'s name is longer than {NAME_LIMIT} characters."
            )
        elif name.casefold() in seen:
            preview.problems.append(f"“{name}” names two columns; column names must differ.")
        seen.add(name.casefold())
    if len(names) > MAX_COLUMNS:
        preview.problems.append(f"A table has at most {MAX_COLUMNS} columns.")
    return names


def scan_csv(
    lines: Iterable[str],
    delimiter: str,
    keep_rows: int | None = MAX_ROWS,
    batch_rows: int = 0,
) -> CsvPreview:
    """Read a CSV line by line: its columns with the types their first keep_rows rows suggest,
    those rows, the count of all, and (for a LineSource, batch_rows > 0) where each batch of
    rows starts. keep_rows=None keeps every row up to MAX_ROWS and refuses more, as the
    in-page import does; nothing is stored."""
    preview = CsvPreview(delimiter=delimiter)
    reader = csv.reader(lines, delimiter=delimiter)
    header: list[str] = []
    limit = MAX_ROWS if keep_rows is None else keep_rows
    wide = 0
    try:
        first = next(reader, [])
        if first:
            first[0] = first[0].removeprefix("\ufeff")  # a byte-order mark would join the name
        if not any(name.strip() for name in first):
            preview.problems.append("The file is empty: the first line must name the columns.")
            return preview
        header = _header_names(first, preview)
        while True:
            start, line_before = getattr(lines, "offset", 0), reader.line_num
            record = next(reader, None)
            if record is None:
                break
            if not any(value.strip() for value in record):
                continue
            if len(record) > len(header):
                wide += 1
                if wide <= MAX_WIDTH_PROBLEMS:
                    preview.problems.append(
                        f"Line {reader.line_num} has {len(record)} values, but the first line "
                        f"names {len(header)} columns."
                    )
                continue
            if batch_rows and preview.total % batch_rows == 0:
                preview.batches.append((start, line_before))
            preview.total += 1
            if len(preview.rows) < limit:
                preview.rows.append(dict(zip(header, record, strict=False)))
                preview.lines.append(reader.line_num)
            elif keep_rows is None:
                preview.problems.append(f"At most {MAX_ROWS:,} rows can be imported at once.")
                break
    except csv.Error as exc:
        preview.problems.append(f"The CSV cannot be read at line {reader.line_num}: {exc}.")
    if wide > MAX_WIDTH_PROBLEMS:
        preview.problems.append(f"… and {wide - MAX_WIDTH_PROBLEMS:,} more such line(s).")
    if not preview.total and not preview.problems:
        preview.problems.append("The file has no rows under its first line.")
    for name in header:
        column_type, options = infer_type([row.get(name, "") for row in preview.rows])
        preview.columns.append(CsvColumn(name, column_type, options))
    return preview


def preview_csv(text: str) -> CsvPreview:
    """The columns with the types their values suggest, and the rows; nothing is stored."""
    text = text.removeprefix("\ufeff")
    return scan_csv(io.StringIO(text), sniff_delimiter(text), keep_rows=None)


def import_definitions(
    preview: CsvPreview,
    column_types: Mapping[str, tuple[str, Sequence[str], str | None]],
    drop_first: bool,
) -> list[dict[str, Any]]:
    """The columns to create: the confirmed types ({column name: (type, options, unit)}, a
    column not given keeps its inferred type), without an unnamed first column dropped."""
    kept = preview.columns[1:] if drop_first and preview.unnamed_first else preview.columns
    definitions = []
    for column in kept:
        column_type, options, unit = column_types.get(
            column.name, (column.type, column.options, None)
        )
        definitions.append(
            {"name": column.name, "type": column_type, "options": list(options), "unit": unit}
        )
    return definitions


def import_csv(
    name: str,
    text: str,
    column_types: Mapping[str, tuple[str, Sequence[str], str | None]],
    user: User | None,
    drop_first: bool = False,
) -> DataTable:
    """A new table from a CSV with the types a person confirmed, {column name: (type, options,
    unit)} (a column not given keeps its inferred type). Every value must fit its column's type,
    else TableInvalid lists the ones that do not and nothing is added to the session."""
    preview = preview_csv(text)
    if not preview.can_import:
        raise TableInvalid([Problem(message, field="file") for message in preview.problems])
    table = _new_table(name, import_definitions(preview, column_types, drop_first), user)
    names = {c.name for c in table.columns}
    rows = [{k: v for k, v in row.items() if k in names} for row in preview.rows]
    parsed = _parse_rows(table.columns, rows)
    db.session.add(table)
    db.session.flush()
    # The import is the rows' origin (the table records who made it and when); auditing each
    # imported value would write up to a million changes.
    _insert_rows(table, parsed, user, None)
    return table
