"""The offline pipeline over the project's documents, as a user runs it (create the review, add
the documents, run, enter fields): discovery lists contents pages and pages without text, the
passages are found by their words with their pages, no structured field is guessed (each
needs reviewer input), and the reviewer's entries are validated — a British date read
day-first, a date without any sign a warning asking the reviewer."""

import pytest

from tests.registry import documents as made
from tests.support.tables import run_here
from webapp.extensions import db
from webapp.registry import documents as docs
from webapp.registry.review_state import checks, create_review, enter_fields, entered
from webapp.registry.runs import ReviewAssessment, start_review_run

pytestmark = pytest.mark.usefixtures("idle_queue")

FILES = {
    "Project plan.pdf": made.PLAN,
    "Title deed.pdf": made.DEED_SAME_OWNER,
    "Monitoring report 2023.pdf": made.MONITORING,
    "Scanned annex.pdf": made.SCAN,
    "Start of activities.md": made.AMBIGUOUS_NOTE,
}


def assessed(user, files=FILES, checklist=None):
    """A review of the files (with the checklist given, else the registration one), assessed by
    its run: the review, its documents by name, the run."""
    review = create_review("Denman farm", checklist, user)
    added = {name: docs.add_document(review, name, data, user) for name, data in files.items()}
    db.session.commit()
    run = run_here(start_review_run(review, user), ReviewAssessment())
    db.session.refresh(review)
    return review, added, run


def by_check(review):
    return {(c["check"], tuple(c["values"])): c for c in checks(review)}


def test_discovery_lists_contents_pages_pages_without_text_and_each_kind(make_user):
    _review, added, run = assessed(make_user("editor"))
    assert run.status == "succeeded", run.item_errors
    assert (run.provider, run.model, float(run.cost_usd)) == ("offline", None, 0.0)
    found = {name: run.results[f"discover:{d.id}"] for name, d in added.items()}
    assert found["Project plan.pdf"] == {
        "type": "project_plan", "pages": 5, "contents": 1, "no_text": 1,
    }  # fmt: skip
    assert found["Scanned annex.pdf"]["no_text"] == found["Scanned annex.pdf"]["pages"] == 1
    assert found["Title deed.pdf"]["type"] == "land_tenure"
    assert found["Monitoring report 2023.pdf"]["type"] == "monitoring_report"
    assert added["Project plan.pdf"].date_style == "day-first"
    assert added["Start of activities.md"].date_style is None


def test_offline_evidence_has_pages_and_never_guesses_a_field(make_user):
    review, added, _run = assessed(make_user("editor"))
    plan = added["Project plan.pdf"]
    snippets = [s for r in review.requirements for s in r.snippets]
    assert snippets and all(s["fields"] == {} for s in snippets)
    on_plan = {s["locator"]["page"] for s in snippets if s["locator"]["document_id"] == plan.id}
    assert on_plan and not on_plan & {made.PLAN_PAGES["contents"], made.PLAN_PAGES["blank"]}
    status = {r.requirement_id: r for r in review.requirements}
    tenure = status["REQ-002"]
    assert tenure.status == "needs_input"
    assert (plan.id, made.PLAN_PAGES["tenure"]) in {
        (s["locator"]["document_id"], s["locator"]["page"]) for s in tenure.snippets
    }
    assert status["REQ-007"].status == "needs_input"  # start date and project ID: a person's
    assert status["REQ-016"].status == "needs_input"  # manual
    found = by_check(review)
    assert found[("owner_name_present", ())]["status"] == "fail"
    assert "needs reviewer input" in found[("owner_name_present", ())]["message"]
    assert not any(c["field"] == "project_id" for c in checks(review))


def test_a_british_date_is_read_day_first_and_one_without_a_sign_asks_the_reviewer(make_user):
    user = make_user("editor")
    review, added, _run = assessed(user)
    plan, note = added["Project plan.pdf"], added["Start of activities.md"]
    enter_fields(
        review,
        {"project_start_date": {"value": made.START_DATE, "document": plan.id, "page": 2}},
        user,
    )
    db.session.commit()
    valid = by_check(review)[("project_start_date_valid", ("Project plan.pdf, p. 2",))]
    assert valid["status"] == "pass", valid
    enter_fields(
        review,
        {"project_start_date": {"value": made.START_DATE, "document": note.id, "page": 1}},
        user,
    )
    db.session.commit()
    doubt = by_check(review)[("project_start_date_valid", ("Start of activities.md, p. 1",))]
    assert doubt["status"] == "warning"
    assert "06 February 2023 or 02 June 2023" in doubt["message"]
    assert "say which" in doubt["message"]


def test_the_reviewers_values_from_each_document_are_compared(make_user):
    user = make_user("editor")
    review, added, _run = assessed(user)
    plan, deed = added["Project plan.pdf"], added["Title deed.pdf"]
    monitoring = added["Monitoring report 2023.pdf"]
    tenure = made.PLAN_PAGES["tenure"]
    enter_fields(
        review, {"owner_name": {"value": made.OWNER, "document": plan.id, "page": tenure}}, user
    )
    enter_fields(
        review, {"owner_name": {"value": made.SAME_OWNER, "document": deed.id, "page": 1}}, user
    )
    db.session.commit()
    consistent = next(c for c in checks(review) if c["check"] == "owner_name_consistent")
    assert consistent["status"] == "warning" and "may be one person" in consistent["message"]
    assert consistent["values"] == {
        "Project plan.pdf": made.OWNER, "Title deed.pdf": made.SAME_OWNER,
    }  # fmt: skip

    # Several documents at once: 6 February 2023 (the plan writes day first) and 200 days on.
    enter_fields(
        review,
        {
            "project_start_date": [
                {"value": made.START_DATE, "document": plan.id, "page": 2},
                {"value": "25 August 2023", "document": monitoring.id, "page": 1},
            ]
        },
        user,
    )
    db.session.commit()
    dates = next(c for c in checks(review) if c["check"] == "project_start_date_consistent")
    assert dates["status"] == "fail" and "200 days apart" in dates["message"]
    assert len(entered(review)) == 4

    # A newer value from one document replaces that document's only.
    later = {"value": "1 March 2023", "document": monitoring.id, "page": 1}
    enter_fields(review, {"project_start_date": later}, user)
    db.session.commit()
    dates = next(c for c in checks(review) if c["check"] == "project_start_date_consistent")
    assert dates["status"] == "pass" and "within 23 days" in dates["message"]
    assert len(entered(review)) == 4


def test_an_ambiguous_date_is_settled_by_entering_it_as_the_document_means_it(make_user):
    user = make_user("editor")
    review, added, _run = assessed(user)
    note = added["Start of activities.md"]
    where = ("Start of activities.md, p. 1",)
    enter_fields(
        review,
        {"project_start_date": {"value": made.START_DATE, "document": note.id, "page": 1}},
        user,
    )
    db.session.commit()
    assert by_check(review)[("project_start_date_valid", where)]["status"] == "warning"
    enter_fields(
        review,
        {"project_start_date": {"value": "6 February 2023", "document": note.id, "page": 1}},
        user,
    )
    db.session.commit()
    settled = [c for c in checks(review) if c["check"] == "project_start_date_valid"]
    assert [c["status"] for c in settled] == ["pass"]
    assert settled[0]["values"] == {where[0]: "6 February 2023"}
