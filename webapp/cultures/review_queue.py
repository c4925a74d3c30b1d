"""A culture run's review page: its cultures in order, each with the worst level among its
suggestions and findings, filtered by level (the core's ?level=) and by what is left to
decide."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Text, case, cast, func, select

from webapp.cultures.forms import LABELS
from webapp.cultures.target import TARGET, culture_labels
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review.models import Finding, Suggestion
from webapp.review.vocabulary import NOTHING, count_levels, review_filter, worst_level

# The queue's filters in words: a culture's levels (the core's ?level=), or those it found
# nothing for; beside them, those left to decide (?pending=1), with a level or alone.
LEVEL_CHOICES = {
    "": "all",
    "error": "with errors",
    "warning": "with warnings",
    "info": "with notes",
    "none": "without issues",
    NOTHING: "that found nothing",
}
PENDING = "left to decide"

# The queue's addresses before it spoke the core's ?level= (?show=errors…), as their new
# arguments: an address people kept still opens the same cultures.
OLD_SHOW = {
    "errors": {"level": "error"},
    "warnings": {"level": "warning"},
    "notes": {"level": "info"},
    "clean": {"level": "none"},
    "nothing": {"level": NOTHING},
    "pending": {"pending": "1"},
}


@dataclass(frozen=True)
class ReviewItem:
    """One culture of a run, with what is left to decide and, when it got nothing usable,
    why. levels: the worst level of each of its suggestions ("none" for one without issues)
    and the levels of its findings."""

    culture_id: int
    label: str
    suggested: int
    pending: int
    errors: int
    warnings: int
    item_error: str | None
    findings: tuple[dict[str, Any], ...] = ()  # issues not tied to a suggestion
    levels: frozenset[str] = frozenset()
    first_error: str | None = None  # of an invalid suggestion: "Expected yield: …"

    @property
    def worst(self) -> str | None:
        return next((level for level in ("error", "warning", "info") if level in self.levels), None)

    @property
    def problem(self) -> str | None:
        """Why, in words: the item's failure, else its worst finding, else why a suggestion
        cannot be applied, else that nothing new was found."""
        if self.item_error:
            return self.item_error
        worst = sorted(
            self.findings, key=lambda i: ("error", "warning", "info").index(i["severity"])
        )
        if worst:
            return worst[0]["message"]
        if self.first_error:
            return self.first_error
        return None if self.suggested else "Nothing new was found for it."

    @property
    def found_nothing(self) -> bool:
        """Done without a failure, and not one suggestion: the library lacks the crop, say."""
        return not self.suggested and not self.item_error


@dataclass(frozen=True)
class QueueFilter:
    """Which cultures of a run the queue lists: those with a suggestion or finding at a level
    (or those it found nothing for), those left to decide, both, or all of them."""

    level: str | None = None  # review.vocabulary.review_filter's
    pending: bool = False

    @classmethod
    def of(cls, values: Mapping[str, str]) -> QueueFilter:
        """The filter an address (or a form) asks for; anything unknown lists all."""
        return cls(review_filter(values.get("level")), values.get("pending") == "1")

    @property
    def args(self) -> dict[str, str | None]:
        """Its address arguments (None: left out)."""
        return {"level": self.level, "pending": "1" if self.pending else None}

    @property
    def words(self) -> str:
        """ "with notes left to decide"; "" for all."""
        said = [LEVEL_CHOICES[self.level]] if self.level else []
        return " ".join(said + [PENDING] * self.pending)

    def lists(self, item: ReviewItem) -> bool:
        if self.pending and not item.pending:
            return False
        if self.level == NOTHING:
            return item.found_nothing
        return self.level is None or self.level in item.levels


@dataclass(frozen=True)
class Queue:
    """A run's cultures as the review queue lists them (those the run has done or failed),
    filtered, and how many suggestions of the whole run have each worst level."""

    items: list[ReviewItem]
    counts: dict[str, int]


@dataclass
class _Tally:
    """What the queue counts of one culture's suggestions."""

    suggested: int = 0
    pending: int = 0
    invalid: int = 0
    warnings: int = 0
    levels: set[str] = field(default_factory=set)
    first_error: str | None = None


def _tallies(run: Run) -> tuple[dict[int, _Tally], list[str | None]]:
    """Each culture's tally, and the worst level of each of the run's suggestions, in two
    queries: counts per culture from the database, and the issues of only those suggestions
    that have any (most of a large run have none; reading JSON and holding a row object per
    suggestion is what made a 1,000-culture queue slow)."""
    issues_text = cast(Suggestion.issues, Text)
    clean = issues_text.in_(("[]", "null"))
    mine = (Suggestion.run_id == run.id, Suggestion.target_type == TARGET)
    connection = db.session.connection()
    counted = select(
        Suggestion.target_id,
        func.count(),
        func.sum(case((Suggestion.status.in_(("pending", "stale")), 1), else_=0)),
        func.sum(case((clean, 1), else_=0)),
    )
    tallies: dict[int, _Tally] = {}
    worst: list[str | None] = []
    for culture_id, suggested, pending, without in connection.execute(
        counted.where(*mine).group_by(Suggestion.target_id)
    ).all():
        tallies[culture_id] = _Tally(suggested, pending, levels={"none"} if without else set())
        worst += [None] * without
    with_issues = select(Suggestion.target_id, Suggestion.field, issues_text)
    for culture_id, name, raw in connection.execute(
        with_issues.where(*mine, ~clean).order_by(Suggestion.id)
    ).all():
        issues = json.loads(raw) or []
        level = worst_level(issues)
        worst.append(level)
        tally = tallies[culture_id]
        tally.levels.add(level or "none")
        tally.warnings += sum(i.get("severity") == "warning" for i in issues)
        if level == "error":
            tally.invalid += 1
            error = next(i for i in issues if i.get("severity") == "error")
            tally.first_error = tally.first_error or (
                f"{LABELS.get(name, name)} cannot be applied: {error.get('message', '')}"
            )
    return tallies, worst


def review_queue(run: Run, shown: QueueFilter = QueueFilter()) -> Queue:
    """The queue in a few queries whatever the run's size, and the labels of the cultures."""
    tallies, worst = _tallies(run)
    findings: dict[int, list[dict[str, Any]]] = {}
    for finding in db.session.scalars(
        select(Finding).where(Finding.run_id == run.id).order_by(Finding.id)
    ):
        for culture_id in finding.target_ids:
            findings.setdefault(culture_id, []).append(finding.to_dict())
    ids = [int(key) for key in run.items]  # the run's cultures, in order
    labels = culture_labels(ids)
    done = run.done_keys()
    nothing = _Tally()
    items = []
    for culture_id in ids:
        key = str(culture_id)
        item_error = run.item_errors.get(key)
        if key not in done and not item_error:
            continue
        tally = tallies.get(culture_id, nothing)
        others = tuple(findings.get(culture_id, ()))
        levels = tally.levels | {i["severity"] for i in others}
        item = ReviewItem(
            culture_id,
            labels.get(culture_id, f"#{culture_id} (deleted)"),
            tally.suggested,
            tally.pending,
            tally.invalid + sum(i["severity"] == "error" for i in others) + bool(item_error),
            tally.warnings + sum(i["severity"] == "warning" for i in others),
            item_error,
            others,
            frozenset(levels | ({"error"} if item_error else set())),
            tally.first_error,
        )
        if shown.lists(item):
            items.append(item)
    return Queue(items, count_levels(worst))
