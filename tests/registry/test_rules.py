"""Cross-validation rules over structured fields found in documents (seed 004's regressions
first: a year is never a project ID, "The Project" is never an owner)."""

from datetime import date

import pytest

from webapp.registry.checklist import StructuredField as F
from webapp.registry.dates import DateStyle
from webapp.registry.rules import (
    FieldValue,
    Status,
    across,
    buffer_share,
    net_balance,
    read_number,
    structural,
    validate,
)

TODAY = date(2026, 11, 26)


def one(field, value, document="Project plan", page=3, style=None):
    return FieldValue(field, value, document, page, style)


def status_of(value):
    (check,) = structural(value, TODAY)
    return check.status, check.message


@pytest.mark.parametrize("year", ["2023", "2024", "1999"])
def test_a_year_is_never_a_project_id(year):
    status, message = status_of(one(F.project_id, year))
    assert status is Status.failed and "is a year" in message


@pytest.mark.parametrize(
    "owner",
    [
        "The Project",
        "the landowner",
        "Project Proponent",
        "N/A",
        "Project Owner",
        "the project owner",
        "Landowner:",
        "THE LANDOWNER.",
        "“The Project”",
        "-",
        "the landowner(s)",
        "The Project Proponent(s)",
        "Landowner / Farmer",
        "Landowner & Farmer",
        "owner or tenant",
        "Unknown Owner",
        "Not applicable",
        "TBC",
        "The Landowners",
        "Name of owner",
        "The Company Ltd",
        # A heading, or a tenure, read as the owner (a small model quoted them).
        "Land tenure",
        "Title deed",
        "Freehold",
        "Ownership details",
        "Registered proprietor",
    ],
)
def test_a_generic_owner_is_rejected(owner):
    status, message = status_of(one(F.owner_name, owner))
    assert status is Status.failed and "names no one" in message


@pytest.mark.parametrize(
    "owner",
    [
        "John Farmer",
        "Owen Landers",
        "Farmer Giles",
        "Sam Grower",
        "Tennant",
        "Na Li",
        "Co Nguyen",
        "Denman farm",
        "Title Holdings Ltd",
    ],
)
def test_a_name_with_a_role_word_in_it_is_a_name(owner):
    assert status_of(one(F.owner_name, owner))[0] is Status.passed


@pytest.mark.parametrize("heading", ["land tenure", "Land Tenure", "Tenure", "Title", "N/A"])
def test_a_tenure_that_names_no_form_of_tenure_is_not_valid(heading):
    """A heading read as the value (a small model's "land tenure", at confidence 0) passed
    "Tenure valid"; only a form of tenure is one."""
    status, message = status_of(one(F.tenure_type, heading))
    assert status is Status.failed and "names no form of tenure" in message


@pytest.mark.parametrize(
    "tenure", ["Freehold", "owned freehold", "100 % owned", "Leasehold", "tenancy", "Licence"]
)
def test_a_form_of_tenure_in_any_words_is_valid(tenure):
    assert status_of(one(F.tenure_type, tenure))[0] is Status.passed


@pytest.mark.parametrize(
    ("field", "value", "status"),
    [
        (F.project_id, "C06-4997", Status.passed),
        (F.project_id, "2023ABC01", Status.passed),
        (F.project_id, "Project 7", Status.warning),  # a shape the registry does not write
        (F.owner_name, "Nicholas Denman", Status.passed),
        (F.leakage_percentage, "5%", Status.passed),
        (F.leakage_percentage, 120, Status.failed),
        (F.leakage_percentage, "5-10 %", Status.failed),  # a range is not one figure
        (F.leakage_percentage, "5 t/ha", Status.failed),
        (F.buffer_pool_percentage, "twenty", Status.failed),
        (F.area_hectares, "250 acres", Status.passed),
        (F.area_hectares, "0 ha", Status.failed),
        (F.area_hectares, "2,000,000 ha", Status.warning),
        (F.area_hectares, "250 bushels", Status.failed),
        (F.crediting_period_years, "10 years", Status.passed),
        (F.crediting_period_years, 0, Status.failed),
        (F.permanence_period_years, 101, Status.failed),
        (F.project_start_date, "2022-01-15", Status.passed),
        (F.project_start_date, "1985-01-01", Status.failed),
        (F.project_start_date, "2029-01-01", Status.failed),  # more than 2 years ahead
        (F.crediting_period_end, "2060-01-01", Status.passed),  # an end may be 50 years ahead
        (F.crediting_period_end, "2080-01-01", Status.failed),
        (F.project_start_date, "June 2023", Status.failed),
    ],
)
def test_each_value_on_its_own(field, value, status):
    assert status_of(one(field, value))[0] is status


def test_acres_are_read_in_hectares():
    check = structural(one(F.area_hectares, "250 acres"), TODAY)[0]
    assert check.status is Status.passed
    (consistent,) = across(
        [one(F.area_hectares, "250 acres"), one(F.area_hectares, "101.2 ha", "Deed")]
    )
    assert consistent.status is Status.passed


def test_an_ambiguous_date_asks_the_reviewer_unless_the_document_says_its_style():
    status, message = status_of(one(F.project_start_date, "06/02/2023"))
    assert status is Status.warning and "say which" in message
    british = one(F.project_start_date, "06/02/2023", style=DateStyle.day_first)
    assert status_of(british)[0] is Status.passed


def test_dates_across_documents_within_120_days():
    plan = one(F.project_start_date, "2023-01-01")
    near = one(F.project_start_date, "15 March 2023", "Baseline report")
    far = one(F.project_start_date, "2023-09-01", "Monitoring report")
    (check,) = across([plan, near])
    assert check.status is Status.passed and "within 73 days" in check.message
    (check,) = across([plan, near, far])
    assert check.status is Status.failed and "243 days apart" in check.message
    assert check.values == {
        "Project plan": "2023-01-01",
        "Baseline report": "15 March 2023",
        "Monitoring report": "2023-09-01",
    }


def test_owners_across_documents():
    plan = one(F.owner_name, "Nicholas Denman")
    (check,) = across([plan, one(F.owner_name, "Nick Denman", "Land tenure")])
    assert check.status is Status.warning and "may be one person" in check.message
    (check,) = across([plan, one(F.owner_name, "Mary Denman", "Land tenure")])
    assert check.status is Status.failed and "different people" in check.message
    (check,) = across([plan, one(F.owner_name, "NICHOLAS DENMAN", "Land tenure")])
    assert check.status is Status.passed


def test_numbers_across_documents_within_5_percent():
    plan = one(F.area_hectares, 100)
    (check,) = across([plan, one(F.area_hectares, "104 ha", "Deed")])
    assert check.status is Status.passed
    (check,) = across([plan, one(F.area_hectares, "110 ha", "Deed")])
    assert check.status is Status.failed and "9% apart" in check.message


def test_one_value_stated_twice_is_not_a_comparison():
    assert across([one(F.area_hectares, 100), one(F.area_hectares, "100 ha", page=9)]) == []


def test_every_value_is_compared_not_only_each_documents_first():
    plan = one(F.owner_name, "Nicholas Denman")
    deed = [
        one(F.owner_name, "Denman, Nicholas", "Deed", 1),
        one(F.owner_name, "Mary Smith", "Deed", 2),
    ]
    (check,) = across([plan, *deed])
    assert check.status is Status.failed
    assert "“Nicholas Denman” and “Mary Smith” are different people" in check.message
    assert "Deed, p. 1 and Deed, p. 2: “Denman, Nicholas” and “Mary Smith”" in check.message
    assert "Project plan and Deed, p. 1" not in check.message  # only what disagrees is listed
    assert check.values == {
        "Project plan": "Nicholas Denman",
        "Deed": "Denman, Nicholas; Mary Smith",
    }
    (agreeing,) = across([plan, deed[0]])
    assert agreeing.status is Status.passed


def test_a_document_giving_two_areas_is_flagged():
    (check,) = across([one(F.area_hectares, 100), one(F.area_hectares, 300, page=9)])
    assert check.status is Status.failed
    assert "Project plan, p. 3 and Project plan, p. 9: 67% apart" in check.message


def test_owner_and_start_date_must_be_stated():
    checks = validate([one(F.area_hectares, 100)], TODAY)
    missing = [c for c in checks if c.check.endswith("_present")]
    assert {c.field for c in missing} == {F.owner_name, F.project_start_date}
    assert all(c.status is Status.failed and "reviewer input" in c.message for c in missing)
    stated = validate(
        [one(F.owner_name, "Ann Lee"), one(F.project_start_date, "2023-01-01")], TODAY
    )
    assert all(c.status is Status.passed for c in stated)
    assert stated[0].to_dict() == {
        "check": "owner_name_present",
        "field": "owner_name",
        "status": "pass",
        "values": {},
        "message": "Owner is stated.",
    }


def test_report_arithmetic():
    figures = {"soc_change": 1200.0, "emissions": 150.0, "leakage": 50.0, "net": 1000.0}
    assert net_balance(figures, "Monitoring report").status is Status.passed
    wrong = net_balance(figures | {"net": 1100.0}, "Monitoring report")
    assert wrong.status is Status.failed and "= 1000" in wrong.message
    assert buffer_share(1000, 20, 200, "Monitoring report").status is Status.passed
    short = buffer_share(1000, 20, 150, "Monitoring report")
    assert short.status is Status.failed and "20 % of 1000 is 200" in short.message


def report_figures(document="Monitoring report 2024", **figures):
    return [one(F[name], value, document, page=12) for name, value in figures.items()]


def test_a_reports_figures_are_checked_to_add_up_where_it_states_them_all():
    report = report_figures(
        soc_change_tco2e="1,200 tCO2e",
        project_emissions_tco2e="150 t CO2e",
        leakage_tco2e="50 tonnes",
        net_reductions_tco2e="1,100 tCO2e",
        credits_issued="1000 credits",
        buffer_credits="200",
    )
    stated = [*report, one(F.buffer_pool_percentage, "20%", "Project plan")]
    found = {c.check: c for c in validate(stated, TODAY)}
    assert found["net_balance"].status is Status.failed
    assert (
        "= 1000" in found["net_balance"].message
        and found["net_balance"].field is F.net_reductions_tco2e
    )
    # The buffer share comes from the plan when the report does not state it.
    assert found["buffer_share"].status is Status.passed


def test_no_sum_is_checked_from_figures_a_report_does_not_all_state():
    partial = report_figures(soc_change_tco2e="1200 tCO2e", net_reductions_tco2e="1000 tCO2e")
    other = report_figures("Baseline report", project_emissions_tco2e="150 t", leakage_tco2e="50 t")
    names = {c.check for c in validate(partial + other, TODAY)}
    assert "net_balance" not in names and "buffer_share" not in names


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("1200 tons", "is not a figure in tonnes CO2e"),
        ("1,000–1,200 tCO2e", "is a range"),
        ("about a thousand", "states no number"),
    ],
)
def test_a_figure_that_is_not_one_in_tonnes_is_a_failure(value, words):
    status, message = status_of(one(F.soc_change_tco2e, value, "Monitoring report"))
    assert status is Status.failed and words in message


def test_credits_below_zero_fail_but_a_net_loss_is_a_figure():
    assert status_of(one(F.credits_issued, "-5"))[0] is Status.failed
    assert status_of(one(F.net_reductions_tco2e, "-40 tCO2e"))[0] is Status.passed


def test_dates_are_checked_on_a_leap_day():
    leap_day = date(2028, 2, 29)
    start = structural(one(F.project_start_date, "2030-02-28"), leap_day)
    too_late = structural(one(F.project_start_date, "2030-03-01"), leap_day)
    end = structural(one(F.crediting_period_end, "2078-02-28"), leap_day)
    assert [c.status for c in start + end] == [Status.passed, Status.passed]
    assert too_late[0].status is Status.failed and "2 years ahead" in too_late[0].message
    checks = validate([one(F.project_start_date, "2024-02-29")], leap_day)
    dated = {c.check: c.status for c in checks if c.field == F.project_start_date}
    assert dated == {
        "project_start_date_valid": Status.passed,
        "project_start_date_present": Status.passed,
    }


def test_a_generic_owner_is_not_a_stated_owner():
    checks = validate([one(F.owner_name, "the project owner")], TODAY)
    present = next(c for c in checks if c.check == "owner_name_present")
    assert present.status is Status.failed and "needs reviewer input" in present.message
    named = validate([one(F.owner_name, "Nicholas Denman")], TODAY)
    assert next(c for c in named if c.check == "owner_name_present").status is Status.passed


@pytest.mark.parametrize(
    ("field", "value", "read"),
    [
        (F.leakage_percentage, "Section 5.4: 20%", 20),
        (F.leakage_percentage, "Leakage (REQ-012): 5%", 5),
        (F.buffer_pool_percentage, "20 per cent", 20),
        (F.area_hectares, "In 2023, 120 ha", 120),
        (F.area_hectares, "250 acres (101.2 ha)", 101.17),  # one area in two units
        (F.crediting_period_years, "Phase 2: 10 years", 10),
        (F.crediting_period_years, "a 10-year period", 10),
        (F.credits_issued, "Table 4: 200 credits", 200),
        (F.soc_change_tco2e, "1,200 t CO2e", 1200),
        (F.area_hectares, "250", 250),  # a lone number is in the field's unit
        (F.leakage_percentage, "Section 5.4: 20", 20),  # 5.4 refers to a section
        # A number written with a thousands separator or decimals is not a year.
        (F.area_hectares, "2,000", 2000),
        (F.area_hectares, "2 000", 2000),
        (F.area_hectares, "2000.5", 2000.5),
    ],
)
def test_the_figure_is_the_number_written_with_the_fields_unit(field, value, read):
    number, problem = read_number(one(field, value))
    assert problem is None and number == pytest.approx(read, rel=1e-3)


def test_an_area_with_a_thousands_separator_agrees_with_the_same_area_in_hectares():
    values = [
        FieldValue(F.area_hectares, "2,000", "Project plan", 1, document_id=1),
        FieldValue(F.area_hectares, "2000 ha", "Baseline report", 2, document_id=2),
    ]
    statuses = {c.check: c.status for c in validate(values, TODAY) if c.field == F.area_hectares}
    assert statuses == {
        "area_hectares_valid": Status.passed,
        "area_hectares_consistent": Status.passed,
    }


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        (F.area_hectares, "2023", "is a year, not an area in hectares"),
        (F.leakage_percentage, "2023", "is a year, not a percentage"),
        (F.crediting_period_years, "2030", "is a year, not a number of years"),
        (F.leakage_percentage, "20, 25", "several numbers, none of them a percentage"),
        (F.area_hectares, "Field 3, 2023", "several numbers, none of them an area"),
        (F.leakage_percentage, "FAO-56", "is a reference, not a percentage"),
        (F.leakage_percentage, "5% in 2023, 8% in 2024", "states “5%” and “8%”: say which"),
        (F.area_hectares, "120 ha and 300 ha", "states “120 ha” and “300 ha”: say which"),
        (F.credits_issued, "Table 4", "is a reference, not a figure in tonnes CO2e"),
        (F.area_hectares, "nan ha", "states no number"),
        (F.area_hectares, "1/2 ha", "is a fraction"),
    ],
)
def test_a_reference_a_year_or_two_figures_is_not_the_answer(field, value, words):
    number, problem = read_number(one(field, value))
    assert number is None and words in problem
    (check,) = structural(one(field, value), TODAY)
    assert check.status is Status.failed and words in check.message
