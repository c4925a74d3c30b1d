"""Cultures and enrichment runs that tests (and the benchmarks) share."""

from collections.abc import Sequence
from typing import Any

from webapp.cultures.fields import unit_of
from webapp.cultures.models import Culture
from webapp.cultures.runs import CultureEnrichment
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus


def add_crowded_tomato() -> Culture:
    """A tomato at 10 × 10 cm (100 plants/m²): any per-plant tomato yield then implies an
    impossible yield per m², so its yield suggestion is always invalid."""
    culture = Culture(
        name="Tomate",
        variety="Harzfeuer",
        reference_crop="tomato",
        harvest_method="per_plant",
        distance_within_row_cm=10,
        row_spacing_cm=10,
    )
    db.session.add(culture)
    db.session.commit()
    return culture


def finished_enrichment(culture_ids: list[int], user=None, item_errors=None) -> Run:
    """An enrichment run over these cultures as a worker leaves it once every item is done;
    its suggestions are added with suggestion() and store_suggestions."""
    keys = [str(i) for i in culture_ids]
    failed = item_errors or {}
    run = Run(
        kind=CultureEnrichment.name,
        title=f"Enrich {len(keys)} cultures",
        params={"culture_ids": list(culture_ids), "mode": "complete", "fields": []},
        requested_by=user,
        items=keys,
        done_items=[k for k in keys if k not in failed],
        item_errors=failed,
        total=len(keys),
        done=len(keys),
        status=RunStatus.completed_with_errors if failed else RunStatus.succeeded,
        provider="offline",
    )
    db.session.add(run)
    db.session.commit()
    return run


def suggestion(
    run: Run,
    culture_id: int,
    field: str,
    value: Any,
    current: Any = None,
    issues: Sequence[dict[str, Any]] = (),
    status: str = "pending",
) -> dict[str, Any]:
    """One suggestion of a run as a row for review.service.store_suggestions, with a source."""
    return {
        "run_id": run.id,
        "target_type": "culture",
        "target_id": culture_id,
        "field": field,
        "current_value": current,
        "suggested_value": value,
        "unit": unit_of(field) or None,
        "confidence": "medium",
        "evidence": [
            {
                "source_url": "https://example.org/guide",
                "title": "Growing guide",
                "claim_summary": f"{field}: {value}",
                "source_kind": "web",
                "retrieved_at": None,
                "derived": False,
            }
        ],
        "issues": list(issues),
        "status": "blocked" if any(i["severity"] == "error" for i in issues) else status,
    }


def issue(severity: str, field: str, message: str, code: str = "checked") -> dict[str, Any]:
    return {"code": code, "severity": severity, "field": field, "message": message, "details": {}}
