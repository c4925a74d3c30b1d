"""A review as stored: documents kept under the instance by generated names, the run's stages
(discovery reads a PDF page by page), reviewer input picked from a page, verdicts and the
overall outcome as audited decisions, deletion with the files."""

import pytest

from tests.library.files import pdf_with_text
from tests.support.tables import run_here
from webapp.extensions import db
from webapp.registry import documents as docs
from webapp.registry.models import Review
from webapp.registry.page_data import history
from webapp.registry.review_state import (
    ReviewInvalid,
    checks,
    create_review,
    decide_requirement,
    delete_review,
    enter_fields,
    entered,
    outcome,
    refresh,
    set_date_style,
    set_outcome,
    verdicts,
)
from webapp.registry.runs import ReviewAssessment, start_review_run
from webapp.registry.target import review_decisions
from webapp.review.service import decide, undo

pytestmark = pytest.mark.usefixtures("idle_queue")

PLAN = pdf_with_text(
    ["Contents", "1 Overview ..... 2", "2 Land tenure ..... 3", "3 Monitoring plan ..... 4"],
    ["1 Overview", "Project plan. The project restores grassland soils in Kent.",
     "The project start date is 06/02/2023. Colour of the soil was recorded."],
    [],
    ["2 Land tenure", "The farm is owned by Nicholas Denman under a lease agreement;",
     "the landowner approval is attached as a legal attestation of long-term control."],
)  # fmt: skip
DEED = b"# Title deed\n\nThe land is owned by Nick Denman since 1998. Area: 101.2 ha.\n"


def assessed(make_user):
    user = make_user("editor")
    review = create_review("Denman farm", None, user)
    pdf = docs.add_document(review, "Project plan.pdf", PLAN, user)
    deed = docs.add_document(review, "deed.md", DEED, user)
    db.session.commit()
    run = run_here(start_review_run(review, user), ReviewAssessment())
    db.session.refresh(review)
    return user, review, pdf, deed, run


def test_a_review_is_assessed_stage_by_stage(make_user):
    _user, review, pdf, deed, run = assessed(make_user)
    assert run.status == "succeeded", run.item_errors
    assert docs.file_path(pdf).read_bytes() == PLAN and pdf.stored_name != "Project plan.pdf"
    assert pdf.pages is not None and len(pdf.pages) == 4
    assert pdf.document_type == "project_plan" and deed.document_type == "land_tenure"
    assert pdf.date_style == "day-first"
    discovered = run.results[f"discover:{pdf.id}"]
    assert discovered["contents"] == 1 and discovered["no_text"] == 1
    assert review.status == "assessed"
    statuses = {r.requirement_id: r.status for r in review.requirements}
    assert statuses["REQ-002"] == "needs_input"
    for record in review.requirements:
        assert all(
            s["locator"]["page"] != 1
            for s in record.snippets
            if s["locator"]["document_id"] == pdf.id
        )


def test_reviewer_input_verdicts_and_outcome_are_audited_decisions(make_user):
    user, review, pdf, _deed, _run = assessed(make_user)
    with pytest.raises(ReviewInvalid) as refused:
        enter_fields(
            review,
            {"owner_name": {"value": "Nicholas Denman", "document": pdf.id, "page": 1}},
            user,
        )
    assert "table of contents" in str(refused.value)
    enter_fields(
        review,
        {
            "owner_name": {"value": "Nicholas Denman", "document": pdf.id, "page": 4},
            "project_start_date": {"value": "06/02/2023", "document": pdf.id, "page": 2},
        },
        user,
    )
    db.session.commit()
    found = {c["check"]: c for c in checks(review)}
    assert found, "checks are stored as the run's findings"
    statuses = {r.requirement_id: r.status for r in review.requirements}
    assert statuses["REQ-002"] in ("covered", "partial")
    group = decide_requirement(review, "REQ-002", "approved", "Deed and plan agree.", user)
    set_outcome(review, "needs_changes", "Owner spellings differ.", user)
    db.session.commit()
    assert verdicts(review)["REQ-002"].value == "approved"
    assert verdicts(review)["REQ-002"].comment == "Deed and plan agree."
    assert outcome(review).value == "needs_changes"
    undo(group, user)
    db.session.commit()
    assert "REQ-002" not in verdicts(review)
    with pytest.raises(ReviewInvalid):
        decide_requirement(review, "REQ-002", "maybe", "", user)


def test_deleting_a_review_deletes_its_files(make_user):
    _user, review, pdf, deed, _run = assessed(make_user)
    paths = [docs.file_path(pdf), docs.file_path(deed)]
    stored = delete_review(review)
    db.session.commit()
    docs.remove_files(stored)
    assert not any(p.exists() for p in paths)
    assert db.session.get(Review, review.id) is None


def test_a_reports_figures_entered_by_a_reviewer_are_checked_to_add_up(make_user):
    user, review, _pdf, deed, _run = assessed(make_user)
    figures = {
        "soc_change_tco2e": "1,200 tCO2e",
        "project_emissions_tco2e": "150 tCO2e",
        "leakage_tco2e": "50 tCO2e",
        "net_reductions_tco2e": "1,100 tCO2e",
    }
    enter_fields(
        review,
        {name: {"value": value, "document": deed.id, "page": 1} for name, value in figures.items()},
        user,
    )
    db.session.commit()
    found = {c["check"]: c for c in checks(review)}
    assert found["net_balance"]["status"] == "fail" and "= 1000" in found["net_balance"]["message"]
    # Figures are asked of the leakage requirement's evidence; its coverage is its percentage.
    leakage = next(r for r in review.requirements if r.requirement_id == "REQ-012")
    assert leakage.status in ("missing", "needs_input")


def test_a_reviews_run_stays_one_job_whatever_its_size():
    # Evidence needs discovery done and the report everything: its items run in order.
    assert ReviewAssessment().chunk_size({"review_id": 1}) is None


def test_values_are_kept_per_document_and_old_ones_stay_readable(make_user):
    user, review, pdf, deed, _run = assessed(make_user)
    # A value entered before values were kept per document: under the field's name alone.
    decide(
        review_decisions,
        review.id,
        "owner_name",
        {"value": "Nicholas Denman", "document_id": pdf.id, "page": 4},
        "",
        user,
    )
    db.session.commit()
    assert [(e.field.value, e.document_id, e.value) for e in entered(review)] == [
        ("owner_name", pdf.id, "Nicholas Denman")
    ]
    group = enter_fields(
        review, {"owner_name": {"value": "Nick Denman", "document": deed.id, "page": 1}}, user
    )[0]
    db.session.commit()
    assert {e.document_id: e.value for e in entered(review)} == {
        pdf.id: "Nicholas Denman",
        deed.id: "Nick Denman",
    }
    consistent = next(c for c in checks(review) if c["check"] == "owner_name_consistent")
    assert consistent["status"] == "warning"
    # The plan's newer value replaces the old one; the history names field and document.
    enter_fields(
        review, {"owner_name": {"value": "N. Denman", "document": pdf.id, "page": 4}}, user
    )
    db.session.commit()
    assert {e.document_id: e.value for e in entered(review)} == {
        pdf.id: "N. Denman",
        deed.id: "Nick Denman",
    }
    shown = history(review)
    assert shown[0].what == "Owner (Project plan.pdf)"
    assert shown[0].value == "N. Denman (Project plan.pdf, page 4)"

    assert undo(group, user).changed_since == []  # the deed's value, the plan's untouched
    refresh(review)  # as the undo page does
    db.session.commit()
    assert {e.document_id: e.value for e in entered(review)} == {pdf.id: "N. Denman"}
    assert not any(c["check"] == "owner_name_consistent" for c in checks(review))

    enter_fields(review, {"owner_name": None}, user)  # from every document, the old one too
    db.session.commit()
    assert entered(review) == []
    assert next(c for c in checks(review) if c["check"] == "owner_name_present")["status"] == (
        "fail"
    )


def test_a_list_enters_a_field_from_several_documents_and_each_problem_is_named(make_user):
    user, review, pdf, deed, _run = assessed(make_user)
    with pytest.raises(ReviewInvalid) as refused:
        enter_fields(
            review,
            {
                "owner_name": [
                    {"value": "Nicholas Denman", "document": pdf.id, "page": 4},
                    {"value": "Nick Denman", "document": pdf.id, "page": 4},
                    {"value": "", "document": deed.id, "page": 1},
                ],
                "area_hectares": [],
            },
            user,
        )
    assert {p.loc for p in refused.value.problems} == {
        "fields.owner_name.1.document",
        "fields.owner_name.2.value",
        "area_hectares",
    }
    assert entered(review) == []
    enter_fields(
        review,
        {
            "owner_name": [
                {"value": "Nicholas Denman", "document": pdf.id, "page": 4},
                {"value": "Nick Denman", "document": deed.id, "page": 1},
            ]
        },
        user,
    )
    db.session.commit()
    assert [(e.document_id, e.value) for e in entered(review)] == [
        (pdf.id, "Nicholas Denman"),
        (deed.id, "Nick Denman"),
    ]


def test_a_person_says_how_a_document_writes_dates_and_its_ambiguous_dates_are_read_so(
    make_user,
):
    user, review, _pdf, deed, _run = assessed(make_user)
    assert deed.date_style is None  # the deed gives no sign
    enter_fields(
        review,
        {"project_start_date": {"value": "06/02/2023", "document": deed.id, "page": 1}},
        user,
    )
    db.session.commit()

    def start_checks():
        return [c for c in checks(review) if c["check"] == "project_start_date_valid"]

    assert [c["status"] for c in start_checks()] == ["warning"]
    group = set_date_style(review, deed, "month-first", user)
    db.session.commit()
    assert [c["status"] for c in start_checks()] == ["pass"]
    assert history(review)[0].what == "Date style (deed.md)"
    with pytest.raises(ReviewInvalid):
        set_date_style(review, deed, "sideways", user)
    undo(group, user)
    refresh(review)
    db.session.commit()
    assert [c["status"] for c in start_checks()] == ["warning"]
