"""The report as plain data, Markdown and JSON, built without the app: counts, labels, the
checks about each requirement's fields, passages linked to their pages with the fields they
state, and quoted text that cannot break a table or make a heading; then the printable page
and the evidence and validation downloads."""

import json

import pytest
from flask import render_template

from tests.registry.test_review_api import (  # noqa: F401 - fixtures among them
    REVIEWS,
    assessed,
    bearer,
    editor,
)
from webapp.registry.report import (
    build,
    download_name,
    evidence,
    md,
    to_json,
    to_markdown,
    when,
)

REVIEW = {
    "id": 7,
    "name": "Denman farm",
    "checklist": "Soil carbon v1.2.2",
    "status": "assessed",
    "reviewer": "Ada",
}
HOSTILE = "# Owner | The Project *bold*\nsecond line"
SNIPPET = {
    "document_id": 3,
    "document": "plan.pdf",
    "page": 4,
    "section": "2 Land tenure",
    "text": HOSTILE,
    "confidence": 0.6,
    "structured_fields": None,
}
REQUIREMENTS = [
    {
        "requirement_id": "REQ-001",
        "category": "General",
        "requirement_text": "Use the latest version of the methodology.",
        "validation_type": "document_presence",
        "structured_fields": [],
        "mandatory": True,
        "status": "covered",
        "snippets": [SNIPPET],
    },
    {
        "requirement_id": "REQ-002",
        "category": "Land Tenure",
        "requirement_text": "Provide evidence of legal land tenure.",
        "validation_type": "cross_document",
        "structured_fields": ["owner_name", "area_hectares"],
        "mandatory": True,
        "status": "needs_input",
        "snippets": [],
    },
    {
        "requirement_id": "REQ-003",
        "category": "Monitoring",
        "requirement_text": "Monitor the soil.",
        "validation_type": "manual",
        "structured_fields": [],
        "mandatory": False,
        "status": None,
        "snippets": [],
    },
]
FROM_PLAN = {
    "value": "Nicholas | Denman",
    "document": "plan.pdf",
    "document_id": 3,
    "page": 4,
    "comment": "",
    "by": "Ada",
    "at": "2026-11-26T10:00:00Z",
}
ENTERED = {"owner_name": {**FROM_PLAN, "entries": [FROM_PLAN]}}
FROM_DEED = {
    **FROM_PLAN,
    "value": "N. Denman",
    "document": "deed.md",
    "document_id": 5,
    "page": 2,
    "by": "Grace",
    "at": "2026-11-26T11:30:00Z",
}
# The owner entered from two documents: the newest (the deed's) and the plan's.
TWO_ENTERED = {"owner_name": {**FROM_DEED, "entries": [FROM_PLAN, FROM_DEED]}}
CHECKS = [
    {
        "check": "owner_generic",
        "field": "owner_name",
        "status": "fail",
        "values": {"plan.pdf": "The Project"},
        "message": "“The Project” is no owner.",
    },
    {
        "check": "owner_match",
        "field": "owner_name",
        "status": "warning",
        "values": {},
        "message": "Spellings differ.",
    },
    {"check": "start_date", "field": "project_start_date", "status": "pass", "values": {},
     "message": "ok"},
]  # fmt: skip
VERDICTS = {"REQ-001": {"verdict": "approved", "comment": "Fine *really*", "by": "Ada",
                        "at": "2026-11-26T11:00:00Z"}}  # fmt: skip
OUTCOME = {"outcome": "needs_changes", "comment": "Owner spellings differ.", "by": "Ada",
           "at": "2026-11-26T12:00:00Z"}  # fmt: skip
DOCUMENTS = [
    {"id": 3, "filename": "plan.pdf", "kind": "pdf", "size": 1000, "document_type": "project_plan",
     "type_set_by_person": False, "pages": 4, "contents_pages": 1, "no_text_pages": 1,
     "error": None},
    {"id": 4, "filename": "map.pdf", "kind": "pdf", "size": 10, "document_type": "map_gis",
     "type_set_by_person": True, "pages": None, "contents_pages": None, "no_text_pages": None,
     "error": None},
]  # fmt: skip
RUN = {"id": 9, "status": "succeeded", "created_at": "2026-11-26T09:00:00Z",
       "finished_at": "2026-11-26T09:01:00Z", "provider": None, "cost_usd": 0.0}  # fmt: skip


def report():
    return build(REVIEW, REQUIREMENTS, ENTERED, CHECKS, VERDICTS, OUTCOME, DOCUMENTS, RUN)


def test_the_summary_counts_statuses_verdicts_and_checks():
    made = report()
    summary = made["summary"]
    assert summary["requirements"] == 3
    assert summary["by_status"] == {"Covered": 1, "Needs reviewer input": 1, "Not assessed yet": 1}
    assert summary["by_verdict"] == {"Approved": 1, "No verdict yet": 2}
    assert (summary["checks"], summary["failed_checks"], summary["warning_checks"]) == (3, 1, 1)
    assert made["outcome"]["outcome_label"] == "Needs changes"
    assert [d["type_label"] for d in made["documents"]] == ["Project plan", "Map / GIS"]


def test_each_requirement_has_words_its_fields_and_the_checks_about_them():
    first, second, third = report()["requirements"]
    assert first["validation"] == "Document present" and first["status_label"] == "Covered"
    assert first["verdict_label"] == "Approved" and first["checks"] == []
    assert second["validation"] == "Across documents"
    assert second["status_label"] == "Needs reviewer input"
    assert [f["label"] for f in second["fields"]] == ["Owner"]
    assert [(c["check"], c["result"]) for c in second["checks"]] == [
        ("owner_generic", "Fail"),
        ("owner_match", "Warning"),
    ]
    assert third["status_label"] == "Not assessed yet" and third["verdict"] is None


def test_the_evidence_shape_is_the_evidence_calls():
    shaped = evidence(REQUIREMENTS, ENTERED)["requirements"]
    assert [r["requirement_id"] for r in shaped] == ["REQ-001", "REQ-002", "REQ-003"]
    assert set(shaped[0]) == {
        "requirement_id", "validation_type", "status", "snippets", "fields", "problems",
    }  # fmt: skip
    assert shaped[0]["snippets"][0]["text"] == HOSTILE
    assert shaped[1]["fields"][0]["value"] == "Nicholas | Denman"


def test_json_holds_evidence_validation_summary_and_verdicts():
    data = json.loads(to_json(report()))
    assert set(data) == {
        "review", "summary", "outcome", "documents", "run", "verdicts", "fields", "evidence",
        "validation",
    }  # fmt: skip
    assert data["validation"] == {"checks": CHECKS}
    assert data["evidence"] == evidence(REQUIREMENTS, ENTERED)
    assert data["verdicts"] == [{"requirement_id": "REQ-001", **VERDICTS["REQ-001"]}]
    assert data["summary"]["failed_checks"] == 1


def test_markdown_escapes_what_it_quotes():
    assert md("a | b") == r"a \| b"
    assert md("# heading\n* item") == r"\# heading \* item"
    assert md("1. first") == r"1\. first" and md("- item") == r"\- item"
    assert md("[link](javascript:x) <b>") == r"\[link\](javascript:x) \<b\>"
    text = to_markdown(report())
    lines = text.splitlines()
    # The hostile snippet stays one table row of five cells, and makes no heading.
    row = next(line for line in lines if "Owner" in line and "plan.pdf" in line and "[p." in line)
    assert row.startswith("| plan.pdf | [p. 4](/registry/7/documents/3/pages/4) |")
    assert row.replace("\\|", "").count("|") == 7
    assert "second line" in row
    assert not any(line.startswith("# Owner") for line in lines)
    assert [line for line in lines if line.startswith("# ")] == ["# Registry review: Denman farm"]
    assert "Nicholas \\| Denman" in text
    assert "**Approved**" in text and "Fine \\*really\\*" in text
    assert "- Overall outcome: **Needs changes** (Ada, 2026-11-26 12:00 UTC)" in text
    assert "| Owner generic | Owner | Fail | “The Project” is no owner. |" in text
    assert "| map.pdf | Map / GIS | not read yet |" in text


def test_download_names_are_safe():
    assert download_name("Denman farm", 7, "md") == "Denman_farm-report.md"
    assert download_name('../../"etc"', 7, "json") == "etc-report.json"
    assert download_name("東京", 8, "md") == "review-8-report.md"


def test_markdown_links_each_passage_to_its_page_and_says_statuses_in_words():
    text = to_markdown(report(), base_url="https://furrow.example/")
    assert "[p. 4](https://furrow.example/registry/7/documents/3/pages/4)" in text
    assert "- Status: Assessed" in text and "run #9 (Succeeded," in text
    draft = build({**REVIEW, "status": "draft"}, REQUIREMENTS, {}, [], {}, None, DOCUMENTS, None)
    assert "- Status: Not assessed yet" in to_markdown(draft)
    failed = build(REVIEW, [], {}, [], {}, None, [], {**RUN, "status": "completed_with_errors"})
    assert "(Completed with errors," in to_markdown(failed)
    assert "draft" not in to_markdown(draft) and "completed_with_errors" not in to_markdown(failed)


def test_a_passages_fields_are_shown_by_label():
    carrying = {
        **SNIPPET,
        "text": "Owned by Nicholas Denman, 250 acres.",
        "structured_fields": {"owner_name": "Nicholas Denman", "area_hectares": "250 acres"},
    }
    requirements = [{**REQUIREMENTS[1], "snippets": [carrying, {**SNIPPET, "document_id": None}]}]
    made = build(REVIEW, requirements, {}, [], {}, None, DOCUMENTS, RUN)
    first, old = made["requirements"][0]["snippets"]
    assert first["stated"] == [
        {"field": "owner_name", "label": "Owner", "value": "Nicholas Denman"},
        {"field": "area_hectares", "label": "Area (ha)", "value": "250 acres"},
    ]
    assert old["stated"] == [] and old["url"] is None  # stored before it had either
    text = to_markdown(made)
    assert "| Owner: Nicholas Denman; Area (ha): 250 acres | 0\\.60 |" in text
    assert "| plan.pdf | 4 | 2 Land tenure |" in text  # no document to link to
    assert made["evidence"]["requirements"][0]["snippets"] == requirements[0]["snippets"]


# Its run stays queued where no worker listens: left on the session's queue, a later test's
# worker would work it against that test's run of the same id.
@pytest.mark.usefixtures("idle_queue")
def test_evidence_and_validation_json_are_the_api_calls_as_files(client, editor, bearer):  # noqa: F811
    review = assessed(client, editor)
    base = f"{REVIEWS}/{review['id']}"
    for what in ("evidence", "validation"):
        download = client.get(f"{base}/{what}.json", headers=editor)
        assert download.status_code == 200 and download.mimetype == "application/json"
        disposition = download.headers["Content-Disposition"]
        assert disposition == f'attachment; filename="Denman_farm-{what}.json"'
        called = client.get(f"{base}/{what}", headers=editor).get_json()
        assert json.loads(download.get_data(as_text=True)) == called
        assert client.get(f"{REVIEWS}/999999/{what}.json", headers=editor).status_code == 404
        assert client.get(f"{base}/{what}.json", headers=bearer("viewer")).status_code == 403
    shown = client.get(f"{base}/report.html", headers=editor).get_data(as_text=True)
    assert "Succeeded" in shown and "Assessed" in shown


def test_the_printable_report_shows_a_passages_fields_and_statuses_in_words(app):
    carrying = {**SNIPPET, "structured_fields": {"owner_name": "Nicholas <b>Denman</b>"}}
    requirements = [{**REQUIREMENTS[1], "snippets": [carrying]}]
    made = build(REVIEW, requirements, ENTERED, [], {}, None, DOCUMENTS, RUN)
    with app.test_request_context():
        html = render_template("registry/report.html", report=made, when=when)
    assert "<div>Owner: Nicholas &lt;b&gt;Denman&lt;/b&gt;</div>" in html
    assert '<a href="/registry/7/documents/3/pages/4">p. 4</a>' in html
    assert "<dd>Assessed</dd>" in html and "run #9 (Succeeded," in html


def test_every_documents_entered_value_is_in_each_format(app):
    made = build(REVIEW, REQUIREMENTS, TWO_ENTERED, [], {}, None, DOCUMENTS, RUN)
    rows = made["requirements"][1]["fields"]
    assert [(f["label"], f["value"], f["document"], f["page"], f["by"]) for f in rows] == [
        ("Owner", "Nicholas | Denman", "plan.pdf", 4, "Ada"),
        ("Owner", "N. Denman", "deed.md", 2, "Grace"),
    ]
    assert [f["url"] for f in rows] == [
        "/registry/7/documents/3/pages/4",
        "/registry/7/documents/5/pages/2",
    ]

    data = json.loads(to_json(made))
    assert [(f["field"], f["label"], f["value"], f["document"], f["url"], f["by"])
            for f in data["fields"]] == [
        ("owner_name", "Owner", "Nicholas | Denman", "plan.pdf", "/registry/7/documents/3/pages/4",
         "Ada"),
        ("owner_name", "Owner", "N. Denman", "deed.md", "/registry/7/documents/5/pages/2",
         "Grace"),
    ]  # fmt: skip

    text = to_markdown(made, base_url="https://furrow.example")
    assert (
        "| Owner | Nicholas \\| Denman | plan.pdf "
        "| [p. 4](https://furrow.example/registry/7/documents/3/pages/4) "
        "| Ada, 2026-11-26 10:00 UTC |"
    ) in text
    assert (
        "| Owner | N. Denman | deed.md "
        "| [p. 2](https://furrow.example/registry/7/documents/5/pages/2) "
        "| Grace, 2026-11-26 11:30 UTC |"
    ) in text

    with app.test_request_context():
        html = render_template("registry/report.html", report=made, when=when)
    entered = html.split("<h3>Entered fields</h3>")[1].split("</table>")[0]
    assert entered.count("<tr><td>Owner</td>") == 2
    assert "<td>Nicholas | Denman</td><td>plan.pdf</td>" in entered
    assert '<a href="/registry/7/documents/3/pages/4">p. 4</a>' in entered
    assert "<td>N. Denman</td><td>deed.md</td>" in entered
    assert '<a href="/registry/7/documents/5/pages/2">p. 2</a>' in entered
    assert "<td>Grace, 2026-11-26 11:30 UTC</td>" in entered
