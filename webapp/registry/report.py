"""A review's report as plain data, and as Markdown and JSON: per requirement its status, the
reviewer's verdict, its evidence with document and page, the fields entered and the checks
about them; overall the counts, the outcome, the documents and the run behind the evidence.

Everything here works on plain dicts (what the API answers), so the report is the same in
every format and is tested without the app. The HTML page renders `report` itself."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from werkzeug.utils import secure_filename

from webapp.registry.evidence import COVERAGE_LABELS
from webapp.registry.target import OUTCOMES, VERDICTS
from webapp.registry.words import (
    CHECK_STATUS_LABELS,
    DELETED_DOCUMENT,
    NOT_ASSESSED,
    VALIDATION_LABELS,
    check_label,
    field_label,
    review_status_label,
    run_status_label,
    status_label,
    type_label,
)

# What Markdown reads as markup anywhere in a line, and at its start (a list item): escaped
# so quoted text stays text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
_LIST_START = re.compile(r"^(\d+)([.)])|^([-+])")


def page_url(review_id: int, document_id: int, page: int) -> str:
    """The page view of one page of a review's document."""
    return f"/registry/{review_id}/documents/{document_id}/pages/{page}"


def asked(requirement: dict[str, Any]) -> list[str]:
    """The fields a requirement's evidence is asked for: its structured fields and figures."""
    return [*requirement["structured_fields"], *requirement.get("figures", [])]


class Markdown(str):
    """Text that is Markdown already (a link made here), put in a table as it is."""


def stated(snippet: dict[str, Any]) -> list[dict[str, Any]]:
    """The fields a snippet carries, each with its label: what the passage states."""
    return [
        {"field": name, "label": field_label(name), "value": value}
        for name, value in (snippet.get("structured_fields") or {}).items()
        if value not in (None, "")
    ]


def _page_url_of(review_id: int, document_id: int | None, page: int | None) -> str | None:
    return page_url(review_id, document_id, page) if document_id and page else None


def _snippet_row(review_id: int, snippet: dict[str, Any], kept: set[int]) -> dict[str, Any]:
    """A passage as the report shows it; one from a document deleted since says so, without a
    page view (kept: the ids of the review's documents); one stored before passages kept their
    document's id keeps its name, without a page view."""
    if snippet.get("document_id") not in (None, *kept):
        return {**snippet, "document": DELETED_DOCUMENT, "url": None, "stated": stated(snippet)}
    url = _page_url_of(review_id, snippet.get("document_id"), snippet["page"])
    return {**snippet, "url": url, "stated": stated(snippet)}


def _fields_of(wanted: list[str], entered: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"field": name, "label": field_label(name), **entered[name]}
        for name in wanted
        if name in entered
    ]


def entered_rows(
    review_id: int, wanted: list[str], entered: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every document's value of the wanted fields, one row each: the field's label, the value,
    the document and page (with its page view), who entered it and when. A value from a
    document deleted since says so, without a page view; the checks leave it out."""
    return [
        {
            "field": name,
            "label": field_label(name),
            **entry,
            "document": entry["document"] or DELETED_DOCUMENT,
            "url": (
                _page_url_of(review_id, entry.get("document_id"), entry["page"])
                if entry["document"]
                else None
            ),
        }
        for name in wanted
        if name in entered
        for entry in entered[name]["entries"]
    ]


def evidence(requirements: list[dict[str, Any]], entered: dict[str, dict[str, Any]]) -> dict:
    """The evidence call's answer: per requirement its validation type, status, snippets, the
    fields reviewers entered for it and the problems its last run recorded."""
    return {
        "requirements": [
            {
                "requirement_id": r["requirement_id"],
                "validation_type": r["validation_type"],
                "status": r["status"],
                "snippets": r["snippets"],
                "fields": _fields_of(asked(r), entered),
                "problems": r.get("problems", []),
            }
            for r in requirements
        ]
    }


def build(
    review: dict[str, Any],
    requirements: list[dict[str, Any]],
    entered: dict[str, dict[str, Any]],
    checks: list[dict[str, Any]],
    verdicts: dict[str, dict[str, Any]],
    outcome: dict[str, Any] | None,
    documents: list[dict[str, Any]],
    run: dict[str, Any] | None,
) -> dict[str, Any]:
    """The report of a review from its parts (as the API answers them): `requirements` in
    checklist order with their stored status and snippets, `entered` the fields reviewers
    entered by name, `verdicts` by requirement id."""
    rows = []
    kept = {d["id"] for d in documents}
    for r in requirements:
        verdict = verdicts.get(r["requirement_id"])
        wanted = set(asked(r))
        rows.append(
            {
                **r,
                "snippets": [_snippet_row(review["id"], s, kept) for s in r["snippets"]],
                "validation": VALIDATION_LABELS.get(r["validation_type"], r["validation_type"]),
                "status_label": status_label(r["status"]),
                "verdict": verdict,
                "verdict_label": VERDICTS.get(verdict["verdict"]) if verdict else None,
                "fields": entered_rows(review["id"], asked(r), entered),
                "checks": [
                    {
                        **c,
                        "label": check_label(c["check"]),
                        "result": CHECK_STATUS_LABELS.get(c["status"], c["status"]),
                    }
                    for c in checks
                    if c["field"] in wanted
                ],
            }
        )
    statuses = Counter(row["status_label"] for row in rows)
    given = Counter(row["verdict_label"] or "No verdict yet" for row in rows)
    check_statuses = Counter(c["status"] for c in checks)
    return {
        "review": {**review, "status_label": review_status_label(review["status"])},
        "summary": {
            "requirements": len(rows),
            "by_status": {
                label: statuses[label]
                for label in [*COVERAGE_LABELS.values(), NOT_ASSESSED]
                if statuses[label]
            },
            "by_verdict": {
                label: given[label]
                for label in [*VERDICTS.values(), "No verdict yet"]
                if given[label]
            },
            "checks": len(checks),
            "failed_checks": check_statuses["fail"],
            "warning_checks": check_statuses["warning"],
        },
        "outcome": (
            {**outcome, "outcome_label": OUTCOMES.get(outcome["outcome"], outcome["outcome"])}
            if outcome
            else None
        ),
        "documents": [{**d, "type_label": type_label(d["document_type"])} for d in documents],
        "run": {**run, "status_label": run_status_label(run["status"])} if run else None,
        "requirements": rows,
        "verdicts": [
            {"requirement_id": rid, **verdict}
            for rid in (r["requirement_id"] for r in requirements)
            if (verdict := verdicts.get(rid))
        ],
        "fields": entered_rows(review["id"], list(entered), entered),
        "evidence": evidence(requirements, entered),
        "validation": validation(checks),
    }


def to_json(report: dict[str, Any]) -> str:
    """The JSON download: summary, verdicts, every document's entered value of each field,
    evidence (as the evidence call) and validation (as the validation call)."""
    keys = ("review", "summary", "outcome", "documents", "run", "verdicts", "fields", "evidence")
    data = {key: report[key] for key in keys} | {"validation": report["validation"]}
    return json_file(data)


def json_file(data: Any) -> str:
    """A JSON download's text: what the API answers, indented, its characters as written."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def validation(checks: list[dict[str, Any]]) -> dict[str, Any]:
    """The validation call's answer (and validation.json's)."""
    return {"checks": checks}


def md(value: Any) -> str:
    """Quoted text as Markdown that shows it as written: on one line (a newline would end a
    table row), every character Markdown reads as markup escaped (`|` would split a cell, a
    leading `#` make a heading, `*` emphasis)."""
    text = " ".join(str("" if value is None else value).split())
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return _LIST_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", text)


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [
        "| " + " | ".join(c if isinstance(c, Markdown) else md(c) for c in row) + " |"
        for row in rows
    ]
    return [*lines, ""]


def _page_link(row: dict[str, Any], base_url: str) -> Any:
    """A snippet's or an entry's page as a link to its page view (a path of digits: nothing to
    escape)."""
    if not row["url"]:
        return row["page"]
    return Markdown(f"[p. {int(row['page'])}]({base_url}{row['url']})")


def _stated_text(snippet: dict[str, Any]) -> str:
    return "; ".join(f"{f['label']}: {f['value']}" for f in snippet["stated"])


def when(at: str | None) -> str:
    """An ISO time as people read it: "2026-11-26 18:14 UTC"."""
    return f"{at[:16].replace('T', ' ')} UTC" if at else ""


def _who(entry: dict[str, Any]) -> str:
    return ", ".join(part for part in (entry.get("by"), when(entry.get("at"))) if part)


def to_markdown(report: dict[str, Any], base_url: str = "") -> str:
    """The report as Markdown; page links start with base_url (the site's address), else
    they are paths on the site."""
    review, summary = report["review"], report["summary"]
    out = [f"# Registry review: {md(review['name'])}", ""]
    out += [
        f"- Checklist: {md(review['checklist'])}",
        f"- Status: {md(review['status_label'])}",
        f"- Reviewer: {md(review['reviewer'] or 'none')}",
        "",
        "## Summary",
        "",
    ]
    out += _table(
        ["Requirements by status", "Count"], [[k, v] for k, v in summary["by_status"].items()]
    )
    out += _table(
        ["Requirements by verdict", "Count"], [[k, v] for k, v in summary["by_verdict"].items()]
    )
    out += [
        f"- Checks: {summary['checks']}, failed: {summary['failed_checks']}, "
        f"warnings: {summary['warning_checks']}",
    ]
    outcome = report["outcome"]
    if outcome:
        out.append(
            f"- Overall outcome: **{md(outcome['outcome_label'])}** ({md(_who(outcome))})"
            + (f": {md(outcome['comment'])}" if outcome.get("comment") else "")
        )
    else:
        out.append("- Overall outcome: not decided yet")
    run = report["run"]
    if run:
        out.append(
            f"- Evidence from run #{run['id']} ({md(run['status_label'])}, "
            f"finished {md(when(run['finished_at']) or 'not yet')}, "
            f"provider {md(run['provider'] or 'offline')}, cost ${run['cost_usd']:.4f})"
        )
    out += ["", "## Documents", ""]
    out += _table(
        ["Document", "Kind", "Pages", "Contents pages", "Pages without text", "Problem"],
        [
            [
                d["filename"],
                d["type_label"],
                "not read yet" if d["pages"] is None else d["pages"],
                d["contents_pages"],
                d["no_text_pages"],
                d["error"] or "",
            ]
            for d in report["documents"]
        ],
    )
    out += ["## Requirements", ""]
    for row in report["requirements"]:
        out += _requirement_markdown(row, base_url.rstrip("/"))
    return "\n".join(out).rstrip() + "\n"


def _requirement_markdown(row: dict[str, Any], base_url: str) -> list[str]:
    out = [
        f"### {md(row['requirement_id'])} — {md(row['category'])}",
        "",
        md(row["requirement_text"]),
        "",
        f"- Validation: {md(row['validation'])}",
        f"- Status: **{md(row['status_label'])}**",
    ]
    verdict = row["verdict"]
    if verdict:
        comment = f": {md(verdict['comment'])}" if verdict.get("comment") else ""
        out.append(f"- Verdict: **{md(row['verdict_label'])}** ({md(_who(verdict))}){comment}")
    else:
        out.append("- Verdict: none yet")
    out.append("")
    if row["snippets"]:
        out += _table(
            ["Document", "Page", "Section", "Text", "Fields it states", "Confidence"],
            [
                [
                    s["document"],
                    _page_link(s, base_url),
                    s["section"] or "",
                    s["text"],
                    _stated_text(s),
                    f"{s['confidence']:.2f}",
                ]
                for s in row["snippets"]
            ],
        )
    else:
        out += ["No evidence found.", ""]
    if row["fields"]:
        out += _table(
            ["Field", "Value", "Document", "Page", "Entered by"],
            [
                [f["label"], f["value"], f["document"] or "", _page_link(f, base_url), _who(f)]
                for f in row["fields"]
            ],
        )
    if row["checks"]:
        out += _table(
            ["Check", "Field", "Result", "Message"],
            [
                [
                    check_label(c["check"]),
                    field_label(c["field"]),
                    CHECK_STATUS_LABELS.get(c["status"], ""),
                    c["message"],
                ]
                for c in row["checks"]
            ],
        )
    return out


def download_name(name: str, review_id: int, extension: str, what: str = "report") -> str:
    """A file name from the review's name that is safe in a Content-Disposition header."""
    return f"{secure_filename(name) or f'review-{review_id}'}-{what}.{extension}"
