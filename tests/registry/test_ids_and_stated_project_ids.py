"""Project IDs as the registry writes them (issue 23, §2): "C06-4997" and
"<digits><FarmName><yy>" ("123456Example23") are IDs; another shape is a warning a reviewer
checks, never a failure; a year or words without a number are no ID. The same ID across
documents is cross-checked, each pair that differs named by its documents."""

from datetime import date

import pytest

from tests.registry import documents as made
from tests.registry.test_pipeline_offline import assessed
from webapp.extensions import db
from webapp.registry.checklist import StructuredField as F
from webapp.registry.checklist import bundled
from webapp.registry.extraction import build_prompt
from webapp.registry.pages import pages_of
from webapp.registry.review_state import checks, enter_fields, requirement
from webapp.registry.rules import FieldValue, Status, across, structural

TODAY = date(2026, 11, 26)


def project_id(value, document="Project plan.pdf"):
    return FieldValue(F.project_id, value, document, 2)


def check_of(value):
    (check,) = structural(project_id(value), TODAY)
    return check


@pytest.mark.parametrize(
    "written",
    ["123456Example23", "123456GreenAcres24", "2023ABC01", "C06-4997", "C01-001", "KSH01-002"],
)
def test_the_registrys_shapes_are_project_ids(written):
    assert check_of(written).status is Status.passed


@pytest.mark.parametrize("written", ["Project 7", "REG/2023/0042", "ex-4997", "123456 Example 23"])
def test_another_shape_is_a_warning_for_the_reviewer(written):
    check = check_of(written)
    assert check.status is Status.warning
    assert check.message == (
        f"“{written}” is not in a shape the registry writes (C06-4997 or 123456Example23): "
        "check it. (Project plan.pdf, p. 2)"
    )


@pytest.mark.parametrize("written", ["2023", "Project 2023", "Project ID: 2024"])
def test_a_year_is_still_no_project_id(written):
    check = check_of(written)
    assert check.status is Status.failed and "is a year, not a project ID" in check.message


@pytest.mark.parametrize("written", ["The Project", "N/A", "TBC", "Project ID"])
def test_words_without_a_number_are_no_project_id(written):
    check = check_of(written)
    assert check.status is Status.failed and "names no project ID" in check.message


def test_the_model_is_shown_both_shapes():
    prompt = build_prompt(bundled().requirement("REQ-007"), "plan.md", pages_of(["ID"]))
    shapes = "(e.g. C06-4997 or 123456Example23: digits, the farm's name, a two-digit year)"
    assert shapes in prompt


def test_one_id_spaced_or_dashed_otherwise_agrees_across_documents():
    (check,) = across([project_id("C06-4997"), project_id("c06 4997", "Title deed.pdf")])
    assert check.status is Status.passed
    assert check.values == {"Project plan.pdf": "C06-4997", "Title deed.pdf": "c06 4997"}


def test_differing_ids_are_reported_per_pair_of_documents():
    (check,) = across(
        [
            project_id("123456Example23"),
            project_id("123456Example23", "Baseline report.pdf"),
            project_id("123456Example24", "Monitoring report.pdf"),
        ]
    )
    assert check.status is Status.failed
    assert check.message == (
        "Project ID across documents — "
        "Project plan.pdf and Monitoring report.pdf: “123456Example23” and “123456Example24” "
        "differ; "
        "Baseline report.pdf and Monitoring report.pdf: “123456Example23” and "
        "“123456Example24” differ."
    )


@pytest.mark.usefixtures("idle_queue")
def test_a_real_project_id_covers_the_start_date_requirement(make_user):
    user = make_user("editor")
    files = {"Project plan.pdf": made.PLAN, "Title deed.pdf": made.DEED_SAME_OWNER}
    review, added, _run = assessed(user, files)
    plan, deed = added["Project plan.pdf"], added["Title deed.pdf"]
    overview = made.PLAN_PAGES["overview"]
    enter_fields(
        review,
        {
            "project_id": {"value": "123456Example23", "document": plan.id, "page": overview},
            "project_start_date": {"value": made.START_DATE, "document": plan.id, "page": 2},
        },
        user,
    )
    db.session.commit()
    assert requirement(review, "REQ-007").status == "covered"

    # The deed names another ID: a disagreement named by the two documents.
    enter_fields(
        review, {"project_id": {"value": "C06-4997", "document": deed.id, "page": 1}}, user
    )
    db.session.commit()
    found = {c["check"]: c for c in checks(review)}
    consistent = found["project_id_consistent"]
    assert consistent["status"] == "fail"
    pair = "Project plan.pdf and Title deed.pdf: “123456Example23” and “C06-4997” differ"
    assert pair in consistent["message"]
    assert requirement(review, "REQ-007").status == "partial"
