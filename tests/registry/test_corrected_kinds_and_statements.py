"""A document whose kind a reviewer corrects is searched, on the next run, for every
requirement of its new kind (REQ-007 finds "The project start date is 1 April 2024" in an
outdated plan first taken for a land-tenure paper); a credit statement's figures are told
apart and add up."""

from datetime import date

import pytest

from tests.registry.test_review_api import (  # noqa: F401 - bearer, editor: fixtures
    REVIEWS,
    bearer,
    editor,
    new_review,
    upload,
)
from tests.support.tables import run_here
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.registry.checklist import StructuredField as F
from webapp.registry.rules import FieldValue, Status, validate
from webapp.registry.runs import ReviewAssessment

pytestmark = pytest.mark.usefixtures("idle_queue")

OUTDATED = (
    b"# Land tenure evidence\n\n"
    b"The land is held freehold; title deeds and a lease of the barn are attached.\n\n"
    b"## Project start\n\n"
    b"The project start date is 1 April 2024, after the last ploughing of the fields.\n"
)


def assess(client, headers, review_id):
    started = client.post(f"{REVIEWS}/{review_id}/run", headers=headers)
    assert started.status_code == 202
    run = run_here(db.session.get(Run, started.get_json()["run_id"]), ReviewAssessment())
    assert run.status == "succeeded", run.item_errors


def start_date_snippets(client, headers, review_id):
    found = client.get(f"{REVIEWS}/{review_id}/requirements/REQ-007", headers=headers)
    return [s["text"] for s in found.get_json()["snippets"]]


def test_a_corrected_kind_is_searched_for_its_new_kinds_requirements(client, editor):  # noqa: F811
    review = new_review(client, editor)
    plan = b"# Project plan\n\nThe project restores grassland soils on a farm in Kent.\n"
    upload(client, editor, review["id"], "Project plan.md", plan)
    document = upload(client, editor, review["id"], "land tenure.md", OUTDATED).get_json()
    assert document["document_type"] == "land_tenure"
    assess(client, editor, review["id"])
    assert start_date_snippets(client, editor, review["id"]) == []
    url = f"{REVIEWS}/{review['id']}/documents/{document['id']}"
    fixed = client.patch(url, json={"document_type": "project_plan"}, headers=editor)
    assert fixed.status_code == 200
    assess(client, editor, review["id"])
    (found,) = start_date_snippets(client, editor, review["id"])
    assert "The project start date is 1 April 2024" in found


def figures(**stated):
    return [
        FieldValue(F[name], value, "Monitoring report.pdf", 2, None, 1)
        for name, value in stated.items()
    ]


def by_check(values):
    return {c.check: c for c in validate(values, date(2026, 11, 27))}


def test_a_credit_statement_adds_up_and_its_buffer_is_a_share_of_its_total():
    found = by_check(
        figures(
            buffer_pool_percentage="20 %",
            buffer_credits="Buffer Pool 146 credits",
            credits_pending_issue="Credits Pending Issue 584 credits",
            credits_total="Total 730 credits",
        )
    )
    assert found["credit_statement"].status is Status.passed
    assert found["buffer_share"].status is Status.passed  # 20 % of 730, not of 584
    wrong = by_check(
        figures(
            buffer_credits="146 credits",
            credits_pending_issue="600 credits",
            credits_total="730 credits",
        )
    )
    assert wrong["credit_statement"].status is Status.failed
    assert "buffer pool credits 146 + credits pending issue 600 = 746" in (
        wrong["credit_statement"].message.lower()
    )
    alone = by_check(figures(credits_total="730 credits", credits_issued="584 credits"))
    assert "credit_statement" not in alone  # no buffer stated: nothing is guessed
