"""The review core's promises, once for every workspace: for each registered run kind that
proposes to a registered target, a small record is made, a run proposes values for it (worked
here, offline), the run's review page shows the suggestion, the one apply writes it, the core's
undo page takes it back, and the same undo is refused after — on the page and through the API.
Targets that write nothing (a registry review's decisions) are decided and undone instead.

A new target or run kind fails `test_every_target_is_proposed_to_or_said_why_not` until it has
a case here (or a reason it has none)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask
from sqlalchemy import select

from tests.fertilizer.test_web import kopfsalat
from tests.support.app import Client
from tests.support.cultures import add_crowded_tomato
from tests.support.html import by_id, soup
from tests.support.tables import orders_table, run_here
from tests.systems.test_system_api import create
from webapp.extensions import db
from webapp.jobs.kinds import RUN_KINDS, RunKind
from webapp.jobs.models import Run
from webapp.registry.models import ReviewRequirement
from webapp.registry.runs import ReviewAssessment
from webapp.registry.target import OUTCOME, REQUIREMENT, REVIEW, VERDICT
from webapp.review.models import Change
from webapp.review.rejections import SUGGESTION_TARGET
from webapp.review.targets import TARGETS, ReviewTarget
from webapp.workspaces import WORKSPACES

# Runs are worked here (run_here); their jobs wait on a queue no worker takes.
pytestmark = pytest.mark.usefixtures("idle_queue")

REFUSED_AGAIN = ("Nothing was undone", "There was nothing to undo.")


def api(client: Client) -> Client:
    client.headers = {"X-CSRFToken": client.csrf_token("/")}
    return client


def answer(response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)[:1000]
    return response.get_json() if response.is_json else {}


def worked(run_id: int) -> Run:
    run = db.session.get(Run, run_id)
    kind = RUN_KINDS[run.kind]
    worked = run_here(run, kind())
    assert worked.status == "succeeded", (worked.status, worked.item_errors)
    return worked


# How each run kind is started for a small record of its workspace, as its users start it.


def enrich_a_culture(editor: Client) -> int:
    # A tomato at 10 × 10 cm: its yield is refused (impossible per m²), its days are not.
    culture = add_crowded_tomato()
    started = editor.post(
        f"/api/v1/cultures/{culture.id}/enrich", json={"mode": "complete"}, headers=editor.headers
    )
    return answer(started, 202)["run_id"]


def plan_for_a_culture(editor: Client) -> int:
    culture = kopfsalat()
    started = editor.submit(
        "/fertilizer", {"culture": str(culture.id), "provider": "offline"}, page="/fertilizer"
    )
    assert started.status_code == 302, started.get_data(as_text=True)[:1000]
    return int(started.headers["Location"].rstrip("/").split("/")[-1])


def fill_a_table_column(editor: Client) -> int:
    orders = orders_table()
    started = editor.post(
        f"/api/v1/tables/{orders.id}/enrich",
        json={
            "target_column": "Total",
            "strategy": "computation",
            "params": {"formula": "{Price} * {Qty}"},
        },
        headers=editor.headers,
    )
    return answer(started, 202)["run_id"]


def calculate_a_system(editor: Client) -> int:
    system_id = answer(create(editor), 201)["id"]
    started = editor.post(f"/api/v1/systems/{system_id}/calculate-missing", headers=editor.headers)
    return answer(started, 202)["run_id"]


STARTS: dict[str, Callable[[Client], int]] = {
    "culture_enrichment": enrich_a_culture,
    "fertilizer_plan": plan_for_a_culture,
    "table_enrichment": fill_a_table_column,
    "system_calculation": calculate_a_system,
}

# Targets no run proposes to, and why; their round trip is a person's decision and its undo.
# The core's own: a rejection audits the suggestions' statuses, so an undo opens them again.
CORE_TARGETS = {SUGGESTION_TARGET}
DECIDED_NOT_PROPOSED = {
    REQUIREMENT: "a reviewer's verdict on one requirement: decided by a person, not proposed",
    REVIEW: "a review's outcome, entered fields and date styles: decided by a person",
}


def the_apps(thing: object) -> bool:
    """Whether a kind or target is the app's own, not one a test module registered."""
    module = thing.__module__ if isinstance(thing, type) else type(thing).__module__
    return module.startswith("webapp.")


def targets() -> dict[str, ReviewTarget]:
    """Every target the app registers, every workspace loaded as the app loads it (its view
    modules register its kinds and targets), so that none is missed here."""
    for workspace in WORKSPACES:
        workspace.blueprints()
    return {kind: target for kind, target in TARGETS.items() if the_apps(target)}


def proposing_kinds() -> list[str]:
    """The app's run kinds whose target is registered."""
    registered = targets()
    return sorted(
        name
        for name, kind in RUN_KINDS.items()
        if the_apps(kind) and kind.target_kind is not None and kind.target_kind in registered
    )


def test_every_target_is_proposed_to_or_said_why_not():
    registered = targets()
    proposed_to = {RUN_KINDS[name].target_kind for name in proposing_kinds()}
    assert set(registered) - CORE_TARGETS == proposed_to | set(DECIDED_NOT_PROPOSED)
    assert not proposed_to & set(DECIDED_NOT_PROPOSED)
    # Every target that is only decided writes nothing; every proposed one writes.
    assert all(not registered[kind].writes for kind in DECIDED_NOT_PROPOSED)
    assert all(registered[kind].writes for kind in proposed_to)
    # Every proposing kind has a way to start it here, every target a way to find it shown.
    assert set(proposing_kinds()) == set(STARTS)
    assert proposed_to == set(SHOWN)
    # Every target that is only decided has its decision round trip below.
    assert {decision.target for decision in DECISIONS} == set(DECIDED_NOT_PROPOSED)


def pending_suggestion(reviewer: Client, run_id: int) -> tuple[dict, dict]:
    """The first record of the run with a suggestion that can be applied, and that suggestion."""
    listed = answer(reviewer.get(f"/api/v1/runs/{run_id}/suggestions"), 200)
    for target in listed["targets"]:
        for suggestion in target["suggestions"]:
            errors = [i for i in suggestion["issues"] if i["severity"] == "error"]
            if suggestion["status"] == "pending" and not errors:
                return target, suggestion
    raise AssertionError(f"run {run_id} proposed nothing that can be applied: {listed}")


def review_url(app: Flask, kind: RunKind, run: Run) -> str:
    with app.test_request_context():
        url = kind.review_url(run)
    assert url, f"{run.kind} has no review page"
    return url


def undone_once(reviewer: Client, group: str, page: str) -> None:
    """Undo a group on the core's undo page: back where the person was, told it is undone."""
    undone = reviewer.submit(f"/review/undo/{group}", page=page)
    assert undone.status_code == 302, undone.get_data(as_text=True)[:1000]
    back = reviewer.get(undone.headers["Location"], follow_redirects=True)
    assert "Undone — " in back.get_data(as_text=True)


def undone_twice(reviewer: Client, group: str, page: str) -> None:
    """Undo a group on the core's undo page, then again (refused there), then through the API
    (refused there too)."""
    again = reviewer.submit(f"/review/undo/{group}", page=page, follow_redirects=True)
    assert again.status_code == 200
    assert any(words in again.get_data(as_text=True) for words in REFUSED_AGAIN)
    assert reviewer.post(f"/api/v1/undo/{group}", headers=reviewer.headers).status_code in (
        404,
        409,
    )


@pytest.mark.parametrize("kind_name", proposing_kinds())
def test_propose_review_apply_undo_and_refuse_the_undo_again(app, client_as, kind_name):
    editor, reviewer = api(client_as("editor")), api(client_as("reviewer"))
    run = worked(STARTS[kind_name](editor))
    kind = RUN_KINDS[kind_name]()
    target: ReviewTarget = TARGETS[kind.target_kind]

    record, suggestion = pending_suggestion(reviewer, run.id)
    assert record["type"] == target.kind
    record_id, field = record["id"], suggestion["field"]
    before = target.current([record_id])[record_id].get(field)
    assert before != suggestion["value"]

    # The run's review page shows the suggestion.
    url = review_url(app, kind, run)
    page = reviewer.get(url, follow_redirects=True)
    assert page.status_code == 200
    shown = SHOWN[target.kind](reviewer, soup(page), record_id, suggestion)
    assert shown.get("data-valid") in (None, "true")

    # The one apply writes it, as one group to undo.
    applied = answer(
        reviewer.post(
            f"/api/v1/runs/{run.id}/apply",
            json={"suggestions": [suggestion["id"]]},
            headers=reviewer.headers,
        ),
        200,
    )
    assert applied["applied"] == [suggestion["id"]] and applied["refused"] == []
    group = applied["undo_group"]
    assert group
    db.session.expire_all()
    assert target.current([record_id])[record_id][field] == suggestion["value"]

    # The core's undo page takes it back; the same undo again is refused.
    undone_once(reviewer, group, url)
    db.session.expire_all()
    assert target.current([record_id])[record_id].get(field) == before
    undone_twice(reviewer, group, url)
    db.session.expire_all()
    assert target.current([record_id])[record_id].get(field) == before


# Where each target's suggestion is on its run's review page (the page read as HTML).


def culture_shown(reviewer: Client, page: BeautifulSoup, record_id: int, suggestion: dict) -> Tag:
    # The batch page lists the run's cultures; each links to its review on the culture's page.
    link = page.find("a", href=re.compile(rf"^/cultures/{record_id}\?run=[0-9]+#enrichment$"))
    assert link is not None, "the run's review page does not list the culture"
    row = by_id(reviewer.get(link["href"]), f"suggestion-{suggestion['field']}")
    assert row.find("input", attrs={"name": "suggestion", "value": str(suggestion["id"])})
    return row


def plan_shown(_reviewer: Client, page: BeautifulSoup, record_id: int, suggestion: dict) -> Tag:
    # The plan's page offers to save it to the culture it was made for: the apply of the
    # plan's proposal to that culture.
    option = page.select_one(f'select[name="culture"] option[value="{record_id}"]')
    assert option is not None and option.has_attr("selected")
    assert page.find("button", string=re.compile("Save plan to culture"))
    plan = suggestion["value"]["plan_id"]
    assert page.h1.get_text(" ", strip=True).startswith(f"Fertilizer plan #{plan}:")
    return option


def value_shown(_reviewer: Client, page: BeautifulSoup, _record_id: int, suggestion: dict) -> Tag:
    # The review core's run page: one row a suggestion.
    row = by_id(page, f"suggestion-{suggestion['id']}")
    assert row.find("input", attrs={"name": "suggestion", "value": str(suggestion["id"])})
    return row


def row_shown(reviewer: Client, page: BeautifulSoup, record_id: int, suggestion: dict) -> Tag:
    # A table's rows: their values may be typed over.
    row = value_shown(reviewer, page, record_id, suggestion)
    proposed = row.find("input", attrs={"name": f"value-{suggestion['id']}"})
    assert float(proposed["value"]) == suggestion["value"]
    return row


SHOWN: dict[str, Callable[[Client, BeautifulSoup, int, dict], Tag]] = {
    "culture": culture_shown,
    "culture_plan": plan_shown,
    "table_row": row_shown,
    "system_value": value_shown,
}


# Decisions: a registry review assessed by its run, then a reviewer decides and undoes.

DEED = b"# Title deed\n\nThe land known as Denman farm is owned by Nick Denman since 1998.\n"


def assessed_review(editor: Client) -> tuple[int, Run]:
    review = answer(
        editor.post("/api/v1/reviews", json={"name": "Denman farm"}, headers=editor.headers), 201
    )
    answer(
        editor.post(
            f"/api/v1/reviews/{review['id']}/documents",
            data={"file": (io.BytesIO(DEED), "deed.md")},
            content_type="multipart/form-data",
            headers=editor.headers,
        ),
        201,
    )
    started = answer(
        editor.post(f"/api/v1/reviews/{review['id']}/run", headers=editor.headers), 202
    )
    run = run_here(db.session.get(Run, started["run_id"]), ReviewAssessment())
    assert run.status == "succeeded", run.item_errors
    return review["id"], run


@dataclass(frozen=True)
class Decision:
    target: str
    field: str
    url: str  # under /api/v1/reviews/<id>
    body: dict[str, Any]
    value: str

    def record_id(self, review_id: int) -> int:
        if self.target == REVIEW:
            return review_id
        query = select(ReviewRequirement.id).where(
            ReviewRequirement.review_id == review_id,
            ReviewRequirement.requirement_id == self.body["requirement_id"],
        )
        return db.session.scalar(query)


DECISIONS = [
    Decision(
        REQUIREMENT,
        VERDICT,
        "verdicts",
        {"requirement_id": "REQ-016", "verdict": "not_applicable", "comment": "No such land."},
        "not_applicable",
    ),
    Decision(
        REVIEW,
        OUTCOME,
        "outcome",
        {"outcome": "needs_changes", "comment": "The deed alone is not enough."},
        "needs_changes",
    ),
]


@pytest.mark.parametrize("decision", DECISIONS, ids=[d.target for d in DECISIONS])
def test_decide_undo_and_refuse_the_undo_again(app, client_as, decision):
    editor, reviewer = api(client_as("editor")), api(client_as("reviewer"))
    review_id, run = assessed_review(editor)
    target = TARGETS[decision.target]
    assert not target.writes
    record_id = decision.record_id(review_id)
    assert target.current([record_id]).get(record_id, {}).get(decision.field) is None

    url = review_url(app, ReviewAssessment(), run)
    page = reviewer.get(url)
    assert page.status_code == 200
    assert "REQ-016" in page.get_data(as_text=True)

    decided = answer(
        reviewer.post(
            f"/api/v1/reviews/{review_id}/{decision.url}",
            json=decision.body,
            headers=reviewer.headers,
        ),
        201,
    )
    group = decided["undo_group"]
    db.session.expire_all()
    assert target.current([record_id])[record_id][decision.field] == decision.value
    # The group the answer names is the decision's audited change.
    change = db.session.scalars(select(Change).where(Change.group_id == group)).one()
    assert (change.target_type, change.target_id, change.field, change.source) == (
        target.kind,
        record_id,
        decision.field,
        "decide",
    )

    undone_once(reviewer, group, url)
    db.session.expire_all()
    assert target.current([record_id]).get(record_id, {}).get(decision.field) is None
    undone_twice(reviewer, group, url)
    db.session.expire_all()
    assert target.current([record_id]).get(record_id, {}).get(decision.field) is None
