"""Large CSV imports (up to 50 MB, 100,000 rows and more): the upload is streamed to a file
under the instance, previewed from its head, and a run reads it back in batches of rows, each
batch one item inserted at once, so neither the web process nor the worker ever holds the whole
file. Small files keep the in-page import (webapp.tables.catalog.import_csv)."""

from __future__ import annotations

import codecs
import csv
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from flask import current_app, url_for
from sqlalchemy import func, select, text

from webapp.auth.models import User
from webapp.database import bulk_insert, utcnow
from webapp.extensions import db
from webapp.jobs.kinds import ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.tables.catalog import (
    MAX_ROWS,
    CsvPreview,
    LineSource,
    Problem,
    TableInvalid,
    create_table,
    import_definitions,
    scan_csv,
)
from webapp.tables.cells import CellInvalid
from webapp.tables.coerce import typed_value
from webapp.tables.models import DataTable, TableColumn, TableRow
from webapp.tables.rules import above_crop_cap, is_yield
from webapp.tables.sort_keys import add_keys
from webapp.uploads import CSV_MAX_BYTES, NOT_UTF8, UploadRefused, size_text, sniff_delimiter

MAX_BYTES = 50 * 1024 * 1024
TOO_LARGE = f"The file is larger than {size_text(MAX_BYTES)}; split it into parts."


def upload_limit() -> int:
    """The body an import page takes: a file of MAX_BYTES with room for the multipart framing."""
    return MAX_BYTES + 64 * 1024


BATCH_ROWS = 2000  # rows per item: one insert each, progress every few thousand rows
HEAD_ROWS = 1000  # the rows a large file's preview shows and guesses types from
IN_PAGE_ROWS = MAX_ROWS  # a file of at most CSV_MAX_BYTES and these rows is imported in the page
CHUNK_BYTES = 1024 * 1024
REFUSALS_NAMED = 20  # per batch; the rest are counted
STALE_SECONDS = 24 * 3600  # a stored upload nobody confirmed
TOKEN = re.compile(r"^[0-9a-f]{32}$")


def imports_dir() -> Path:
    return current_app.config["FURROW"].instance_path / "table-imports"


def stored_path(token: str) -> Path | None:
    """The stored upload of a token (a client sends it back: only our own names are read)."""
    if not TOKEN.match(token or ""):
        return None
    path = imports_dir() / f"{token}.csv"
    return path if path.is_file() else None


def remove_stale_uploads() -> None:
    """Uploads previewed but never imported, kept a day in case the person comes back."""
    folder = imports_dir()
    if not folder.is_dir():
        return
    oldest = time.time() - STALE_SECONDS
    for path in folder.glob("*.csv"):
        if path.stat().st_mtime < oldest:
            path.unlink(missing_ok=True)


def store_upload(stream: BinaryIO) -> str:
    """Copy an upload to the instance in chunks, checking as it goes that it is at most
    MAX_BYTES of UTF-8 text; its token. UploadRefused says why not, and nothing is kept."""
    remove_stale_uploads()
    folder = imports_dir()
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(16)
    path = folder / f"{token}.csv"
    decoder = codecs.getincrementaldecoder("utf-8")()
    size = 0
    try:
        with path.open("wb") as out:
            while chunk := stream.read(CHUNK_BYTES):
                size += len(chunk)
                if size > MAX_BYTES:
                    raise UploadRefused("file_too_large", TOO_LARGE)
                if b"\x00" in chunk:
                    raise UploadRefused(
                        "binary_file",
                        f"{NOT_UTF8} It looks like a binary file (or UTF-16 text). "
                        "Save it as CSV (UTF-8).",
                    )
                decoder.decode(chunk)
                out.write(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        path.unlink(missing_ok=True)
        raise UploadRefused("not_utf8", f"{NOT_UTF8} Save it as CSV (UTF-8).") from None
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return token


def delimiter_of(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(64 * 1024).decode("utf-8", "ignore").removeprefix("\ufeff")
    return sniff_delimiter(head)


def preview_file(path: Path) -> CsvPreview:
    """The file's columns (types guessed from its first HEAD_ROWS rows), those rows, how many
    there are and where each batch starts, in one pass that holds only the head."""
    delimiter = delimiter_of(path)
    with path.open("rb") as handle:
        return scan_csv(LineSource(handle), delimiter, HEAD_ROWS, BATCH_ROWS)


def is_small(path: Path, preview: CsvPreview) -> bool:
    """Small enough for the in-page import: all its rows in the preview, within its limits."""
    return path.stat().st_size <= CSV_MAX_BYTES and preview.total <= IN_PAGE_ROWS


def start_import(
    token: str,
    name: str,
    column_types: Mapping[str, tuple[str, Sequence[str], str | None]],
    drop_first: bool,
    user: User | None,
) -> Run:
    """Create the table with its confirmed columns and queue the run that fills it. TableInvalid
    for a file or columns that cannot be imported; the caller commits."""
    path = stored_path(token)
    if path is None:
        raise UploadRefused("upload_gone", "The upload is gone; upload the file again.")
    preview = preview_file(path)
    if not preview.can_import:
        problems = [Problem(message, field="file") for message in preview.problems]
        raise TableInvalid(problems, summary="The file cannot be imported.")
    table = create_table(name, import_definitions(preview, column_types, drop_first), user)
    params = {
        "table_id": table.id,
        "token": token,
        "delimiter": preview.delimiter,
        "drop_first": drop_first and preview.unnamed_first,
        "batches": [list(batch) for batch in preview.batches],
    }
    return enqueue_run(
        TableImport,
        user,
        params,
        target=("table", table.id),
        title=f"Import “{table.name}” ({preview.total:,} rows)",
    )


def _batch_rows(
    records: Sequence[tuple[int, list[str]]], columns: Sequence[TableColumn], drop_first: bool
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Each record's cells by column key, the lines refused (a value its column cannot hold:
    the row is left out and named) and the lines flagged (kept, a yield above the cap of the
    row's own crop)."""
    kept, refused, flagged = [], [], []
    # Plain values: reading ORM attributes for every cell of 100,000 rows is a quarter of it.
    specs = [(c.key, c.name, c.type, tuple(c.options or ()), c.unit) for c in columns]
    yields = [(c.key, c.name, c.unit) for c in columns if c.type == "number" and is_yield(c.unit)]
    for line, record in records:
        values = record[1:] if drop_first else record
        cells: dict[str, Any] = {}
        try:
            for (key, name, column_type, options, unit), raw in zip(specs, values, strict=False):
                try:
                    value, _note = typed_value(column_type, raw, options, unit)
                except CellInvalid as exc:
                    raise CellInvalid(f"Line {line:,}, {name}: {exc}") from None
                if value is not None:
                    cells[key] = value
        except CellInvalid as exc:
            refused.append(str(exc))
            continue
        kept.append(cells)
        if yields:
            named = {name: cells.get(key) for key, name, *_rest in specs}
            flagged += [
                f"Line {line:,}, {name}: {warning}"
                for key, name, unit in yields
                if key in cells and (warning := above_crop_cap(cells[key], unit, named))
            ]
    return kept, refused, flagged


def _named(lines: list[str]) -> str:
    more = len(lines) - REFUSALS_NAMED
    return "; ".join(lines[:REFUSALS_NAMED]) + (f"; and {more:,} more." if more > 0 else ".")


def read_batch(path: Path, delimiter: str, offset: int, line_before: int) -> list[tuple[int, list]]:
    """BATCH_ROWS records from a byte offset, with their lines in the file."""
    records: list[tuple[int, list[str]]] = []
    with path.open("rb") as handle:
        handle.seek(offset)
        reader = csv.reader(LineSource(handle), delimiter=delimiter)
        for record in reader:
            if not any(value.strip() for value in record):
                continue
            records.append((line_before + reader.line_num, record))
            if len(records) == BATCH_ROWS:
                break
    return records


def refresh_statistics() -> None:
    """On PostgreSQL, vacuum and analyze the rows and their keys once an import is in: the
    planner then knows the table's size and its values, and a count reads the index alone,
    rather than after autovacuum's next round."""
    if db.engine.dialect.name != "postgresql":
        return
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM (ANALYZE) table_rows, table_cell_keys"))


@register_kind
class TableImport(RunKind):
    """A stored CSV into its table, a batch of rows per item; once the last batch is in, the
    upload is removed and the database's statistics refreshed."""

    name = "table_import"
    title = "Table import"
    item_params = ("batches",)
    result_labels = {
        "rows": "Rows added",
        "refused": "Rows refused",
        "flagged": "Values above their crop's yield cap",
    }

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(n) for n in range(len(params["batches"]))]

    def chunk_size(self, params: dict[str, Any]) -> int | None:
        # The upload is a file of this machine's instance: a worker elsewhere cannot read it.
        return None

    def item_names(self, run: Run) -> dict[str, str]:
        batches = run.params["batches"]
        return {
            str(n): f"Rows {n * BATCH_ROWS + 1:,}–{(n + 1) * BATCH_ROWS:,}"
            if n + 1 < len(batches)
            else f"Rows {n * BATCH_ROWS + 1:,} on"
            for n in range(len(batches))
        }

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        table = db.session.get(DataTable, params["table_id"])
        if table is None:
            raise ItemError("The table was deleted.")
        path = stored_path(params["token"])
        if path is None:
            raise ItemError("The uploaded file is gone; import it again.")
        number = int(key)
        offset, line_before = params["batches"][number]
        records = read_batch(path, params["delimiter"], offset, line_before)
        cells, refused, flagged = _batch_rows(records, table.columns, params["drop_first"])
        now = utcnow()
        first = number * BATCH_ROWS
        before = db.session.scalar(select(func.coalesce(func.max(TableRow.id), 0)))
        bulk_insert(
            db.session,
            TableRow.__table__,
            [
                {
                    "table_id": table.id,
                    "position": first + n,
                    "cells": row,
                    "created_at": now,
                    "updated_at": now,
                }
                for n, row in enumerate(cells)
            ],
        )
        # The batch's ids, which bulk_insert does not return (a row added by hand meanwhile may
        # share a position, never an id).
        added = select(TableRow.id, TableRow.position).where(
            TableRow.table_id == table.id,
            TableRow.id > before,
            TableRow.position.between(first, first + len(cells) - 1),
        )
        add_keys(
            (row_id, position, cells[position - first])
            for row_id, position in db.session.execute(added).all()
        )
        table.updated_at = now
        db.session.commit()
        self._finish_when_last(run_id, key, path)
        result: dict[str, Any] = {"rows": len(cells), "refused": len(refused)}
        if refused:
            result["error"] = _named(refused)
        if flagged:
            result |= {"flagged": len(flagged), "flags": _named(flagged)}
        return result

    def _finish_when_last(self, run_id: int, key: str, path: Path) -> None:
        items, done = db.session.execute(
            select(Run.items, Run.done_items).where(Run.id == run_id)
        ).one()
        db.session.commit()
        if set(items) <= {*done, key}:
            path.unlink(missing_ok=True)
            refresh_statistics()

    def result_link(self, run: Run) -> tuple[str, str] | None:
        table = db.session.get(DataTable, run.params["table_id"])
        if table is None:
            return None
        return f"Open the table “{table.name}”", url_for("tables.show", table_id=table.id)

    def verdict(self, run: Run) -> tuple[str, str] | None:
        if run.is_live:
            return None
        results = [r for r in (run.results or {}).values() if isinstance(r, dict)]
        added = sum(r.get("rows", 0) for r in results)
        refused = sum(r.get("refused", 0) for r in results)
        text = f"Imported {added:,} row(s)."
        if refused:
            text += f" {refused:,} row(s) were refused: see the items below."
        flags = [r["flags"] for r in results if r.get("flags")]
        if flags:
            flagged = sum(r.get("flagged", 0) for r in results)
            text += f" {flagged:,} value(s) are above their crop's yield cap, kept: " + flags[0]
        return ("warning" if refused or flags else "info"), text
