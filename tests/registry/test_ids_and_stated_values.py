"""A model's value is stated only when its passage says the same thing (issue 23, §5): a date
is the passage's date read in the document's date style (a swap of day and month is not), a
tenure is one the passage says in any words and does not contradict; IDs and owners keep
their rules. As plain functions, then through the run with the loopback OpenAI server."""

import json

import pytest

from tests.registry import documents as made
from tests.registry.test_pipeline_openai import (
    Routed,
    answer,
    assess,
    found_checks,
    passage,
)
from tests.support.tables import run_here
from tests.tables.test_enrichment_runs import openai_app  # noqa: F401 - a fixture
from webapp.ai.answers import read_answer
from webapp.extensions import db
from webapp.registry.checklist import StructuredField as F
from webapp.registry.checklist import bundled
from webapp.registry.dates import DateStyle
from webapp.registry.extraction import answer_model, is_stated, read_snippets
from webapp.registry.pages import pages_of
from webapp.registry.review_state import requirement, set_date_style
from webapp.registry.runs import ReviewAssessment, start_review_run

DAY_FIRST, MONTH_FIRST = DateStyle.day_first, DateStyle.month_first
STARTED = "The project started on 06/02/2023 in Kent."


@pytest.mark.parametrize(
    ("value", "quoted", "style", "stated"),
    [
        ("2023-02-06", STARTED, DAY_FIRST, True),
        ("6 February 2023", STARTED, DAY_FIRST, True),
        ("06/02/2023", STARTED, DAY_FIRST, True),
        ("2023-06-02", STARTED, DAY_FIRST, False),  # day and month swapped
        ("June 2, 2023", STARTED, DAY_FIRST, False),
        ("2023-06-02", STARTED, MONTH_FIRST, True),
        ("2023-02-06", STARTED, MONTH_FIRST, False),
        # The document does not say its style: the model does not settle it, but the value
        # written as openly as the passage is stated, and its check asks the reviewer.
        ("2023-02-06", STARTED, None, False),
        ("06/02/2023", STARTED, None, True),
        ("06/02/2023", "The project started on 6 February 2023.", None, True),
        ("06/02/2023", "The project started on 6 March 2023.", None, False),
        ("2024-01-04", "Practices from 04/01/2024 to 01/06/2025.", DAY_FIRST, True),
        ("2024-04-01", "Practices from 04/01/2024 to 01/06/2025.", DAY_FIRST, False),
        ("2023", "The project started in 2023.", None, True),  # no whole date: its check says
    ],
)
def test_a_date_is_stated_only_as_the_document_means_it(value, quoted, style, stated):
    assert is_stated(F.project_start_date, value, quoted, style) is stated


OWNED = "The farm is owned freehold by Nicholas Denman."


@pytest.mark.parametrize(
    ("value", "quoted", "stated"),
    [
        ("Leasehold", OWNED, False),  # the passage contradicts it
        ("Lease", OWNED, False),
        ("Ownership", OWNED, True),
        ("100 % owned", OWNED, True),
        ("freehold", "250 acres held freehold", True),
        ("Freehold, leased to a tenant", OWNED, False),
        ("Leasehold", "The land is not leased; it is owned.", False),
        ("Leasehold", "Held under a 25-year lease from the estate.", True),
        ("Owned", "Tenure: see annex 3.", False),  # the passage says no tenure
        ("Customary title", "Held under customary title.", True),
        ("Customary title", OWNED, False),
    ],
)
def test_a_tenure_is_stated_only_when_the_passage_says_it(value, quoted, stated):
    assert is_stated(F.tenure_type, value, quoted) is stated


START = bundled().requirement("REQ-007")
TENURE = bundled().requirement("REQ-002")


def parsed(requirement, text, **fields):
    said = {f.value: fields.get(f.value) for f in requirement.structured_fields}
    snippet = {"page": 1, "section": None, "text": text, "confidence": 0.9}
    model = answer_model(requirement)
    found, problems = read_answer(
        model, json.dumps({"snippets": [snippet | {"structured_fields": said}]})
    )
    assert problems == []
    return found


def test_the_documents_style_is_as_its_pages_show_unless_a_person_said_it():
    british = pages_of([f"{STARTED} The organisation favours grazing."])
    swapped = parsed(START, STARTED, project_start_date="2023-06-02")
    (kept,), problems = read_snippets(swapped, 1, "plan.md", british)
    assert kept.fields == {}
    assert problems == [
        "Project start date “2023-06-02” is not the date the passage quoted from page 1 of "
        "plan.md gives, read day first: it is not evidence."
    ]
    (kept,), problems = read_snippets(swapped, 1, "plan.md", british, MONTH_FIRST)
    assert kept.fields == {"project_start_date": "2023-06-02"} and problems == []


def test_a_contradicted_tenure_is_not_evidence():
    (kept,), problems = read_snippets(
        parsed(TENURE, OWNED, owner_name="Nicholas Denman", tenure_type="Leasehold"),
        1,
        "deed.md",
        pages_of([OWNED]),
    )
    assert kept.fields == {"owner_name": "Nicholas Denman"}
    assert problems == [
        "Tenure “Leasehold” is not what the passage quoted from page 1 of deed.md says: it is "
        "not evidence."
    ]


@pytest.fixture
def routed(openai_app):  # noqa: F811 - the fixture imported above
    return Routed(openai_app)


PLAN = "Project plan.pdf"
OVERVIEW = made.PLAN_PAGES["overview"]
START_TEXT = f"The project start date is {made.START_DATE}."  # 6 February 2023, day first
TENURE_TEXT = f"The farm is owned by {made.OWNER}, who holds the freehold title to 101.2 ha."


@pytest.mark.usefixtures("idle_queue")
def test_the_models_swapped_start_date_and_contradicted_tenure_are_no_evidence(make_user, routed):
    routed.route(
        "REQ-007", PLAN,
        answer(passage("REQ-007", OVERVIEW, START_TEXT, project_start_date="2023-06-02")),
    )  # fmt: skip
    routed.route(
        "REQ-002", PLAN,
        answer(passage("REQ-002", made.PLAN_PAGES["tenure"], TENURE_TEXT,
                       owner_name=made.OWNER, area_hectares="101.2 ha", tenure_type="Leasehold")),
    )  # fmt: skip
    review, run = assess(make_user("editor"), {PLAN: made.PLAN})
    assert run.status == "succeeded", run.item_errors

    start = requirement(review, "REQ-007")
    assert start.snippets[0]["fields"] == {}
    assert start.problems == [
        f"Project start date “2023-06-02” is not the date the passage quoted from page "
        f"{OVERVIEW} of {PLAN} gives, read day first: it is not evidence."
    ]
    assert start.status == "needs_input"
    tenure = requirement(review, "REQ-002")
    assert tenure.snippets[0]["fields"] == {
        "owner_name": made.OWNER, "area_hectares": "101.2 ha",
    }  # fmt: skip
    assert "Tenure “Leasehold” is not what the passage quoted" in tenure.problems[0]
    assert tenure.status == "partial"  # the tenure is not stated
    assert "project_start_date_valid" not in found_checks(review)


@pytest.mark.usefixtures("idle_queue")
def test_the_models_date_in_the_documents_style_and_tenure_in_other_words_are_stated(
    make_user, routed
):
    routed.route(
        "REQ-007", PLAN,
        answer(passage("REQ-007", OVERVIEW, START_TEXT,
                       project_start_date="6 February 2023", project_id="123456Example23")),
    )  # fmt: skip
    routed.route(
        "REQ-002", PLAN,
        answer(passage("REQ-002", made.PLAN_PAGES["tenure"], TENURE_TEXT,
                       owner_name=made.OWNER, area_hectares="101.2 ha", tenure_type="Ownership")),
    )  # fmt: skip
    review, run = assess(make_user("editor"), {PLAN: made.PLAN})
    assert run.status == "succeeded", run.item_errors
    start = requirement(review, "REQ-007")
    # The ID is not in the passage: only the date is evidence.
    assert start.snippets[0]["fields"] == {"project_start_date": "6 February 2023"}
    assert found_checks(review)["project_start_date_valid"]["status"] == "pass"
    tenure = requirement(review, "REQ-002")
    assert tenure.problems == [] and tenure.status == "covered"


@pytest.mark.usefixtures("idle_queue")
def test_a_persons_date_style_decides_what_the_models_date_must_be(make_user, routed):
    """The plan reads day first (06/02/2023 is 6 February); once a person says it writes its
    dates month first, the next run takes the model's 2 June as stated."""
    routed.route(
        "REQ-007", PLAN,
        answer(passage("REQ-007", OVERVIEW, START_TEXT, project_start_date="2023-06-02")),
    )  # fmt: skip
    user = make_user("editor")
    review, _run = assess(user, {PLAN: made.PLAN})
    assert requirement(review, "REQ-007").problems
    [plan] = review.documents
    set_date_style(review, plan, "month-first", user)
    db.session.commit()
    run_here(start_review_run(review, user), ReviewAssessment())
    db.session.refresh(review)
    start = requirement(review, "REQ-007")
    assert start.problems == []
    assert start.snippets[0]["fields"] == {"project_start_date": "2023-06-02"}
