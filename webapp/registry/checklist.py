"""A methodology checklist: its requirements, each with how it is validated and, for the
structured ones, the fields its evidence carries. Two are bundled, both Regen Network's
soil-carbon methodology v1.2.2: its registration checklist (a project plan and its land
tenure) and its credit issuance one (a monitoring round's report and credit statement);
another of the same shape can be read from JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from webapp.problems import Invalid, Problem

DATA = Path(__file__).parent / "data"
REGISTRATION, ISSUANCE = "registration", "issuance"
BUNDLED = {
    REGISTRATION: DATA / "soil-carbon-v1.2.2.json",
    ISSUANCE: DATA / "soil-carbon-v1.2.2-issuance.json",
}
BUNDLED_LABELS = {REGISTRATION: "Registration", ISSUANCE: "Issuance (monitoring round)"}


class ValidationType(StrEnum):
    document_presence = "document_presence"
    structured_field = "structured_field"
    cross_document = "cross_document"
    manual = "manual"


class StructuredField(StrEnum):
    """The fields evidence may carry, routed to their checks by name (never by requirement)."""

    owner_name = "owner_name"
    area_hectares = "area_hectares"
    tenure_type = "tenure_type"
    project_start_date = "project_start_date"
    crediting_period_years = "crediting_period_years"
    crediting_period_start = "crediting_period_start"
    crediting_period_end = "crediting_period_end"
    leakage_percentage = "leakage_percentage"
    permanence_period_years = "permanence_period_years"
    buffer_pool_percentage = "buffer_pool_percentage"
    project_id = "project_id"
    # A report's figures, for the arithmetic it carries (tonnes CO2e; a credit is one tonne).
    soc_change_tco2e = "soc_change_tco2e"
    project_emissions_tco2e = "project_emissions_tco2e"
    leakage_tco2e = "leakage_tco2e"
    net_reductions_tco2e = "net_reductions_tco2e"
    credits_issued = "credits_issued"
    # A monitoring round's credit statement: its total, divided into the buffer pool's
    # contribution and the credits pending issue (not issued yet).
    credits_pending_issue = "credits_pending_issue"
    credits_total = "credits_total"
    buffer_credits = "buffer_credits"


FIGURE_FIELDS = frozenset(
    {
        StructuredField.soc_change_tco2e,
        StructuredField.project_emissions_tco2e,
        StructuredField.leakage_tco2e,
        StructuredField.net_reductions_tco2e,
        StructuredField.credits_issued,
        StructuredField.credits_pending_issue,
        StructuredField.credits_total,
        StructuredField.buffer_credits,
    }
)

FIELD_LABELS = {
    StructuredField.owner_name: "Owner",
    StructuredField.area_hectares: "Area (ha)",
    StructuredField.tenure_type: "Tenure",
    StructuredField.project_start_date: "Project start date",
    StructuredField.crediting_period_years: "Crediting period (years)",
    StructuredField.crediting_period_start: "Crediting period start",
    StructuredField.crediting_period_end: "Crediting period end",
    StructuredField.leakage_percentage: "Leakage (%)",
    StructuredField.permanence_period_years: "Permanence period (years)",
    StructuredField.buffer_pool_percentage: "Buffer pool (%)",
    StructuredField.project_id: "Project ID",
    StructuredField.soc_change_tco2e: "SOC change (t CO2e)",
    StructuredField.project_emissions_tco2e: "Project emissions (t CO2e)",
    StructuredField.leakage_tco2e: "Leakage (t CO2e)",
    StructuredField.net_reductions_tco2e: "Net reductions (t CO2e)",
    StructuredField.credits_issued: "Credits issued",
    StructuredField.credits_pending_issue: "Credits pending issue",
    StructuredField.credits_total: "Total credits",
    StructuredField.buffer_credits: "Buffer pool credits",
}

Text = Annotated[str, Field(min_length=1, max_length=5000)]


class Limit(BaseModel):
    """The methodology's figure a field's value must meet ("a 10-year permanence period": at
    least 10): a value outside it does not cover its requirement, whatever the evidence."""

    model_config = ConfigDict(extra="forbid", strict=True)

    field: StructuredField
    at_least: float | None = None
    at_most: float | None = None
    why: Annotated[str, Field(max_length=500)] = ""

    @model_validator(mode="after")
    def _bounded(self) -> Limit:
        if self.at_least is None and self.at_most is None:
            raise ValueError("a limit needs at_least, at_most or both")
        if self.at_least is not None and self.at_most is not None and self.at_most < self.at_least:
            raise ValueError("at_most is below at_least")
        return self


class Requirement(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    requirement_id: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")]
    category: Annotated[str, Field(min_length=1, max_length=200)]
    requirement_text: Text
    source: Annotated[str, Field(max_length=500)] = ""
    accepted_evidence: Annotated[str, Field(max_length=5000)] = ""
    mandatory: bool = True
    validation_type: ValidationType = ValidationType.document_presence
    scope: Annotated[str, Field(max_length=50)] = ""
    structured_fields: list[StructuredField] = []
    # Figures its evidence may also carry for the arithmetic checks; not needed to cover it
    # (a project plan states no issuance yet).
    figures: list[StructuredField] = []
    # The methodology's figures its fields' values must meet.
    limits: Annotated[list[Limit], Field(max_length=20)] = []

    @property
    def asked(self) -> list[StructuredField]:
        """Every field its evidence is asked for: its structured fields, then its figures."""
        return [*self.structured_fields, *self.figures]


class Checklist(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    methodology_id: Annotated[str, Field(min_length=1, max_length=100)]
    methodology_name: Annotated[str, Field(min_length=1, max_length=300)]
    version: Annotated[str, Field(max_length=50)] = ""
    requirements: Annotated[list[Requirement], Field(min_length=1, max_length=500)]

    @field_validator("requirements")
    @classmethod
    def _unique(cls, requirements: list[Requirement]) -> list[Requirement]:
        seen: set[str] = set()
        for requirement in requirements:
            if requirement.requirement_id in seen:
                raise ValueError(f"{requirement.requirement_id} appears twice")
            seen.add(requirement.requirement_id)
        return requirements

    def requirement(self, requirement_id: str) -> Requirement | None:
        return next((r for r in self.requirements if r.requirement_id == requirement_id), None)


class ChecklistInvalid(Invalid):
    code = "checklist_invalid"


def _where(loc: tuple) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "the checklist"


def read_checklist(text: str) -> Checklist:
    """A checklist from JSON text; ChecklistInvalid names every problem by its path
    ("requirements[3].validation_type")."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise ChecklistInvalid(
            f"The checklist is not JSON: {exc.msg} (line {exc.lineno})."
        ) from None
    try:
        # From JSON, strict mode reads an enum from its string (and nothing else).
        return Checklist.model_validate_json(text)
    except ValidationError as exc:
        problems = [
            Problem(f"{_where(e['loc'])}: {e['msg']}", loc=_where(e["loc"]))
            for e in exc.errors(include_url=False)[:20]
        ]
        raise ChecklistInvalid(problems) from None


def bundled(name: str = REGISTRATION) -> Checklist:
    """A bundled checklist by name: Regen Network's soil-carbon methodology v1.2.2 for a
    registration (23 requirements) or for a credit issuance (29). ChecklistInvalid for
    another name."""
    if name not in BUNDLED:
        raise ChecklistInvalid(
            f"There is no bundled checklist “{name}”: choose {' or '.join(BUNDLED)}.",
            loc="bundled_checklist",
        )
    return _read_bundled(name)


@cache
def _read_bundled(name: str) -> Checklist:
    return read_checklist(BUNDLED[name].read_text(encoding="utf-8"))


def bundled_name(checklist: Mapping[str, Any]) -> str | None:
    """Which bundled checklist a review's stored checklist is, by its methodology id (None
    for an imported one)."""
    given = checklist.get("methodology_id")
    return next((n for n in BUNDLED if bundled(n).methodology_id == given), None)
