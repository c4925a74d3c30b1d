"""Covered also means the value passes: each stated value against the methodology's figure
(a permanence of 5 years, a buffer of 10 %, a crediting period "2023–2040" stated as "10
years" were all Covered), a failing one making its requirement Partial with the reason."""

from datetime import date

import pytest

from tests.registry.test_discovery_and_evidence import PLAN
from webapp.registry.assessment import assess
from webapp.registry.checklist import ChecklistInvalid, Limit, bundled, read_checklist
from webapp.registry.checklist import StructuredField as F
from webapp.registry.evidence import Coverage
from webapp.registry.rules import FieldValue, Status, validate

TODAY = date(2026, 11, 26)
LIMITS = [limit for r in bundled().requirements for limit in r.limits]


def stated(field, value, document="Project plan.pdf", page=4, document_id=None):
    return FieldValue(field, value, document, page, None, document_id)


def figure_check(values, name):
    (check,) = [c for c in validate(values, TODAY, LIMITS) if c.check == name]
    return check


@pytest.mark.parametrize(
    ("field", "value", "passes"),
    [
        (F.permanence_period_years, "5 years", False),
        (F.permanence_period_years, "10 years", True),
        (F.permanence_period_years, "a 40-year permanence period", True),
        (F.buffer_pool_percentage, "10 %", False),
        (F.buffer_pool_percentage, "20%", True),
        (F.buffer_pool_percentage, "25 per cent", False),
        (F.crediting_period_years, "10 years", True),
        (F.crediting_period_years, "20 years", False),
        (F.leakage_percentage, "4.5 %", True),
        (F.leakage_percentage, "12 %", False),
    ],
)
def test_each_value_meets_the_methodologys_figure(field, value, passes):
    check = figure_check([stated(field, value)], f"{field.value}_methodology")
    assert check.status is (Status.passed if passes else Status.failed)
    if not passes:
        assert "Project plan.pdf, p. 4" in check.message and "the methodology asks" in check.message


def test_the_reason_names_the_methodologys_words():
    check = figure_check(
        [stated(F.permanence_period_years, "5 years")], "permanence_period_years_methodology"
    )
    assert check.message == (
        "Permanence period (years): 5 years in Project plan.pdf, p. 4, where the methodology "
        "asks at least 10 years — the project shall have a 10-year permanence period."
    )


def test_a_crediting_periods_length_is_checked_against_its_own_start_and_end():
    period = [
        stated(F.crediting_period_years, "10 years"),
        stated(F.crediting_period_start, "1 January 2023"),
        stated(F.crediting_period_end, "31 December 2040"),
    ]
    check = figure_check(period, "crediting_period_span")
    assert check.status is Status.failed and "is 18.0 years" in check.message
    period[2] = stated(F.crediting_period_end, "31 December 2032")
    assert figure_check(period, "crediting_period_span").status is Status.passed


def test_a_period_given_by_start_and_end_alone_is_measured_against_the_figure():
    period = [
        stated(F.crediting_period_start, "1 January 2023"),
        stated(F.crediting_period_end, "31 December 2040"),
    ]
    check = figure_check(period, "crediting_period_years_methodology")
    assert check.status is Status.failed and "18 years" in check.message


def test_an_end_before_the_start_fails():
    period = [
        stated(F.crediting_period_start, "1 January 2033"),
        stated(F.crediting_period_end, "31 December 2023"),
    ]
    assert figure_check(period, "crediting_period_span").status is Status.failed


@pytest.mark.parametrize(
    ("requirement", "entered", "expected"),
    [
        ("REQ-013", [(F.permanence_period_years, "5 years")], Coverage.partial),
        ("REQ-013", [(F.permanence_period_years, "10 years")], Coverage.covered),
        ("REQ-018", [(F.buffer_pool_percentage, "10 %")], Coverage.partial),
        ("REQ-018", [(F.buffer_pool_percentage, "20 %")], Coverage.covered),
        (
            "REQ-010",
            [
                (F.crediting_period_years, "10 years"),
                (F.crediting_period_start, "1 January 2023"),
                (F.crediting_period_end, "31 December 2040"),
            ],
            Coverage.partial,
        ),
        (
            "REQ-010",
            [
                (F.crediting_period_years, "10 years"),
                (F.crediting_period_start, "1 January 2023"),
                (F.crediting_period_end, "31 December 2032"),
            ],
            Coverage.covered,
        ),
        ("REQ-012", [(F.leakage_percentage, "12 %")], Coverage.partial),
    ],
)
def test_a_value_that_misses_the_figure_makes_its_requirement_partial(
    requirement, entered, expected
):
    values = [stated(field, value) for field, value in entered]
    assessment = assess(bundled(), [PLAN], {}, values, today=TODAY)
    (result,) = [r for r in assessment.requirements if r.requirement.requirement_id == requirement]
    assert result.coverage is expected


def test_a_limit_needs_a_bound_in_order():
    with pytest.raises(ValueError):
        Limit(field=F.buffer_pool_percentage)
    with pytest.raises(ValueError):
        Limit(field=F.buffer_pool_percentage, at_least=30, at_most=20)
    text = bundled().model_dump_json().replace('"at_least":10.0', '"at_least":"ten"', 1)
    with pytest.raises(ChecklistInvalid):
        read_checklist(text)
