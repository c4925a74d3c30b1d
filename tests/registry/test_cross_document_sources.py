"""The fields compared across documents are looked for in every document that states them: a
monitoring report is searched for the project's owner, area and start date beside the plan and
the land-registry copies, so a plan-vs-report disagreement can be found."""

import pytest

from tests.library.files import pdf_with_text
from tests.registry import documents as made
from tests.registry.test_pipeline_offline import assessed
from webapp.registry.checklist import bundled
from webapp.registry.discovery import DocumentType, sources_for

CHECKLIST = bundled()
REPORT = pdf_with_text(
    [
        "Monitoring report 2024",
        "Land tenure: the project area of 98.0 ha is under the ownership and long-term control "
        "of the landowner, Nicholas Denman, for the crediting period.",
        f"The project start date named in the project plan is {made.START_DATE}; the duration "
        "of this first monitoring round is one year.",
    ]
)


def test_a_requirements_cross_checked_fields_add_the_kinds_that_state_them():
    tenure = CHECKLIST.requirement("REQ-002")  # Land Tenure: owner, area, tenure type
    start = CHECKLIST.requirement("REQ-007")  # Project Start Date: project ID and start date
    reports = {DocumentType.baseline_report, DocumentType.monitoring_report}
    assert reports <= set(sources_for(tenure.category, tenure.structured_fields))
    assert reports <= set(sources_for(start.category, start.structured_fields))
    assert DocumentType.land_tenure not in sources_for(start.category, start.structured_fields)
    # A requirement without such fields keeps its category's kinds.
    safeguards = CHECKLIST.requirement("REQ-019")
    assert sources_for(safeguards.category, safeguards.structured_fields) == sources_for(
        safeguards.category
    )


# The run stays queued where no worker listens: left on the session's queue, a later test's
# worker would work it against that test's run of the same id.
@pytest.mark.usefixtures("idle_queue")
def test_a_monitoring_report_is_searched_for_the_owner_area_and_start_date(make_user):
    files = {"Project plan.pdf": made.PLAN, "Monitoring report 2024.pdf": REPORT}
    review, added, run = assessed(make_user("editor"), files)
    assert run.status == "succeeded", run.item_errors
    report = added["Monitoring report 2024.pdf"]
    assert report.document_type == DocumentType.monitoring_report
    found = {
        record.requirement_id: {s["locator"]["document_id"] for s in record.snippets}
        for record in review.requirements
    }
    assert report.id in found["REQ-002"] and report.id in found["REQ-007"]
    assert run.results["map"]["mapping"]["Project Start Date"] == [
        "project_plan",
        "monitoring_report",
    ]
