"""The fertilizer JSON API (/api/v1/fertilizer): a plan for a request document (made at once
from the reference library, in a run when a model makes it), and a stored plan document."""

from __future__ import annotations

from typing import Any, Literal

from flask import current_app, jsonify
from flask_login import current_user

from webapp.api import api_error, json_body
from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.contract import RequestModel, accepts
from webapp.extensions import db
from webapp.fertilizer import api
from webapp.fertilizer.interactor import NoRecommendation, recommend
from webapp.fertilizer.plans import gateway_named, plan_or_404, store
from webapp.fertilizer.runs import start_plan_run


class RecommendBody(RequestModel):
    """Seed 001's request document; its values are read (and refused, naming the key) by
    fertilizer.request, which knows what each one means."""

    crop_profile: dict[str, Any]
    target_yield: Any = None
    soil_p: Any = None
    soil_k: Any = None
    region: Any = None
    growth_period_days: Any = None
    organic: Any = None
    mean_daily_gdd: Any = None
    soil_texture: Any = None
    nmin: Any = None
    sns_index: Any = None
    humus_pct: Any = None
    previous_crop: Any = None
    organic_n_last_year: Any = None
    growth_period_basis: Any = None
    # A name that is no provider is the request's fault (422), not a service down (503).
    provider: Literal["offline", "openai"] | None = None


@api.post("/recommend")
@require_role(Role.editor)
@accepts(
    RecommendBody,
    answers={
        200: "The plan, made now from the reference library and stored.",
        202: "Queued: a model makes the plan in a run (run_id; GET /api/v1/runs/<id>, and "
        "its item's result names plan_id in GET /api/v1/runs/<id>/items).",
    },
)
def api_recommend():
    """The plan for a request document: made now from the reference library (200 with the
    plan, or 422 saying why not); asked of a model, made in a run (202 with its id), so no
    request waits on the model."""
    body = json_body()
    provider = body.get("provider") or current_app.config["FURROW"].provider
    if provider != "offline":
        run = start_plan_run(body, current_user, provider, None)
        return jsonify(run_id=run.id), 202
    try:
        result = recommend(body, gateway_named(body.get("provider")))
    except NoRecommendation as exc:
        return api_error(422, exc.code, str(exc), {"crop": crop_name(body)})
    record = store(result, body, current_user)
    db.session.commit()
    return jsonify(
        plan=result.plan.to_dict(),
        issues=[i.to_dict() for i in result.issues],
        plan_id=record.id,
        provider=result.gateway,
        model=result.model,
    )


def crop_name(body: dict) -> Any:
    profile = body.get("crop_profile")
    crop = profile.get("crop") if isinstance(profile, dict) else None
    return crop.get("name") if isinstance(crop, dict) else None


@api.get("/plans/<int:plan_id>")
@accepts(summary="A stored plan document.")
def api_plan(plan_id: int):
    record = plan_or_404(plan_id)
    return jsonify(record.plan)
