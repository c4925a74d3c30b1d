"""Plans as the app keeps them: made by a gateway (the configured provider's, or one named) and
stored, whether a run made them or the API at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import current_app
from sqlalchemy import select

from webapp.auth.models import User
from webapp.extensions import db
from webapp.fertilizer.gateways import gateway_for
from webapp.fertilizer.interactor import Recommendation
from webapp.fertilizer.models import PlanRecord
from webapp.jobs.models import Run


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


def plan_of_run(run: Run) -> PlanRecord | None:
    return db.session.scalar(select(PlanRecord).where(PlanRecord.run_id == run.id).limit(1))


def plan_or_404(plan_id: int) -> PlanRecord:
    return db.get_or_404(PlanRecord, plan_id)
