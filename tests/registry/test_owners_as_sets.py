"""Owners compared as people and sets of people: each document's stated owners against the
set of proprietors the land-registry copies name (joint proprietors, several titles: no
contradiction among titles), per document with both names and pages; a document may state
several owners, and every value a reviewer enters from it is kept and checked."""

from datetime import date

import pytest

from tests.registry.test_review_records import assessed
from webapp.extensions import db
from webapp.registry.checklist import StructuredField as F
from webapp.registry.review_state import checks, enter_fields, entered, remove_entry
from webapp.registry.rules import FieldValue, Status, validate
from webapp.review.service import undo

pytestmark = pytest.mark.usefixtures("idle_queue")
TODAY = date(2026, 11, 27)
TRUSTEES = "MARGARET ANNE HOLLOWAY and DAVID JOHN PEARCE"
COMPANY_AND_PERSON = "HOLLOWAY FARMS LIMITED and MARGARET ANNE HOLLOWAY"


def owner(value, document, page=2, key=None, on_title=False):
    return FieldValue(F.owner_name, value, document, page, None, key, on_title)


def titles(count=12):
    return [
        owner(
            TRUSTEES if n <= count // 2 else COMPANY_AND_PERSON,
            f"Title K8123{n:02d}.pdf",
            2,
            100 + n,
            True,
        )
        for n in range(1, count + 1)
    ]


def owner_checks(values):
    compared = ("owner_name_consistent", "owner_name_consistent")
    return [c for c in validate(values, TODAY) if c.check in compared]


def test_titles_with_joint_proprietors_are_no_contradiction():
    assert owner_checks(titles()) == []


def test_a_plans_owner_is_one_of_the_proprietors():
    plan = owner("Margaret Anne Holloway", "Plan v2.1.pdf", 3, 1)
    (check,) = owner_checks([plan, *titles()])
    assert check.check == "owner_name_consistent" and check.status is Status.passed
    assert "“Margaret Anne Holloway” (Plan v2.1.pdf, p. 3)" in check.message
    assert "“MARGARET ANNE HOLLOWAY” (Title K812301.pdf, p. 2 and 11 more)" in check.message


def test_a_name_without_its_middle_name_is_confirmed_not_failed():
    (check,) = owner_checks([owner("Margaret Holloway", "Plan.pdf", 3, 1), *titles()])
    assert check.status is Status.warning and "may be one person: confirm" in check.message


def test_an_owner_on_no_title_fails_naming_the_proprietors():
    plan = [
        owner("Margaret Anne Holloway", "Plan.pdf", 3, 1),
        owner("Bethersden Grazing LLP", "Plan.pdf", 4, 1),
    ]
    (check,) = owner_checks([*plan, *titles()])
    assert check.status is Status.failed
    assert "“Bethersden Grazing LLP” (Plan.pdf, p. 4) is none of the proprietors" in check.message
    assert "DAVID JOHN PEARCE" in check.message and "HOLLOWAY FARMS LIMITED" in check.message


def test_each_document_is_checked_on_its_own():
    report = owner("Margaret Holloway", "Monitoring report.pdf", 1, 2)
    plan = owner("Margaret Anne Holloway", "Plan.pdf", 3, 1)
    found = owner_checks([plan, report, *titles(2)])
    assert [c.status for c in found] == [Status.passed, Status.warning]


def test_without_titles_documents_are_compared_with_each_other():
    (check,) = owner_checks([owner("Margaret Holloway", "Plan.pdf", 3, 1),
                             owner("David Pearce", "Report.pdf", 1, 2)])  # fmt: skip
    assert check.check == "owner_name_consistent" and check.status is Status.failed


def test_a_document_keeps_every_owner_a_reviewer_enters_from_it(make_user):
    user, review, pdf, deed, _run = assessed(make_user)
    person = {"value": "Nicholas Denman", "document": pdf.id, "page": 4}
    company = {"value": "Denman Farms Ltd", "document": pdf.id, "page": 4}
    title = {"value": "Nick Denman", "document": deed.id, "page": 1}
    enter_fields(review, {"owner_name": [person, company, title]}, user)
    enter_fields(review, {"owner_name": {**person, "page": 2}}, user)  # the same value, moved
    db.session.commit()
    owners = [(e.value, e.page) for e in entered(review) if e.field == F.owner_name]
    assert sorted(owners) == [("Denman Farms Ltd", 4), ("Nicholas Denman", 2), ("Nick Denman", 1)]
    stated = {c["check"]: c for c in checks(review)}
    assert stated["owner_name_consistent"]["status"] == "fail"  # the company is on no title
    assert (
        "“Denman Farms Ltd” (Project plan.pdf, p. 4)" in stated["owner_name_consistent"]["message"]
    )
    # One value is taken back; undo brings it back.
    key = next(e.key for e in entered(review) if e.value == "Denman Farms Ltd")
    group = remove_entry(review, key, user)
    db.session.commit()
    owners = sorted(e.value for e in entered(review) if e.field == F.owner_name)
    assert owners == ["Nicholas Denman", "Nick Denman"]
    assert {c["check"]: c for c in checks(review)}["owner_name_consistent"]["status"] == "warning"
    undo(group, user)
    db.session.commit()
    assert "Denman Farms Ltd" in [e.value for e in entered(review)]


def test_a_documents_values_are_cleared_from_that_document_only(make_user):
    user, review, pdf, deed, _run = assessed(make_user)
    enter_fields(review, {"owner_name": [
        {"value": "Nicholas Denman", "document": pdf.id, "page": 4},
        {"value": "Nick Denman", "document": deed.id, "page": 1},
    ]}, user)  # fmt: skip
    enter_fields(review, {"owner_name": {"document": "Project plan.pdf", "value": None}}, user)
    db.session.commit()
    assert [e.value for e in entered(review) if e.field == F.owner_name] == ["Nick Denman"]
