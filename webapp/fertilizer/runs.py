"""The plan run: one item, the plan for a request document, made by the provider and stored;
made for a culture, it is proposed to that culture (the culture-plan target)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import url_for

from webapp.auth.models import User
from webapp.crops import Crop, catalog
from webapp.extensions import db
from webapp.fertilizer.interactor import NoRecommendation, recommend
from webapp.fertilizer.plans import gateway_named, store
from webapp.fertilizer.request import RequestInvalid, parse_request
from webapp.fertilizer.target import TARGET, propose_to
from webapp.jobs.kinds import ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.jobs.runner import add_usage


@register_kind
class PlanRun(RunKind):
    name = "fertilizer_plan"
    title = "Fertilizer plan"
    target_kind = TARGET
    result_labels = {"crop": "Crop", "totals": "Totals"}

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return ["plan"]

    def stage_for(self, key: str) -> str:
        return "recommending"

    def target_ids(self, run: Run) -> list[int]:
        culture_id = (run.params or {}).get("culture_id")
        return [culture_id] if culture_id else []

    def item_key(self, run: Run, target_id: int) -> str:
        return "plan"

    def review_url(self, run: Run) -> str:
        return url_for("fertilizer.show_run", run_id=run.id)

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
        db.session.flush()
        culture = catalog().get(params.get("culture_id") or 0)
        if culture is not None:
            propose_to(record, culture)
        db.session.commit()
        return {"plan_id": record.id, "crop": record.crop_name, "totals": record.label}


def start_plan_run(
    document: Mapping[str, Any], user: User, provider: str | None, culture: Crop | None
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
