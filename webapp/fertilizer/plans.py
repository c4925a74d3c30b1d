"""Plans as the app keeps them: made in a run, stored, saved to a culture with history."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import current_app
from sqlalchemy import select

from webapp.auth.models import User
from webapp.cultures.models import Culture
from webapp.database import utcnow
from webapp.extensions import db
from webapp.fertilizer.gateways import gateway_for
from webapp.fertilizer.interactor import NoRecommendation, Recommendation, recommend
from webapp.fertilizer.models import PlanRecord
from webapp.fertilizer.request import RequestInvalid, parse_request
from webapp.jobs.kinds import ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.jobs.runner import add_usage
from webapp.review.audit import record_changes

CHANGE_FIELD = "fertilizer_plan"


def gateway_named(provider: str | None):
    """The gateway for a provider name, else the configured provider's (FURROW_PROVIDER)."""
    settings = current_app.config["FURROW"]
    return gateway_for(provider or settings.provider, settings)


def store(
    result: Recommendation,
    document: Mapping[str, Any],
    user: User | None,
    run_id: int | None = None,
) -> PlanRecord:
    record = PlanRecord(
        run_id=run_id,
        crop_id=result.plan.crop_id,
        crop_name=result.plan.crop_name,
        gateway=result.gateway,
        model=result.model,
        request=dict(document),
        plan=result.plan.to_dict(),
        issues=[i.to_dict() for i in result.issues],
        created_by=user,
    )
    db.session.add(record)
    return record


@register_kind
class PlanRun(RunKind):
    name = "fertilizer_plan"
    title = "Fertilizer plan"

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return ["plan"]

    def stage_for(self, key: str) -> str:
        return "recommending"

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        document = params["request"]
        run = db.session.get(Run, run_id)
        user = run.requested_by if run else None
        # End the read before the gateway is asked, so no database lock waits on it.
        db.session.commit()
        try:
            result = recommend(document, gateway_named(params.get("provider")))
        except RequestInvalid as exc:
            raise ItemError(f"The request cannot be used: {exc}") from exc
        except NoRecommendation as exc:
            add_usage(run_id, exc.usage)
            raise ItemError(f"No plan: {exc}") from exc
        add_usage(run_id, result.usage)
        record = store(result, document, user, run_id)
        db.session.commit()
        return {"plan_id": record.id, "crop": record.crop_name, "totals": record.label}


def start_plan_run(
    document: Mapping[str, Any], user: User, provider: str | None, culture: Culture | None
) -> Run:
    """Queue a plan run. RequestInvalid before anything is queued; ProviderUnavailable and
    QueueUnavailable as they say."""
    request = parse_request(document)
    gateway = gateway_named(provider)
    params = {
        "request": dict(document),
        "provider": provider,
        "culture_id": culture.id if culture else None,
    }
    target = ("culture", culture.id) if culture else None
    run = enqueue_run(
        PlanRun, user, params, target=target, provider=gateway.name, model=gateway.model
    )
    run.title = f"Fertilizer plan: {request.profile.name}"
    db.session.commit()
    return run


def plan_of_run(run: Run) -> PlanRecord | None:
    return db.session.scalar(select(PlanRecord).where(PlanRecord.run_id == run.id).limit(1))


def save_to_culture(record: PlanRecord, culture: Culture, user: User) -> PlanRecord:
    """Save a plan to a culture's plan history (a copy when it already belongs to another),
    recorded in the culture's history."""
    if record.culture_id not in (None, culture.id):
        record = PlanRecord(
            run_id=record.run_id,
            crop_id=record.crop_id,
            crop_name=record.crop_name,
            gateway=record.gateway,
            model=record.model,
            request=record.request,
            plan=record.plan,
            issues=record.issues,
            created_by=record.created_by,
        )
        db.session.add(record)
    previous = current_plan(culture)
    record.culture_id = culture.id
    record.saved_by = user
    record.saved_at = utcnow()
    db.session.flush()
    if previous is None or previous.id != record.id:
        before = f"plan #{previous.id}: {previous.label}" if previous else None
        after = f"plan #{record.id}: {record.label}"
        record_changes("culture", culture.id, {CHANGE_FIELD: (before, after)}, user, "plan")
    db.session.commit()
    return record


def plan_history(culture: Culture) -> list[PlanRecord]:
    """The plans saved to a culture, newest first."""
    query = (
        select(PlanRecord)
        .where(PlanRecord.culture_id == culture.id)
        .order_by(PlanRecord.saved_at.desc(), PlanRecord.id.desc())
    )
    return list(db.session.scalars(query))


def current_plan(culture: Culture) -> PlanRecord | None:
    history = plan_history(culture)
    return history[0] if history else None
