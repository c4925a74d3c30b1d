"""Enriching cultures: the run kind that asks the provider, checks the answer and stores it as
suggestions; and applying reviewed suggestions to a culture with their sources."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask import current_app
from sqlalchemy import func, select

from webapp.ai import ProviderError
from webapp.auth.models import User
from webapp.cultures.catalog import ENRICHABLE_FIELDS, crop_limits, update_culture, values_of
from webapp.cultures.models import Culture
from webapp.cultures.providers import culture_provider
from webapp.cultures.rules import notes_with_sources, postprocess, unique_sources
from webapp.extensions import db
from webapp.jobs.kinds import ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.jobs.runner import add_usage
from webapp.review.audit import record_changes
from webapp.review.models import Change, Suggestion, SuggestionStatus, jsonable
from webapp.review.service import ApplyResult, UndoResult, apply_suggestions, undo_group
from webapp.review.vocabulary import Evidence, Proposal

MODES = ("complete", "reresearch")
TARGET = "culture"


def store_suggestions(
    run_id: int, culture: Culture, current: Mapping[str, Any], proposal: Proposal
) -> dict[str, Any]:
    """One Suggestion per suggested field; issues about fields without one go to the summary.

    current: the culture's values the suggestions were made against.
    """
    for field_name, suggested in {**proposal.suggested, **proposal.malformed}.items():
        invalid = field_name in proposal.invalid_fields
        db.session.add(
            Suggestion(
                run_id=run_id,
                target_type=TARGET,
                target_id=culture.id,
                field=field_name,
                current_value=jsonable(current.get(field_name)),
                suggested_value=jsonable(suggested.value),
                unit=suggested.unit,
                confidence=suggested.confidence.value if suggested.confidence else None,
                evidence=[e.to_dict() for e in proposal.evidence.get(field_name, [])],
                issues=[i.to_dict() for i in proposal.issues_for(field_name)],
                status=SuggestionStatus.blocked if invalid else SuggestionStatus.pending,
            )
        )
    stored = {*proposal.suggested, *proposal.malformed}
    unattached = [i.to_dict() for i in proposal.issues if i.field not in stored]
    return {
        "culture": culture.label,
        "suggested": len(stored),
        "errors": len(proposal.errors),
        "warnings": len(proposal.warnings),
        "other_issues": unattached,
        "note_blocks": proposal.note_blocks,
        "citations": [e.to_dict() for e in proposal.citations],
    }


@register_kind
class CultureEnrichment(RunKind):
    name = "culture_enrichment"
    title = "Culture enrichment"

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(culture_id) for culture_id in params["culture_ids"]]

    def stage_for(self, key: str) -> str:
        return "researching"

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
        summary = store_suggestions(run_id, culture, current, proposal)
        db.session.commit()
        return summary


def start_enrichment(
    culture_ids: Sequence[int], user: User, mode: str = "complete", fields: Sequence[str] = ()
) -> Run:
    """Queue one run over the cultures. Raises ValueError for a bad mode or field list,
    ProviderUnavailable and QueueUnavailable as they say."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    unknown = [f for f in fields if f not in ENRICHABLE_FIELDS]
    if unknown:
        raise ValueError(f"cannot research {', '.join(unknown)}")
    if mode == "reresearch" and not fields:
        raise ValueError("re-research needs the fields to research")
    settings = current_app.config["FURROW"]
    provider = culture_provider(settings.provider)
    params = {"culture_ids": list(culture_ids), "mode": mode, "fields": list(fields)}
    target = (TARGET, str(culture_ids[0])) if len(culture_ids) == 1 else None
    return enqueue_run(
        CultureEnrichment,
        user,
        params,
        target=target,
        mode=mode,
        provider=provider.name,
        model=provider.model,
    )


def latest_run(culture: Culture) -> Run | None:
    """The newest enrichment run of this culture: its own, or a batch that suggested for it."""
    own = select(func.max(Run.id)).where(
        Run.kind == CultureEnrichment.name,
        Run.target_type == TARGET,
        Run.target_id == str(culture.id),
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


def culture_writer(culture: Culture):
    """How a review writes values to a culture: through its own field rules."""
    return lambda values: update_culture(culture, values)


def apply_to_culture(
    culture: Culture, suggestions: Iterable[Suggestion], user: User, reconfirmed=()
) -> ApplyResult:
    """Apply reviewed suggestions; the sources that state the applied values join the
    culture's sources and notes, in the same audited group, so one undo restores them all.
    A derived figure's source does not state it: it is never listed as a citation."""
    chosen = list(suggestions)
    result = apply_suggestions(
        chosen, values_of(culture), culture_writer(culture), user, reconfirmed
    )
    applied = [s for s in chosen if s.field in result.applied]
    evidence = {
        s.field: [Evidence(**e) for e in s.evidence if not e.get("derived")] for s in applied
    }
    sources = unique_sources(evidence)
    if sources:
        known = {(s["url"], s["claim_summary"]) for s in culture.structured_sources}
        listed = [
            *culture.structured_sources,
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
        changed = update_culture(culture, {"structured_sources": listed, "notes": notes})
        record_changes(
            TARGET, culture.id, changed, user, "apply", run_id=applied[0].run_id, group=result.group
        )
    return result


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


def run_cultures(run: Run) -> list[tuple[int, str | None, list[Suggestion]]]:
    """Every culture of a run, in its order: id, name (None once deleted) and suggestions —
    those that suggested nothing too. Two queries, whatever the run's size."""
    rows = db.session.scalars(
        select(Suggestion).where(Suggestion.run_id == run.id).order_by(Suggestion.id)
    )
    by_culture: dict[int, list[Suggestion]] = {}
    for suggestion in rows:
        by_culture.setdefault(suggestion.target_id, []).append(suggestion)
    ids = [int(key) for key in run.items]
    names = dict(
        db.session.execute(select(Culture.id, Culture.name).where(Culture.id.in_(ids))).all()
    )
    return [(i, names.get(i), by_culture.get(i, [])) for i in ids]


def review_queue(run: Run, show: str = "") -> list[ReviewItem]:
    """The cultures of a run with their counts; show = errors | warnings | pending filters."""
    items = []
    for culture_id, name, mine in run_cultures(run):
        key = str(culture_id)
        others = tuple((run.results.get(key) or {}).get("other_issues", []))
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


def undo_on_culture(culture: Culture, group: str, user: User) -> UndoResult:
    targets = db.session.execute(
        select(Change.target_type, Change.target_id).where(Change.apply_group == group).distinct()
    ).all()
    if any((kind, target_id) != (TARGET, culture.id) for kind, target_id in targets):
        return UndoResult()  # an apply of another record is not this culture's to undo
    return undo_group(
        group, lambda _id: values_of(culture), lambda _id: culture_writer(culture), user
    )
