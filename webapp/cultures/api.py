"""The cultures' JSON API (/api/v1/cultures): the catalog, its import and check, and enrichment
runs; the same rules as the pages."""

from __future__ import annotations

from typing import Annotated, Any

from flask import jsonify, request
from flask_login import current_user
from pydantic import Field
from sqlalchemy import select

from webapp.api import BodyInvalid, json_body
from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.contract import (
    Id,
    Name,
    Names,
    Paging,
    QueryModel,
    RequestModel,
    accepts,
    spec_model,
)
from webapp.cultures import api, catalog
from webapp.cultures.fields import FIELDS, LABELS
from webapp.cultures.importing import ImportPreview, import_rows, preview_file
from webapp.cultures.models import Culture
from webapp.cultures.runs import start_enrichment
from webapp.cultures.views import culture_or_404, page_of
from webapp.extensions import db
from webapp.pagination import page_number, per_page
from webapp.problems import Invalid, Problem
from webapp.review.vocabulary import Issue
from webapp.uploads import CSV_MAX_BYTES, read_csv


class CultureQuery(Paging):
    q: Annotated[str, Field(max_length=500)] = ""
    missing: Name = ""
    sort: Name = ""
    dir: Name = ""


NewCulture = spec_model("NewCulture", FIELDS, required=("name",), save_anyway=(bool, False))
CultureChange = spec_model("CultureChange", FIELDS, save_anyway=(bool, False))


# What starting a run answers.
QUEUED = {202: "Queued.", 409: "Already being enriched: details.run_id is that run."}


class EnrichBatch(RequestModel):
    ids: Annotated[list[Id], Field(min_length=1, max_length=10_000)]
    mode: Name = "complete"
    fields: Names = []


class ImportQuery(QueryModel):
    dry_run: bool = False
    save_anyway: bool = False


class EnrichOne(RequestModel):
    mode: Name = "complete"
    fields: Names = []


@api.get("")
@accepts(query=CultureQuery, summary="Cultures, filtered, sorted and paged.")
def api_index():
    filters = catalog.CultureFilters.from_args(request.args)
    page = page_of(filters, page_number(request.args), per_page(request.args, catalog.PER_PAGE))
    return jsonify(page.as_json("cultures", [catalog.to_dict(c) for c in page.items]))


IMPLAUSIBLE = "Some values are implausible; check them, or send save_anyway: true to keep them."


class Implausible(Invalid):
    """Values a rule finds implausible, not confirmed with "save_anyway": true."""

    code = "implausible_values"

    def __init__(self, findings: list[Issue]) -> None:
        self.findings = findings
        problems = [Problem(i.message, i.field or "", i.code) for i in catalog.blocking(findings)]
        super().__init__(problems, summary=IMPLAUSIBLE)

    def error_details(self) -> dict[str, Any]:
        return {"issues": [i.to_dict() for i in self.findings], **super().error_details()}


def api_entry(culture: Culture | None) -> tuple[dict[str, Any], list[Issue]]:
    """The body's culture values and the findings they bring; Invalid refuses invalid values,
    and implausible ones not confirmed with "save_anyway": true."""
    body = dict(json_body())
    save_anyway = body.pop("save_anyway", False)
    if not isinstance(save_anyway, bool):
        raise BodyInvalid("save_anyway is true or false.", loc="save_anyway")
    findings = catalog.entry_findings(body, culture)
    if catalog.blocking(findings) and not save_anyway:
        raise Implausible(findings)
    return body, findings


@api.post("")
@require_role(Role.editor)
@accepts(NewCulture, answers={201: "Created, with its plausibility findings."})
def api_create():
    """A new culture."""
    values, findings = api_entry(None)
    culture = catalog.create_culture(values)
    db.session.commit()
    return jsonify({**catalog.to_dict(culture), "issues": [i.to_dict() for i in findings]}), 201


@api.post("/enrich-batch")
@require_role(Role.editor)
@accepts(
    EnrichBatch,
    answers=QUEUED,
    summary="Research many cultures in one run.",
)
def api_enrich_batch():
    body = json_body()
    ids = [i for i in body.get("ids") or [] if isinstance(i, int)]
    existing = (
        list(db.session.scalars(select(Culture.id).where(Culture.id.in_(ids)))) if ids else []
    )
    if not existing:
        raise Invalid("Give the ids of existing cultures in `ids`.", code="no_cultures", loc="ids")
    run = start_enrichment(
        existing, current_user, body.get("mode", "complete"), body.get("fields") or []
    )
    return jsonify(run_id=run.id, cultures=len(existing)), 202


class ImportInvalid(Invalid):
    """A catalog file that cannot be imported: every row's problems, each at its line and
    field ("line 3: expected_yield")."""

    code = "import_invalid"

    def __init__(self, preview: ImportPreview) -> None:
        self.preview = preview
        where = "line" if preview.kind == "CSV" else "culture"
        problems = [
            Problem(
                f"{where.capitalize()} {row.line}, {LABELS.get(f, f)}: {m}",
                f"{where}.{row.line}.{f}",
            )
            for row in preview.error_rows
            for f, m in row.errors.items()
        ]
        super().__init__(
            problems or [Problem(preview.problem or "The file cannot be imported.", "file")],
            summary=preview.problem
            or f"{len(preview.error_rows)} row(s) have errors; nothing was imported.",
        )

    def error_details(self) -> dict[str, Any]:
        return {"preview": self.preview.to_dict(LABELS), **super().error_details()}


def import_text() -> str:
    """The file an import call sends: a multipart file, or the body itself (text/csv or
    OpenFarmPlanner's JSON); held to the upload's size and UTF-8."""
    upload = request.files.get("file")
    if upload is not None:
        return read_csv(upload.stream, CSV_MAX_BYTES)
    return read_csv(request.get_data(cache=True), CSV_MAX_BYTES)


@api.post("/import")
@require_role(Role.editor)
@takes_upload()
@accepts(
    query=ImportQuery,
    answers={
        200: "The preview (dry_run=1) or what was imported: created, updated, unchanged.",
        422: "Rows with errors, each named by line and field; nothing was imported.",
    },
    summary="Import cultures: CSV (text/csv or a multipart file) or OpenFarmPlanner JSON.",
)
def api_import():
    text = import_text()
    if not text.strip():
        raise Invalid("Send a CSV or OpenFarmPlanner JSON file.", code="file_missing", loc="file")
    preview = preview_file(text)
    if not preview.can_import:
        raise ImportInvalid(preview)
    query = ImportQuery.model_validate(request.args.to_dict(flat=True))
    if query.dry_run:
        return jsonify(dry_run=True, **preview.to_dict(LABELS))
    if preview.implausible_rows and not query.save_anyway:
        raise Implausible([i for row in preview.implausible_rows for i in row.findings])
    counts = import_rows(preview, current_user)
    db.session.commit()
    return jsonify(dry_run=False, **preview.to_dict(LABELS), imported=counts)


@api.get("/check")
@accepts(query=CultureQuery, summary="Plausibility findings over the catalog.")
def api_check():
    cultures = db.session.scalars(catalog.CultureFilters.from_args(request.args).query()).all()
    findings = [
        {"culture_id": f.culture.id, "culture": f.culture.label, **f.issue.to_dict()}
        for f in catalog.check_catalog(cultures)
    ]
    return jsonify(checked=len(cultures), findings=findings)


@api.post("/<int:culture_id>/enrich")
@require_role(Role.editor)
@accepts(
    EnrichOne,
    answers=QUEUED,
    body_required=False,
    summary="Research one culture.",
)
def api_enrich(culture_id: int):
    culture = culture_or_404(culture_id)
    body = request.get_json(silent=True) or {}
    run = start_enrichment(
        [culture.id], current_user, body.get("mode", "complete"), body.get("fields") or []
    )
    return jsonify(run_id=run.id), 202


@api.get("/<int:culture_id>")
@accepts(summary="One culture.")
def api_show(culture_id: int):
    return jsonify(catalog.to_dict(culture_or_404(culture_id)))


@api.patch("/<int:culture_id>")
@require_role(Role.editor)
@accepts(CultureChange, summary="Change some of a culture's fields.")
def api_update(culture_id: int):
    culture = culture_or_404(culture_id)
    values, findings = api_entry(culture)
    catalog.edit_culture(culture, values, current_user)
    db.session.commit()
    return jsonify({**catalog.to_dict(culture), "issues": [i.to_dict() for i in findings]})


@api.delete("/<int:culture_id>")
@require_role(Role.reviewer)
@accepts(answers={204: "Deleted."}, summary="Delete a culture.")
def api_delete(culture_id: int):
    db.session.delete(culture_or_404(culture_id))
    db.session.commit()
    return "", 204
