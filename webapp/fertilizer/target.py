"""A culture's current fertilizer plan as the review core's target: a plan run proposes its
plan to a culture, and saving a plan to a culture is an apply of that proposal (audited,
undoable). The culture page lists the plans saved to it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from sqlalchemy import select

from webapp.auth.models import User
from webapp.crops import Crop, CropPlans, CropRecords, catalog, register_plans
from webapp.database import utcnow
from webapp.extensions import db
from webapp.fertilizer.models import PlanRecord
from webapp.ids import record_id
from webapp.review import service as review
from webapp.review.models import Suggestion
from webapp.review.targets import Changed, register_target
from webapp.review.vocabulary import Confidence, Issue, Severity, SuggestedValue

CHANGE_FIELD = "fertilizer_plan"
# The review target: a culture's current plan, by culture id.
TARGET = "culture_plan"


def plan_value(record: PlanRecord | None) -> dict[str, int] | None:
    """A plan as a culture's plan field holds it, in suggestions and the audit trail:
    {"plan_id": 3}; None for no plan."""
    return {"plan_id": record.id} if record else None


def plan_id_of(value: object) -> int | None:
    """The plan a stored value names ({"plan_id": 3}); None for anything else."""
    return record_id(value.get("plan_id")) if isinstance(value, Mapping) else None


def plan_words(value: object) -> str:
    """A stored plan value as people read it (the culture's history):
    "Plan #3 — Lettuce: N 12 · P 4 · K 9 g/m²"."""
    plan_id = plan_id_of(value)
    if plan_id is None:
        return "—" if value is None else str(value)
    record = db.session.get(PlanRecord, plan_id)
    if record is None:
        return f"Plan #{plan_id} (deleted)"
    return f"Plan #{plan_id} — {record.crop_name}: {record.label}"


def propose_to(record: PlanRecord, culture: Crop) -> int:
    """The suggestion that this plan become the culture's current plan: the open one the run
    made, or a new one (a plan made for no culture, or saved to another). Returns its id."""
    value = plan_value(record)
    # JSON values are compared here: PostgreSQL has no equality on json.
    candidates = db.session.execute(
        select(Suggestion.id, Suggestion.suggested_value).where(
            Suggestion.target_type == TARGET,
            Suggestion.target_id == culture.id,
            Suggestion.run_id == record.run_id,
            Suggestion.status.in_(review.OPEN_STATUSES),
        )
    ) if record.run_id else []  # fmt: skip
    existing = next((i for i, suggested in candidates if suggested == value), None)
    if existing:
        return existing
    confidence = Confidence.from_score(record.plan.get("confidence", 0))
    row = review.suggestion_row(
        record.run_id,
        TARGET,
        culture.id,
        CHANGE_FIELD,
        plan_value(current_plan(culture)),
        SuggestedValue(value, None, confidence),
        [],
        [Issue(**{**i, "severity": Severity(i["severity"])}) for i in record.issues],
    )
    [suggestion_id] = review.store_suggestions([row], with_ids=True)
    return suggestion_id


def save_to_culture(record: PlanRecord, culture: Crop, user: User) -> review.ApplyResult:
    """Save a plan to a culture's plan history as its current plan: the apply of the plan's
    proposal to that culture. Saving is an explicit choice, so a plan proposed before the
    culture's plan changed is re-confirmed."""
    suggestion_id = propose_to(record, culture)
    return review.apply([suggestion_id], user, reconfirm=[suggestion_id])


class CulturePlanTarget(CropRecords):
    """A culture's current plan as the review core sees it: the newest plan saved to it."""

    kind = TARGET
    label = "Culture plan"

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        known = catalog().names(ids)
        return {i: {CHANGE_FIELD: plan_value(_newest(saved_to(i)))} for i in known}

    def write(self, target_id: int, values: Mapping[str, Any], user: User | None) -> Changed:
        culture = catalog().get(target_id)
        previous = current_plan(culture)
        wanted = plan_id_of(values[CHANGE_FIELD])
        if wanted is None and values[CHANGE_FIELD] is not None:
            raise ValueError("This value names no plan.")
        if wanted is None:
            # Undoing a culture's first plan: the plan leaves its history.
            if previous is not None:
                previous.culture_id, previous.saved_by, previous.saved_at = None, None, None
            db.session.flush()
            return {CHANGE_FIELD: (plan_value(previous), None)} if previous else {}
        record = db.session.get(PlanRecord, wanted)
        if record is None:
            raise ValueError(f"There is no plan #{wanted} any more.")
        saved = _save(record, culture, user)
        if previous is not None and previous.id == saved.id:
            return {}
        return {CHANGE_FIELD: (plan_value(previous), plan_value(saved))}

    def field_label(self, field: str) -> str:
        return "Fertilizer plan"


def _save(record: PlanRecord, culture: Crop, user: User | None) -> PlanRecord:
    """The plan (a copy when it belongs to another culture) as the culture's newest."""
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
    record.culture_id = culture.id
    record.saved_by = user
    record.saved_at = utcnow()
    db.session.flush()
    return record


register_target(CulturePlanTarget())


def saved_to(culture_id: int) -> list[PlanRecord]:
    """The plans saved to a culture, newest first."""
    query = (
        select(PlanRecord)
        .where(PlanRecord.culture_id == culture_id)
        .order_by(PlanRecord.saved_at.desc(), PlanRecord.id.desc())
    )
    return list(db.session.scalars(query))


# A culture's page shows its plans, and its history their changes.
register_plans(CropPlans(TARGET, saved_to, CHANGE_FIELD, plan_words))


def plan_history(culture: Crop) -> list[PlanRecord]:
    """The plans saved to a culture, newest first."""
    return saved_to(culture.id)


def current_plan(culture: Crop) -> PlanRecord | None:
    return _newest(plan_history(culture))


def _newest(history: list[PlanRecord]) -> PlanRecord | None:
    return history[0] if history else None
