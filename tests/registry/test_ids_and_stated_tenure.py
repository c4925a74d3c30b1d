"""Tenure is compared by what it means (issue 23, §4): "100 % owned" and "Freehold" agree,
"owned" and "leasehold" do not; a word the text denies ("not leased") says nothing."""

import pytest

from tests.registry import documents as made
from tests.registry.test_pipeline_offline import assessed
from webapp.extensions import db
from webapp.registry.checklist import StructuredField as F
from webapp.registry.review_state import checks, enter_fields
from webapp.registry.rules import FieldValue, Status, across, tenures


def tenure(value, document):
    return FieldValue(F.tenure_type, value, document, 1)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("100 % owned", {"owned"}),
        ("Freehold", {"owned"}),
        ("freehold ownership", {"owned"}),
        ("Wholly-owned by the farmer", {"owned"}),
        ("Leasehold", {"leased"}),
        ("a 25-year lease", {"leased"}),
        ("Tenant farmer, rented from the estate", {"leased"}),
        ("Owned freehold, leased to a tenant", {"owned", "leased"}),
        ("The land is not leased; it is owned.", {"owned"}),
        ("The land is not subject to any lease.", set()),
        ("The landowner approval is attached.", set()),
        ("Tenure: see annex", set()),
    ],
)
def test_the_tenure_a_text_says(text, said):
    assert tenures(text) == said


def test_owned_and_freehold_agree():
    (check,) = across([tenure("100 % owned", "Project plan.pdf"), tenure("Freehold", "Deed.pdf")])
    assert check.status is Status.passed
    assert check.message == (
        "Tenure across documents — Project plan.pdf and Deed.pdf: the same tenure (owned)."
    )


def test_owned_and_leasehold_do_not():
    (check,) = across([tenure("owned", "Project plan.pdf"), tenure("leasehold", "Deed.pdf")])
    assert check.status is Status.failed
    assert "“owned” and “leasehold” are different tenures" in check.message
    assert check.values == {"Project plan.pdf": "owned", "Deed.pdf": "leasehold"}


def test_a_tenure_said_in_part_asks_the_reviewer():
    (check,) = across(
        [tenure("Freehold", "Deed.pdf"), tenure("owned and leased to a tenant", "Plan.pdf")]
    )
    assert check.status is Status.warning and "agree only in part" in check.message


def test_a_tenure_in_words_it_does_not_know_is_compared_as_written():
    same = across([tenure("Customary title", "Plan.pdf"), tenure("customary title", "Deed.pdf")])
    assert [c.status for c in same] == [Status.passed]
    other = across([tenure("Customary title", "Plan.pdf"), tenure("Freehold", "Deed.pdf")])
    assert [c.status for c in other] == [Status.failed]


@pytest.mark.usefixtures("idle_queue")
def test_the_reviewers_tenures_are_compared_by_meaning(make_user):
    user = make_user("editor")
    files = {"Project plan.pdf": made.PLAN, "Title deed.pdf": made.DEED_SAME_OWNER}
    review, added, _run = assessed(user, files)
    plan, deed = added["Project plan.pdf"], added["Title deed.pdf"]

    def consistent(from_plan, from_deed):
        tenure = made.PLAN_PAGES["tenure"]
        given = [
            {"value": from_plan, "document": plan.id, "page": tenure},
            {"value": from_deed, "document": deed.id, "page": 1},
        ]
        enter_fields(review, {"tenure_type": given}, user)
        db.session.commit()
        (check,) = [c for c in checks(review) if c["check"] == "tenure_type_consistent"]
        return check

    assert consistent("100 % owned", "Freehold")["status"] == "pass"
    refused = consistent("owned", "leasehold")
    assert refused["status"] == "fail"
    assert "“owned” and “leasehold” are different tenures" in refused["message"]
