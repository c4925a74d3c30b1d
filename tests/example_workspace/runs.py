"""The lookup run: each lot without a weight gets the reference library's figure for its crop,
cited, as a suggestion a person reviews on the core's run page."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from tests.example_workspace.models import SeedLot
from tests.example_workspace.rules import UNITS, WEIGHT, looked_up_weight
from tests.example_workspace.target import SeedLotTarget
from webapp.auth.models import User
from webapp.extensions import db
from webapp.jobs.kinds import NOTHING_FOUND, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import enqueue_run
from webapp.reference.evidence import evidence_for
from webapp.reference.library import library
from webapp.review import service
from webapp.review.vocabulary import Confidence, Proposal, SuggestedValue


@register_kind
class WeightLookup(RunKind):
    name = "example_weight_lookup"
    title = "Look up thousand-kernel weights"
    target_kind = SeedLotTarget.kind
    suggestion_noun = "weight(s)"

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(i) for i in params["lots"]]

    def item_names(self, run: Run) -> dict[str, str]:
        query = select(SeedLot.id, SeedLot.name).where(SeedLot.id.in_(map(int, run.items)))
        return {str(i): name for i, name in db.session.execute(query)}

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        lot = db.session.get(SeedLot, int(key))
        if lot is None:
            return {NOTHING_FOUND: "the lot was deleted"}
        reference = library()
        crop = reference.resolve(lot.crop)
        if crop is None:
            confusion = reference.confusion(lot.crop)
            said = f": {confusion.note}" if confusion else ""
            return {NOTHING_FOUND: f"the reference library has no “{lot.crop}”{said}"}
        fact = crop.fact(WEIGHT)
        weight, issues = looked_up_weight(fact) if fact else (None, [])
        if weight is None:
            return {NOTHING_FOUND: f"the reference library states no weight for {crop.name()}"}
        proposal = Proposal(
            suggested={WEIGHT: SuggestedValue(weight, UNITS[WEIGHT], Confidence.medium)},
            evidence={WEIGHT: [evidence_for(fact)]},
            issues=issues,
        )
        current = {WEIGHT: lot.thousand_kernel_weight_g}
        service.store_proposal(run_id, SeedLotTarget.kind, lot.id, current, proposal)
        db.session.commit()
        return {"weight_g": weight, "crop": crop.name()}


def start_lookup(user: User) -> Run:
    """A lookup over every lot without a weight."""
    lots = db.session.scalars(select(SeedLot.id).where(SeedLot.thousand_kernel_weight_g.is_(None)))
    return enqueue_run(WeightLookup, user, {"lots": list(lots)})
