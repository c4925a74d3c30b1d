"""The farm-systems API: import, list, read, replace, and one value set, audited and undone."""

import json
from pathlib import Path

from sqlalchemy import select

from webapp.extensions import db
from webapp.review.models import Change
from webapp.systems.document import value_path
from webapp.systems.models import VALUE_TARGET, Farm, System

DATA = Path(__file__).parent / "data"


def itinera(name: str = "une-rotation-de-test.json") -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def api_client(client_as, role: str):
    client = client_as(role)
    client.headers = {"X-CSRFToken": client.csrf_token()}
    return client


def create(client, **body):
    body = {"farm": "Ferme du Bocage", "region": "Bretagne", "document": itinera()} | body
    return client.post("/api/v1/systems", json=body, headers=client.headers)


def test_a_system_is_imported_listed_and_read_back_as_it_came(client_as):
    editor = api_client(client_as, "editor")
    created = create(editor)
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert body["name"] == "Une rotation de test" and body["farm"]["region"] == "Bretagne"
    assert (body["steps"], body["interventions"]) == (10, 31)
    assert "warning" not in body
    other = create(
        editor, farm="ferme du bocage", name="Variante", document=itinera("example-system.json")
    )
    assert other.get_json()["farm"]["id"] == body["farm"]["id"]
    assert db.session.scalar(select(db.func.count()).select_from(Farm)) == 1
    viewer = api_client(client_as, "viewer")
    listed = viewer.get("/api/v1/systems?per_page=1").get_json()
    assert listed["total"] == 2 and [s["name"] for s in listed["systems"]] == [
        "Une rotation de test"
    ]
    document = viewer.get(f"/api/v1/systems/{body['id']}")
    assert document.mimetype == "application/json" and document.get_json() == itinera()
    download = viewer.get(f"/systems/{body['id']}.json")
    assert json.loads(download.get_data()) == itinera()
    assert "attachment" in download.headers["Content-Disposition"]
    assert viewer.get("/api/v1/systems/999999").get_json()["error"]["code"] == "not_found"


def test_viewers_read_and_editors_write(client_as):
    viewer = api_client(client_as, "viewer")
    assert create(viewer).status_code == 403
    assert db.session.scalar(select(db.func.count()).select_from(System)) == 0


def test_a_bad_document_is_422_naming_each_path_and_nothing_is_stored(client_as):
    editor = api_client(client_as, "editor")
    document = itinera()
    document["steps"][3]["interventions"][2]["day"] = "le lendemain"
    refused = create(editor, document=document)
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "document_invalid" and "nothing was stored" in error["message"]
    assert [e["loc"] for e in error["details"]["errors"]] == ["steps[3].interventions[2].day"]
    assert create(editor, farm=None).status_code == 422
    assert create(editor, document={"title": "x"}).status_code == 422
    assert db.session.scalar(select(db.func.count()).select_from(System)) == 0
    assert db.session.scalar(select(db.func.count()).select_from(Farm)) == 0


def test_put_replaces_the_document_and_audits_the_values_it_changes(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    document = itinera()
    step, work = document["steps"][0], document["steps"][0]["interventions"][0]
    work["values"] = [{"key": "gnr", "value": 22, "reviewed": False, "confidence": "medium"}]
    replaced = editor.put(f"/api/v1/systems/{system_id}", json=document, headers=editor.headers)
    assert replaced.status_code == 200 and replaced.get_json()["undo_group"]
    assert editor.get(f"/api/v1/systems/{system_id}").get_json() == document
    path = value_path(step["id"], work["id"], "gnr")
    fields = db.session.scalars(
        select(Change.field).where(Change.target_type == VALUE_TARGET).order_by(Change.id)
    ).all()
    assert fields == [path, path + ".reviewed", path + ".confidence"]
    document["steps"][0]["color"] = "tan"
    bad = editor.put(f"/api/v1/systems/{system_id}", json=document, headers=editor.headers)
    assert bad.status_code == 422
    assert bad.get_json()["error"]["details"]["errors"][0]["loc"] == "steps[0].color"


def one_value(client_as):
    """An editor, a new system's id, the values URL, a value's body (an intervention's IFT),
    its step and its intervention."""
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    step = itinera()["steps"][1]
    work = step["interventions"][2]
    url = f"/api/v1/systems/{system_id}/values"
    body = {"step_id": step["id"], "intervention_id": work["id"], "key": "ift"}
    return editor, system_id, url, body, step, work


def test_a_value_is_set_audited_and_undone_through_the_core(client_as):
    editor, system_id, url, body, step, work = one_value(client_as)
    word = editor.post(url, json=body | {"value": "beaucoup"}, headers=editor.headers)
    assert word.status_code == 422
    assert "not a number" in word.get_json()["error"]["message"]
    missing = editor.post(
        url, json=body | {"step_id": "nowhere", "value": 1}, headers=editor.headers
    )
    assert missing.status_code == 422
    assert missing.get_json()["error"]["details"]["errors"][0]["loc"] == "step_id"
    first = editor.post(url, json=body | {"value": "0,5"}, headers=editor.headers).get_json()
    assert first["entry"] == {"key": "ift", "value": 0.5, "reviewed": True}
    second = editor.post(url, json=body | {"value": 1.25}, headers=editor.headers).get_json()
    assert second["path"] == value_path(step["id"], work["id"], "ift")
    stored = editor.get(f"/api/v1/systems/{system_id}").get_json()
    assert stored["steps"][1]["interventions"][2]["values"][0]["value"] == 1.25
    assert stored["steps"][1]["updatedAt"] == stored["updatedAt"]
    reviewer = api_client(client_as, "reviewer")
    stale = reviewer.post(f"/api/v1/undo/{first['undo_group']}", headers=reviewer.headers)
    assert stale.status_code == 409
    undone = reviewer.post(f"/api/v1/undo/{second['undo_group']}", headers=reviewer.headers)
    assert undone.status_code == 200, undone.get_json()
    back = editor.get(f"/api/v1/systems/{system_id}").get_json()
    assert back["steps"][1]["interventions"][2]["values"] == [
        {"key": "ift", "value": 0.5, "reviewed": True}
    ]
    reviewer.post(f"/api/v1/undo/{first['undo_group']}", headers=reviewer.headers)
    emptied = editor.get(f"/api/v1/systems/{system_id}").get_json()
    assert emptied["steps"][1]["interventions"][2]["values"] == []


def test_reviewed_can_be_set_with_the_value_or_alone(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    step = itinera()["steps"][0]
    url = f"/api/v1/systems/{system_id}/values"
    body = {"step_id": step["id"], "key": "rendement", "value": 1.4, "reviewed": "n/a"}
    answer = editor.post(url, json=body, headers=editor.headers).get_json()
    assert answer["entry"] == {"key": "rendement", "value": 1.4, "reviewed": "n/a"}
    assert answer["path"] == f"steps[{step['id']}].stepValues.rendement"
    wrong = editor.post(url, json=body | {"reviewed": "yes"}, headers=editor.headers)
    assert wrong.status_code == 422


def test_viewers_cannot_change_a_system(client_as):
    system_id = create(api_client(client_as, "editor")).get_json()["id"]
    viewer = api_client(client_as, "viewer")
    step = itinera()["steps"][0]
    body = {"step_id": step["id"], "key": "rendement", "value": 1}
    url = f"/api/v1/systems/{system_id}"
    assert viewer.post(url + "/values", json=body, headers=viewer.headers).status_code == 403
    assert viewer.put(url, json=itinera(), headers=viewer.headers).status_code == 403
    assert viewer.get(url).get_json() == itinera()


def test_a_document_over_one_megabyte_is_stored_with_a_warning(client_as):
    editor = api_client(client_as, "editor")
    document = itinera()
    document["options"]["notes"] = "x" * 1_100_000
    created = create(editor, document=document)
    assert created.status_code == 201
    assert "over 1 MB" in created.get_json()["warning"]
    assert editor.get(f"/api/v1/systems/{created.get_json()['id']}").get_json() == document


def test_reviewed_alone_approves_the_value_as_it_stands_and_undo_reopens_it(client_as):
    editor, system_id, url, body, step, work = one_value(client_as)
    editor.post(url, json=body | {"value": 0.15, "reviewed": False}, headers=editor.headers)
    approved = editor.post(url, json=body | {"reviewed": True}, headers=editor.headers)
    assert approved.status_code == 200, approved.get_json()
    entry = approved.get_json()["entry"]
    assert (entry["value"], entry["reviewed"]) == (0.15, True)
    said = entry["conversation"][-1]
    assert (said["action"], said["previous_value"], said["new_value"]) == ("approve", 0.15, 0.15)
    group = approved.get_json()["undo_group"]
    audited = db.session.scalars(select(Change).where(Change.group_id == group)).all()
    path = value_path(step["id"], work["id"], "ift")
    assert [(c.field, c.old_value, c.new_value) for c in audited] == [
        (path + ".reviewed", False, True),
        (path + ".conversation", None, entry["conversation"]),
    ]
    reviewer = api_client(client_as, "reviewer")
    undone = reviewer.post(f"/api/v1/undo/{group}", headers=reviewer.headers)
    assert undone.status_code == 200, undone.get_json()
    back = editor.get(f"/api/v1/systems/{system_id}").get_json()
    entry = back["steps"][1]["interventions"][2]["values"][0]
    assert (entry["value"], entry["reviewed"]) == (0.15, False)
    assert "conversation" not in entry  # the approval's messages went with it


def test_reviewed_alone_needs_a_value_and_null_clears_one(client_as):
    editor, system_id, url, body, _step, _work = one_value(client_as)
    nothing = editor.post(url, json=body | {"reviewed": True}, headers=editor.headers)
    assert nothing.status_code == 422
    assert "no value to review" in nothing.get_json()["error"]["message"]
    empty = editor.post(url, json=body, headers=editor.headers)
    assert empty.status_code == 422
    not_applicable = editor.post(url, json=body | {"reviewed": "n/a"}, headers=editor.headers)
    assert not_applicable.get_json()["entry"] == {"key": "ift", "reviewed": "n/a"}
    editor.post(url, json=body | {"value": 0.5, "reviewed": False}, headers=editor.headers)
    cleared = editor.post(url, json=body | {"value": None}, headers=editor.headers).get_json()
    assert cleared["entry"] is None  # no value and nothing to review: the entry is gone
    stored = editor.get(f"/api/v1/systems/{system_id}").get_json()
    assert stored["steps"][1]["interventions"][2]["values"] == []


def test_an_itinera_file_with_text_values_is_imported_said_and_exported_as_it_came(client_as):
    editor = api_client(client_as, "editor")
    answer = create(editor, document=itinera("itinera-text-values.json"))
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    assert body["not_numbers"] == [
        {
            "path": value_path("step-ble", "int-herbicide", "gnr"),
            "label": "Désherbage (Blé tendre d'hiver): Fuel",
            "value": "environ 2",
        },
        {
            "path": value_path("step-ble", "int-moisson", "mecanisation"),
            "label": "Moisson (Blé tendre d'hiver): Machinery",
            "value": "beaucoup",
        },
    ]
    assert "counted in no total" in body["not_numbers_message"]
    exported = editor.get(f"/systems/{body['id']}.json")
    assert json.loads(exported.get_data()) == itinera("itinera-text-values.json")
    plain = create(editor)
    assert "not_numbers" not in plain.get_json()
