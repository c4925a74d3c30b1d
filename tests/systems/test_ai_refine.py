"""Refining and recalculating one value, offline, and the reviewed rules: a value someone asks
to recalculate or refine is not reviewed until they approve the answer (an audited, undoable
change); a reviewed or entered value is never replaced unless that one cell is asked for."""

import copy

import pytest
from sqlalchemy import select

from tests.support.tables import run_here
from tests.systems.test_system_api import api_client, create, itinera
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review import service as review
from webapp.review.models import Change, Suggestion
from webapp.systems.document import flat_values, value_entry, value_path
from webapp.systems.models import System
from webapp.systems.runs import MESSAGE_LIMIT, SystemCalculation, assumption_lines

pytestmark = pytest.mark.usefixtures("idle_queue")

DOCUMENT = itinera()
STEP = DOCUMENT["steps"][0]
LABOUR = STEP["interventions"][0]
FUEL = value_path(STEP["id"], LABOUR["id"], "gnr")
CELL = {"step_id": STEP["id"], "intervention_id": LABOUR["id"], "key": "gnr"}


def with_fuel(value=21, reviewed=True, assumptions=""):
    document = copy.deepcopy(DOCUMENT)
    work = document["steps"][0]["interventions"][0]
    work["values"] = [{"key": "gnr", "value": value, "reviewed": reviewed}]
    work["assumptions"] = assumptions
    return document


def refine(client, system_id, message, **cell):
    body = CELL | cell | {"message": message}
    return client.post(f"/api/v1/systems/{system_id}/refine", json=body, headers=client.headers)


def document_of(system_id):
    db.session.expire_all()
    return db.session.get(System, system_id).document


def worked(answer):
    assert answer.status_code == 202, answer.get_json()
    return run_here(db.session.get(Run, answer.get_json()["run_id"]), SystemCalculation())


def only_suggestion(run):
    return db.session.scalars(select(Suggestion).where(Suggestion.run_id == run.id)).one()


def test_assumption_lines_are_read_from_a_message():
    assert assumption_lines("La charrue :\n- **Corps**: 4\nCarburant: 25 L/ha\nMerci: bien") == [
        "- **Corps**: 4",
        "- **Carburant**: 25 L/ha",
    ]
    assert assumption_lines("la charrue n'a que 4 corps") == []


def test_an_offline_refinement_adds_its_assumptions_and_recalculates(client_as, make_user):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    run = worked(refine(editor, system_id, "Carburant: 25 L/ha"))
    assert run.mode == "refine" and run.provider == "offline"
    document = document_of(system_id)
    work = document["steps"][0]["interventions"][0]
    assert work["assumptions"] == "- **Carburant**: 25 L/ha\n"
    entry = value_entry(document, FUEL)
    assert entry["value"] == 21 and entry["reviewed"] is False
    changes = db.session.scalars(select(Change).where(Change.source == "manual")).all()
    assert {c.field for c in changes} == {
        f"steps[{STEP['id']}].interventions[{LABOUR['id']}].assumptions",
        FUEL + ".reviewed",
    }
    assert len({c.group_id for c in changes}) == 1  # one undo takes both back
    suggestion = only_suggestion(run)
    assert (suggestion.current_value, suggestion.suggested_value) == (21, 25.0)
    said = entry["conversation"]
    assert [m["role"] for m in said] == ["system", "user", "assistant"]
    assert said[1] | {"timestamp": None} == {
        "role": "user",
        "content": "Carburant: 25 L/ha",
        "action": "refine",
        "previous_value": 21,
        "new_value": 25.0,
        "timestamp": None,
    }
    applied = review.apply([suggestion.id], make_user("reviewer"))
    db.session.commit()
    assert applied.applied
    values = flat_values(document_of(system_id))
    # Applied, the answer is a prediction; its conversation told it already (not twice).
    assert values[FUEL] == 25.0 and values[FUEL + ".reviewed"] is False
    assert [m["role"] for m in values[FUEL + ".conversation"]] == ["system", "user", "assistant"]


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ("la charrue n'a que 4 corps", "- **Corps**: 4"),
        ("   ", "Write what to change"),
        ("- **Corps**: 4\n" + "x" * MESSAGE_LIMIT, "at most 2,000 characters"),
    ],
    ids=["offline-no-assumption", "empty", "too-long"],
)
def test_a_message_that_cannot_be_used_is_refused_and_nothing_changes(client_as, message, says):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    answer = refine(editor, system_id, message)
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["code"] == "refine_invalid" and says in error["message"]
    assert db.session.scalar(select(db.func.count()).select_from(Run)) == 0
    assert value_entry(document_of(system_id), FUEL)["reviewed"] is True


def test_the_refine_form_shows_its_problem_in_the_cell_or_the_page(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    form = {"step": STEP["id"], "intervention": LABOUR["id"], "key": "gnr", "message": "4 corps"}
    page = f"/systems/{system_id}"
    edit = editor.get(f"{page}/cell/edit?step={STEP['id']}&intervention={LABOUR['id']}&key=gnr")
    assert "Refine…" in edit.get_data(as_text=True) and "Recalculate" in edit.get_data(as_text=True)
    cell = editor.submit(f"{page}/cell/refine", form, page=page, headers={"HX-Request": "true"})
    assert cell.status_code == 422
    text = cell.get_data(as_text=True)
    assert text.lstrip().startswith("<td") and "- **Corps**: 4" in text and "4 corps" in text
    whole = editor.submit(f"{page}/cell/refine", form, page=page)
    assert whole.status_code == 422 and "- **Corps**: 4" in whole.get_data(as_text=True)
    started = editor.submit(f"{page}/cell/refine", form | {"message": "Corps: 4"}, page=page)
    run = db.session.scalars(select(Run)).one()
    assert started.status_code == 302
    assert started.headers["Location"].endswith(f"/review/runs/{run.id}")
    viewer = client_as("viewer")
    assert viewer.submit(f"{page}/cell/refine", form, page=page).status_code == 403


def test_a_refinement_waits_for_a_live_calculation(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    batch = editor.post(f"/api/v1/systems/{system_id}/calculate-missing", headers=editor.headers)
    assert batch.status_code == 202
    answer = refine(editor, system_id, "Corps: 4")
    assert answer.status_code == 409
    assert answer.get_json()["error"]["code"] == "run_in_progress"
    assert value_entry(document_of(system_id), FUEL)["reviewed"] is True  # nothing changed


def test_a_filled_cell_is_recalculated_only_when_asked_for(client_as):
    editor = api_client(client_as, "editor")
    document = with_fuel(value=30, assumptions="- **Carburant**: 25 L/ha")
    system_id = create(editor, document=document).get_json()["id"]
    page = f"/systems/{system_id}"
    form = {"step": STEP["id"], "intervention": LABOUR["id"], "key": "gnr"}
    refused = editor.submit(f"{page}/cell/calculate", form, page=page)
    assert refused.status_code == 302 and refused.headers["Location"].endswith("#grid")
    assert "has a value already" in editor.get(page).get_data(as_text=True)
    asked = editor.submit(f"{page}/cell/calculate", form | {"recalculate": "1"}, page=page)
    assert asked.status_code == 302 and "/runs/" in asked.headers["Location"]
    assert value_entry(document_of(system_id), FUEL)["reviewed"] is False
    run = run_here(db.session.scalars(select(Run)).one(), SystemCalculation())
    assert run.mode == "recalculate" and run.title.startswith("Recalculate")
    assert only_suggestion(run).suggested_value == 25.0
    # Reopening is a person's change on the system page, undone like one.
    reopened = select(Change).where(Change.field == FUEL + ".reviewed", Change.source == "manual")
    change = db.session.scalars(reopened).one()
    reviewer = client_as("reviewer")
    undone = reviewer.submit(f"/review/undo/{change.group_id}", {}, page=page)
    assert undone.status_code == 302
    assert value_entry(document_of(system_id), FUEL)["reviewed"] is True


def test_the_api_recalculates_a_filled_cell_when_asked(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    url = f"/api/v1/systems/{system_id}/calculate"
    assert editor.post(url, json=CELL, headers=editor.headers).status_code == 422
    wrong = editor.post(url, json=CELL | {"recalculate": "yes"}, headers=editor.headers)
    assert wrong.status_code == 422
    run = worked(editor.post(url, json=CELL | {"recalculate": True}, headers=editor.headers))
    assert run.items == [FUEL] and only_suggestion(run).current_value == 21


def test_a_batch_leaves_a_cell_filled_after_it_started(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    answer = editor.post(
        f"/api/v1/systems/{system_id}/calculate", json=CELL, headers=editor.headers
    )
    entered = editor.post(
        f"/api/v1/systems/{system_id}/values", json=CELL | {"value": 12}, headers=editor.headers
    )
    assert entered.status_code == 200, entered.get_json()
    run = worked(answer)
    assert run.results[FUEL]["error"] == "The cell has a value now."
    values = flat_values(document_of(system_id))
    assert values[FUEL] == 12 and values[FUEL + ".reviewed"] is True


def test_an_edit_is_kept_in_the_values_conversation(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    worked(refine(editor, system_id, "Carburant: 25 L/ha"))
    body = CELL | {"value": 24}
    url = f"/api/v1/systems/{system_id}/values"
    assert editor.post(url, json=body, headers=editor.headers).status_code == 200
    entry = value_entry(document_of(system_id), FUEL)
    assert entry["reviewed"] is True  # a person's value
    last = entry["conversation"][-1]
    assert (last["action"], last["previous_value"], last["new_value"]) == ("manual_edit", 21, 24)


def test_the_page_names_the_assumptions_a_refinement_changed(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    worked(refine(editor, system_id, "Carburant: 25 L/ha"))
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert f"Labour ({STEP['name']}): assumptions" in page and "].assumptions" not in page


def test_the_drawer_offers_refine_to_editors(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=with_fuel()).get_json()["id"]
    url = f"/systems/{system_id}/cell/drawer?step={STEP['id']}&intervention={LABOUR['id']}&key=gnr"
    drawer = editor.get(url).get_data(as_text=True)
    assert f'action="/systems/{system_id}/cell/refine"' in drawer and 'name="message"' in drawer
    viewer = client_as("viewer")
    assert "/cell/refine" not in viewer.get(url).get_data(as_text=True)
