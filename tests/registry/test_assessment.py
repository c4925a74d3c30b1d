"""A review assessed as plain data: offline evidence leaves structured fields to a person;
fields carried by the model's snippets (or entered) are routed by name and cross-validated."""

from datetime import date

from tests.registry.test_discovery_and_evidence import DEED, PLAN
from webapp.registry.assessment import assess, field_values
from webapp.registry.checklist import StructuredField as F
from webapp.registry.checklist import bundled
from webapp.registry.dates import DateStyle
from webapp.registry.evidence import Coverage, Passage
from webapp.registry.rules import FieldValue, Status, validate

CHECKLIST = bundled()
TODAY = date(2026, 11, 26)


def by_id(assessment):
    return {r.requirement.requirement_id: r for r in assessment.requirements}


def checks(assessment):
    return {c.check: c for c in assessment.checks}


def test_offline_structured_fields_need_a_person_and_are_never_guessed():
    assessment = assess(CHECKLIST, [PLAN, DEED], {}, today=TODAY)
    results = by_id(assessment)
    assert len(results) == 23
    assert results["REQ-002"].coverage is Coverage.needs_input and results["REQ-002"].snippets
    assert results["REQ-002"].fields == []
    assert results["REQ-017"].coverage is Coverage.covered
    assert results["REQ-016"].coverage is Coverage.needs_input  # manual
    found = checks(assessment)
    assert found["owner_name_present"].status is Status.failed
    assert "reviewer input" in found["owner_name_present"].message
    assert results["REQ-002"].to_dict()["snippets"][0]["page"] == 3


def test_entered_and_carried_fields_are_routed_by_name_and_cross_validated():
    owner = Passage.at(
        1,
        "Project plan.pdf",
        3,
        None,
        "owned by Nick Denman",
        0.9,
        {"owner_name": "Nick Denman", "area_hectares": "250 acres"},
    )
    deed = Passage.at(
        2, "Deed.pdf", 1, None, "Nicholas Denman, owner", 0.9, {"owner_name": "Nicholas Denman"}
    )
    year = Passage.at(
        1,
        "Project plan.pdf",
        2,
        None,
        "the 2023 project",
        0.8,
        {"project_id": "2023", "project_start_date": "06/02/2023"},
    )
    styles = {1: DateStyle.day_first, 2: None}
    entered = [FieldValue(F.tenure_type, "freehold", "Deed.pdf", 1)]
    assessment = assess(
        CHECKLIST,
        [PLAN, DEED],
        styles,
        entered,
        found={"REQ-002": [owner, deed], "REQ-007": [year]},
        today=TODAY,
    )
    results = by_id(assessment)
    assert results["REQ-002"].coverage is Coverage.covered  # two spellings: a warning
    # Both of its fields are stated, but the ID is a year: a failed check covers nothing.
    assert results["REQ-007"].coverage is Coverage.partial
    found = checks(assessment)
    assert found["owner_name_consistent"].status is Status.warning
    assert found["project_id_valid"].status is Status.failed  # a year is never an ID
    start = [c for c in assessment.checks if c.check == "project_start_date_valid"]
    assert start[0].status is Status.passed  # 6 February, the plan writes day first
    assert found["owner_name_present"].status is Status.passed


def test_evidence_kept_from_before_fields_existed_still_validates():
    old = Passage.at(1, "Project plan.pdf", 3, None, "owned by Nicholas Denman", 0.9)
    assert field_values([old], {}) == []
    assessment = assess(CHECKLIST, [PLAN], {}, found={"REQ-002": [old]}, today=TODAY)
    assert by_id(assessment)["REQ-002"].coverage is Coverage.needs_input
    assert checks(assessment)["owner_name_present"].status is Status.failed


def test_a_reviewers_value_supersedes_the_models_from_the_same_document():
    generic = Passage.at(
        1, "Project plan.pdf", 3, None, "The Project owns the land", 0.9,
        {"owner_name": "The Project"},
    )  # fmt: skip
    deed = Passage.at(
        2, "Deed.pdf", 1, None, "Nicholas Denman, owner", 0.9, {"owner_name": "Nicholas Denman"}
    )
    found = {"REQ-002": [generic, deed]}
    before = assess(CHECKLIST, [PLAN, DEED], {}, found=found, today=TODAY)
    owner = [c for c in before.checks if c.check == "owner_name_valid"]
    assert [c.status for c in owner] == [Status.failed, Status.passed]
    assert by_id(before)["REQ-002"].coverage is Coverage.partial

    corrected = FieldValue(F.owner_name, "Nicholas Denman", "Project plan.pdf", 4, document_id=1)
    after = assess(CHECKLIST, [PLAN, DEED], {}, [corrected], found=found, today=TODAY)
    owner = [c for c in after.checks if c.check == "owner_name_valid"]
    assert [c.status for c in owner] == [Status.passed, Status.passed]
    assert checks(after)["owner_name_consistent"].status is Status.passed
    tenure = by_id(after)["REQ-002"]
    assert tenure.superseded == [
        FieldValue(F.owner_name, "The Project", "Project plan.pdf", 3, document_id=1)
    ]
    assert corrected in tenure.fields and not any(v.value == "The Project" for v in tenure.fields)
    # Another document's value is not the reviewer's to replace: the deed's stays.
    assert (
        FieldValue(F.owner_name, "Nicholas Denman", "Deed.pdf", 1, document_id=2, on_title=True)
        in tenure.fields
    )


def test_documents_are_told_apart_by_id_not_name():
    """Two documents of one name (kept from before a review refused a second): a reviewer's
    value replaces the model's from its own document only, and their values are compared."""
    model = Passage.at(
        3, "plan.pdf", 2, None, "The Project owns the land", 0.9, {"owner_name": "The Project"}
    )
    found = {"REQ-002": [model]}
    mine = FieldValue(F.owner_name, "Nicholas Denman", "plan.pdf", 4, document_id=1)
    tenure = by_id(assess(CHECKLIST, [PLAN], {}, [mine], found=found, today=TODAY))["REQ-002"]
    assert tenure.superseded == []
    assert FieldValue(F.owner_name, "The Project", "plan.pdf", 2, document_id=3) in tenure.fields

    # One value from each: two documents agree, not one document stating it once.
    same_area = [
        FieldValue(F.area_hectares, "100 ha", "plan.pdf", 1, document_id=1),
        FieldValue(F.area_hectares, "100 ha", "plan.pdf", 1, document_id=3),
    ]
    (consistent,) = [c for c in validate(same_area, TODAY) if c.check == "area_hectares_consistent"]
    assert consistent.status is Status.passed

    figures = {
        F.soc_change_tco2e: "1000 tCO2e",
        F.project_emissions_tco2e: "100 tCO2e",
        F.leakage_tco2e: "0 tCO2e",
        F.net_reductions_tco2e: "900 tCO2e",
    }
    one = [FieldValue(f, v, "plan.pdf", 5, document_id=1) for f, v in figures.items()]
    # The other document's net alone: it is not added to the first's sum.
    other = [FieldValue(F.net_reductions_tco2e, "50 tCO2e", "plan.pdf", 5, document_id=3)]
    balances = [c for c in validate(other + one, TODAY) if c.check == "net_balance"]
    assert [c.status for c in balances] == [Status.passed]


def test_a_requirement_whose_field_fails_its_check_is_not_covered():
    def start(project_id, start_date):
        entered = [
            FieldValue(F.project_id, project_id, "Project plan.pdf", 2),
            FieldValue(F.project_start_date, start_date, "Project plan.pdf", 2),
        ]
        assessment = assess(CHECKLIST, [PLAN], {}, entered, today=TODAY)
        return by_id(assessment)["REQ-007"].coverage, assessment

    coverage, assessment = start("2023", "2023")
    assert coverage is Coverage.partial
    failed = {c.check for c in assessment.checks if c.status is Status.failed}
    assert {"project_id_valid", "project_start_date_valid"} <= failed
    assert start("C01-1234", "2023")[0] is Coverage.partial  # a year is not a date
    assert start("C01-1234", "6 February 2023")[0] is Coverage.covered
