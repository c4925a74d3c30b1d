"""The origin tool's bugs, over the whole pipeline on generated PDFs, offline and with the
model: a year next to the word "project" is never a project ID, "The Project" is never an
owner, a table of contents is never evidence, and evidence stored before snippets carried
structured fields still validates."""

import pytest

from tests.registry import documents as made
from tests.registry.test_pipeline_openai import (  # noqa: F401 - fixtures among them
    answer,
    assess,
    found_checks,
    openai_app,
    passage,
    routed,
)
from webapp.extensions import db
from webapp.registry.evidence import Passage
from webapp.registry.review_state import (
    ReviewInvalid,
    assessment,
    checks,
    enter_fields,
    refresh,
    requirement,
)
from webapp.registry.runs import ReviewAssessment

pytestmark = pytest.mark.usefixtures("idle_queue")
MONITORING = "Monitoring report 2023.pdf"
YEAR_LINE = "Project 2023 monitoring round: soil carbon stocks rose by 1200 tCO2e."
GENERIC_LINE = "The Project restores grassland soils; the organisation behind it favours grazing."


def test_offline_a_year_is_never_a_project_id_nor_the_project_an_owner(make_user):
    user = make_user("editor")
    review, run = assess(user, {MONITORING: made.MONITORING, "Project plan.pdf": made.PLAN})
    assert run.status == "succeeded", run.item_errors
    stated = [s["fields"] for r in review.requirements for s in r.snippets]
    assert stated and not any(stated)  # offline, no field is read out of a passage
    found = found_checks(review)
    assert not any(c["field"] == "project_id" for c in checks(review))
    assert found["owner_name_present"]["status"] == "fail"  # needs reviewer input
    assert requirement(review, "REQ-007").status == "needs_input"


def test_offline_a_table_of_contents_is_never_evidence(make_user):
    review, _run = assess(make_user("editor"), {"Project plan.pdf": made.PLAN})
    pages = {s["locator"]["page"] for r in review.requirements for s in r.snippets}
    assert pages and made.PLAN_PAGES["contents"] not in pages


def test_a_reviewer_cannot_make_a_year_an_id_or_the_project_an_owner(make_user):
    user = make_user("editor")
    review, _run = assess(user, {MONITORING: made.MONITORING})
    document = review.documents[0].id
    enter_fields(
        review,
        {
            "project_id": {"value": "2023", "document": document, "page": 1},
            "owner_name": {"value": "The Project", "document": document, "page": 1},
        },
        user,
    )
    db.session.commit()
    found = found_checks(review)
    assert found["project_id_valid"]["status"] == "fail"
    assert "is a year, not a project ID" in found["project_id_valid"]["message"]
    assert found["owner_name_valid"]["status"] == "fail"


@pytest.mark.usefixtures("openai_app")
def test_a_model_saying_a_year_is_the_project_id_fails_its_check(make_user, routed):  # noqa: F811
    # Without a project plan, the monitoring report is asked for the start date and the ID.
    routed.route(
        "REQ-007", MONITORING,
        answer(passage("REQ-007", 1, YEAR_LINE, project_id="2023", project_start_date="2023")),
    )  # fmt: skip
    review, run = assess(make_user("editor"), {MONITORING: made.MONITORING})
    assert run.status == "succeeded", run.item_errors
    found = found_checks(review)
    assert found["project_id_valid"]["status"] == "fail"
    assert found["project_id_valid"]["values"] == {f"{MONITORING}, p. 1": "2023"}
    assert "is a year, not a project ID" in found["project_id_valid"]["message"]
    assert found["project_start_date_valid"]["status"] == "fail"  # a year is not a date


@pytest.mark.usefixtures("openai_app")
def test_a_model_saying_the_project_is_the_owner_fails_its_check(make_user, routed):  # noqa: F811
    routed.route(
        "REQ-002", "Project plan.pdf",
        answer(passage("REQ-002", 2, GENERIC_LINE, owner_name="The Project")),
    )  # fmt: skip
    review, run = assess(make_user("editor"), {"Project plan.pdf": made.PLAN})
    assert run.status == "succeeded", run.item_errors
    found = found_checks(review)
    assert found["owner_name_valid"]["status"] == "fail"
    assert "names no one" in found["owner_name_valid"]["message"]


@pytest.mark.usefixtures("openai_app")
def test_a_model_quoting_a_table_of_contents_gives_no_evidence(make_user, routed):  # noqa: F811
    routed.route(
        "REQ-017", "Project plan.pdf",
        answer(passage("REQ-017", 1, "3 Monitoring plan ..... 5"),
               passage("REQ-017", 5, "Soil organic carbon is sampled every five years")),
    )  # fmt: skip
    review, run = assess(make_user("editor"), {"Project plan.pdf": made.PLAN})
    assert run.status == "succeeded", run.item_errors
    plan = requirement(review, "REQ-017")
    assert [s["locator"]["page"] for s in plan.snippets] == [5]
    assert plan.problems == [
        "A passage was quoted from page 1 of Project plan.pdf, a contents page."
    ]


@pytest.mark.usefixtures("openai_app")
def test_evidence_stored_before_snippets_carried_fields_still_validates(
    make_user,
    routed,  # noqa: F811
):
    routed.route(
        "REQ-002", "Project plan.pdf",
        answer(passage("REQ-002", 4, f"The farm is owned by {made.OWNER}", owner_name=made.OWNER)),
    )  # fmt: skip
    user = make_user("editor")
    review, _run = assess(user, {"Project plan.pdf": made.PLAN})
    tenure = requirement(review, "REQ-002")
    assert tenure.snippets[0]["fields"] == {"owner_name": made.OWNER}
    for record in review.requirements:  # as stored before snippets carried fields
        record.snippets = [
            {
                k: v
                for k, v in Passage.from_dict(s).snippet_dict().items()
                if k != "structured_fields"
            }
            for s in record.snippets
        ]
    refresh(review)
    db.session.commit()
    found = found_checks(review)
    assert found["owner_name_present"]["status"] == "fail"  # no field, no guess
    assert requirement(review, "REQ-002").status == "needs_input"
    result = assessment(review)
    assert [s.fields for s in result.requirements[1].snippets] == [{}]
    plan = review.documents[0].id
    enter_fields(review, {"owner_name": {"value": made.OWNER, "document": plan, "page": 4}}, user)
    db.session.commit()
    assert found_checks(review)["owner_name_valid"]["status"] == "pass"


def test_the_run_shows_kinds_statuses_mapping_and_report_in_words(make_user):
    review, run = assess(
        make_user("editor"), {MONITORING: made.MONITORING, "Title deed.pdf": made.DEED_SAME_OWNER}
    )
    shown = {o.name: dict(o.counts) for o in ReviewAssessment().outcomes(run)}
    assert shown["Discovery: Title deed.pdf"]["Kind"] == "Land tenure"
    assert shown["Evidence: REQ-002"]["Status"] == "Needs reviewer input"
    assert shown["Mapping"]["Categories"] > 0
    assert shown["Report"]["Needs reviewer input"] > 0
    assert run.results[f"discover:{review.documents[1].id}"]["type"] == "land_tenure"  # the API's
    page = " ".join(
        f"{label}: {value}" for counts in shown.values() for label, value in counts.items()
    )
    assert "land_tenure" not in page and "needs_input" not in page


def test_a_results_table_is_a_page_a_reviewer_can_take_figures_from(make_user):
    user = make_user("editor")
    results = "\n".join(
        [
            "SOC stock change 1200",
            "Project emissions 150",
            "Leakage 50",
            "Net reductions 1000",
            "Credits issued 1000",
            "Buffer credits 200",
        ]
    ).encode()
    review, _run = assess(user, {"Results.txt": results, "Plan.pdf": made.PLAN})
    document = next(d.id for d in review.documents if d.filename == "Results.txt")
    enter_fields(
        review,
        {
            name: {"value": value, "document": document, "page": 1}
            for name, value in {
                "soc_change_tco2e": "1200",
                "project_emissions_tco2e": "150",
                "leakage_tco2e": "50",
                "net_reductions_tco2e": "1000",
            }.items()
        },
        user,
    )
    db.session.commit()
    assert found_checks(review)["net_balance"]["status"] == "pass"
    refused = made.PLAN_PAGES["contents"]
    plan = next(d.id for d in review.documents if d.filename == "Plan.pdf")
    with pytest.raises(ReviewInvalid):  # a real contents page still is no evidence
        enter_fields(
            review, {"leakage_tco2e": {"value": "5", "document": plan, "page": refused}}, user
        )
