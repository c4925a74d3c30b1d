"""Enriching cultures: the run kind that asks the provider, checks the answer and stores it as
suggestions and findings; and cultures as a review target (applied with their sources)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask import current_app, url_for
from sqlalchemy import func, select

from webapp.ai import ProviderError
from webapp.api import BodyInvalid
from webapp.auth.models import User
from webapp.cultures.catalog import ENRICHABLE_FIELDS, crop_limits, update_culture, values_of
from webapp.cultures.forms import LABELS
from webapp.cultures.models import Culture
from webapp.cultures.providers import culture_provider
from webapp.cultures.rules import notes_with_sources, postprocess, unique_sources
from webapp.extensions import db
from webapp.jobs.kinds import ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress, enqueue_run, live_runs
from webapp.jobs.runner import add_usage
from webapp.links import is_safe_link
from webapp.review.models import Suggestion
from webapp.review.service import RunTarget, run_targets, store_findings, store_proposal
from webapp.review.targets import Applied, Changed, ReviewTarget, register_target
from webapp.review.vocabulary import Evidence, Proposal

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

    def _cultures(self, ids: Collection[int]) -> dict[int, Culture]:
        query = select(Culture).where(Culture.id.in_(list(ids)))
        return {c.id: c for c in db.session.scalars(query)}

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {i: values_of(c) for i, c in self._cultures(ids).items()}

    def write(self, target_id: int, values: Mapping[str, Any], user: User | None) -> Changed:
        return update_culture(db.session.get(Culture, target_id), dict(values))

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
        proposal = postprocess(
            answer.proposal,
            current,
            mode=mode,
            fields=fields,
            limits=crop_limits(culture.reference_crop),
        )
        summary = store_proposal_of(run_id, culture, current, proposal)
        db.session.commit()
        return summary


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
    return db.session.get(Run, max(ids)) if ids else None


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


@dataclass(frozen=True)
class ReviewItem:
    """One culture of a batch run, with what is left to decide and, when it suggested
    nothing usable, why."""

    culture_id: int
    label: str
    suggested: int
    pending: int
    errors: int
    warnings: int
    item_error: str | None
    findings: tuple[dict[str, Any], ...] = ()  # issues not tied to a suggestion

    @property
    def problem(self) -> str | None:
        if self.item_error:
            return self.item_error
        worst = sorted(
            self.findings, key=lambda i: ("error", "warning", "info").index(i["severity"])
        )
        return worst[0]["message"] if worst else None


def run_cultures(run: Run) -> list[RunTarget]:
    return run_targets(run, CULTURES, CultureEnrichment().target_ids(run))


def review_queue(run: Run, show: str = "") -> list[ReviewItem]:
    """The cultures of a run with their counts; show = errors | warnings | pending filters."""
    items = []
    for entry in run_cultures(run):
        culture_id, name, mine = entry.id, entry.name, entry.suggestions
        key = str(culture_id)
        others = tuple(f.to_dict() for f in entry.findings)
        item_error = run.item_errors.get(key)
        item = ReviewItem(
            culture_id,
            name or f"#{culture_id} (deleted)",
            len(mine),
            sum(s.status in ("pending", "stale") for s in mine),
            sum(1 for s in mine if not s.is_valid)
            + sum(i["severity"] == "error" for i in others)
            + bool(item_error),
            sum(len(s.warnings) for s in mine) + sum(i["severity"] == "warning" for i in others),
            item_error,
            others,
        )
        keep = {
            "errors": item.errors > 0,
            "warnings": item.warnings > 0,
            "pending": item.pending > 0,
        }.get(show, True)
        if keep and (key in run.done_items or item.item_error):
            items.append(item)
    return items
