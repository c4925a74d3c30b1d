"""itinera's `status` of a value (who made it: "user", "calculated", "ia", "n/a") read with
`reviewed`, and kept in step with it when Furrow changes a value."""

import copy
import json

import pytest

from tests.systems.test_calculation_runs import started, suggestions
from tests.systems.test_system_api import api_client, create, itinera
from webapp.extensions import db
from webapp.systems import document as doc
from webapp.systems.grid import columns, rows
from webapp.systems.models import System
from webapp.systems.target import made_by

TEXT_VALUES = "itinera-text-values.json"
STAMP = "2026-11-26T10:00:00.000Z"
MOISSON_GNR = doc.value_path("step-ble", "int-moisson", "gnr")


@pytest.mark.parametrize(
    ("entry", "state"),
    [
        ({"status": "user"}, True),
        ({"status": "ia"}, False),
        ({"status": "calculated"}, False),
        ({"status": "n/a"}, "n/a"),
        ({}, None),
        ({"reviewed": False}, False),
        # itinera's edit writes only the status, over an older reviewed false.
        ({"status": "user", "reviewed": False}, True),
        # Furrow marks an applied model answer or calculation reviewed: a person approved it.
        ({"status": "ia", "reviewed": True}, True),
        ({"status": "calculated", "reviewed": True}, True),
        ({"status": "n/a", "reviewed": True}, "n/a"),
        ({"status": "user", "reviewed": "n/a"}, "n/a"),
    ],
)
def test_a_value_is_reviewed_as_its_status_and_reviewed_say(entry, state):
    assert doc.review_state({"key": "ift", "value": 1} | entry) == state


def test_the_grid_shows_an_itinera_file_as_its_statuses_say():
    document = doc.validate_document(itinera(TEXT_VALUES))
    states = {
        (row.intervention_id, cell.key): cell.state
        for row in rows(document, columns(document))
        for cell in row.cells
        if cell.entry
    }
    assert states["int-herbicide", "frequence"] == "reviewed"  # "user"
    assert states["int-herbicide", "ift"] == "confident"  # "ia", high confidence
    assert states["int-herbicide", "coutsPhytos"] == "unreviewed"  # "calculated"
    assert states["int-moisson", "gnr"] == "unreviewed"  # "ia", medium confidence
    assert states["int-moisson", "ift"] == "na"  # "n/a"


def test_a_status_is_unknown_to_itinera_is_refused():
    raw = itinera(TEXT_VALUES)
    raw["steps"][0]["interventions"][0]["values"][0]["status"] = "robot"
    with pytest.raises(doc.DocumentInvalid) as refused:
        doc.validate_document(raw)
    assert list(refused.value.errors) == ["steps[0].interventions[0].values[0].status"]


def test_each_change_says_who_made_the_value_and_the_others_stay_as_written():
    stored = doc.validate_document(itinera(TEXT_VALUES))
    status = MOISSON_GNR + doc.STATUS
    edited, changed = doc.write_fields(stored, {MOISSON_GNR: 20}, STAMP)
    assert changed[status] == ("ia", "user") and changed[MOISSON_GNR + doc.REVIEWED] == (None, True)
    calculated, _ = doc.write_fields(stored, {MOISSON_GNR: 20}, STAMP, made="calculated")
    answered, _ = doc.write_fields(stored, {MOISSON_GNR: 20}, STAMP, made="ia")
    left, _ = doc.write_fields(stored, {MOISSON_GNR: 20}, STAMP, made=None)
    not_applicable, _ = doc.write_fields(stored, {MOISSON_GNR + doc.REVIEWED: "n/a"}, STAMP)
    made = {
        name: doc.value_entry(document, MOISSON_GNR)["status"]
        for name, document in [
            ("edited", edited),
            ("calculated", calculated),
            ("answered", answered),
            ("left", left),
            ("n/a", not_applicable),
        ]
    }
    assert made == {
        "edited": "user",
        "calculated": "calculated",
        "answered": "ia",
        "left": "ia",
        "n/a": "n/a",
    }
    # Every value not written is as the file had it.
    others = {p: e for p, e in doc.iter_values(edited) if p != MOISSON_GNR}
    assert others == {p: e for p, e in doc.iter_values(stored) if p != MOISSON_GNR}


def test_a_new_value_in_a_file_with_statuses_gets_one_and_a_file_without_gets_none():
    stored = doc.validate_document(itinera(TEXT_VALUES))
    new_path = doc.value_path("step-ble", "int-moisson", "tempsTravail")
    added, _ = doc.write_fields(stored, {new_path: 0.4}, STAMP)
    assert doc.value_entry(added, new_path) == {
        "key": "tempsTravail",
        "value": 0.4,
        "reviewed": True,
        "status": "user",
    }
    plain = doc.validate_document(itinera("example-system.json"))
    step = plain["steps"][0]
    edited, changed = doc.set_value(plain, step["id"], step["interventions"][0]["id"], "ift", 1)
    assert not any(field.endswith(doc.STATUS) for field in changed)
    assert not doc.uses_statuses(edited)


def test_approving_reopening_clearing_and_restoring_keep_the_status_in_step():
    stored = doc.validate_document(itinera(TEXT_VALUES))
    status = MOISSON_GNR + doc.STATUS
    approved, changed = doc.write_fields(stored, {MOISSON_GNR + doc.REVIEWED: True}, STAMP)
    assert changed[status] == ("ia", "user")
    # Reopened to be recalculated: no longer said to be a person's, so it reads not reviewed.
    reopened, changed = doc.write_fields(approved, {MOISSON_GNR + doc.REVIEWED: False}, STAMP)
    assert changed[status] == ("user", None)
    assert doc.review_state(doc.value_entry(reopened, MOISSON_GNR)) is False
    _cleared, changed = doc.write_fields(stored, {MOISSON_GNR: None}, STAMP)
    assert changed[status] == ("ia", None)
    # A status written as it was (an undo) is taken as given.
    restored, _ = doc.write_fields(
        reopened, {MOISSON_GNR + doc.REVIEWED: None, status: "ia"}, STAMP
    )
    assert doc.value_entry(restored, MOISSON_GNR) == doc.value_entry(stored, MOISSON_GNR)


def test_an_applied_value_is_the_model_s_the_calculator_s_or_the_reviewer_s():
    assert made_by({"value": 2.5, "by": "model"}, 2.5) == "ia"
    assert made_by({"value": 2.5}, 2.5) == "calculated"
    assert made_by({"value": 2.5, "by": "model"}, 3) == "user"
    assert made_by(None, 3) == "user"


def test_an_itinera_file_imported_edited_and_exported_says_who_made_the_edit(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=itinera(TEXT_VALUES)).get_json()["id"]
    body = {"step_id": "step-ble", "intervention_id": "int-moisson", "key": "gnr", "value": 20}
    answer = editor.post(f"/api/v1/systems/{system_id}/values", json=body, headers=editor.headers)
    assert answer.get_json()["entry"]["status"] == "user", answer.get_json()
    exported = json.loads(editor.get(f"/systems/{system_id}.json").get_data())
    expected = itinera(TEXT_VALUES)
    moisson = expected["steps"][0]["interventions"][1]
    gnr = next(v for v in moisson["values"] if v["key"] == "gnr")
    gnr.update(value=20, reviewed=True, status="user")
    moisson["updatedAt"] = exported["steps"][0]["interventions"][1]["updatedAt"]
    expected["steps"][0]["updatedAt"] = expected["updatedAt"] = moisson["updatedAt"]
    assert exported == expected
    reviewer = api_client(client_as, "reviewer")
    reviewer.post(f"/api/v1/undo/{answer.get_json()['undo_group']}", headers=reviewer.headers)
    db.session.expire_all()
    back = db.session.get(System, system_id).document
    assert doc.value_entry(back, MOISSON_GNR) == doc.value_entry(itinera(TEXT_VALUES), MOISSON_GNR)


@pytest.mark.usefixtures("idle_queue")
def test_an_applied_calculation_is_calculated_in_a_file_with_statuses(client_as):
    editor = api_client(client_as, "editor")
    document = copy.deepcopy(itinera(TEXT_VALUES))
    system_id = create(editor, document=document).get_json()["id"]
    run = started(editor, system_id)
    found = suggestions(run)
    field = next(f for f in found if f.endswith(".tempsTravail"))
    reviewer = api_client(client_as, "reviewer")
    answer = reviewer.post(
        f"/api/v1/runs/{run.id}/apply",
        json={"suggestions": [found[field].id]},
        headers=reviewer.headers,
    )
    assert answer.status_code == 200, answer.get_json()
    db.session.expire_all()
    stored = db.session.get(System, system_id).document
    entry = doc.value_entry(stored, field)
    assert (entry["reviewed"], entry["status"]) == (False, "calculated")
    assert entry["confidence"] == found[field].confidence
    assert entry["conversation"][-1]["role"] == "assistant"
    undone = reviewer.post(
        f"/api/v1/undo/{answer.get_json()['undo_group']}", headers=reviewer.headers
    )
    assert undone.status_code == 200, undone.get_json()
    db.session.expire_all()
    assert doc.value_entry(db.session.get(System, system_id).document, field) is None


def test_the_page_s_recent_changes_say_who_made_a_value_in_words(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=itinera(TEXT_VALUES)).get_json()["id"]
    body = {"step_id": "step-ble", "intervention_id": "int-moisson", "key": "gnr", "value": 20}
    editor.post(f"/api/v1/systems/{system_id}/values", json=body, headers=editor.headers)
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    history = page[page.index('id="history"') :]
    assert "Moisson (Blé tendre d&#39;hiver): Fuel, origin" in history
    row = history[history.index("Fuel, origin") :].split("</tr>")[0]
    assert "a model" in row and "a person" in row
