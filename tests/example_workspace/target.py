"""Seed lots as the review core reads and writes them."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from flask import url_for
from sqlalchemy import select

from tests.example_workspace.models import SeedLot
from tests.example_workspace.rules import GERMINATION, LABELS, WEIGHT, field_errors
from webapp.auth.models import User
from webapp.extensions import db
from webapp.review.targets import Changed, ReviewTarget, register_target

FIELDS = (WEIGHT, GERMINATION)


class SeedLotTarget(ReviewTarget):
    kind = "seed_lot"
    label = "Seed lot"

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        lots = db.session.scalars(select(SeedLot).where(SeedLot.id.in_(list(ids))))
        return {lot.id: {f: getattr(lot, f) for f in FIELDS} for lot in lots}

    def write(self, target_id: int, values: Mapping[str, Any], user: User | None) -> Changed:
        errors = field_errors(values)
        if errors:
            refused = ValueError("refused")
            refused.errors = errors
            raise refused
        lot = db.session.get(SeedLot, target_id)
        changed = {f: (getattr(lot, f), v) for f, v in values.items() if getattr(lot, f) != v}
        for field, (_old, new) in changed.items():
            setattr(lot, field, new)
        db.session.flush()
        return changed

    def parse(self, field: str, raw: str) -> Any:
        return float(raw.replace(",", "."))  # ValueError for what is not a number

    def names(self, ids: Collection[int]) -> dict[int, str]:
        query = select(SeedLot.id, SeedLot.name).where(SeedLot.id.in_(list(ids)))
        return dict(db.session.execute(query).all())

    def url(self, target_id: int) -> str | None:
        return url_for("seed_lots.index", _anchor=f"lot-{target_id}")

    def field_label(self, field: str) -> str:
        return LABELS.get(field, field)


SEED_LOTS = register_target(SeedLotTarget())
