"""A review's codes in people's words, for its pages and its reports alike: a file's format,
a requirement's validation type and status, a check's name and result, a field, a kind of
document."""

from __future__ import annotations

from webapp.registry.checklist import FIELD_LABELS, StructuredField
from webapp.registry.dates import DateStyle
from webapp.registry.discovery import TYPE_LABELS, DocumentType
from webapp.registry.evidence import COVERAGE_LABELS, Coverage

KIND_LABELS = {
    "pdf": "PDF",
    "markdown": "Markdown",
    "text": "Text",
    "csv": "CSV",
    "xlsx": "Excel workbook",
}
VALIDATION_LABELS = {
    "document_presence": "Document present",
    "structured_field": "Structured field",
    "cross_document": "Across documents",
    "manual": "Manual review",
}
CHECK_STATUS_LABELS = {"pass": "Pass", "warning": "Warning", "fail": "Fail"}
# What a check named "<field>_<suffix>" checks.
CHECK_SUFFIXES = {"present": "stated", "valid": "valid", "consistent": "agrees across documents"}
CHECK_NAMES = {"net_balance": "Net balance adds up", "buffer_share": "Buffer share adds up"}
NOT_ASSESSED = "Not assessed yet"
# How a document writes its dates, as a person says it (none said: as its text shows).
DATE_STYLE_LABELS = {
    "": "As its text shows",
    DateStyle.day_first.value: "Day first (06/02 is 6 February)",
    DateStyle.month_first.value: "Month first (06/02 is June 2)",
}
# Where a value entered from a document that was deleted since came from.
DELETED_DOCUMENT = "a deleted document"
REVIEW_STATUS_LABELS = {"draft": NOT_ASSESSED, "assessed": "Assessed"}


def field_label(field: str | None) -> str:
    if field in StructuredField.__members__:
        return FIELD_LABELS[StructuredField(field)]
    return field or "—"


def check_label(check: str) -> str:
    if check in CHECK_NAMES:
        return CHECK_NAMES[check]
    field, _, suffix = check.rpartition("_")
    if field in StructuredField.__members__ and suffix in CHECK_SUFFIXES:
        return f"{field_label(field)} {CHECK_SUFFIXES[suffix]}"
    return check.replace("_", " ").capitalize()


def status_label(status: str | None) -> str:
    return COVERAGE_LABELS[Coverage(status)] if status in Coverage.__members__ else NOT_ASSESSED


def type_label(kind: str) -> str:
    return TYPE_LABELS[DocumentType(kind)] if kind in DocumentType.__members__ else kind


def review_status_label(status: str) -> str:
    return REVIEW_STATUS_LABELS.get(status, status)


def run_status_label(status: str) -> str:
    """A run's status as the run pages say it: "completed_with_errors" → "Completed with
    errors"."""
    return status.replace("_", " ").capitalize()
