"""What a model answers for a fertilizer plan, as a pydantic model: the strict JSON schema it is
asked in (seed 001's response document, plus the oxide totals and conversions it shows) and the
check of its types. Every field is strict: a plan is one document, and a wrong type anywhere is
asked again; the plan's invariants (applications adding up, the split rule) are
`fertilizer.plan.plan_from_dict`'s, the one check every plan document goes through."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from webapp.review.vocabulary import Confidence


class Strict(BaseModel):
    # NaN and infinities are no quantities; nor is "12" a number.
    model_config = ConfigDict(strict=True, allow_inf_nan=False)


class Nutrients(Strict):
    # null: no source gives a dose for the nutrient (never 0).
    N: float | None
    P: float | None
    K: float | None


class Oxides(Strict):
    P2O5: float | None
    K2O: float | None


class Application(Strict):
    type: Literal["basal", "topdress"]
    count: int
    schedule_hint: str | None
    nutrients: Nutrients
    per_application: Nutrients | None


class Crop(Strict):
    crop_id: str
    name: str


def confidence_score(raw: Any) -> Any:
    """The plan's confidence as its document keeps it (0–1): a level the model gives ("high")
    is read through the one confidence scale; a word that is none is a problem to re-ask."""
    if isinstance(raw, str):
        level = Confidence.parse(raw)
        return level.score if level else None
    return raw


class PlanAnswer(Strict):
    model_config = ConfigDict(title="fertilizer_plan")

    crop: Crop
    # The method the figures follow, by name (the region's, or the source's).
    method: str
    totals: Nutrients
    oxide_totals: Oxides
    conversions: list[str]
    applications: list[Application]
    sources: list[str]
    confidence: Annotated[float, BeforeValidator(confidence_score)]
    notes: str | None
