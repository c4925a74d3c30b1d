"""A table run as its review reads it: the newest rows of a live run, counts by outcome, each
suggestion's row (its label and trace from the research log), and the rows it proposed nothing
for, a page at a time. A 10,000-row run is never loaded whole to show one page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from webapp.database import among
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.pagination import Page
from webapp.review.looks import RowLook, Unproposed
from webapp.review.models import Suggestion
from webapp.tables.models import ResearchLogEntry, TableColumn

LIVE_LOG_ROWS = 50  # the newest rows a running run's page shows, polled every second


def latest_log(run: Run, limit: int = LIVE_LOG_ROWS) -> list[dict[str, Any]]:
    """The rows a live run finished last, newest first."""
    query = (
        select(ResearchLogEntry.entry)
        .where(ResearchLogEntry.run_id == run.id)
        .order_by(ResearchLogEntry.id.desc())
        .limit(limit)
    )
    return list(db.session.scalars(query))


def status_counts(run: Run) -> dict[str, int]:
    """How many rows ended found, not found, skipped or failed: the run keeps them as its rows
    are saved (TableEnrichment.keep_results)."""
    return {status: n for status, n in (run.results or {}).items() if isinstance(n, int)}


def row_looks(run: Run, suggestions: Sequence[Suggestion]) -> dict[int, RowLook]:
    """Each suggestion's row: the label and the trace its research-log entry keeps."""
    query = select(ResearchLogEntry.row_id, ResearchLogEntry.entry).where(
        ResearchLogEntry.run_id == run.id,
        among(db.session, ResearchLogEntry.row_id, {s.target_id for s in suggestions}),
    )
    entries: dict[int, dict[str, Any]] = dict(db.session.execute(query).all())
    # A number column's values read as every page reads numbers (5.94, not 5.942857143).
    column = db.session.get(TableColumn, run.params.get("column_id") or 0)
    show = "figures" if column is not None and column.type == "number" else None
    looks = {}
    for s in suggestions:
        entry = entries.get(s.target_id, {})
        looks[s.id] = RowLook(entry.get("label") or f"Row {s.target_id}", show, entry)
    return looks


# Why a row got no suggestion, when its entry says no more than its status.
STATUS_WORDS = {"not_found": "Nothing was found.", "skipped": "Skipped."}


# The statuses of a row the run proposed nothing for, in the order the review offers them.
UNPROPOSED = ("not_found", "skipped", "error")


def unproposed_counts(run: Run) -> dict[str, int]:
    """How many rows the run found nothing for, skipped and failed on; none of a status left
    out."""
    counts = status_counts(run)
    return {status: counts[status] for status in UNPROPOSED if counts.get(status)}


def unproposed_page(run: Run, number: int, per_page: int, status: str | None = None) -> Page:
    """The rows the run proposed nothing for (every row but those found), or those of one
    status, in table order, each with why; per_page 0 counts them only."""
    counts = unproposed_counts(run)
    total = counts.get(status, 0) if status else sum(counts.values())
    if not per_page or not total:
        return Page([], number, per_page, total)
    which = ResearchLogEntry.status == status if status else ResearchLogEntry.status != "found"
    query = (
        select(ResearchLogEntry.entry)
        .where(ResearchLogEntry.run_id == run.id, which)
        .order_by(ResearchLogEntry.position, ResearchLogEntry.row_id)
        .offset((number - 1) * per_page)
        .limit(per_page)
    )
    items = [
        Unproposed(
            e.get("label") or f"Row {e.get('row_id')}",
            e.get("error") or STATUS_WORDS.get(e.get("status"), "Nothing was proposed."),
            str(e.get("status", "")).replace("_", " ") or "nothing proposed",
            e.get("current"),
            e,
        )
        for e in db.session.scalars(query)
    ]
    return Page(items, number, per_page, total)
