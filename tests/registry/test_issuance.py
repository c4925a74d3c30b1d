"""Issuance rounds (issue 23 §8): the bundled issuance (monitoring round) checklist and its
credit figures, a review made with it, an issuance submission assessed offline against it
(its evidence found, "Buffer Pool 146" on page 2 included) where the registration checklist
finds most requirements missing, the checklist chosen on the web form and in the API, and the
suggestion (and the switch) when a review's documents call for the other checklist."""

import io
import json

import pytest

from tests.library.files import pdf_with_text
from tests.registry.test_pipeline_offline import assessed
from tests.registry.test_review_api import (  # noqa: F401 - bearer, editor: fixtures
    REVIEWS,
    bearer,
    editor,
)
from tests.registry.test_review_pages import create, newest_review
from tests.support.html import by_id, soup
from webapp.extensions import db
from webapp.registry import review_state
from webapp.registry.checklist import (
    BUNDLED,
    FIELD_LABELS,
    FIGURE_FIELDS,
    ISSUANCE,
    REGISTRATION,
    ChecklistInvalid,
    StructuredField,
    bundled,
    bundled_name,
    read_checklist,
)
from webapp.registry.discovery import CATEGORY_SOURCES, DocumentType, sources_for
from webapp.registry.extraction import build_prompt, field_rule
from webapp.registry.models import Review
from webapp.registry.pages import pages_of
from webapp.registry.rounds import called_for
from webapp.registry.rules import FieldValue, read_number

pytestmark = pytest.mark.usefixtures("idle_queue")

F = StructuredField
CREDITS = (F.credits_issued, F.credits_pending_issue, F.credits_total, F.buffer_credits)
MONITORING_PAGES = [
    [
        "Soil Organic Carbon Project Report",
        "Monitoring Report",
        "2024 Denman farm",
        "Monitoring round 2024 of project C06-4997",
    ],
    [
        "Executive Summary",
        "Carbon balance: SOC sequestered 840 tCO2e, GHG emissions 100 tCO2e, leakage 10 tCO2e,",
        "balance 730 tCO2e.",
        "Credit Statement (1 credit per tCO2e of positive carbon balance)",
        "Permanence Buffer Pool 146 credits",
        "Credits Pending Issue 584 credits",
        "Total 730 credits",
        "The buffer pool contribution of this issuance is 20% of the credit total.",
    ],
    [
        "Project Information",
        "Monitoring period: start date 1 January 2024, end date 31 December 2024.",
        "The project area of 101.2 ha is defined by geographic boundaries; ineligible areas",
        "(hedges, tracks) are demarcated apart. Boundaries: ESRI polygon shapefiles and GeoJSON.",
        "Project operation continues as the monitoring plan sets out: the data monitored are",
        "soil samples, the analysis of samples and SOC maps, with ecological indicators.",
    ],
    [
        "Sampling Method",
        "The sampling design is a compact geographical stratification: strata average 3 ha,",
        "with 12 soil cores per stratum at locations assigned by the stratification method.",
        "Soil cores were taken to a sampling depth of 0-30 cm and composited into a single",
        "sample per stratum. Sampling was done on 29/01/2025 by the contractor C A Agriculture",
        "with an automatic core sampler (tool diameter 30 mm), compositing each stratum.",
        "The geo-locations of the in-field core positions were recorded by the sampling team",
        "with a GNSS device of accuracy +/- 4 m.",
    ],
    [
        "Laboratory Analysis",
        "The laboratory, NRM, is accredited to ISO 17025 by UKAS. The analysis method (DUMAS)",
        "reports SOC %, bulk density, total soil volume and the SOC stock calculation.",
        "AI Processing: the AI training method paired multispectral satellite imagery with",
        "the laboratory SOC stock of each sample. AI accuracy during the monitoring period is",
        "quantified as the MAPE: 4.98 %, a network prediction uncertainty under 20 %.",
        "Imagery sensing dates were within 2 months of the sampling date.",
    ],
    [
        "Results",
        "AI SOC results by field in numerical and map form: crop type, field area (ha) and net",
        "mean SOCS (t/ha) after deduction of the MAPE, for the previous and current rounds.",
        "Soil sample results by field: crop type, sampled field area, SOCS total (t/ha), stone",
        "content %, SOCS field total (t).",
        "SOC change between monitoring rounds: 229 tSOC, 840 tCO2e.",
        "Current year GHG emissions 100 tCO2e (see the GHG emissions report); GHG emissions",
        "change between monitoring rounds: -12 tCO2e.",
        "GHG emissions data were gathered and calculated by the independent contractor",
        "Cross Compliance Solutions (contact: office@cxcs.example).",
        "Leakage: crop yields were 3 % below their 5-year average, under the 10 % reduction.",
    ],
    [
        "Disclosures",
        "The Monitor is a third party and signed a statement of its fiduciary obligations.",
        "The Monitor discloses no familial or fiduciary relationships with the project or the",
        "Project Proponent within the past 3 years.",
        "No monitoring procedure deviations were made.",
        "The verifier is to be contracted; its qualifications and a signed statement of",
        "impartiality will follow.",
    ],
]
# A monitoring round's report: its credit statement on page 2.
MONITORING_REPORT = pdf_with_text(*MONITORING_PAGES)
MONITORING_MD = (
    b"# Monitoring report 2024\n\nCredit statement: Permanence Buffer Pool 146 credits, "
    b"Credits Pending Issue 584 credits, Total 730 credits.\n"
)


def test_the_issuance_checklist_loads_with_its_provenance_limits_and_kinds():
    checklist = bundled(ISSUANCE)
    text = BUNDLED[ISSUANCE].read_text(encoding="utf-8")
    assert read_checklist(text) == checklist
    assert [r.requirement_id for r in checklist.requirements] == [
        f"ISS-{n:03d}" for n in range(1, 30)
    ]
    provenance = json.loads(text)["provenance"]
    assert "gaiaaiagent/regen-registry-review-mcp" in provenance
    assert "Botany_Farm_Credit_Issuance_Registry_Agent_Review_2023_Monitoring.md" in provenance
    assert "src/registry_review_mcp/data/checklists/soil-carbon-v1.2.2.json" in provenance
    # Every category is looked for in the kinds of document that hold its evidence.
    assert {r.category for r in checklist.requirements} <= CATEGORY_SOURCES.keys()
    for requirement in checklist.requirements:
        assert {limit.field for limit in requirement.limits} <= set(requirement.asked)
    buffer = checklist.requirement("ISS-022")
    assert buffer.structured_fields == [F.buffer_credits]
    assert [(x.field, x.at_least, x.at_most) for x in buffer.limits] == [
        (F.buffer_pool_percentage, 20, 20)
    ]
    statement = checklist.requirement("ISS-025")
    assert statement.structured_fields == [
        F.credits_total,
        F.credits_pending_issue,
        F.buffer_credits,
    ]
    assert F.credits_issued in statement.figures
    assert sources_for(buffer.category, buffer.structured_fields) == (
        DocumentType.monitoring_report,
    )
    # The registration checklist stays the default, and another name is refused.
    assert (
        bundled() is bundled(REGISTRATION) and bundled().methodology_id != checklist.methodology_id
    )
    with pytest.raises(ChecklistInvalid, match="choose registration or issuance"):
        bundled("renewal")


def test_credits_issued_pending_issue_and_in_total_are_fields_of_their_own():
    assert len({FIELD_LABELS[f] for f in CREDITS}) == len(CREDITS)
    assert set(CREDITS) <= FIGURE_FIELDS
    for field in CREDITS:
        assert sources_for("A category of another checklist", [field]) == tuple(DocumentType)
        assert DocumentType.monitoring_report in sources_for("General", [field])
    # The model is told each apart, never one for another.
    rules = {field: field_rule(field) for field in CREDITS}
    assert len(set(rules.values())) == len(CREDITS) and all("never" in r for r in rules.values())
    prompt = build_prompt(bundled(ISSUANCE).requirement("ISS-025"), "report.pdf", pages_of(["x"]))
    for field in (F.credits_total, F.credits_pending_issue, F.buffer_credits, F.credits_issued):
        assert f"- {field.value} ({FIELD_LABELS[field]}): {rules[field]}" in prompt
    pending = FieldValue(F.credits_pending_issue, "Credits Pending Issue 584 credits", "r.pdf", 2)
    assert read_number(pending) == (584, None)


def test_a_review_made_with_it_has_its_requirements(make_user):
    review = review_state.create_review("Denman farm 2024", bundled(ISSUANCE), make_user("editor"))
    db.session.commit()
    assert [r.requirement_id for r in review.requirements] == [
        r.requirement_id for r in bundled(ISSUANCE).requirements
    ]
    assert bundled_name(review.checklist) == ISSUANCE
    assert "credit issuance (monitoring round)" in review.checklist_name


def test_an_issuance_submission_assessed_offline_finds_its_evidence(make_user):
    user = make_user("editor")
    files = {"Monitoring report 2024.pdf": MONITORING_REPORT}
    review, added, run = assessed(user, files, bundled(ISSUANCE))
    assert run.status == "succeeded", run.item_errors
    report = added["Monitoring report 2024.pdf"]
    assert report.document_type == DocumentType.monitoring_report
    status = {r.requirement_id: r for r in review.requirements}
    missing = [i for i, r in status.items() if r.status == "missing"]
    assert len(missing) <= 1, missing
    buffer = status["ISS-022"]
    assert any(
        s["locator"]["page"] == 2 and "Buffer Pool 146" in s["claim_summary"]
        for s in buffer.snippets
    )
    assert buffer.status == "needs_input"  # offline, a person enters the figure it states
    assert any(s["locator"]["page"] == 2 for s in status["ISS-025"].snippets)
    # The registration checklist finds most of the same submission missing.
    registration, _added, _run = assessed(user, files)
    assert sum(r.status == "missing" for r in registration.requirements) >= 10
    # A reviewer enters the credit statement's figures, each as its own field.
    at = {"document": report.id, "page": 2}
    review_state.enter_fields(
        review,
        {
            "buffer_credits": {"value": "146 credits", **at},
            "credits_pending_issue": {"value": "584 credits", **at},
            "credits_total": {"value": "730 credits", **at},
        },
        user,
    )
    db.session.commit()
    status = {r.requirement_id: r.status for r in review.requirements}
    assert status["ISS-022"] == status["ISS-025"] == "covered"
    entered = {e.field: e.value for e in review_state.entered(review)}
    assert F.credits_issued not in entered  # never guessed from the others


def test_which_checklist_most_documents_call_for():
    assert called_for(REGISTRATION, ["monitoring_report"]) == ISSUANCE
    assert called_for(REGISTRATION, ["monitoring_report", "ghg_emissions_report", "map_gis"]) == (
        ISSUANCE
    )
    assert called_for(REGISTRATION, ["monitoring_report", "project_plan"]) is None  # half
    assert called_for(ISSUANCE, ["project_plan", "land_tenure", "baseline_report"]) == REGISTRATION
    assert called_for(ISSUANCE, ["monitoring_report", "project_plan"]) is None
    assert called_for(None, ["monitoring_report"]) is None  # an imported checklist
    assert called_for(REGISTRATION, []) is None


def upload_markdown(client, review_id: int):
    data = {"files": [(io.BytesIO(MONITORING_MD), "Monitoring report 2024.md")]}
    response = client.submit(
        f"/registry/{review_id}/documents",
        data,
        page=f"/registry/{review_id}",
        content_type="multipart/form-data",
    )
    assert response.status_code == 302


def test_a_monitoring_report_on_the_registration_checklist_suggests_issuance_and_switches(
    client_as, make_user
):
    client = client_as("editor")
    assert create(client).status_code == 302
    review = newest_review()
    assert "checklist-suggestion" not in client.get(f"/registry/{review.id}").get_data(as_text=True)
    upload_markdown(client, review.id)
    page = client.get(f"/registry/{review.id}")
    words = by_id(page, "checklist-suggestion").get_text(" ", strip=True)
    assert (
        "Most of these documents are monitoring and GHG emissions reports, as an issuance "
        "submits: the issuance (monitoring round) checklist fits them better than the "
        "registration checklist this review uses."
    ) in words
    document = review.documents[0]
    review_state.enter_fields(
        review, {"buffer_credits": {"value": "146", "document": document.id, "page": 1}}, None
    )
    db.session.commit()
    # A plain POST without its token is refused; the form's switches.
    refused = client.post(f"/registry/{review.id}/checklist", data={"bundled_checklist": ISSUANCE})
    assert refused.status_code == 400
    switched = client.submit(
        f"/registry/{review.id}/checklist",
        {"bundled_checklist": ISSUANCE},
        page=f"/registry/{review.id}",
    )
    assert switched.status_code == 302
    db.session.refresh(review)
    assert [r.requirement_id for r in review.requirements][:2] == ["ISS-001", "ISS-002"]
    assert bundled_name(review.checklist) == ISSUANCE and review.status == "draft"
    assert [(e.field, e.value) for e in review_state.entered(review)] == [(F.buffer_credits, "146")]
    page = client.get(f"/registry/{review.id}")
    assert soup(page).find(id="checklist-suggestion") is None
    assert "29 requirements" in by_id(page, "summary").get_text()


def test_the_switch_is_refused_once_verdicts_are_given(
    client_as,
    client,
    editor,  # noqa: F811 - the fixture
):
    made = client.post(REVIEWS, json={"name": "Denman farm"}, headers=editor).get_json()
    review = db.session.get(Review, made["id"])
    reviewer = client_as("reviewer")
    upload_markdown(reviewer, review.id)
    answer = client.get(f"{REVIEWS}/{review.id}", headers=editor).get_json()
    assert answer["bundled_checklist"] == REGISTRATION
    suggested = answer["suggested_checklist"]
    assert (suggested["checklist"], suggested["label"]) == (ISSUANCE, "Issuance (monitoring round)")
    assert suggested["can_switch"] is True and "Most of these documents" in suggested["message"]
    review_state.decide_requirement(review, "REQ-001", "approved", "", None)
    db.session.commit()
    page = reviewer.get(f"/registry/{review.id}")
    note = by_id(page, "checklist-suggestion")
    assert "Verdicts were given" in note.get_text() and note.find("form") is None
    assert note.find("a")["href"] == "/registry/new?bundled_checklist=issuance"
    switched = reviewer.submit(
        f"/registry/{review.id}/checklist",
        {"bundled_checklist": ISSUANCE},
        page=f"/registry/{review.id}",
    )
    assert (
        switched.status_code == 422
        and "Verdicts were given" in by_id(switched, "switch-error").text
    )
    api = client.post(
        f"{REVIEWS}/{review.id}/checklist", json={"bundled_checklist": ISSUANCE}, headers=editor
    )
    assert api.status_code == 422 and api.get_json()["error"]["code"] == "review_invalid"
    assert (
        client.get(f"{REVIEWS}/{review.id}", headers=editor).get_json()["suggested_checklist"][
            "can_switch"
        ]
        is False
    )
    db.session.refresh(review)
    assert bundled_name(review.checklist) == REGISTRATION


def test_the_web_form_chooses_the_checklist_and_refuses_another(client_as):
    client = client_as("editor")
    form = client.get("/registry/new")
    options = by_id(form, "bundled_checklist").find_all("option")
    assert [(o["value"], o.text) for o in options] == [
        (REGISTRATION, "Registration"),
        (ISSUANCE, "Issuance (monitoring round)"),
    ]
    chosen = by_id(client.get("/registry/new?bundled_checklist=issuance"), "bundled_checklist")
    assert chosen.find("option", selected=True)["value"] == ISSUANCE
    made = client.submit(
        "/registry/new",
        {"name": "Round 2024", "bundled_checklist": ISSUANCE},
        page="/registry/new",
        content_type="multipart/form-data",
    )
    assert made.status_code == 302
    review = newest_review()
    assert review.requirements[0].requirement_id == "ISS-001"
    refused = client.submit(
        "/registry/new",
        {"name": "Bad", "bundled_checklist": "renewal"},
        page="/registry/new",
        content_type="multipart/form-data",
    )
    assert refused.status_code == 422
    assert by_id(refused, "bundled_checklist-error").text == (
        "There is no bundled checklist “renewal”: choose registration or issuance."
    )
    assert by_id(refused, "name")["value"] == "Bad"
    assert db.session.scalar(db.select(db.func.count(Review.id))) == 1


def test_the_api_chooses_the_checklist_refuses_another_and_switches(
    client,
    editor,  # noqa: F811 - the fixture
):
    made = client.post(
        REVIEWS, json={"name": "Round 2024", "bundled_checklist": ISSUANCE}, headers=editor
    )
    assert made.status_code == 201
    review = made.get_json()
    assert review["bundled_checklist"] == ISSUANCE and review["suggested_checklist"] is None
    evidence = client.get(f"{REVIEWS}/{review['id']}/evidence", headers=editor).get_json()
    assert len(evidence["requirements"]) == 29
    bad = client.post(REVIEWS, json={"name": "Bad", "bundled_checklist": "renewal"}, headers=editor)
    assert bad.status_code == 422 and bad.get_json()["error"]["code"] == "invalid_request"
    assert [e["loc"] for e in bad.get_json()["error"]["details"]["errors"]] == ["bundled_checklist"]
    both = {"name": "Both", "bundled_checklist": ISSUANCE, "checklist": {"x": 1}}
    refused = client.post(REVIEWS, json=both, headers=editor)
    assert refused.status_code == 422
    assert (
        refused.get_json()["error"]["message"] == "Give checklist or bundled_checklist, not both."
    )
    switch = f"{REVIEWS}/{review['id']}/checklist"
    moved = client.post(switch, json={"bundled_checklist": REGISTRATION}, headers=editor)
    assert moved.status_code == 200 and moved.get_json()["bundled_checklist"] == REGISTRATION
    again = client.post(switch, json={"bundled_checklist": REGISTRATION}, headers=editor)
    assert again.status_code == 422
    assert again.get_json()["error"]["message"] == (
        "The review already uses the registration checklist."
    )
    # A review made with its own checklist moves to a bundled one, whatever ids they share.
    own = bundled().model_dump(mode="json") | {"methodology_id": "own"}
    own["requirements"] = own["requirements"][:2]
    mine = client.post(REVIEWS, json={"name": "Own", "checklist": own}, headers=editor).get_json()
    assert mine["bundled_checklist"] is None
    moved = client.post(
        f"{REVIEWS}/{mine['id']}/checklist",
        json={"bundled_checklist": REGISTRATION},
        headers=editor,
    )
    assert moved.status_code == 200 and moved.get_json()["bundled_checklist"] == REGISTRATION
    evidence = client.get(f"{REVIEWS}/{mine['id']}/evidence", headers=editor).get_json()
    assert len(evidence["requirements"]) == 23
