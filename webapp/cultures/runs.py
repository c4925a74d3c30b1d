"""The culture enrichment run: it asks the provider for each culture, checks the answer and stores
it as suggestions and findings; starting one, and a culture's latest run and its suggestions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask import current_app, url_for
from sqlalchemy import func, select
from sqlalchemy.orm import defer

from webapp.ai import ProviderError
from webapp.api import BodyInvalid
from webapp.auth.models import User
from webapp.cultures.catalog import (
    ENRICHABLE_FIELDS,
    crop_limits,
    values_of,
)
from webapp.cultures.models import Culture
from webapp.cultures.providers import culture_provider
from webapp.cultures.reference_match import culture_match
from webapp.cultures.review_queue import QueueFilter, review_queue
from webapp.cultures.rules import postprocess, unique_sources
from webapp.cultures.target import TARGET
from webapp.extensions import db
from webapp.jobs.kinds import NOTHING_FOUND, ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress, enqueue_run, live_runs
from webapp.jobs.runner import add_usage
from webapp.review.models import Suggestion
from webapp.review.service import RunTarget, store_findings, store_proposal
from webapp.review.vocabulary import Evidence, Proposal

MODES = ("complete", "reresearch")


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


@register_kind
class CultureEnrichment(RunKind):
    name = "culture_enrichment"
    title = "Culture enrichment"
    item_params = ("culture_ids",)
    target_kind = TARGET
    suggestion_noun = "field(s)"
    reconfirm_where = "on the culture's page"
    result_labels = {
        "suggested": "Suggested",
        "errors": "Errors",
        "warnings": "Warnings",
        "citations": "Sources",
    }

    def review_url(self, run: Run) -> str:
        return url_for("cultures.review_batch", run_id=run.id)

    def matching(self, run: Run, values: Any) -> list[int]:
        """The cultures the queue's filter (?level=, ?pending=) lists, on every page; of them,
        the core takes the suggestions at that ?level=."""
        return [item.culture_id for item in review_queue(run, QueueFilter.of(values)).items]

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
