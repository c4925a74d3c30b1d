"""A calculation run's review as its page reads it: one page of cells at a time, counts over
the whole run by worst level (and the cells it could not calculate), a filter by level, and
"apply all valid" said before it is done. A system's run holds a few hundred cells; a page
shows at most REVIEW_PAGE_CELLS of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.jobs.models import Run
from webapp.pagination import Page, paginate_list
from webapp.review import service as review
from webapp.review.models import Suggestion
from webapp.review.vocabulary import count_levels, level_filter
from webapp.systems.document import parse_path
from webapp.systems.runs import review_rows

REVIEW_PAGE_CELLS = 100
NOT_CALCULATED = "not_calculated"  # a ?show= of its own: cells without a suggestion


def show_filter(raw: str | None) -> str | None:
    """The ?show= of the review: a level, "none", NOT_CALCULATED, or None for every cell."""
    return NOT_CALCULATED if raw == NOT_CALCULATED else level_filter(raw)


def shown_as(row: dict[str, Any]) -> str:
    """The filter a cell falls under."""
    suggestion = row["suggestion"]
    return NOT_CALCULATED if suggestion is None else suggestion.level or "none"


@dataclass(frozen=True)
class ReviewPage:
    page: Page  # its items: review_rows' rows
    counts: dict[str, int]  # suggestions by worst level, over the whole run
    not_calculated: int
    valid_pending: int  # what "apply all valid" would consider, over the whole run


def proposed(rows: list[dict[str, Any]]) -> list[Suggestion]:
    """The rows' suggestions: each cell's value and the assumptions its answer adds."""
    return [s for r in rows for s in (r["suggestion"], r["assumptions"]) if s is not None]


def review_page(run: Run, show: str | None, number: int) -> ReviewPage:
    rows = review_rows(run)
    # Counted as "apply all valid" counts them: the added assumptions too.
    suggestions = proposed(rows)
    chosen = rows if show is None else [r for r in rows if shown_as(r) == show]
    page = paginate_list(chosen, number, REVIEW_PAGE_CELLS)
    # Only the cells shown are compared with the document now.
    review.look_up_now(proposed(page.items))
    return ReviewPage(
        page,
        count_levels(s.level for s in suggestions),
        sum(1 for r in rows if r["suggestion"] is None),
        sum(1 for s in suggestions if s.is_valid and s.status == "pending"),
    )


def batch_summary(run: Run, document: dict[str, Any]) -> dict[str, Any]:
    """The run as seed 003's BatchCalculationSummary: how many cells it calculated out of how
    many, and each cell's result (its step and intervention by index in the document as it is
    now, None when one was deleted since), with the suggestion to review and its status."""
    steps = document.get("steps", [])
    step_at = {s.get("id"): i for i, s in enumerate(steps)}
    work_at = {
        (s.get("id"), w.get("id")): j
        for s in steps
        for j, w in enumerate(s.get("interventions", []))
    }
    results = []
    for row in review_rows(run):
        step_id, intervention_id, key, _status = parse_path(row["path"])
        suggestion = row["suggestion"]
        result = row["result"] or {}
        error = row["error"] or result.get("error")
        if suggestion is not None and suggestion.errors:
            error = "; ".join(i["message"] for i in suggestion.errors)
        results.append(
            {
                "stepIndex": step_at.get(step_id),
                "interventionIndex": work_at.get((step_id, intervention_id)),
                "indicatorKey": key,
                "name": row["name"],
                "value": result.get("value"),
                "unit": result.get("unit"),
                "confidence": suggestion.confidence if suggestion else None,
                "success": suggestion is not None and suggestion.is_valid,
                "error": error,
                "suggestion_id": suggestion.id if suggestion else None,
                "status": suggestion.status if suggestion else None,
            }
        )
    return {
        "run_id": run.id,
        "status": run.status,
        "calculatedCount": sum(1 for r in results if r["success"]),
        "totalMissing": len(run.items),
        "results": results,
    }
