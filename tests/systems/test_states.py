"""The three states of a value, as itinera means them: applying a calculation writes an AI
prediction (reviewed false, with its confidence and the conversation that says how it was
made); approving — one value, a selection, or every high-confidence one — is the separate act
that marks it reviewed; totals count predictions and say how much of each rests on them."""

import copy
import json
import re

import pytest

from tests.support.tables import run_here
from tests.systems.test_calculation_runs import DOCUMENT, LABOUR, STEP, path, started, suggestions
from tests.systems.test_system_api import api_client, create
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review import service as review
from webapp.systems import catalog
from webapp.systems.document import flat_values, value_entry
from webapp.systems.grid import Cell
from webapp.systems.models import System
from webapp.systems.runs import SystemCalculation, start_cell
from webapp.systems.totals import step_totals, system_totals

pytestmark = pytest.mark.usefixtures("idle_queue")


def document_of(system_id):
    db.session.expire_all()
    return db.session.get(System, system_id).document


def imported(client_as, **values):
    """A system whose Labour holds these values ({key: entry}), imported by an editor."""
    document = copy.deepcopy(DOCUMENT)
    document["steps"][0]["interventions"][0]["values"] = [
        {"key": k} | entry for k, entry in values.items()
    ]
    editor = api_client(client_as, "editor")
    return editor, create(editor, document=document).get_json()["id"]


def test_an_applied_calculation_is_a_prediction_with_how_it_was_made(client_as, make_user):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)  # "calculate all missing": no conversation yet
    ift = suggestions(run)[path("ift")]
    assert value_entry(document_of(system_id), path("ift")) is None
    applied = review.apply([ift.id], make_user("reviewer"))
    db.session.commit()
    entry = value_entry(document_of(system_id), path("ift"))
    assert entry["value"] == ift.suggested_value and entry["reviewed"] is False
    assert entry["confidence"] == ift.confidence
    system, answer = entry["conversation"]
    assert system["role"] == "system" and "Treatment frequency index" in system["content"]
    result = run.results[path("ift")]
    assert answer["role"] == "assistant" and answer["confidence"] == ift.confidence
    assert answer["calculation_steps"] == result["calculation_steps"]
    assert answer["assumptions"] == result["assumptions"]
    assert answer["sources"] == [e["title"] or e["source_url"] for e in ift.evidence]
    assert answer["content"].splitlines()[0].startswith(f"{ift.suggested_value:g}")
    # The page says it is a prediction, not ✓.
    cell = Cell("ift", entry)
    assert cell.state != "reviewed" and cell.mark != "✓"
    assert cell.meaning == f"prediction · {ift.confidence} confidence · not reviewed"
    # One undo takes the value, its review status, confidence and conversation back.
    undone = review.undo(applied.group, make_user("reviewer"))
    db.session.commit()
    assert not undone.changed_since
    assert value_entry(document_of(system_id), path("ift")) is None


def test_a_value_the_reviewer_changed_before_applying_is_theirs(client_as, make_user):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    ift = suggestions(run)[path("ift")]
    review.apply([ift.id], make_user("reviewer"), edits={ift.id: "1.25"})
    db.session.commit()
    entry = value_entry(document_of(system_id), path("ift"))
    assert (entry["value"], entry["reviewed"]) == (1.25, True)
    assert "confidence" not in entry
    said = entry["conversation"][-1]
    assert (said["action"], said["previous_value"], said["new_value"]) == (
        "manual_edit",
        run.results[path("ift")]["value"],
        1.25,
    )
    assert Cell("ift", entry).mark == "✓"


def test_applying_over_a_reopened_value_and_undoing_it_leaves_it_not_reviewed(client_as, make_user):
    """An undo writes back the review status it recorded, and leaves the one it did not
    change as it is (an applied value no longer takes reviewed true)."""
    _editor, system_id = imported(client_as, tempsTravail={"value": 3, "reviewed": False})
    system = db.session.get(System, system_id)
    user = make_user("editor")
    run = start_cell(system, user, STEP["id"], LABOUR["id"], "tempsTravail", recalculate=True)
    db.session.commit()
    run = run_here(db.session.get(Run, run.id), SystemCalculation())
    found = suggestions(run)[path("tempsTravail")]
    applied = review.apply([found.id], make_user("reviewer"))
    db.session.commit()
    entry = value_entry(document_of(system_id), path("tempsTravail"))
    assert entry["reviewed"] is False and entry["value"] == found.suggested_value
    # The run told the conversation already: the apply does not tell it twice.
    roles = [m["role"] for m in entry["conversation"]]
    assert roles == ["system", "user", "assistant"]
    review.undo(applied.group, make_user("reviewer"))
    db.session.commit()
    values = flat_values(document_of(system_id))
    assert (values[path("tempsTravail")], values[path("tempsTravail") + ".reviewed"]) == (3, False)


def test_approve_marks_chosen_values_reviewed_in_one_group(client_as, make_user):
    _editor, system_id = imported(
        client_as,
        ift={"value": 0.8, "reviewed": False, "confidence": "high"},
        gnr={"value": 20, "reviewed": False, "confidence": "low"},
        tempsTravail={"value": 1, "reviewed": True},
        mecanisation={"value": "beaucoup", "reviewed": False},
    )
    system = db.session.get(System, system_id)
    asked = [path("ift"), path("tempsTravail"), path("mecanisation"), "steps[nowhere].x"]
    saved = catalog.approve(system, asked, make_user("editor"))
    db.session.commit()
    values = flat_values(document_of(system_id))
    assert values[path("ift") + ".reviewed"] is True
    assert values[path("ift") + ".conversation"][-1]["action"] == "approve"
    assert values[path("gnr") + ".reviewed"] is False  # not chosen
    assert values[path("mecanisation") + ".reviewed"] is False  # not a number
    assert path("tempsTravail") + ".conversation" not in values  # reviewed already
    assert saved.group
    review.undo(saved.group, make_user("reviewer"))
    db.session.commit()
    values = flat_values(document_of(system_id))
    assert values[path("ift") + ".reviewed"] is False
    assert path("ift") + ".conversation" not in values


def test_approve_all_high_confidence_is_said_then_confirmed_and_undone(client_as):
    _editor, system_id = imported(
        client_as,
        ift={"value": 0.8, "reviewed": False, "confidence": "high"},
        gnr={"value": 20, "reviewed": False, "confidence": "high"},
        tempsTravail={"value": 1, "reviewed": False, "confidence": "low"},
    )
    url = f"/systems/{system_id}/approve"
    editor = client_as("editor")
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "<strong>3</strong> values not reviewed yet, 2 with high confidence" in page
    assert f'{url}?confidence=high"' in page
    confirm = editor.get(f"{url}?confidence=high").get_data(as_text=True)
    assert "<strong>2</strong> values with high confidence will be marked reviewed" in confirm
    assert "Labour (Orge + Lupin): Treatment frequency index" in confirm
    assert "Labour (Orge + Lupin): Fuel" in confirm and "Working time" not in confirm
    assert "prediction · high confidence · not reviewed" in confirm
    assert value_entry(document_of(system_id), path("ift"))["reviewed"] is False
    # Without the form's token nothing is approved; a viewer may not approve.
    assert editor.post(url, data={"all": "high"}).status_code == 400
    viewer = client_as("viewer")
    assert viewer.get(f"{url}?confidence=high").status_code == 403
    assert viewer.submit(url, {"all": "high"}).status_code == 403
    done = editor.submit(url, {"all": "high"}, page=f"{url}?confidence=high")
    assert done.status_code == 302
    assert "Approved 2 value(s)" in editor.get(done.headers["Location"]).get_data(as_text=True)
    values = flat_values(document_of(system_id))
    assert values[path("ift") + ".reviewed"] is True and values[path("gnr") + ".reviewed"] is True
    assert values[path("tempsTravail") + ".reviewed"] is False
    reviewer = client_as("reviewer")
    system_page = reviewer.get(f"/systems/{system_id}").get_data(as_text=True)
    undo_url = re.search(r'action="(/review/undo/\w+)"', system_page).group(1)
    assert reviewer.submit(undo_url, page=f"/systems/{system_id}").status_code == 302
    values = flat_values(document_of(system_id))
    assert values[path("ift") + ".reviewed"] is False and values[path("gnr") + ".reviewed"] is False


def test_approve_a_selection_from_the_approval_page(client_as):
    _editor, system_id = imported(
        client_as,
        ift={"value": 0.8, "reviewed": False, "confidence": "high"},
        gnr={"value": 20, "reviewed": False},
        tempsTravail={"value": 1, "reviewed": False, "confidence": "low"},
    )
    url = f"/systems/{system_id}/approve"
    editor = client_as("editor")
    page = editor.get(url).get_data(as_text=True)
    assert "<strong>3</strong> values waiting for review" in page
    assert f'value="{path("gnr")}"' in page
    assert editor.submit(url, {}).status_code == 302  # nothing ticked: nothing approved
    chosen = {"cell": [path("gnr"), path("tempsTravail")]}
    assert editor.submit(url, chosen, page=url).status_code == 302
    values = flat_values(document_of(system_id))
    assert values[path("gnr") + ".reviewed"] is True
    assert values[path("tempsTravail") + ".reviewed"] is True
    assert values[path("ift") + ".reviewed"] is False


def work(name, *values, frequence=None):
    entries = [{"key": k, "value": v, "reviewed": r} for k, v, r in values]
    if frequence is not None:
        entries.append({"key": "frequence", "value": frequence[0], "reviewed": frequence[1]})
    return {"id": name, "name": name, "day": "0", "values": entries}


def test_totals_say_how_much_rests_on_unreviewed_values():
    step = {
        "id": "s",
        "name": "Blé",
        "startDate": "2026-01-01T00:00:00.000Z",
        "endDate": "2026-12-31T00:00:00.000Z",
        "interventions": [
            work("a", ("gnr", 10, True), ("semences", 100, False), frequence=(2, True)),
            # A frequence no person reviewed: the whole of its values × frequence is unsure.
            work("b", ("gnr", 5, True), frequence=(3, False)),
        ],
        "stepValues": [
            {"key": "rendement", "value": 8, "reviewed": True},
            {"key": "prixVente", "value": 200, "status": "calculated"},
        ],
    }
    totals = step_totals(step)
    assert totals.values["gnr"] == 35 and totals.unreviewed["gnr"] == 15
    assert totals.values["semences"] == 200 and totals.unreviewed["semences"] == 200
    # A product rests whole on an unreviewed price; the margin on products less charges.
    assert totals.unreviewed["totalProduits"] == totals.values["totalProduits"] == 1600
    charges = totals.unreviewed["totalCharges"]
    assert totals.unreviewed["margeBrute"] == 1600 - charges
    document = {"steps": [step]}
    yearly = system_totals(document)
    assert yearly.unreviewed["gnr"] == pytest.approx(15 / yearly.rotation_years, rel=1e-6)
    step["stepValues"][1]["reviewed"] = True  # a person approved the price
    step["interventions"][1]["values"][-1]["reviewed"] = True
    step["interventions"][0]["values"][1]["reviewed"] = True
    approved = step_totals(step)
    assert all(v == 0 for v in approved.unreviewed.values())


def test_the_totals_page_and_api_say_the_unreviewed_part(client_as):
    editor, system_id = imported(
        client_as,
        gnr={"value": 20, "reviewed": False, "confidence": "high"},
        tempsTravail={"value": 1, "reviewed": True},
        frequence={"value": 1, "reviewed": True},
    )
    body = editor.get(f"/api/v1/systems/{system_id}/totals").get_json()
    labour = body["steps"][0]["interventions"][LABOUR["id"]]["values"]
    assert labour["gnr"] == {"value": 20, "unit": "L/ha", "unreviewed": 20}
    assert labour["tempsTravail"]["unreviewed"] == 0
    years = body["rotation_years"]
    assert body["values"]["gnr"]["unreviewed"] == pytest.approx(20 / years, rel=1e-3)
    assert body["values"]["tempsTravail"]["unreviewed"] == 0
    page = client_as("viewer").get(f"/systems/{system_id}").get_data(as_text=True)
    yearly = page[page.index('id="yearly-totals"') :]
    assert yearly.count("not reviewed</span>") == 1 and "of which " in yearly


def test_the_export_keeps_confidence_and_conversation(client_as, make_user):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    ift = suggestions(run)[path("ift")]
    review.apply([ift.id], make_user("reviewer"))
    db.session.commit()
    exported = json.loads(client_as("viewer").get(f"/systems/{system_id}.json").get_data())
    entry = next(e for e in exported["steps"][0]["interventions"][0]["values"] if e["key"] == "ift")
    assert entry["reviewed"] is False and entry["confidence"] == ift.confidence
    assert [m["role"] for m in entry["conversation"]] == ["system", "assistant"]


def test_the_words_of_each_state():
    ai = Cell("semences", {"value": 94.5, "reviewed": False, "status": "ia", "confidence": "high"})
    assert (ai.state, ai.mark) == ("confident", "★")
    assert ai.meaning == "AI prediction · high confidence · not reviewed"
    calculated = Cell("ift", {"value": 1, "status": "calculated"})
    assert (calculated.mark, calculated.meaning) == ("?", "calculated · not reviewed")
    approved = Cell("ift", {"value": 1, "reviewed": True, "confidence": "high"})
    assert (approved.mark, approved.meaning) == ("✓", "reviewed by a person")
    imported_value = Cell("ift", {"value": 1})
    assert imported_value.meaning == "not reviewed"
