"""The rules every value follows, whoever writes it: an explicit "not reviewed" reads so, a
cleared value takes its review status with it, "not applicable" counts nowhere and cannot be
approved, and a number beyond any value of a hectare is never read or totalled."""

import copy
import json
import math

import pytest

from tests.systems.test_system_api import api_client, create, itinera
from webapp.systems import document as doc
from webapp.systems.calculators import calculate_in
from webapp.systems.calculators.context import read_quantity
from webapp.systems.calculators.result import Result, shown
from webapp.systems.runs import missing_cells
from webapp.systems.totals import step_totals, system_totals

TEXT_VALUES = "itinera-text-values.json"
MOISSON_GNR = doc.value_path("step-ble", "int-moisson", "gnr")
MOISSON_IFT = doc.value_path("step-ble", "int-moisson", "ift")


def stored(change=None) -> dict:
    raw = itinera(TEXT_VALUES)
    if change:
        change(raw)
    return doc.validate_document(raw)


def test_a_value_a_person_says_is_not_reviewed_reads_not_reviewed_in_a_file_with_statuses():
    document = stored()
    edited, _ = doc.set_value(document, "step-ble", "int-moisson", "gnr", 20, False)
    entry = doc.value_entry(edited, MOISSON_GNR)
    assert entry["reviewed"] is False and "status" not in entry
    assert doc.review_state(entry) is False
    added, _ = doc.set_value(document, "step-colza", "int-semis", "gnr", 12, False)
    new = doc.value_entry(added, doc.value_path("step-colza", "int-semis", "gnr"))
    assert new == {"key": "gnr", "value": 12, "reviewed": False}
    # Entered and approved, it is a person's as itinera says it.
    approved, _ = doc.set_value(document, "step-ble", "int-moisson", "gnr", 20, True)
    assert doc.value_entry(approved, MOISSON_GNR)["status"] == "user"


@pytest.mark.parametrize("reviewed", [True, False])
def test_a_value_not_applicable_cannot_be_approved_or_reopened(reviewed):
    document = stored()
    assert doc.review_state(doc.value_entry(document, MOISSON_IFT)) == "n/a"
    with pytest.raises(doc.DocumentInvalid, match="no value to review"):
        doc.set_value(document, "step-ble", "int-moisson", "ift", reviewed=reviewed)
    assert doc.review_refused(doc.value_entry(document, MOISSON_IFT), "approve", "approving") == (
        "There is no value to approve here."
    )


@pytest.mark.parametrize("reviewed", [None, True, False])
def test_a_cleared_value_takes_its_review_status_and_confidence_with_it(reviewed):
    document = stored()
    assert doc.value_entry(document, MOISSON_GNR)["confidence"] == "medium"
    cleared, changed = doc.set_value(document, "step-ble", "int-moisson", "gnr", None, reviewed)
    assert doc.value_entry(cleared, MOISSON_GNR) is None
    assert changed[MOISSON_GNR + doc.CONFIDENCE] == ("medium", None)
    empty_cell = doc.value_path("step-colza", "int-semis", "gnr")
    nothing, changed = doc.set_value(document, "step-colza", "int-semis", "gnr", None, reviewed)
    assert doc.value_entry(nothing, empty_cell) is None and changed == {}


def test_a_cleared_value_marked_not_applicable_stays_so():
    document = stored()
    cleared, _ = doc.set_value(document, "step-ble", "int-moisson", "gnr", None, "n/a")
    entry = doc.value_entry(cleared, MOISSON_GNR)
    assert "value" not in entry and doc.review_state(entry) == "n/a"
    assert "confidence" not in entry


def not_applicable_ift(marks):
    def change(raw):
        raw["steps"][0]["interventions"][1]["values"][1] = {"key": "ift", "value": 2.5} | marks

    return change


@pytest.mark.parametrize("marks", [{"status": "n/a"}, {"reviewed": "n/a"}])
def test_a_value_not_applicable_counts_in_no_total(marks):
    document = stored(not_applicable_ift(marks))
    applicable = stored(not_applicable_ift({}))
    wheat = step_totals(document["steps"][0])
    assert wheat.values["ift"] == pytest.approx(
        step_totals(applicable["steps"][0]).values["ift"] - 2.5
    )
    assert "ift" not in wheat.interventions["int-moisson"].values


def test_calculate_all_missing_leaves_a_cell_not_applicable_alone():
    document = stored(not_applicable_ift({"status": "n/a"}))
    document["steps"][0]["interventions"][1]["values"][1].pop("value")
    assert MOISSON_IFT not in missing_cells(document)
    emptied = copy.deepcopy(document)
    emptied["steps"][0]["interventions"][1]["values"].pop(1)
    assert MOISSON_IFT in missing_cells(emptied)


@pytest.mark.parametrize("text", ["1e308", "2e12", "-5e13"])
def test_a_number_beyond_any_value_of_a_hectare_is_not_read_as_one(text):
    assert doc.value_number(text) is None and doc.not_a_number(text)
    with pytest.raises(doc.DocumentInvalid, match="beyond any value of a hectare"):
        doc.read_number(text)
    raw = itinera(TEXT_VALUES)
    raw["steps"][0]["interventions"][0]["values"][0]["value"] = float(text)
    with pytest.raises(doc.DocumentInvalid) as refused:
        doc.validate_document(raw)
    assert list(refused.value.errors) == ["steps[0].interventions[0].values[0].value"]
    assert doc.value_number("1e12") == 1e12


def huge_fuel(raw):
    raw["steps"][0]["interventions"][0]["values"][2]["value"] = "1e308"
    raw["steps"][0]["interventions"][1]["values"][0]["value"] = "1e308"


def test_huge_text_values_make_no_total():
    totals = system_totals(stored(huge_fuel))
    assert "gnr" not in totals.values and "gnr" not in totals.steps[0].values
    assert all(math.isfinite(v) for s in totals.steps for v in s.values.values())


def test_the_totals_api_sends_finite_json_for_huge_text_values(client_as):
    editor = api_client(client_as, "editor")
    raw = itinera(TEXT_VALUES)
    huge_fuel(raw)
    answer = create(editor, document=raw)
    assert answer.status_code == 201, answer.get_json()
    system_id = answer.get_json()["id"]
    assert "1e308" in {n["value"] for n in answer.get_json()["not_numbers"]}
    body = editor.get(f"/api/v1/systems/{system_id}/totals").get_data(as_text=True)

    def refuse(constant):
        raise AssertionError(constant)

    assert "gnr" not in json.loads(body, parse_constant=refuse)["values"]
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    csv = editor.get(f"/systems/{system_id}.csv").get_data(as_text=True)
    assert "inf" not in page.lower().replace("info", "") and "inf" not in csv.lower()


def test_the_api_refuses_a_value_beyond_any_value_of_a_hectare(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=itinera(TEXT_VALUES)).get_json()["id"]
    body = {"step_id": "step-ble", "intervention_id": "int-moisson", "key": "gnr", "value": 5e12}
    refused = editor.post(f"/api/v1/systems/{system_id}/values", json=body, headers=editor.headers)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["code"] == "value_invalid"
    assert "beyond any value of a hectare" in refused.get_json()["error"]["message"]


def test_undoing_an_approval_gives_back_the_file_as_it_came(client_as):
    editor, reviewer = api_client(client_as, "editor"), api_client(client_as, "reviewer")
    raw = itinera(TEXT_VALUES)
    system_id = create(editor, document=raw).get_json()["id"]
    body = {"step_id": "step-ble", "intervention_id": "int-herbicide", "key": "coutsPhytos"}
    url = f"/api/v1/systems/{system_id}/values"
    approved = editor.post(url, json=body | {"reviewed": True}, headers=editor.headers)
    assert approved.get_json()["entry"]["conversation"][-1]["action"] == "approve"
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Crop protection, conversation" in page and "2 messages" in page
    group = approved.get_json()["undo_group"]
    assert reviewer.post(f"/api/v1/undo/{group}", headers=reviewer.headers).status_code == 200
    exported = json.loads(editor.get(f"/systems/{system_id}.json").get_data())

    def unstamped(part):
        # An undo is a change too: the document says when it was last changed.
        if isinstance(part, dict):
            return {k: unstamped(v) for k, v in part.items() if k != "updatedAt"}
        return [unstamped(p) for p in part] if isinstance(part, list) else part

    assert unstamped(exported) == raw
    drawer = editor.get(
        f"/systems/{system_id}/cell/drawer?step=step-ble&intervention=int-herbicide&key=coutsPhytos"
    ).get_data(as_text=True)
    assert "Approved as it stands" not in drawer


def test_undoing_an_edit_takes_its_message_back_from_the_conversation(client_as):
    editor, reviewer = api_client(client_as, "editor"), api_client(client_as, "reviewer")
    system_id = create(editor, document=itinera(TEXT_VALUES)).get_json()["id"]
    body = {"step_id": "step-ble", "intervention_id": "int-herbicide", "key": "coutsPhytos"}
    url = f"/api/v1/systems/{system_id}/values"
    editor.post(url, json=body | {"reviewed": True}, headers=editor.headers)
    edited = editor.post(url, json=body | {"value": 40}, headers=editor.headers)
    talk = edited.get_json()["entry"]["conversation"]
    assert talk[-1]["action"] == "manual_edit" and len(talk) == 3
    group = edited.get_json()["undo_group"]
    assert reviewer.post(f"/api/v1/undo/{group}", headers=reviewer.headers).status_code == 200
    back = editor.get(f"/api/v1/systems/{system_id}").get_json()
    entry = back["steps"][0]["interventions"][0]["values"][3]
    assert entry["value"] == "35.5" and len(entry["conversation"]) == 2


def test_an_assumption_beyond_any_value_of_a_hectare_gives_no_number():
    for text in ("0 à 1e308 L/ha", "1e308 à 1e308 L/ha", "2000000000000 L/ha"):
        result = Result("gnr", "L/ha")
        assert read_quantity(text, "Carburant", result) is None
        assert not result.caveats

    def labour(raw):
        work = raw["steps"][0]["interventions"][0]
        work.update(name="Labour", values=[])
        work["assumptions"] = "- **Opération**: Labour\n- **Carburant**: 0 à 1e308 L/ha"

    result = calculate_in(stored(labour), "step-ble", "int-herbicide", "gnr")
    said = " ".join(c.message for c in result.caveats)
    assert "gives no number" in said and "e308" not in said.replace("“0 à 1e308 L/ha”", "")


@pytest.mark.parametrize(
    ("value", "text"),
    [(1234567.0, "1234570"), (1.5e-6, "0.0000015"), (0.1 + 0.2, "0.3"), (21.0, "21")],
)
def test_numbers_in_calculation_steps_are_written_without_exponents(value, text):
    assert shown(value) == text
