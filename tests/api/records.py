"""Real records for the API fuzz test, made through the API itself with an administrator's
bearer token: a culture, a research table with columns, rows and a finished enrichment, a
fertilizer plan, a farm system imported from an itinera document with a finished calculation
run and an undo group, a registry review with a document and an assessed run, and queued runs
of other kinds.

`Records.values(path, name)` gives the real values for one path parameter of one operation, so
a generated call can name records that exist (a document of the review it names, a run of the
system it names)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.fertilizer.profiles import TOMATO_FILE
from tests.support.tables import run_here
from tests.systems.test_system_api import itinera
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.registry.runs import ReviewAssessment
from webapp.systems.runs import SystemCalculation

DEED = b"# Title deed\n\nThe land known as Denman farm is owned by Nick Denman since 1998.\n"


@dataclass
class Records:
    # {path parameter name: real values}, and {(path, name): values} where one path needs
    # the values of its own record (a run of the system the path names).
    ids: dict[str, list[Any]] = field(default_factory=dict)
    by_path: dict[tuple[str, str], list[Any]] = field(default_factory=dict)

    def values(self, path: str, name: str) -> list[Any]:
        return self.by_path.get((path, name)) or self.ids.get(name) or []


def answer_of(client: FlaskClient, headers: dict[str, str]) -> Callable[..., dict[str, Any]]:
    """A call that must succeed: its JSON answer, or a failure naming what it said."""

    def call(method: str, url: str, expected: int, **kwargs: Any) -> dict[str, Any]:
        answer = client.open(url, method=method, headers=headers, **kwargs)
        assert answer.status_code == expected, (url, answer.get_data(as_text=True)[:500])
        return answer.get_json() if answer.is_json else {}

    return call


def make_records(app: Flask, headers: dict[str, str]) -> Records:
    call = answer_of(app.test_client(), headers)
    records = Records()

    culture = call("POST", "/api/v1/cultures", 201, json={"name": "Tomate", "variety": "Fuzz"})
    call("POST", "/api/v1/cultures", 201, json={"name": "Kohlrabi"})

    table = call(
        "POST",
        "/api/v1/tables",
        201,
        json={
            "name": "Trials",
            "columns": [
                {"name": "crop", "type": "text"},
                {"name": "yield", "type": "number", "unit": "t/ha"},
                {"name": "score", "type": "number"},
            ],
        },
    )
    call(
        "POST",
        f"/api/v1/tables/{table['id']}/rows",
        201,
        json={"rows": [{"crop": "wheat", "yield": 7.5}, {"crop": "barley", "yield": 6}]},
    )

    # A finished enrichment of the table: suggestions to review, and a proposal document.
    filling = call(
        "POST",
        f"/api/v1/tables/{table['id']}/enrich",
        202,
        json={"target_column": "score", "strategy": "computation", "params": {"formula": "1"}},
    )
    filled = run_here(db.session.get(Run, filling["run_id"]))
    assert filled.status == "succeeded", filled.item_errors

    profile = json.loads(TOMATO_FILE.read_text(encoding="utf-8"))
    plan = call("POST", "/api/v1/fertilizer/recommend", 200, json={"crop_profile": profile})

    system = call(
        "POST",
        "/api/v1/systems",
        201,
        json={"farm": "Ferme du Bocage", "region": "Bretagne", "document": itinera()},
    )
    document = itinera()
    step = document["steps"][0]
    set_value = call(
        "POST",
        f"/api/v1/systems/{system['id']}/values",
        200,
        json={
            "step_id": step["id"],
            "intervention_id": step["interventions"][0]["id"],
            "key": "ift",
            "value": 1.5,
        },
    )
    started = call("POST", f"/api/v1/systems/{system['id']}/calculate-missing", 202)
    calculation = run_here(db.session.get(Run, started["run_id"]), SystemCalculation())
    assert calculation.status == "succeeded", calculation.item_errors

    review = call("POST", "/api/v1/reviews", 201, json={"name": "Denman farm"})
    deed = call(
        "POST",
        f"/api/v1/reviews/{review['id']}/documents",
        201,
        data={"file": (io.BytesIO(DEED), "deed.md")},
        content_type="multipart/form-data",
    )
    assessing = call("POST", f"/api/v1/reviews/{review['id']}/run", 202)
    assessed = run_here(db.session.get(Run, assessing["run_id"]), ReviewAssessment())
    assert assessed.status == "succeeded", assessed.item_errors
    # A verdict given: its checklist stays (a switch would take REQ-002 and REQ-007 away).
    verdict = {"requirement_id": "REQ-016", "verdict": "not_applicable"}
    call("POST", f"/api/v1/reviews/{review['id']}/verdicts", 201, json=verdict)

    # Runs left queued (no worker takes them): a culture's enrichment, an integrity check.
    enrichment = call("POST", f"/api/v1/cultures/{culture['id']}/enrich", 202, json={})
    integrity = call("POST", "/api/v1/maintenance/integrity-check", 202)

    records.ids = {
        "culture_id": [culture["id"]],
        "table_id": [table["id"]],
        "plan_id": [plan["plan_id"]],
        "system_id": [system["id"]],
        "farm_id": [system["farm"]["id"]],
        "review_id": [review["id"]],
        "document_id": [deed["id"]],
        "requirement_id": ["REQ-002", "REQ-007"],
        "run_id": [
            calculation.id,
            filled.id,
            assessed.id,
            enrichment["run_id"],
            integrity["run_id"],
        ],
        "group": [set_value["undo_group"]],
    }
    # Calls on a run's suggestions take the runs that have some; its proposal, a table's run.
    suggesting = [calculation.id, filled.id]
    records.by_path = {
        ("/api/v1/systems/{system_id}/runs/{run_id}", "run_id"): [calculation.id],
        ("/api/v1/runs/{run_id}/proposal", "run_id"): [filled.id],
        ("/api/v1/runs/{run_id}/suggestions", "run_id"): suggesting,
        ("/api/v1/runs/{run_id}/apply", "run_id"): suggesting,
        ("/api/v1/runs/{run_id}/reject", "run_id"): suggesting,
    }
    return records
