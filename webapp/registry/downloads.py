"""The review's evidence and validation as JSON downloads (`evidence.json`, `validation.json`):
the same content as the evidence and validation calls, as files."""

from __future__ import annotations

from flask import Response

from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.contract import accepts
from webapp.registry import api, report, reviews
from webapp.registry.api_views import entered_dict, requirements_of, review_or_404
from webapp.registry.models import Review


def json_download(data: object, review: Review, what: str) -> Response:
    filename = report.download_name(review.name, review.id, "json", what)
    return Response(
        report.json_file(data),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@api.get("/<int:review_id>/evidence.json")
@require_role(Role.editor)
@accepts(summary="The evidence call's answer as a JSON file (a download).")
def api_evidence_json(review_id: int):
    review = review_or_404(review_id)
    found = report.evidence(requirements_of(review), entered_dict(review))
    return json_download(found, review, "evidence")


@api.get("/<int:review_id>/validation.json")
@require_role(Role.editor)
@accepts(summary="The validation call's answer as a JSON file (a download).")
def api_validation_json(review_id: int):
    review = review_or_404(review_id)
    return json_download(report.validation(reviews.checks(review)), review, "validation")
