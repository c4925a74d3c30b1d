"""Enriching cultures: the run kind that asks the provider, checks the answer and stores it as
suggestions and findings; and cultures as a review target (applied with their sources)."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, url_for
from sqlalchemy import Text, case, cast, func, select
from sqlalchemy.orm import defer

from webapp.ai import ProviderError
from webapp.api import BodyInvalid
from webapp.auth.models import User
from webapp.cultures.catalog import (
    ENRICHABLE_FIELDS,
    blocking,
    crop_limits,
    entry_findings,
    update_culture,
    values_of,
)
from webapp.cultures.domain import CultureInvalid
from webapp.cultures.forms import LABELS
from webapp.cultures.models import Culture, culture_label
from webapp.cultures.providers import culture_provider
from webapp.cultures.reference_match import culture_match
from webapp.cultures.rules import notes_with_sources, postprocess, unique_sources
from webapp.database import among
from webapp.extensions import db
from webapp.jobs.kinds import NOTHING_FOUND, ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress, enqueue_run, live_runs
from webapp.jobs.runner import add_usage
from webapp.links import is_safe_link
from webapp.review.models import Finding, Suggestion
from webapp.review.service import RunTarget, store_findings, store_proposal
from webapp.review.targets import Applied, Changed, ReviewTarget, register_target
from webapp.review.vocabulary import Evidence, Proposal, count_levels, worst_level

MODES = ("complete", "reresearch")
TARGET = "culture"


def store_proposal_of(
    run_id: int | None, culture: Culture, current: Mapping[str, Any], proposal: Proposal
) -> dict[str, Any]:
    """The proposal as suggestions, the issues about no one field as the run's findings, and
    a summary for the run's results.

    current: the culture's values the suggestions were made against.
    """
    unattached = store_proposal(run_id, TARGET, culture.id, current, proposal)
    if run_id is not None:
        store_findings(run_id, TARGET, [culture.id], unattached)
    return {
        "culture": culture.label,
        "suggested": len({*proposal.suggested, *proposal.malformed}),
        "errors": len(proposal.errors),
        "warnings": len(proposal.warnings),
        "note_blocks": proposal.note_blocks,
        "citations": [e.to_dict() for e in proposal.citations],
    }


class CultureRecords(ReviewTarget):
    """A target whose records are cultures (their fields, their current plan): named and
    linked as cultures."""

    def names(self, ids: Collection[int]) -> dict[int, str]:
        query = select(Culture.id, Culture.name).where(Culture.id.in_(list(ids)))
        return dict(db.session.execute(query).all())

    def url(self, target_id: int) -> str:
        return url_for("cultures.show", culture_id=target_id)


class CultureTarget(CultureRecords):
    """Cultures as the review core sees them: values written through the culture's field
    rules; an apply adds the sources that state the applied values to its sources and notes."""

    kind = TARGET
    label = "Culture"
    uses_evidence = True
    # A yield means nothing without its context: per plant or per m².
    together = (("expected_yield", "harvest_method"),)

    def _cultures(self, ids: Collection[int]) -> dict[int, Culture]:
        query = select(Culture).where(Culture.id.in_(list(ids)))
        return {c.id: c for c in db.session.scalars(query)}

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {i: values_of(c) for i, c in self._cultures(ids).items()}

    def write(self, target_id: int, values: Mapping[str, Any], user: User | None) -> Changed:
        return update_culture(db.session.get(Culture, target_id), dict(values))

    def new_errors(self, target_id: int, values: Mapping[str, Any]) -> dict[str, str]:
        """The culture as it will be, by the plausibility rules: a yield with no harvest method
        to give it context, or one judged per m² landing on a per-plant culture, is refused."""
        culture = db.session.get(Culture, target_id)
        try:
            found = entry_findings(dict(values), culture)
        except CultureInvalid:
            # The write itself refuses values a culture cannot hold, saying why.
            return {}
        return {issue.field: issue.message for issue in blocking(found)}

    def after_apply(self, target_id: int, applied: Sequence[Applied], user: User | None) -> Changed:
        """A derived figure's source does not state it: it is never listed as a citation."""
        culture = db.session.get(Culture, target_id)
        evidence = {
            a.field: [Evidence(**e) for e in a.evidence if not e.get("derived")] for a in applied
        }
        sources = unique_sources(evidence)
        if not sources:
            return {}
        # A source stored before only web addresses were taken is dropped, not re-refused.
        kept = [s for s in culture.structured_sources if not s["url"] or is_safe_link(s["url"])]
        known = {(s["url"], s["claim_summary"]) for s in kept}
        listed = [
            *kept,
            *(
                {
                    "title": e.title,
                    "url": e.source_url,
                    "claim_summary": e.claim_summary,
                    "retrieved_at": e.retrieved_at or "",
                }
                for e in sources
                if (e.source_url, e.claim_summary) not in known
            ),
        ]
        notes = notes_with_sources(culture.notes, sources)
        return update_culture(culture, {"structured_sources": listed, "notes": notes})

    def field_label(self, field: str) -> str:
        return LABELS.get(field, field)

    def back_url(self, ids: Collection[int]) -> str | None:
        return super().back_url(ids) if len(ids) == 1 else url_for("cultures.index")


CULTURES = register_target(CultureTarget())


@register_kind
class CultureEnrichment(RunKind):
    name = "culture_enrichment"
    title = "Culture enrichment"
    target_kind = TARGET
    result_labels = {
        "suggested": "Suggested",
        "errors": "Errors",
        "warnings": "Warnings",
        "citations": "Sources",
    }

    def review_url(self, run: Run) -> str:
        return url_for("cultures.review_batch", run_id=run.id)

    def item_names(self, run: Run) -> dict[str, str]:
        """Cultures by name; one deleted since by the name the run recorded."""
        ids = [int(key) for key in run.items]
        named = {
            str(c.id): c.label
            for c in db.session.scalars(select(Culture).where(Culture.id.in_(ids)))
        }
        recorded = {
            k: r["culture"]
            for k, r in run.results.items()
            if isinstance(r, dict) and "culture" in r
        }
        return recorded | named

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(culture_id) for culture_id in params["culture_ids"]]

    def stage_for(self, key: str) -> str:
        return "researching"

    def item_details(self, run: Run, target: RunTarget) -> dict[str, Any]:
        """The provider's notes, and the sources of its values (a derived figure's never)."""
        summary = run.results.get(str(target.id)) or {}
        evidence = {s.field: [Evidence(**e) for e in s.evidence] for s in target.suggestions}
        # Citations the provider made without naming a field count as sources too.
        evidence[""] = [Evidence(**e) for e in summary.get("citations", [])]
        sources = [
            {
                "title": e.title,
                "url": e.source_url,
                "claim_summary": e.claim_summary,
                "retrieved_at": e.retrieved_at,
            }
            for e in unique_sources(evidence)
            if not e.derived
        ]
        return {"note_blocks": summary.get("note_blocks", []), "structured_sources": sources}

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        culture = db.session.get(Culture, int(key))
        if culture is None:
            raise ItemError(f"Culture #{key} no longer exists.")
        mode, fields = params["mode"], params.get("fields") or []
        asked = fields if mode == "reresearch" else list(ENRICHABLE_FIELDS)
        provider = culture_provider(current_app.config["FURROW"].provider)
        current = values_of(culture)
        # End the read before the provider is asked, so no database lock waits on it.
        db.session.commit()
        try:
            answer = provider.propose_culture(current, asked)
        except ProviderError as exc:
            add_usage(run_id, exc.usage)
            raise ItemError(str(exc)) from exc
        add_usage(run_id, answer.usage)
        offered = bool(answer.proposal.suggested or answer.proposal.malformed)
        proposal = postprocess(
            answer.proposal,
            current,
            mode=mode,
            fields=fields,
            limits=crop_limits(crop.id if (crop := culture_match(culture).crop) else None),
        )
        summary = store_proposal_of(run_id, culture, current, proposal)
        if not summary["suggested"]:
            summary[NOTHING_FOUND] = why_nothing(proposal, offered, mode)
        db.session.commit()
        return summary


def why_nothing(proposal: Proposal, offered: bool, mode: str) -> str:
    """Why a culture got no suggestion at all, in words that follow "Nothing found: ": the
    provider's own reason (the library has no such crop), else what became of its answer (the
    first rule that set a value aside, a yield without proof, say)."""
    if not offered:
        given = (i.details.get("why") for i in proposal.issues if i.field is None)
        return next((why for why in given if isinstance(why, str) and why), None) or (
            "the provider suggested no value for the fields asked"
        )
    if proposal.errors:
        return f"what it found could not be used ({proposal.errors[0].message.rstrip('.')})"
    if mode == "complete":
        return "what it found was for fields that already have a value, or could not be used"
    return "what it found was not for the fields chosen, or could not be used"


def start_enrichment(
    culture_ids: Sequence[int], user: User, mode: str = "complete", fields: Sequence[str] = ()
) -> Run:
    """Queue one run over the cultures. Raises BodyInvalid for a bad mode or field list,
    RunInProgress when a live enrichment already covers one of them, ProviderUnavailable and
    QueueUnavailable as they say."""
    if mode not in MODES:
        raise BodyInvalid(f"mode must be one of {', '.join(MODES)}", loc="mode")
    unknown = [f for f in fields if f not in ENRICHABLE_FIELDS]
    if unknown:
        raise BodyInvalid(f"cannot research {', '.join(unknown)}", loc="fields")
    if mode == "reresearch" and not fields:
        raise BodyInvalid("re-research needs the fields to research", loc="fields")
    busy = set(culture_ids)
    for live in live_runs(CultureEnrichment):
        if overlap := busy.intersection(live.params.get("culture_ids") or []):
            raise RunInProgress(live, db.session.get(Culture, min(overlap)).label)
    settings = current_app.config["FURROW"]
    provider = culture_provider(settings.provider)
    params = {"culture_ids": list(culture_ids), "mode": mode, "fields": list(fields)}
    target = (TARGET, culture_ids[0]) if len(culture_ids) == 1 else None
    return enqueue_run(
        CultureEnrichment,
        user,
        params,
        target=target,
        mode=mode,
        provider=provider.name,
        model=provider.model,
        title=enrichment_title(culture_ids),
    )


def enrichment_title(culture_ids: Sequence[int]) -> str:
    """ "Enrich Tomato ‘Moneymaker’", or "Enrich 12 cultures" for a batch."""
    if len(culture_ids) != 1:
        return f"Enrich {len(culture_ids)} cultures"
    culture = db.session.get(Culture, culture_ids[0])
    return f"Enrich {culture.label}" if culture else CultureEnrichment.title


def latest_run(culture: Culture) -> Run | None:
    """The newest enrichment run of this culture: its own, or a batch that suggested for it."""
    own = select(func.max(Run.id)).where(
        Run.kind == CultureEnrichment.name,
        Run.target_type == TARGET,
        Run.target_id == culture.id,
    )
    in_batch = select(func.max(Suggestion.run_id)).where(
        Suggestion.target_type == TARGET, Suggestion.target_id == culture.id
    )
    ids = [i for i in (db.session.scalar(own), db.session.scalar(in_batch)) if i is not None]
    return db.session.get(Run, max(ids), options=[defer(Run.results)]) if ids else None


def run_summary(run: Run, culture_id: int) -> dict[str, Any]:
    """What the run recorded for one culture (the provider's notes, its citations), read
    alone: a batch's results hold every culture's."""
    found = db.session.scalar(select(Run.results[str(culture_id)]).where(Run.id == run.id))
    return found if isinstance(found, dict) else {}


def suggestions_of(culture: Culture, run: Run) -> list[Suggestion]:
    return list(
        db.session.scalars(
            select(Suggestion)
            .where(
                Suggestion.run_id == run.id,
                Suggestion.target_type == TARGET,
                Suggestion.target_id == culture.id,
            )
            .order_by(Suggestion.id)
        )
    )


# The queue's filters (?show=): which cultures of a run a reviewer goes through.
SHOW = {
    "": "all",
    "errors": "with errors",
    "warnings": "with warnings",
    "notes": "with notes",
    "clean": "without issues",
    "pending": "left to decide",
    "nothing": "that found nothing",
}
# A level count (review.vocabulary.level_counts) links to the filter of its level.
SHOW_OF_LEVEL = {"error": "errors", "warning": "warnings", "info": "notes", "none": "clean"}
LEVELS_SHOWN = {show: level for level, show in SHOW_OF_LEVEL.items()}


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

    def shows(self, show: str) -> bool:
        if show == "pending":
            return self.pending > 0
        if show == "nothing":
            return self.found_nothing
        return show not in LEVELS_SHOWN or LEVELS_SHOWN[show] in self.levels


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


def review_queue(run: Run, show: str = "") -> Queue:
    """The queue in a few queries whatever the run's size, and the labels of the cultures."""
    tallies, worst = _tallies(run)
    findings: dict[int, list[dict[str, Any]]] = {}
    for finding in db.session.scalars(
        select(Finding).where(Finding.run_id == run.id).order_by(Finding.id)
    ):
        for culture_id in finding.target_ids:
            findings.setdefault(culture_id, []).append(finding.to_dict())
    ids = CultureEnrichment().target_ids(run)
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
        if item.shows(show):
            items.append(item)
    return Queue(items, count_levels(worst))


def culture_labels(ids: Collection[int]) -> dict[int, str]:
    """Cultures as people tell them apart: name and variety."""
    labels = {}
    for picked in among(db.session, Culture.id, ids):
        query = select(Culture.id, Culture.name, Culture.variety).where(picked)
        labels.update(
            (i, culture_label(name, variety)) for i, name, variety in db.session.execute(query)
        )
    return labels
