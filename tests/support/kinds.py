"""Run kinds for tests: items that wait for a gate file, so a test decides when each ends."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sqlalchemy import update

from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.kinds import ItemError, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.runner import CHECK_EVERY_SECONDS


@register_kind
class GatedItems(RunKind):
    """Item N finishes when the file <gate_dir>/<key> exists; keys in params['fail'] fail."""

    name = "test_gated"
    title = "Gated test items"

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [f"item-{n}" for n in range(params["count"])]

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        gate = Path(params["gate_dir"]) / key
        deadline = time.monotonic() + params.get("wait_seconds", 30)
        while not gate.exists():
            if time.monotonic() > deadline:
                raise ItemError(f"{key}: its gate never opened")
            time.sleep(0.02)
        if key in params.get("fail", []):
            raise ItemError(f"{key} failed as the test asked")
        return {"item": key}


def open_gates(gate_dir: Path, *keys: str) -> None:
    for key in keys:
        (gate_dir / key).touch()


@register_kind
class QuickItems(RunKind):
    """Items worked in turn (quick_items): keys in params['fail'] fail; the item
    params['cancel_at'] asks for the run's cancel itself and takes a moment, so the runner sees
    the cancel before the next item."""

    name = "test_quick"
    title = "Quick test items"

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [f"item-{n}" for n in range(params["count"])]

    def quick_items(self, params: dict[str, Any]) -> bool:
        return True

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        if key in params.get("fail", []):
            raise ItemError(f"{key} failed as the test asked")
        if key == params.get("cancel_at"):
            cancel = update(Run).where(Run.id == run_id).values(cancel_requested_at=utcnow())
            db.session.execute(cancel)
            db.session.commit()
            time.sleep(CHECK_EVERY_SECONDS * 2)
        return {"item": key}
