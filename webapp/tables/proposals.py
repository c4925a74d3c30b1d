"""A table run's proposal as a review reads it: one page of rows at a time with their
suggestions, counts over the whole run (by level, by outcome) from the database, the rows'
labels, and "apply all valid" with what it would skip and why. A 10,000-row run is never
loaded whole to show one page."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from sqlalchemy import func, select

from webapp.auth.models import User
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.pagination import Page, paginate
from webapp.review import service as review
from webapp.review.models import Suggestion
from webapp.review.vocabulary import count_levels
from webapp.tables.models import ROW_TARGET, ResearchLogEntry
from webapp.tables.runs import row_suggestions
from webapp.text import listed

REVIEW_PAGE_ROWS = 50
LIVE_LOG_ROWS = 50  # the newest rows a running run's page shows, polled every second


def log_page(run: Run, number: int, level: str | None = None) -> Page:
    """One page of the run's research log (entries as stored) in table order; with a level,
    only the rows whose suggestion has that worst level."""
    query = select(ResearchLogEntry).where(ResearchLogEntry.run_id == run.id)
    if level is not None:
        # A set of row ids the log is filtered by, read once (a join would look up each row).
        rows = review.at_level(
            select(Suggestion.target_id).where(
                Suggestion.run_id == run.id, Suggestion.target_type == ROW_TARGET
            ),
            level,
        )
        query = query.where(ResearchLogEntry.row_id.in_(rows))
    query = query.order_by(ResearchLogEntry.position, ResearchLogEntry.row_id)
    page = paginate(query, number, REVIEW_PAGE_ROWS)
    return replace(page, items=[e.entry for e in page.items])


def latest_log(run: Run, limit: int = LIVE_LOG_ROWS) -> list[dict[str, Any]]:
    """The rows a live run finished last, newest first."""
    query = (
        select(ResearchLogEntry.entry)
        .where(ResearchLogEntry.run_id == run.id)
        .order_by(ResearchLogEntry.id.desc())
        .limit(limit)
    )
    return list(db.session.scalars(query))


def outcome_counts(run: Run) -> dict[str, int]:
    """How many rows ended found, not found, skipped or failed."""
    query = (
        select(ResearchLogEntry.status, func.count())
        .where(ResearchLogEntry.run_id == run.id)
        .group_by(ResearchLogEntry.status)
    )
    return dict(db.session.execute(query).all())


def run_level_counts(run: Run) -> dict[str, int]:
    """count_levels over every suggestion of the run, counted by the database from their
    stored level."""
    query = (
        select(Suggestion.level, func.count())
        .where(Suggestion.run_id == run.id, Suggestion.target_type == ROW_TARGET)
        .group_by(Suggestion.level)
    )
    counts = count_levels(())
    for level, n in db.session.execute(query):
        counts[level or "none"] += n
    return counts


def reject_rows(run: Run, row_ids: Iterable[int], user: User) -> list[int]:
    """Reject the run's open (or invalid) suggestions for these rows; the rows rejected."""
    suggestions = row_suggestions(run, set(row_ids))
    rejected = set(review.reject([s.id for s in suggestions.values()], user))
    return [row_id for row_id, s in suggestions.items() if s.id in rejected]


def refusal_messages(
    refused: list[Mapping[str, Any]], labels: Mapping[int, str], most: int = 5
) -> list[str]:
    """What was not applied and why, one message per reason naming its rows (in order of
    their names); past most reasons, the rest in one message (flashes travel in the session
    cookie)."""
    by_reason: dict[str, list[str]] = {}
    for refusal in refused:
        name = labels.get(refusal["row_id"], "a deleted row")
        by_reason.setdefault(refusal["message"], []).append(name)
    reasons = list(by_reason.items())
    messages = [
        f"Not applied — {listed(sorted(names))}: {reason}" for reason, names in reasons[:most]
    ]
    others = sorted(name for _reason, names in reasons[most:] for name in names)
    if others:
        messages.append(f"Not applied either, for other reasons — {listed(others)}.")
    return messages
