"""A reviewer is never stuck through the API: a field no passage states is entered from a
document and a page and the checks use it (undone like any entry), one requirement is read
with its status, verdict, evidence, fields, checks and the problems its run recorded, and the
evidence call carries those problems too."""

import pytest

from tests.registry import documents as made
from tests.registry.test_pipeline_openai import PLAN_START, TENURE_TEXT, Routed, answer, passage
from tests.registry.test_pipeline_openai import assess as assess_with_model
from tests.registry.test_review_api import (  # noqa: F401 - bearer, editor, reviewer: fixtures
    REVIEWS,
    assessed,
    bearer,
    editor,
    newest_group,
    reviewer,
)
from tests.tables.test_enrichment_runs import openai_app  # noqa: F401 - a fixture
from webapp.extensions import db
from webapp.registry import review_state
from webapp.registry.models import Review

pytestmark = pytest.mark.usefixtures("idle_queue")


def owner_checks(client, headers, review_id: int) -> dict[str, str]:
    checks = client.get(f"{REVIEWS}/{review_id}/validation", headers=headers).get_json()
    return {c["check"]: c["status"] for c in checks["checks"] if c["field"] == "owner_name"}


def test_a_field_no_passage_states_is_entered_by_document_and_page_and_checked(
    client,
    editor,  # noqa: F811 - the fixture
    reviewer,  # noqa: F811 - the fixture
):
    review_id = assessed(client, editor)["id"]
    review = db.session.get(Review, review_id)
    review_state.requirement(review, "REQ-002").snippets = []  # nothing matched
    review_state.refresh(review)
    db.session.commit()
    one = f"{REVIEWS}/{review_id}/requirements/REQ-002"
    before = client.get(one, headers=editor).get_json()
    assert before["snippets"] == [] and before["fields"] == [] and before["problems"] == []
    assert {c["check"]: c["status"] for c in before["checks"]}["owner_name_present"] == "fail"

    fields = f"{REVIEWS}/{review_id}/fields"
    no_page = client.put(
        fields, json={"owner_name": {"value": "Nick Denman", "document": "deed.md"}}, headers=editor
    )
    assert no_page.status_code == 422
    [error] = no_page.get_json()["error"]["details"]["errors"]
    assert (error["loc"], error["message"]) == (
        "fields.owner_name.page",
        "Give the page of deed.md the value is on.",
    )
    # A document is named as uploads compare names: "DEED.md" is deed.md.
    given = {"owner_name": {"value": "Nick Denman", "document": "DEED.md", "page": 1}}
    assert client.put(fields, json=given, headers=editor).status_code == 200
    assert owner_checks(client, editor, review_id)["owner_name_present"] == "pass"

    after = client.get(one, headers=editor).get_json()
    assert after["requirement_id"] == "REQ-002" and after["category"] == "Land Tenure"
    assert after["accepted_evidence"] and "owner_name" in after["structured_fields"]
    assert after["status"] == "partial"  # the owner alone: the tenure's other fields are not in
    [owner] = after["fields"]
    assert (owner["field"], owner["label"], owner["value"]) == (
        "owner_name",
        "Owner",
        "Nick Denman",
    )
    assert [(e["document"], e["page"]) for e in owner["entries"]] == [("deed.md", 1)]
    assert {c["check"]: c["status"] for c in after["checks"]}["owner_name_present"] == "pass"
    assert all(c["field"] in after["structured_fields"] for c in after["checks"])
    assert after["verdict"] is None

    verdict = {"requirement_id": "REQ-002", "verdict": "needs_changes", "comment": "Lease?"}
    assert (
        client.post(f"{REVIEWS}/{review_id}/verdicts", json=verdict, headers=reviewer).status_code
        == 201
    )
    decided = client.get(one, headers=editor).get_json()["verdict"]
    assert (decided["verdict"], decided["comment"]) == ("needs_changes", "Lease?")

    group = newest_group(review_id, "owner_name")
    assert client.post(f"/api/v1/undo/{group}", headers=reviewer).status_code == 200
    assert owner_checks(client, editor, review_id)["owner_name_present"] == "fail"
    assert client.get(one, headers=editor).get_json()["fields"] == []


def test_one_requirement_is_refused_as_the_other_registry_reads(
    client,
    client_as,
    editor,  # noqa: F811 - the fixture
):
    review_id = assessed(client, editor)["id"]
    assert (
        client.get(f"{REVIEWS}/{review_id}/requirements/REQ-999", headers=editor).status_code == 404
    )
    assert client.get(f"{REVIEWS}/999999/requirements/REQ-002", headers=editor).status_code == 404
    viewer = client_as("viewer")
    assert viewer.get(f"{REVIEWS}/{review_id}/requirements/REQ-002").status_code == 403
    assert client.get(f"{REVIEWS}/{review_id}/requirements/REQ-002").status_code == 401


def test_the_problems_a_run_recorded_are_in_the_api(
    client,
    make_user,
    openai_app,  # noqa: F811 - the fixture
    bearer,  # noqa: F811 - the fixture
):
    routed = Routed(openai_app)
    # The model quotes the tenure from page 2, where it is not: the run's problem, no evidence.
    routed.route("REQ-002", "Project plan.pdf", answer(passage("REQ-002", 2, TENURE_TEXT)))
    routed.route("REQ-007", "Project plan.pdf", PLAN_START)
    review, run = assess_with_model(make_user("editor"), {"Project plan.pdf": made.PLAN})
    assert run.status == "succeeded", run.item_errors
    headers = bearer("editor")

    tenure = client.get(f"{REVIEWS}/{review.id}/requirements/REQ-002", headers=headers).get_json()
    [problem] = tenure["problems"]
    assert "on page 2 of Project plan.pdf is not there" in problem
    assert tenure["snippets"] == [] and tenure["status"] == "missing"
    start = client.get(f"{REVIEWS}/{review.id}/requirements/REQ-007", headers=headers).get_json()
    assert start["problems"] == [] and start["snippets"]

    evidence = client.get(f"{REVIEWS}/{review.id}/evidence", headers=headers).get_json()
    by_id = {r["requirement_id"]: r for r in evidence["requirements"]}
    assert by_id["REQ-002"]["problems"] == [problem] and by_id["REQ-007"]["problems"] == []
    report = client.get(f"{REVIEWS}/{review.id}/report.json", headers=headers).get_json()
    assert [r["problems"] for r in report["evidence"]["requirements"]] == [
        r["problems"] for r in evidence["requirements"]
    ]
