"""A date is stated only as the document means it (issue 23, §5): across documents, a date
with day and month swapped against another is a disagreement, never within the tolerance."""

import pytest

from tests.registry import documents as made
from tests.support.tables import run_here
from webapp.extensions import db
from webapp.registry import documents as docs
from webapp.registry.checklist import StructuredField as F
from webapp.registry.dates import DateStyle
from webapp.registry.review_state import checks, create_review, enter_fields
from webapp.registry.rules import FieldValue, Status, across
from webapp.registry.runs import ReviewAssessment, start_review_run

DAY_FIRST, MONTH_FIRST = DateStyle.day_first, DateStyle.month_first


def start(value, document, style):
    return FieldValue(F.project_start_date, value, document, 2, style)


def test_a_date_with_day_and_month_swapped_across_documents_is_reported():
    # 4 January 2024 in the plan, 1 April 2024 in the deed: 88 days, inside the tolerance.
    plan = start("04/01/2024", "Project plan.pdf", DAY_FIRST)
    for deed in (
        start("01/04/2024", "Title deed.pdf", DAY_FIRST),
        start("04/01/2024", "Title deed.pdf", MONTH_FIRST),
    ):
        (check,) = across([plan, deed])
        assert check.status is Status.failed
        assert check.message == (
            "Project start date across documents — Project plan.pdf and Title deed.pdf: "
            "04 January 2024 and 01 April 2024 have day and month swapped."
        )


def test_the_same_date_written_in_each_documents_style_agrees():
    plan = start("04/01/2024", "Project plan.pdf", DAY_FIRST)
    deed = start("01/04/2024", "Title deed.pdf", MONTH_FIRST)
    (check,) = across([plan, deed])
    assert check.status is Status.passed and "within 0 days" in check.message


def test_dates_near_each_other_but_not_swapped_stay_within_the_tolerance():
    plan = start("4 January 2024", "Project plan.pdf", None)
    deed = start("2 April 2024", "Title deed.pdf", None)
    (check,) = across([plan, deed])
    assert check.status is Status.passed and "within 89 days" in check.message


@pytest.mark.usefixtures("idle_queue")
def test_a_swapped_date_entered_from_two_documents_fails_the_check(make_user):
    user = make_user("editor")
    review = create_review("Denman farm", None, user)
    plan = docs.add_document(review, "Project plan.pdf", made.PLAN, user)  # writes day first
    deed = docs.add_document(review, "Title deed.pdf", made.DEED_SAME_OWNER, user)
    db.session.commit()
    run_here(start_review_run(review, user), ReviewAssessment())
    db.session.refresh(review)
    enter_fields(
        review,
        {
            "project_start_date": [
                {"value": "04/01/2024", "document": plan.id, "page": 2},
                {"value": "1 April 2024", "document": deed.id, "page": 1},
            ]
        },
        user,
    )
    db.session.commit()
    (dates,) = [c for c in checks(review) if c["check"] == "project_start_date_consistent"]
    assert dates["status"] == "fail"
    assert "04 January 2024 and 01 April 2024 have day and month swapped" in dates["message"]
